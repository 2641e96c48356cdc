use super::*;
use crate::config::{Preset, Task};

fn cfg(task: Task, seed: u64) -> RunConfig {
    let mut c = RunConfig::defaults(task, Preset::Interactive);
    c.seed = seed;
    c
}

fn found(c: RunConfig, csv: &str) -> Found {
    Found { source: "results/x".into(), config: c, wall_s: Some(1.0), csv: csv.into() }
}

const CSV: &str = "step,loss,output_loss,train_acc,test_acc,first_token_acc,repetition\n\
                   0,2.5,2.75,0,0.1,0.2,0.5\n25,1.0,NaN,0,0.5,1,0.5\n";

#[test]
fn runs_group_by_their_config_without_the_seed_and_keep_the_hero_columns() {
    let mut c10 = cfg(Task::MWS, 0);
    c10.plateau.c = 10.0;
    let (file, skipped) = build(
        vec![
            found(cfg(Task::MWS, 1), CSV),
            found(cfg(Task::MWS, 0), CSV),
            found(c10, CSV),
            found(cfg(Task::MWS, 0), "step\n0\n"),
        ],
        &[],
        "test",
        &[],
    );
    assert_eq!(file.groups.len(), 2, "c = 1 and c = 10");
    let g = &file.groups[0];
    assert_eq!(g.columns, ["step", "loss", "output_loss", "test_acc", "first_token_acc"]);
    assert_eq!(g.runs.iter().map(|r| r.seed).collect::<Vec<_>>(), [0, 1], "by seed");
    assert_eq!(
        g.runs[0].rows,
        [
            vec![Some(0.0), Some(2.5), Some(2.75), Some(0.1), Some(0.2)],
            vec![Some(25.0), Some(1.0), None, Some(0.5), Some(1.0)]
        ]
    );
    assert_eq!(skipped.len(), 1, "the CSV without the hero columns: {skipped:?}");
    // The group's config is the runs' without the seed; no section named the folder: no command.
    assert_eq!(g.config["c"], serde_json::json!(1.0));
    assert!(!g.config.contains_key("seed"));
    assert_eq!((g.command.as_deref(), g.section.as_deref()), (None, None));
    // The page's config finds its group whatever its seed; another c finds the other.
    assert_eq!(matching(&file, &cfg(Task::MWS, 7)).len(), 1);
    assert_eq!(matching(&file, &cfg(Task::MWS, 7))[0].query, g.query);
    let mut c5 = cfg(Task::MWS, 0);
    c5.plateau.c = 5.0;
    assert!(matching(&file, &c5).is_empty());
    assert_eq!(group_key(&cfg(Task::MWS, 3)), group_key(&cfg(Task::MWS, 0)));
    assert!(!group_key(&cfg(Task::MWS, 3)).contains("seed"));
    // Written compactly (whole numbers without a fraction, NaN as null) and read back the same.
    let text = to_json(&file);
    assert!(text.contains("\"rows\":[[0,2.5,2.75,0.1,0.2],[25,1,null,0.5,1]]"), "{text}");
    assert_eq!(serde_json::from_str::<MeasuredFile>(&text).unwrap(), file);
}

#[test]
fn matching_compares_every_key_but_the_seed() {
    let anchors = |gamma: f64, seed: u64| {
        let mut c = cfg(Task::Anchors, seed);
        c.anchors.gamma = gamma;
        c
    };
    let csv = "step,acc_inferential,acc_symmetric,train_acc,key_cos_d1,key_cos_d2,key_cos_d3_5,key_cos_d6_19,key_cos_d20plus\n\
               0,0,1,0.5,0.1,0.1,0,0,0\n";
    let (file, _) = build(
        vec![found(anchors(0.7, 0), csv), found(anchors(0.7, 1), csv), found(anchors(0.4, 2), csv)],
        &[],
        "test",
        &[],
    );
    assert_eq!(file.groups.len(), 2);
    let seeds =
        |c: &RunConfig| -> Vec<u64> { matching(&file, c).iter().flat_map(|g| g.runs.iter().map(|r| r.seed)).collect() };
    assert_eq!(seeds(&anchors(0.7, 9)), [0, 1]);
    assert_eq!(seeds(&anchors(0.4, 0)), [2]);
    assert!(seeds(&anchors(0.45, 0)).is_empty(), "another γ");
    // Any other key counts: the learning rate, the preset, the experiment.
    let mut lr = anchors(0.7, 0);
    lr.lr *= 2.0;
    assert!(seeds(&lr).is_empty());
    let mut paper = RunConfig::defaults(Task::Anchors, Preset::Paper);
    paper.anchors.gamma = 0.7;
    assert!(seeds(&paper).is_empty());
    assert!(seeds(&cfg(Task::MWS, 0)).is_empty());
}

