//! Unit tests of `config`.

use super::*;
// The notices about a whole query name the page keys as known: the page reads them.
use crate::page::query_notices;
use crate::schema::Value;

#[test]
fn paper_preset_matches_the_authors_code() {
    let c = RunConfig::preset(Preset::Paper);
    assert_eq!((c.plateau.n, c.d_model, c.d_ff, c.layers, c.heads), (16, 256, 1024, 1, 1));
    assert_eq!((c.batch, c.eval_batch, c.steps), (256, 64, 400));
    assert_eq!(c.lr, 1e-4);
    assert_eq!(c.plateau.attention, Attention::Linear);
}

#[test]
fn every_param_round_trips_through_get_and_set() {
    for preset in [Preset::Paper, Preset::Interactive] {
        let cfg = RunConfig::preset(preset);
        for p in PARAMS.iter() {
            let mut copy = cfg.clone();
            let v = cfg.get(p.key).unwrap_or_else(|| panic!("no getter for {}", p.key));
            copy.set(p.key, &v).unwrap();
            assert_eq!(copy, cfg, "{}", p.key);
        }
        cfg.validate().unwrap();
    }
}

/// `validate` reads the typed values: for every numeric key, a value just past its maximum
/// written into the field (as a config file could hold it) fails, naming that key and the
/// maximum as the safe value; a NaN real fails with no safe value.
#[test]
fn validate_checks_each_typed_value_against_its_kind() {
    let base = RunConfig::preset(Preset::Paper);
    for p in PARAMS.iter().filter(|p| p.key != "preset") {
        let mut cfg = base.clone();
        let expected = match p.kind {
            Kind::Int { max, .. } => {
                p.field.assign(&mut cfg, &Value::Int(max + 1));
                max.to_string()
            }
            Kind::Float { max, .. } => {
                p.field.assign(&mut cfg, &Value::Float(max * 2.0 + 1.0));
                fmt_f64(max)
            }
            Kind::Choice(_) => continue,
        };
        if p.key == "experiment" {
            continue;
        }
        let err = cfg.validate().expect_err(p.key);
        assert_eq!((err.key.as_str(), err.safe.as_deref()), (p.key, Some(expected.as_str())), "{err}");
    }
    let mut cfg = base.clone();
    cfg.lr = f64::NAN;
    let err = cfg.validate().unwrap_err();
    assert_eq!((err.key.as_str(), err.safe), ("lr", None));
    let mut cfg = base;
    cfg.heads = 3;
    assert_eq!(cfg.validate().unwrap_err().key, "heads", "heads divide d-model");
}

#[test]
fn out_of_range_is_rejected_with_a_clamped_safe_value() {
    let mut cfg = RunConfig::default();
    let err = cfg.set("c", "1000").unwrap_err();
    assert_eq!(err.safe.as_deref(), Some("100"));
    assert_eq!(cfg.plateau.c, 1.0, "strict set leaves the value unchanged");
    let notice = cfg.set_lenient("c", "1000").unwrap();
    assert!(notice.to_string().contains("'c'"));
    assert_eq!(cfg.plateau.c, 100.0);
    assert!(cfg.set_lenient("lr", "NaN").is_some());
    assert_eq!(cfg.lr, 1e-3);
    assert!(cfg.set("nope", "1").unwrap_err().safe.is_none());
    assert!(cfg.set("attention", "<script>").is_err());
}

#[test]
fn url_decoding_handles_escapes_plus_and_broken_sequences() {
    assert_eq!(url_decode("a+b%20c"), "a b c");
    assert_eq!(url_decode("%3Cscript%3E"), "<script>");
    assert_eq!(url_decode("%C3%A9"), "é");
    assert_eq!(url_decode("100%"), "100%");
    assert_eq!(url_decode("%zz%4"), "%zz%4");
    assert_eq!(url_decode("%FF"), "\u{FFFD}");
}

#[test]
fn queries_apply_leniently_with_notices() {
    let (cfg, notes) = from_query("?c=2.5&seed=abc&backend=cpu&gamma=%2B0.7&experiment=anchors");
    assert_eq!(cfg.experiment, Task::Anchors);
    assert_eq!(cfg.anchors.gamma, 0.7, "%2B decodes to '+', and '+0.7' parses");
    assert_eq!(cfg.plateau.c, 2.5);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].key, "seed");
}

