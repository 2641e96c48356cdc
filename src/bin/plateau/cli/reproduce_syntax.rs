//! `plateau reproduce --experiment syntax`: the four conditions, the `--search` for a plateau, the
//! `--design` search of languages and the `--copy` agreement runs (issue 52).

use super::shared::{change_text, int_flag, list_flag, seed_list, subset_flag, written_by, MAX_STEPS};
use super::sweep::{Sweep, SYNTAX_RUNS};
use super::tables::SYNTAX_DESIGN;
use super::{CliError, Flags};
use plateau::config::Preset;
use plateau::config::RunConfig;
use std::process::ExitCode;
/// The chapter 3 search for a plateau (issue #18): each configuration changes what plausibly
/// creates one, starting from the agreement grammar's interactive configuration
/// ([`RunConfig::syntax_agreement`], the chapter's default when the search ran). `(slug, name, changes)`.
pub(super) const SYNTAX_SEARCH: &[(&str, &str, super::reproduce_anchors::Pairs)] = &[
    ("default", "the interactive default", &[]),
    ("lr3e-4", "learning rate 3·10⁻⁴", &[("lr", "0.0003")]),
    ("lr3e-3", "learning rate 3·10⁻³", &[("lr", "0.003")]),
    ("warmup", "200-step warm-up", &[("warmup", "200")]),
    ("batch256", "batch 256", &[("batch", "256")]),
    ("layers4", "4 layers", &[("layers", "4")]),
    ("layers1", "1 layer", &[("layers", "1")]),
    ("heads1", "1 head per layer", &[("heads", "1")]),
    ("wide", "width 128", &[("d-model", "128"), ("d-ff", "512")]),
    ("nowd", "no weight decay", &[("weight-decay", "0")]),
    ("lexicon3", "3 words per open class", &[("lexicon", "3")]),
    ("lexicon1", "1 word per open class", &[("lexicon", "1")]),
    ("heads8", "8 heads per layer", &[("heads", "8")]),
    ("lex1-slow", "1 word per open class, learning rate 3·10⁻⁴", &[("lexicon", "1"), ("lr", "0.0003")]),
    (
        "big-slow",
        "4 layers × 8 heads, width 128, learning rate 3·10⁻⁴, 3000 steps",
        &[("layers", "4"), ("heads", "8"), ("d-model", "128"), ("d-ff", "512"), ("lr", "0.0003"), ("steps", "3000")],
    ),
];

/// Issue 52's reference configuration of the copy-agreement language, as changes to the
/// agreement grammar's interactive configuration (2 layers × 4 heads, d 64, d_ff 256, lr 10⁻³,
/// weight decay 0.01 already): the language, batch 128, a 100-step warm-up, 5000 steps.
pub(super) const COPY_REFERENCE: super::reproduce_anchors::Pairs =
    &[("grammar", "copy"), ("batch", "128"), ("warmup", "100"), ("steps", "5000")];