#[test]
fn a_longer_run_of_the_same_configuration_stands_for_a_shorter_one_cut_at_its_steps() {
    let anchors = |steps: usize, seed: u64| {
        let mut c = RunConfig { steps, ..cfg(Task::Anchors, seed) };
        c.anchors.gamma = 0.4;
        c
    };
    let csv = "step,acc_inferential,acc_symmetric,train_acc,key_cos_d1,key_cos_d2,key_cos_d3_5,key_cos_d6_19,key_cos_d20plus\n\
               0,0,0,0.1,0,0,0,0,0\n500,0,0.4,0.9,0,0,0,0,0\n1000,0,0.9,1,0,0,0,0,0\n1500,0,1,1,0,0,0,0,0\n";
    let (file, _) = build(vec![found(anchors(1600, 0), csv), found(anchors(1600, 1), csv)], &[], "test", &[]);
    // The 1600-step runs at their own configuration: whole.
    let whole = matching(&file, &anchors(1600, 5));
    assert_eq!((whole.len(), whole[0].cut, whole[0].runs[0].rows.len()), (1, None, 4));
    // At 1000 steps: the same runs up to step 1000, marked cut, under the measured query.
    let cut = matching(&file, &anchors(1000, 5));
    assert_eq!(cut.len(), 1);
    assert_eq!(cut[0].cut, Some(1000));
    assert_eq!(cut[0].query, whole[0].query, "agreement finds the measured group by its query");
    assert!(cut[0].runs.iter().all(|r| r.rows.len() == 3 && r.rows[2][0] == Some(1000.0)));
    // Longer than measured, or another key: nothing.
    assert!(matching(&file, &anchors(2000, 0)).is_empty());
    assert!(matching(&file, &RunConfig { lr: 0.002, ..anchors(1000, 0) }).is_empty());
}

#[test]
fn values_are_kept_at_f32_precision() {
    // The shortest decimal that reads back as the same f32.
    assert_eq!(rounded(4.700784206390381), Some(4.700784));
    assert_eq!(4.700784f32, 4.700784206390381f64 as f32);
    assert!((rounded(0.1 + 0.2).unwrap() - 0.3).abs() < 1e-7);
    assert_eq!(rounded(f64::NAN), None);
}

const DOC: &str = "# R\n\n<!-- BEGIN chapter1-interactive-mws -->\n## Chapter 1\n\n\
Written by `cargo run --release --bin plateau -- reproduce --preset interactive --quiet` on 2026-12-05. \
Runs in `results/` (`results/*.json`).\n<!-- END chapter1-interactive-mws -->\n\n\
<!-- BEGIN chapter1-paper-mws -->\nWritten by `cargo run --release --bin plateau -- reproduce --preset paper --finished-only --quiet` \
from the runs in `results/`.\n<!-- END chapter1-paper-mws -->\n\n\
<!-- BEGIN chapter3-interactive-syntax -->\nWritten by `cargo run --release --bin plateau -- reproduce --experiment syntax \
--grammar agreement --layers 2 --shard 1/8 --finished-only` from `results/`.\n<!-- END chapter3-interactive-syntax -->\n\n\
<!-- BEGIN chapter2-ablation -->\nWritten by `cargo run --release --bin plateau -- reproduce --experiment anchors --ablation \
--seeds 0,1,2 --gammas=0.3,0.8 --stop-after 500` from the runs in `results/ablation/`.\n<!-- END chapter2-ablation -->\n\n\
<!-- BEGIN chapter1-seed-distributions -->\nWritten by `cargo run --release --features flex --bin plateau -- reproduce --preset paper \
--against-transcription --backend flex` from `results/seeds/` and `results/transcription/`.\n<!-- END chapter1-seed-distributions -->\n\n\
<!-- BEGIN benchmarks -->\nNo command here, `results/x`.\n<!-- END benchmarks -->\n";

#[test]
fn sections_say_which_command_wrote_them_and_which_folders_they_read() {
    let s = sections(DOC);
    assert_eq!(
        s.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        [
            "chapter1-interactive-mws",
            "chapter1-paper-mws",
            "chapter3-interactive-syntax",
            "chapter2-ablation",
            "chapter1-seed-distributions"
        ]
    );
    assert_eq!(s[0].command, "cargo run --release --bin plateau -- reproduce --preset interactive --quiet");
    assert_eq!(s[0].folders, ["results"]);
    assert_eq!(s[3].folders, ["results/ablation"]);
    assert_eq!(s[4].folders, ["results/seeds", "results/transcription"]);
}