#[test]
fn urls_and_json_round_trip_every_chapter() {
    for task in [Task::MWS, Task::PREFIX_SUM, Task::Anchors, Task::Syntax] {
        for preset in [Preset::Interactive, Preset::Paper] {
            let mut cfg = RunConfig::defaults(task, preset);
            cfg.seed = 42;
            cfg.lr = 0.00037;
            let q = to_query(&cfg);
            assert!(q.starts_with("v=4"), "{q}");
            let (back, notes) = from_query(&q);
            assert!(notes.is_empty() && query_notices(&q).is_empty(), "{q}: {notes:?}");
            assert_eq!(back, cfg, "{q}");
            let (back, notes) = from_json(&to_json(&cfg)).unwrap();
            assert!(notes.is_empty(), "{notes:?}");
            assert_eq!(back, cfg);
        }
    }
    assert_eq!(to_query(&RunConfig::default()), "v=4");
}

#[test]
fn page_notices_name_unknown_keys_and_versions() {
    let n = query_notices("?v=5&backend=cpu&hide=prose&frobnicate=1&c=2");
    assert_eq!(n.len(), 2, "{n:?}");
    assert!(n[0].contains("version \"5\""));
    assert!(n[1].contains("unknown URL parameter \"frobnicate\""));
    assert!(from_json("[1]").is_err());
    assert!(from_json("{").is_err());
    let (cfg, notes) = from_json(r#"{"experiment": "syntax", "lambda": 7, "colour": "red"}"#).unwrap();
    assert_eq!((cfg.experiment, cfg.syntax.lambda), (Task::Syntax, 1.0));
    assert_eq!(notes.len(), 2, "{notes:?}");
}

#[test]
fn a_clamped_value_still_passes_the_cross_checks() {
    // Found by tests/fuzz.rs: heads clamps to 16, then d-model clamps to 8, which 16 heads do
    // not divide; the lenient path must keep a valid pair and say what it used.
    let (cfg, notes) = from_query("heads=4294967296&d-model=-5");
    cfg.validate().unwrap();
    assert_eq!((cfg.heads, cfg.d_model), (16, 64));
    assert_eq!(notes.len(), 2);
    assert!(notes[1].to_string().ends_with("using 64"), "{}", notes[1]);
}

#[test]
fn set_all_checks_heads_against_the_final_width_in_any_order() {
    for pairs in [[("heads", "3"), ("d-model", "48")], [("d-model", "48"), ("heads", "3")]] {
        let mut cfg = RunConfig::default();
        cfg.set_all(pairs).unwrap();
        assert_eq!((cfg.heads, cfg.d_model), (3, 48));
    }
    // chapter 3 starts with 4 heads: 30 wide with 3 heads is fine once both are read
    let mut cfg = RunConfig::defaults(Task::Syntax, Preset::Interactive);
    cfg.set_all([("d-model", "30"), ("heads", "3")]).unwrap();
    assert_eq!((cfg.heads, cfg.d_model), (3, 30));
    // a final pair that does not divide is refused and changes nothing
    let mut cfg = RunConfig::default();
    let e = cfg.set_all([("heads", "3"), ("d-model", "64"), ("seed", "5")]).unwrap_err();
    assert_eq!((e.key.as_str(), e.value.as_str()), ("d-model", "64"));
    assert_eq!(cfg, RunConfig::default());
    // the experiment applies first, wherever it stands
    let mut cfg = RunConfig::default();
    cfg.set_all([("lambda", "0.2"), ("experiment", "syntax")]).unwrap();
    assert_eq!((cfg.experiment, cfg.syntax.lambda), (Task::Syntax, 0.2));
}

#[test]
fn the_memory_budget_refuses_what_cannot_fit_and_keeps_every_preset() {
    // Every chapter's presets fit: tests/registry.rs, which knows each chapter's shape.
    // chapter 1's paper preset by hand: 1 layer, d 256, d_ff 1024, T 32 (the 2n positions the model
    // reads of its 2n + 1 tokens), V 18, batch 256
    let shape = Shape { positions: 32, vocab: 18 };
    let p = RunConfig::preset(Preset::Paper);
    let params =
        2.0 * 18.0 * 256.0 + 32.0 * 256.0 + (4.0 * 256.0 * 256.0 + 2.0 * 256.0 * 1024.0 + 2560.0 + 1024.0) + 512.0;
    let acts = 256.0 * 32.0 * (12.0 * 256.0 + 3.0 * 1024.0 + 3.0 * 32.0) + 3.0 * 256.0 * 32.0 * 18.0;
    let eval = 64.0 * 32.0 * (4.0 * 256.0 + 1024.0 + 18.0);
    assert!((p.memory_estimate(shape) - 4.0 * (4.0 * params + acts + eval)).abs() < 1.0);
    // the issue's examples: every maximum at once natively, and the page's shared link
    let (huge, notes) = from_query("batch=4096&n=32&d-ff=4096&d-model=1024&layers=8");
    assert!(notes.is_empty(), "{notes:?}");
    let e = huge.check_memory(Shape { positions: 64, vocab: 18 }, 8e9).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("this configuration needs about"), "{msg}");
    assert!(msg.contains("batch (4096)") && msg.contains("d-model (1024)") && msg.contains("layers (8)"), "{msg}");
    let (link, _) = from_query("backend=webgpu&batch=2048&n=32&d-ff=4096&steps=3");
    let msg = link.check_memory(Shape { positions: 64, vocab: 18 }, 1e9).unwrap_err().to_string();
    assert!(msg.contains("batch (2048)") && msg.contains("n (32)") && msg.contains("d-ff (4096)"), "{msg}");
    assert!(!msg.contains("layers"), "only the keys above their default: {msg}");
}