/// The copy-agreement runs (issue 52 item 2): the reference configuration ([`COPY_REFERENCE`]),
/// then one factor at a time from it. `(slug, name, folder, changes from the reference)`.
pub(super) const COPY_CONFIGS: &[(&str, &str, &str, super::reproduce_anchors::Pairs)] = &[
    ("reference", "the reference configuration", "syntax-copy", &[]),
    ("lr3e-3", "learning rate 3·10⁻³", "syntax-copy", &[("lr", "0.003")]),
    ("lr3e-4", "learning rate 3·10⁻⁴", "syntax-copy", &[("lr", "0.0003")]),
    ("batch256", "batch 256", "syntax-copy", &[("batch", "256")]),
    ("heads1", "1 head per layer", "syntax-copy", &[("heads", "1")]),
    ("layers3", "3 layers", "syntax-copy", &[("layers", "3")]),
    ("wide", "width 128", "syntax-copy", &[("d-model", "128"), ("d-ff", "512")]),
    ("flat-out", "output projections N(0, 0.02²) as the reference toy", "syntax-copy", &[("flat-out", "1")]),
    ("qk0.1", "W_q, W_k drawn with 0.1 × the std", "syntax-copy", &[("qk-init", "0.1")]),
    ("qk0.01", "W_q, W_k drawn with 0.01 × the std", "syntax-copy", &[("qk-init", "0.01")]),
    ("qk0.001", "W_q, W_k drawn with 0.001 × the std", "syntax-copy", &[("qk-init", "0.001")]),
    (
        "mask-only",
        "every masked word replaced by MASK, as in the reference toy",
        "syntax-copy",
        &[("mask-only", "1"), ("steps", "3000")],
    ),
    (
        "mask-only-flat-out",
        "every masked word replaced by MASK and the output projections N(0, 0.02²), both as the reference toy",
        "syntax-copy",
        &[("mask-only", "1"), ("flat-out", "1"), ("steps", "3000")],
    ),
    (
        "mask-only-suppress",
        "the same, suppressed on every verb-unit word with its subject unit (λ = 0.1, sas-unit 1)",
        "syntax-copy",
        &[("mask-only", "1"), ("steps", "3000"), ("lambda", "0.1"), ("sas-unit", "1")],
    ),
    (
        "mask-only-promote",
        "the same, promoted on every verb-unit word with its subject unit (λ = −0.1, sas-unit 1)",
        "syntax-copy",
        &[("mask-only", "1"), ("steps", "3000"), ("lambda", "-0.1"), ("sas-unit", "1")],
    ),
    (
        "mask-only-brief",
        "the same, suppressed on every verb-unit word with its subject unit until step 1000 (sas-unit 1)",
        "syntax-copy",
        &[("mask-only", "1"), ("steps", "3000"), ("lambda", "0.1"), ("sas-unit", "1"), ("lambda-until", "1000")],
    ),
    ("decoys2", "2 decoy class tokens per sentence", "syntax-copy", &[("decoys", "2"), ("steps", "2500")]),
    ("repeat", "classes drawn with repetition", "syntax-copy", &[("repeat-classes", "1"), ("steps", "2500")]),
    (
        "decoys2-repeat",
        "2 decoys and classes drawn with repetition",
        "syntax-copy",
        &[("decoys", "2"), ("repeat-classes", "1"), ("steps", "2500")],
    ),
    ("decoys4", "4 decoy class tokens per sentence", "syntax-copy", &[("decoys", "4"), ("steps", "2500")]),
    (
        "decoys2-qk0.01",
        "2 decoys and W_q, W_k drawn with 0.01 × the std",
        "syntax-copy",
        &[("decoys", "2"), ("qk-init", "0.01"), ("steps", "2500")],
    ),
    (
        "decoys2-qk0.01-suppress",
        "the same, suppressed (λ = 0.1 on each slot's pairs with its subject unit)",
        "syntax-copy",
        &[("decoys", "2"), ("qk-init", "0.01"), ("steps", "2500"), ("lambda", "0.1")],
    ),
    (
        "decoys2-qk0.01-suppress-unit",
        "the same, suppressed on every verb-unit word with its subject unit (sas-unit 1)",
        "syntax-copy",
        &[("decoys", "2"), ("qk-init", "0.01"), ("steps", "2500"), ("lambda", "0.1"), ("sas-unit", "1")],
    ),
    (
        "decoys2-qk0.01-promote",
        "the same, promoted on every verb-unit word with its subject unit (λ = −0.1, sas-unit 1)",
        "syntax-copy",
        &[("decoys", "2"), ("qk-init", "0.01"), ("steps", "2500"), ("lambda", "-0.1"), ("sas-unit", "1")],
    ),
    (
        "decoys2-qk0.01-brief",
        "the same, suppressed on every verb-unit word with its subject unit until step 1000 (sas-unit 1)",
        "syntax-copy",
        &[
            ("decoys", "2"),
            ("qk-init", "0.01"),
            ("steps", "2500"),
            ("lambda", "0.1"),
            ("sas-unit", "1"),
            ("lambda-until", "1000"),
        ],
    ),
    ("decoys2-b64", "2 decoys and batch 64", "syntax-copy", &[("decoys", "2"), ("batch", "64"), ("steps", "2500")]),
    (
        "decoys2-qk0.01-b64",
        "2 decoys, W_q, W_k drawn with 0.01 × the std and batch 64",
        "syntax-copy",
        &[("decoys", "2"), ("qk-init", "0.01"), ("batch", "64"), ("steps", "2500")],
    ),
];