#[test]
fn a_group_names_the_one_command_that_trains_it_or_none() {
    let s = sections(DOC);
    let name = |folder: &str, c: &RunConfig| command_for(&s, folder, c).map(|s| s.name.as_str());
    let mws = cfg(Task::MWS, 0);
    let mut paper = RunConfig::defaults(Task::MWS, Preset::Paper);
    paper.plateau.c = 10.0;
    assert_eq!(name("results", &mws), Some("chapter1-interactive-mws"));
    assert_eq!(name("results", &paper), Some("chapter1-paper-mws"));
    assert_eq!(
        name("results/seeds", &RunConfig::defaults(Task::MWS, Preset::Paper)),
        Some("chapter1-seed-distributions")
    );
    // A prefix-sum run is no run of the mws sweeps.
    let prefix = cfg(Task::PREFIX_SUM, 0);
    assert_eq!(name("results", &prefix), None);
    // Chapter 3's section trains the agreement grammar on 2 layers, not another grammar.
    let mut syntax = cfg(Task::Syntax, 0);
    syntax.set("grammar", "agreement").unwrap();
    syntax.set("layers", "2").unwrap();
    assert_eq!(name("results", &syntax), Some("chapter3-interactive-syntax"));
    syntax.set("layers", "3").unwrap();
    assert_eq!(name("results", &syntax), None);
    // The ablation's factors are the sweep's, not the command's: any anchors run in its folder.
    let mut anchors = cfg(Task::Anchors, 0);
    anchors.lr = 2e-3;
    assert_eq!(name("results/ablation", &anchors), Some("chapter2-ablation"));
    assert_eq!(name("results/learning-order", &anchors), None, "no section names that folder");
    // Two sections that both claim a run: none is named.
    let twice = [s[0].clone(), Section { name: "other".into(), ..s[0].clone() }];
    assert_eq!(command_for(&twice, "results", &mws), None);
}

#[test]
fn a_group_carries_its_command_without_the_flags_that_say_how_it_ran() {
    let s = sections(DOC);
    let mut syntax = cfg(Task::Syntax, 0);
    syntax.set("grammar", "agreement").unwrap();
    syntax.set("layers", "2").unwrap();
    let csv = "step,loss,heldout_loss,uas_subject,offset_uas_subject,verb_loss\n0,1,2,0.5,0.25,3\n";
    let anchors_csv = "step,acc_inferential,acc_symmetric,train_acc,key_cos_d1,key_cos_d2,key_cos_d3_5,key_cos_d6_19,key_cos_d20plus\n\
                       0,0,1,0.5,0.1,0.1,0,0,0\n";
    let paper = RunConfig::defaults(Task::MWS, Preset::Paper);
    let mut seed3 = paper.clone();
    seed3.seed = 3;
    let at = |source: &str, config: RunConfig, csv: &str| Found {
        source: source.into(),
        config,
        wall_s: None,
        csv: csv.into(),
    };
    let (file, _) = build(
        vec![
            at("results/interactive-syntax-baseline", syntax, csv),
            at("results/ablation/default-g0.8", cfg(Task::Anchors, 0), anchors_csv),
            at("results/paper-mws-c1", paper, CSV),
            at("results/seeds/paper-mws-c1", seed3, CSV),
            at("results/learning-order/mixed-g0.4", cfg(Task::Anchors, 1), anchors_csv),
        ],
        &s,
        "test",
        &[],
    );
    let g = |i: usize| (file.groups[i].command.as_deref(), file.groups[i].section.as_deref());
    assert_eq!(
        g(0),
        (
            Some("cargo run --release --bin plateau -- reproduce --experiment syntax --grammar agreement --layers 2"),
            Some("chapter3-interactive-syntax")
        )
    );
    // The anchors defaults in two folders are one group; no section here names the
    // learning-order folder, so that source stands as itself beside the ablation's command.
    assert_eq!(file.groups[1].source, "results/ablation/default-g0.8, results/learning-order/mixed-g0.4");
    assert_eq!(
        g(1),
        (
            Some(
                "cargo run --release --bin plateau -- reproduce --experiment anchors --ablation --seeds 0,1,2 \
                 --gammas=0.3,0.8; results/learning-order/mixed-g0.4"
            ),
            Some("chapter2-ablation")
        )
    );
    // A group no section names has no command.
    let (alone, _) =
        build(vec![at("results/learning-order/mixed-g0.4", cfg(Task::Anchors, 1), anchors_csv)], &s, "test", &[]);
    assert_eq!((alone.groups[0].command.as_deref(), alone.groups[0].section.as_deref()), (None, None));
    // Chapter 1's paper default from two sweeps: both commands.
    assert_eq!(file.groups[2].source, "results/paper-mws-c1, results/seeds/paper-mws-c1");
    assert_eq!(
        g(2),
        (
            Some(
                "cargo run --release --bin plateau -- reproduce --preset paper; \
                 cargo run --release --features flex --bin plateau -- reproduce --preset paper --against-transcription --backend flex"
            ),
            Some("chapter1-paper-mws, chapter1-seed-distributions")
        )
    );
    assert_eq!(
        cleaned("x -- reproduce --experiment anchors --ablation --seeds 0,1,2 --gammas=0.3,0.8 --stop-after 500 --shard=2/8 --quiet"),
        "x -- reproduce --experiment anchors --ablation --seeds 0,1,2 --gammas=0.3,0.8"
    );
}