/// The page's one path for a value the reader sets: the value in the context of the whole config,
/// a rejected value replaced by its safe value with a notice, a preset or chapter keeping the seed.
#[test]
fn an_edit_reads_like_a_link_with_one_value_changed() {
    let mut cfg = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    cfg.seed = 7;
    cfg.lr = 0.002;
    let (g, notes) = edit(&cfg, "gamma", "0.5");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(
        g,
        RunConfig { anchors: anchors::Knobs { gamma: 0.5, ..cfg.anchors.clone() }, ..cfg.clone() },
        "one value changed, the others kept"
    );
    assert_eq!(to_query(&g), "v=4&experiment=anchors&seed=7&lr=0.002&gamma=0.5");
    // Out of range: the safe value (the range's end) and a notice naming the key.
    let (g, notes) = edit(&cfg, "gamma", "9");
    assert_eq!(g.anchors.gamma, 1.5);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].key, "gamma");
    // Heads that do not divide the width: the current value stays, with a notice.
    let (h, notes) = edit(&cfg, "heads", "3");
    assert_eq!((h.heads, notes.len()), (cfg.heads, 1));
    // A preset keeps the chapter and the seed, nothing else.
    let (p, notes) = edit(&cfg, "preset", "paper");
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(p, RunConfig { seed: 7, ..RunConfig::defaults(Task::Anchors, Preset::Paper) });
    // Another chapter keeps the seed and the preset.
    let (c, _) = edit(&cfg, "experiment", "syntax");
    assert_eq!(c, RunConfig { seed: 7, ..RunConfig::defaults(Task::Syntax, Preset::Interactive) });
    // Chapter 1's other task keeps chapter 1's values.
    let (m, _) = edit(
        &RunConfig { plateau: plateau::Knobs { c: 2.5, ..plateau::Knobs::NEUTRAL }, ..RunConfig::default() },
        "experiment",
        "prefix-sum",
    );
    assert_eq!((m.experiment, m.plateau.c), (Task::PREFIX_SUM, 2.5));
    // A value that does not parse keeps the current one.
    let (x, notes) = edit(&cfg, "lr", "fast");
    assert_eq!((x.lr, notes.len()), (0.002, 1));
}

#[test]
fn url_pairs_read_heads_and_width_together() {
    for q in ["heads=3&d-model=48", "d-model=48&heads=3"] {
        let (cfg, notes) = from_query(q);
        assert!(notes.is_empty(), "{q}: {notes:?}");
        assert_eq!((cfg.heads, cfg.d_model), (3, 48), "{q}");
    }
    // a pair that cannot agree: one key at a time, with a notice, never an invalid config
    let (cfg, notes) = from_query("heads=3&d-model=64");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(cfg.d_model % cfg.heads, 0);
}

#[test]
fn heads_must_divide_width() {
    let mut cfg = RunConfig::default();
    assert!(cfg.set("heads", "3").is_err());
    assert_eq!(cfg.heads, 1);
}