/// The copy-agreement configuration the page offers (issue 52 item 3: no configuration qualified as
/// chapter 3's default), chosen by the search of [`COPY_CONFIGS`]: its slug there. The page's
/// link and its time in the browser come from `plateau bench --suite copy`.
pub(super) const PAGE_COPY_CONFIG: &str = "mask-only";

/// [`PAGE_COPY_CONFIG`]'s name and config ([`copy_reference`] with its changes).
pub(super) fn page_copy_config() -> Result<(String, RunConfig), CliError> {
    let (_, name, _, changes) = COPY_CONFIGS
        .iter()
        .find(|c| c.0 == PAGE_COPY_CONFIG)
        .ok_or_else(|| CliError(format!("no copy configuration {PAGE_COPY_CONFIG:?}")))?;
    let mut cfg = copy_reference()?;
    for (k, v) in *changes {
        cfg.set(k, v)?;
    }
    Ok((name.to_string(), cfg))
}

/// The finished runs of one configuration of a chapter 3 sweep: its name, its change (as flags),
/// its steps and each run's summary.
type Cell<T> = (String, String, usize, Vec<T>);

/// Trains (or reads back) every configuration × seed of a chapter 3 sweep into
/// `{csv-dir}/{folder}/{slug}-seed{s}`, each `base` with its changes, `--configs` choosing which
/// may train; returns the finished runs per configuration, each summarized by `summarize(rows,
/// slug, seed, wall seconds)`.
fn run_cells<T>(
    flags: &Flags,
    base: &RunConfig,
    list: &[(&str, &str, &str, super::reproduce_anchors::Pairs)],
    sweep: &mut Sweep,
    summarize: impl Fn(&[plateau::chapters::syntax::SyntaxRow], &str, u64, f64) -> T,
) -> Result<Vec<Cell<T>>, CliError> {
    let seeds = seed_list(flags, "0,1,2")?;
    let root = flags.get("csv-dir").unwrap_or("results");
    let only = subset_flag(flags, "configs", "configuration", &list.iter().map(|a| a.0).collect::<Vec<_>>())?;
    let mut cells = vec![];
    for (slug, name, folder, changes) in list {
        let dir = format!("{root}/{folder}");
        std::fs::create_dir_all(&dir)?;
        let train_this = only.as_ref().is_none_or(|o| o.contains(slug));
        let mut cell = (name.to_string(), change_text(changes), base.steps, vec![]);
        for &seed in &seeds {
            let mut cfg = base.clone();
            for (k, v) in *changes {
                cfg.set(k, v)?;
            }
            cfg.seed = seed;
            cell.2 = cfg.steps;
            let stem = format!("{dir}/{slug}-seed{seed}");
            let label = format!("{slug} seed={seed}");
            if let Some((rows, secs)) = sweep.run(&SYNTAX_RUNS, &cfg, &stem, &label, train_this)? {
                cell.3.push(summarize(&rows, slug, seed, secs));
            }
        }
        if !cell.3.is_empty() {
            cells.push(cell);
        }
    }
    Ok(cells)
}

/// [`run_cells`] from the agreement grammar's interactive configuration, each run summarized by
/// [`plateau::chapters::syntax::summary::summarize_syntax`].
fn syntax_cells(
    flags: &Flags,
    list: &[(&str, &str, &str, super::reproduce_anchors::Pairs)],
    sweep: &mut Sweep,
) -> Result<Vec<plateau::chapters::syntax::summary::SearchCell>, CliError> {
    use plateau::chapters::syntax::summary as r;
    let base = RunConfig::syntax_agreement(Preset::Interactive);
    let cells = run_cells(flags, &base, list, sweep, |rows, slug, seed, secs| {
        r::summarize_syntax(rows, slug, (0.0, 0, 0), seed, secs)
    })?;
    Ok(cells.into_iter().map(|(name, change, steps, runs)| r::SearchCell { name, change, steps, runs }).collect())
}