#[test]
fn agreement_compares_the_hero_columns_at_common_steps() {
    let csv = "step,loss,output_loss,train_acc,test_acc,first_token_acc\n0,2.5,2.75,0,0.1,0.2\n25,1.0,0.5,0,0.5,1\n";
    let (file, _) = build(vec![found(cfg(Task::MWS, 0), csv)], &[], "test", &[]);
    let g = &file.groups[0];
    let row = |step: f64, loss: f64| {
        serde_json::from_value::<std::collections::BTreeMap<String, serde_json::Value>>(serde_json::json!({
            "step": step, "loss": if step == 0.0 { 2.5 } else { 1.0 }, "output_loss": loss,
            "test_acc": if step == 0.0 { 0.1 } else { 0.5 }, "first_token_acc": if step == 0.0 { 0.2 } else { 1.0 },
            "apm": 0.3
        }))
        .unwrap()
    };
    // Within the tolerance: agree; 4 columns × 2 steps compared (step 50 is not measured, apm
    // is no hero column).
    let a = agreement(g, 0, &[row(0.0, 2.75 + 1e-6), row(25.0, 0.5), row(50.0, 0.1)]).unwrap();
    assert_eq!((a.compared, a.agree, a.agree_until), (8, true, Some(25)));
    assert!((a.max_abs_diff - 1e-6).abs() < 1e-9);
    // An output loss 1e-4 away does not agree.
    let b = agreement(g, 0, &[row(0.0, 2.7501)]).unwrap();
    assert!(!b.agree && (b.max_abs_diff - 1e-4).abs() < 1e-9, "{b:?}");
    assert_eq!(b.agree_until, None, "the first step already differs");
    // Together at step 0, apart at 25: they agreed until step 0.
    let c = agreement(g, 0, &[row(0.0, 2.75), row(25.0, 0.6)]).unwrap();
    assert_eq!((c.agree, c.agree_until), (false, Some(0)));
    // A NaN (null in the page's rows) against a number never agrees.
    let mut d = row(0.0, 2.75);
    d.insert("loss".into(), serde_json::Value::Null);
    assert!(!agreement(g, 0, &[d]).unwrap().agree);
    // No run of seed 3.
    assert_eq!(agreement(g, 3, &[row(0.0, 2.5)]), None);
}

/// The budget fills with the top-level groups, then the configurations the page links to, then
/// the subfolders in `FOLDER_ORDER` (a folder not listed last).
#[test]
fn the_configurations_the_page_links_to_fill_the_budget_right_after_the_top_level() {
    let at = |source: &str, config: RunConfig| Found { source: source.into(), config, wall_s: None, csv: CSV.into() };
    let mut linked = cfg(Task::MWS, 0);
    linked.plateau.c = 10.0;
    let mut other = cfg(Task::MWS, 0);
    other.plateau.c = 2.5;
    let (file, _) = build(
        vec![
            at("results/seeds/paper-mws-c1", cfg(Task::MWS, 0)),
            at("results/unlisted/c10", linked.clone()),
            at("results/paper-mws-c25", other),
        ],
        &[],
        "test",
        &[],
    );
    let key = group_key(&linked);
    assert_eq!(budget_order(&file.groups, &[]), [2, 0, 1], "top level, FOLDER_ORDER, then an unlisted folder");
    assert_eq!(budget_order(&file.groups, &[key]), [2, 1, 0], "the linked configuration before the folders");
}