#[test]
fn pairs_apply_preset_first_and_list_only_non_defaults() {
    let mut cfg = RunConfig::default();
    let notes = cfg.apply_pairs([("c", "2.5"), ("preset", "paper"), ("seed", "x")]);
    assert_eq!(cfg.preset, Preset::Paper);
    assert_eq!(cfg.plateau.c, 2.5);
    assert_eq!(notes.len(), 1);
    assert_eq!(
        cfg.non_default_pairs(),
        vec![("preset".to_string(), "paper".to_string()), ("c".to_string(), "2.5".to_string())]
    );
}

#[test]
fn version_1_links_keep_the_defaults_they_were_written_against() {
    // Chapter 2's interactive γ was 0.8 until URL version 2.
    assert_eq!(RunConfig::defaults(Task::Anchors, Preset::Interactive).anchors.gamma, 0.7);
    assert_eq!(RunConfig::defaults(Task::Anchors, Preset::Paper).anchors.gamma, 0.8);
    let old = |q: &str| {
        let (cfg, notes) = from_query(q);
        assert!(notes.is_empty() && query_notices(q).is_empty(), "{q}: {notes:?}");
        cfg
    };
    assert_eq!(old("v=1&experiment=anchors").anchors.gamma, 0.8);
    assert_eq!(old("?experiment=anchors&seed=3&v=1").anchors.gamma, 0.8, "v anywhere in the query");
    assert_eq!(old("v=1&experiment=anchors&gamma=0.3").anchors.gamma, 0.3, "a γ the link names is kept");
    assert_eq!(old("v=1&experiment=anchors&preset=paper").anchors.gamma, 0.8);
    assert_eq!(old("v=2&experiment=anchors").anchors.gamma, 0.7);
    assert_eq!(old("experiment=anchors").anchors.gamma, 0.7, "a link without a version reads today's defaults");
    assert_eq!(old("v=1&c=2.5"), old("v=3&c=2.5"), "chapter 1 did not change");
    // Today's writer round-trips, and an old link rewritten names its γ.
    let cfg = old("v=1&experiment=anchors&seed=4");
    assert_eq!(to_query(&cfg), "v=4&experiment=anchors&seed=4&shards=1&gamma=0.8");
    assert_eq!(old(&to_query(&cfg)), cfg);
    assert_eq!(query_notices("v=9").len(), 1);
}

#[test]
fn version_3_links_keep_chapter_2_on_one_shard() {
    // Chapter 2's interactive default trained one shard until URL version 4, four since.
    let old = |q: &str| from_query(q).0;
    assert_eq!(RunConfig::defaults(Task::Anchors, Preset::Interactive).shards, 4);
    assert_eq!(RunConfig::defaults(Task::Anchors, Preset::Paper).shards, 1, "the paper preset keeps one");
    assert_eq!(old("v=3&experiment=anchors").shards, 1);
    assert_eq!(old("v=1&experiment=anchors").shards, 1);
    assert_eq!(old("v=3&experiment=anchors&shards=2").shards, 2, "a value the link names is kept");
    assert_eq!(old("v=4&experiment=anchors").shards, 4);
    assert_eq!(old("experiment=anchors").shards, 4);
    assert_eq!(old("v=3&c=2").shards, 1, "chapter 1 keeps one shard");
    let cfg = old("v=3&experiment=anchors&seed=2");
    assert_eq!(to_query(&cfg), "v=4&experiment=anchors&seed=2&shards=1");
    assert_eq!(old(&to_query(&cfg)), cfg);
}