/// The reference configuration of the copy-agreement language ([`COPY_REFERENCE`]).
pub(super) fn copy_reference() -> Result<RunConfig, CliError> {
    let mut cfg = RunConfig::syntax_agreement(Preset::Interactive);
    for (k, v) in COPY_REFERENCE {
        cfg.set(k, v)?;
    }
    Ok(cfg)
}

/// `plateau reproduce --experiment syntax --copy [--configs a,b] [--finished-only]`: every
/// configuration of [`COPY_CONFIGS`] × seeds; writes the `chapter3-copy` section.
pub(super) fn reproduce_syntax_copy(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::syntax::summary as r;
    let base = copy_reference()?;
    let mut sweep = Sweep::from_flags(flags)?;
    let kind = sweep.kind;
    let cells =
        run_cells(flags, &base, COPY_CONFIGS, &mut sweep, |rows, _, seed, secs| r::summarize_copy(rows, seed, secs))?;
    if let Some(done) = sweep.finish(cells.len()) {
        return done;
    }
    let cells: Vec<r::CopyCell> =
        cells.into_iter().map(|(name, change, steps, runs)| r::CopyCell { name, change, steps, runs }).collect();
    let dir = format!("{}/syntax-copy", flags.get("csv-dir").unwrap_or("results"));
    let paragraph = r::copy_page_paragraph(&cells);
    let body = r::copy_section(&written_by(args, kind), &dir, &base, &cells, &paragraph);
    sweep.publish(flags, "chapter3-copy", &body, Some(("chapter3-copy-findings", &paragraph)))
}

/// `plateau reproduce --experiment syntax --design [--configs a,b] [--finished-only]`: every
/// language of [`SYNTAX_DESIGN`] × seeds; writes the `chapter3-design` section.
pub(super) fn reproduce_syntax_design(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::syntax::summary as r;
    let mut sweep = Sweep::from_flags(flags)?;
    let kind = sweep.kind;
    let cells = syntax_cells(flags, SYNTAX_DESIGN, &mut sweep)?;
    if let Some(done) = sweep.finish(cells.len()) {
        return done;
    }
    let base = RunConfig::syntax_agreement(Preset::Interactive);
    let paragraph = r::design_page_paragraph(&cells);
    let body = r::design_section(&written_by(args, kind), &base, &cells, &paragraph);
    sweep.publish(flags, "chapter3-design", &body, Some(("chapter3-design-findings", &paragraph)))
}

/// `plateau reproduce --experiment syntax --search [--configs a,b] [--finished-only]`: every
/// configuration of [`SYNTAX_SEARCH`] × seeds (finished runs are read back); writes the
/// `chapter3-search` section.
pub(super) fn reproduce_syntax_search(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::syntax::summary as r;
    let dir = format!("{}/syntax-search", flags.get("csv-dir").unwrap_or("results"));
    let list: Vec<(&str, &str, &str, super::reproduce_anchors::Pairs)> =
        SYNTAX_SEARCH.iter().map(|&(slug, name, changes)| (slug, name, "syntax-search", changes)).collect();
    let mut sweep = Sweep::from_flags(flags)?;
    let kind = sweep.kind;
    let cells = syntax_cells(flags, &list, &mut sweep)?;
    if let Some(done) = sweep.finish(cells.len()) {
        return done;
    }
    let base = RunConfig::syntax_agreement(Preset::Interactive);
    let paragraph = r::search_page_paragraph(&cells);
    let body = r::search_section(&written_by(args, kind), &dir, &base, &cells, &paragraph);
    sweep.publish(flags, "chapter3-search", &body, Some(("chapter3-search-findings", &paragraph)))
}