#[test]
fn version_2_links_keep_chapter_3_on_the_agreement_grammar() {
    // Chapter 3's interactive default was the agreement grammar on 2 layers until URL version 3.
    let now = RunConfig::defaults(Task::Syntax, Preset::Interactive);
    assert_eq!((now.syntax.grammar, now.layers), (Grammar::Nested, 1));
    assert_eq!(RunConfig::defaults(Task::Syntax, Preset::Paper), RunConfig::syntax_agreement(Preset::Paper));
    let old = |q: &str| {
        let (cfg, notes) = from_query(q);
        assert!(notes.is_empty() && query_notices(q).is_empty(), "{q}: {notes:?}");
        cfg
    };
    let agreement = RunConfig::syntax_agreement(Preset::Interactive);
    assert_eq!(old("v=2&experiment=syntax"), agreement);
    assert_eq!(old("v=1&experiment=syntax"), agreement, "version 1 links too");
    assert_eq!(
        old("v=2&experiment=syntax&lambda=0.1"),
        RunConfig { syntax: syntax::Knobs { lambda: 0.1, ..agreement.syntax.clone() }, ..agreement.clone() }
    );
    let named = old("v=2&experiment=syntax&grammar=dyck&layers=3");
    assert_eq!((named.syntax.grammar, named.layers), (Grammar::Dyck, 3), "values the link names are kept");
    assert_eq!(old("v=2&experiment=syntax&preset=paper"), RunConfig::syntax_agreement(Preset::Paper));
    assert_eq!(old("v=3&experiment=syntax"), now);
    assert_eq!(old("experiment=syntax"), now, "a link without a version reads today's defaults");
    // An old link rewritten names the old language and depth, and reads back the same.
    let cfg = old("v=2&experiment=syntax&seed=4");
    assert_eq!(to_query(&cfg), "v=4&experiment=syntax&seed=4&layers=2&grammar=agreement");
    assert_eq!(old(&to_query(&cfg)), cfg);
}

#[test]
fn the_batch_and_the_shards_are_read_together_and_a_strict_set_never_breaks_their_rule() {
    let ch2 = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    // A strict set that breaks the rule is refused, naming what is allowed; the config is unchanged.
    let mut c = ch2.clone();
    let err = c.set("batch", "90").unwrap_err();
    assert_eq!((err.key.as_str(), err.safe.as_deref()), ("batch", Some("512")));
    assert!(err.allowed.contains("a multiple of the shards (4)"), "{}", err.allowed);
    assert_eq!(c, ch2);
    assert!(c.set("shards", "3").is_err() && c == ch2);
    c.set("batch", "128").unwrap();
    // A link reads both keys together, in either order; a batch alone falls back to one shard.
    let read = |q: &str| from_query(q);
    for q in ["v=4&experiment=anchors&batch=90&shards=1", "v=4&experiment=anchors&shards=1&batch=90"] {
        let (cfg, notes) = read(q);
        assert_eq!((cfg.batch, cfg.shards, notes.len()), (90, 1, 0), "{q}: {notes:?}");
    }
    let (cfg, notes) = read("v=4&experiment=anchors&batch=90");
    assert_eq!((cfg.batch, cfg.shards), (90, 1));
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].key, "shards");
    // A version 3 link trained one shard: its batch stands, without a notice.
    let (cfg, notes) = read("v=3&experiment=anchors&batch=90");
    assert_eq!((cfg.batch, cfg.shards, notes.len()), (90, 1, 0), "{notes:?}");
}

/// Each chapter's section is flattened: a config's JSON is one object whose keys are exactly the
/// schema's, each holding the value `get` reads, and it reads back to the same config; a
/// chapter's knobs are listed as changing that chapter's runs alone.
#[test]
fn chapter_sections_flatten_into_one_object_of_the_schemas_keys() {
    let schema: std::collections::BTreeSet<&str> = PARAMS.iter().map(|p| p.key).collect();
    assert_eq!(schema.len(), PARAMS.len(), "every key once");
    for task in Task::all() {
        for preset in [Preset::Paper, Preset::Interactive] {
            let cfg = RunConfig::defaults(task, preset);
            let json = serde_json::to_value(&cfg).unwrap();
            let obj = json.as_object().unwrap();
            assert_eq!(obj.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(), schema);
            for p in PARAMS.iter() {
                let text = cfg.get(p.key).unwrap();
                match &obj[p.key] {
                    serde_json::Value::String(s) => assert_eq!(s, &text, "{}", p.key),
                    v => assert_eq!(v.as_f64(), text.parse::<f64>().ok(), "{}", p.key),
                }
            }
            assert_eq!(serde_json::from_value::<RunConfig>(json).unwrap(), cfg);
        }
    }
    for p in PARAMS.iter() {
        let own = match p.field {
            Place::Run(_) => continue,
            Place::Plateau(_) => chapters::ChapterId::Plateau,
            Place::Anchors(_) => chapters::ChapterId::Init,
            Place::Syntax(_) => chapters::ChapterId::Syntax,
            Place::Lm(_) => chapters::ChapterId::Text,
        };
        assert_eq!(p.chapters, &[own.number()], "{}", p.key);
    }
    assert_eq!(spec("gamma").map(|p| p.chapters), Some(&[2u8][..]));
}