/// `plateau reproduce --experiment syntax`: baseline, suppress, promote and brief suppression
/// over seeds; one CSV per run (finished runs of the same config and backend are read back, not
/// trained again); the chapter 3 section.
pub(super) fn reproduce_syntax(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::syntax::summary as r;
    if flags.get("design").is_some() {
        return reproduce_syntax_design(flags, args);
    }
    if flags.get("copy").is_some() {
        return reproduce_syntax_copy(flags, args);
    }
    if flags.get("search").is_some() {
        return reproduce_syntax_search(flags, args);
    }
    let seeds = seed_list(flags, "0,1,2")?;
    let strength = list_flag(flags, "strength", "0.1")?[0];
    let brief = int_flag(flags, "brief-until", 200, 1, MAX_STEPS)? as usize;
    let base = flags.cfg.clone();
    let variant = syntax_variant(&base);
    let csv_dir = match flags.get("csv-dir") {
        Some(d) => d.to_string(),
        None if variant.is_empty() => "results".to_string(),
        None => format!("results/syntax{variant}"),
    };
    let mut sweep = Sweep::from_flags(flags)?;
    let kind = sweep.kind;
    std::fs::create_dir_all(&csv_dir)?;
    let conditions = [
        ("baseline", 0.0, 0, 1_000_000),
        ("suppress", strength, 0, 1_000_000),
        ("promote", -strength, 0, 1_000_000),
        ("brief suppression", strength, 0, brief),
    ];
    let mut runs = vec![];
    for (name, lambda, from, until) in conditions {
        for &seed in &seeds {
            let mut cfg = base.clone();
            cfg.set("lambda", &lambda.to_string())?;
            cfg.set("lambda-from", &from.to_string())?;
            cfg.set("lambda-until", &until.to_string())?;
            cfg.seed = seed;
            let stem = format!("{csv_dir}/{}-syntax-{}-seed{seed}", cfg.preset.name(), name.replace(' ', "-"));
            let label = format!("{name} seed={seed}");
            if let Some((rows, secs)) = sweep.run(&SYNTAX_RUNS, &cfg, &stem, &label, true)? {
                runs.push(r::summarize_syntax(&rows, name, (lambda, from, until), seed, secs));
            }
        }
    }
    if let Some(done) = sweep.finish(runs.len()) {
        return done;
    }
    let name = format!("chapter3-{}{variant}-syntax", base.preset.name());
    let page_default = base.preset == Preset::Interactive
        && RunConfig {
            seed: 0,
            syntax: plateau::chapters::syntax::knobs::Knobs {
                lambda: 0.0,
                lambda_from: 0,
                lambda_until: 1_000_000,
                ..base.syntax.clone()
            },
            ..base.clone()
        } == RunConfig::defaults(plateau::config::Task::Syntax, Preset::Interactive);
    let paragraph = r::syntax_page_paragraph(&runs, base.syntax.grammar);
    let body =
        r::syntax_section(&written_by(args, kind), &base, &csv_dir, &runs, page_default.then_some(paragraph.as_str()));
    sweep.publish(flags, &name, &body, page_default.then_some(("chapter3-findings", paragraph.as_str())))
}

/// The language and model of a chapter 3 run where they differ from the agreement grammar's
/// configuration of its preset ([`RunConfig::syntax_agreement`], the first default, so that the
/// names of sections written before the default moved stay), as the λ section's name and its
/// default CSV folder have them: "" for that configuration, "-nested-1layer" for the nested
/// language on one layer (today's interactive default), so each language keeps a section of its own.
fn syntax_variant(cfg: &RunConfig) -> String {
    let d = RunConfig::syntax_agreement(cfg.preset);
    let mut v = String::new();
    if cfg.syntax.grammar != d.syntax.grammar {
        v.push_str(&format!("-{}", cfg.syntax.grammar.name()));
    }
    if cfg.layers != d.layers {
        v.push_str(&format!("-{}layer", cfg.layers));
    }
    if cfg.heads != d.heads {
        v.push_str(&format!("-{}head", cfg.heads));
    }
    v
}
