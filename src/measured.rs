//! The runs the command-line tool measured for `REPRODUCTION.md`, as the page draws them: one
//! compact file (`www/measured.json`, written by `plateau measured` from `results/`) with, for
//! every configuration that was measured, its runs' *hero columns* (the few columns each
//! chapter's hero figure draws), and the two questions the page asks of it: which runs were
//! measured at the configuration on screen ([`matching`]), and does the live run agree with the
//! measured run of its seed ([`agreement`]).
//!
//! A configuration is identified by its URL query without the seed ([`group_key`]): the engine's
//! one canonical form of a config (`v=3` and the keys that differ from the chapter's defaults),
//! so the file and the page compute the same key from the same config, whatever the order or
//! spelling of the record. Run records are read as the sweeps read them (serde, so a record
//! written before a key existed takes that key's serde default).

use crate::config::{to_query, RunConfig};
use serde::{Deserialize, Serialize};

/// How far a live row may differ from the measured run of its seed and still count as the same
/// numbers (absolute, in every compared column): the golden tolerance of the browser against
/// the CLI (`tests/common`), with room for this file's f32 rounding (≤ 6e-8 relative).
pub const TOLERANCE: f64 = 5e-6;

/// The file's format version.
pub const VERSION: u32 = 1;

/// The most bytes of JSON the file may hold (under 300 KB after gzip: the page's download). The
/// groups of `results/`'s top level (each chapter's main sweeps: the configurations the page's
/// sliders reach) always go in; then the subfolders' groups in [`FOLDER_ORDER`] (within a folder,
/// smallest first) while the file stays within this budget; the rest are left out, with the
/// reason ([`build`]).
pub const BUDGET_BYTES: usize = 880_000;

/// The order in which `results/`'s subfolders fill the budget: the runs of chapter 4's and
/// chapter 3's defaults, chapter 2's learning order (the page links to it), the language design
/// search (a grammar option), chapter 1's seed distributions, then chapter 2's ablation and
/// chapter 3's plateau search (configurations the page does not link to). A folder not listed
/// comes last.
pub const FOLDER_ORDER: &[&str] = &[
    "lm",
    "syntax-nested-1layer",
    "learning-order",
    "syntax-design",
    "seeds",
    "seeds-early",
    "ablation",
    "syntax-search",
];

/// The columns each chapter's hero figure draws, `step` first (CSV column names: a contract):
/// chapter 1's output loss and test accuracy, chapter 2's two answers on the held-out pair and its
/// key cosine by key distance, chapter 3's far-subject verb loss and subject → verb UAS, chapter
/// 4's hidden-state cosine.
pub fn hero_columns(experiment: &str) -> &'static [&'static str] {
    match experiment {
        "anchors" => &[
            "step",
            "acc_inferential",
            "acc_symmetric",
            "key_cos_d1",
            "key_cos_d2",
            "key_cos_d3_5",
            "key_cos_d6_19",
            "key_cos_d20plus",
        ],
        "syntax" => &["step", "verb_loss", "uas_subject"],
        "lm" => &["step", "hidden_cos"],
        // Chapter 1's tasks (mws, prefix-sum).
        _ => &["step", "output_loss", "test_acc"],
    }
}

/// One measured run: its seed, its wall seconds and its rows (each the group's columns in order;
/// `None` where the CSV has NaN).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasuredRun {
    /// The run's seed.
    pub seed: u64,
    /// Wall-clock seconds the run took (its record's `wall_s`).
    #[serde(default)]
    pub wall_s: Option<f64>,
    /// Rows in step order.
    pub rows: Vec<Vec<Option<f64>>>,
}

/// The runs of one configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// The experiment (`mws`, `prefix-sum`, `anchors`, `syntax`, `lm`).
    pub experiment: String,
    /// The preset (`interactive`, `paper`).
    pub preset: String,
    /// Where the runs' records are: `results/…/NAME` (the CSVs are `NAME-seedK.csv`), several
    /// separated by `, ` when sweeps of the same configuration sit in different folders.
    pub source: String,
    /// [`group_key`] of the configuration.
    pub query: String,
    /// The columns of every row.
    pub columns: Vec<String>,
    /// One run per seed, by seed.
    pub runs: Vec<MeasuredRun>,
}

/// The whole file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasuredFile {
    /// [`VERSION`].
    pub version: u32,
    /// The command that wrote it.
    pub written_by: String,
    /// Every measured configuration.
    pub groups: Vec<Group>,
}

/// The key of a configuration: its URL query ([`to_query`]) with the seed left out.
pub fn group_key(cfg: &RunConfig) -> String {
    let seed = format!("seed={}", cfg.seed);
    to_query(cfg).split('&').filter(|kv| *kv != seed).collect::<Vec<_>>().join("&")
}

/// The groups measured at `cfg` (any seed).
pub fn matching<'a>(file: &'a MeasuredFile, cfg: &RunConfig) -> Vec<&'a Group> {
    let key = group_key(cfg);
    file.groups.iter().filter(|g| g.query == key).collect()
}

/// How a live run compares with the measured run of its seed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// The seed.
    pub seed: u64,
    /// Values compared (the group's columns other than `step`, at the steps both have).
    pub compared: usize,
    /// The largest absolute difference (NaN against a number counts as infinite).
    pub max_abs_diff: f64,
    /// [`TOLERANCE`], for the page's sentence.
    pub tolerance: f64,
    /// Every compared value within [`TOLERANCE`].
    pub agree: bool,
    /// The last compared step up to which (in step order) every value agreed, `None` when the
    /// first one already differs. Training amplifies rounding: two machines whose arithmetic
    /// differs in the last bit (the browser's wasm and the CLI's native code) agree to 1e-8 at
    /// first and part after some hundred steps, so this says how long they stayed together.
    pub agree_until: Option<usize>,
}

/// The live rows (`rows`: each row's columns by CSV name) against the run of `seed` in `group`,
/// at the steps both have; `None` when the group has no run of that seed. A column the live rows
/// do not carry under that name is not compared.
pub fn agreement(
    group: &Group,
    seed: u64,
    rows: &[std::collections::BTreeMap<String, serde_json::Value>],
) -> Option<Agreement> {
    let run = group.runs.iter().find(|r| r.seed == seed)?;
    let step_col = group.columns.iter().position(|c| c == "step")?;
    let mut compared = 0;
    let mut worst = 0f64;
    // (step, that step's largest difference), for the agreeing prefix.
    let mut by_step: Vec<(f64, f64)> = vec![];
    for live in rows {
        let Some(step) = live.get("step").and_then(serde_json::Value::as_f64) else { continue };
        let Some(measured) = run.rows.iter().find(|r| r.get(step_col).copied().flatten() == Some(step)) else {
            continue;
        };
        for (k, name) in group.columns.iter().enumerate() {
            if k == step_col {
                continue;
            }
            let Some(v) = live.get(name) else { continue };
            // The page's rows carry NaN as null (JSON has no NaN).
            let live_v = v.as_f64();
            let m = measured.get(k).copied().flatten();
            let diff = match (live_v, m) {
                (Some(a), Some(b)) => (a - b).abs(),
                (None, None) => 0.0,
                _ => f64::INFINITY,
            };
            worst = worst.max(diff);
            compared += 1;
            match by_step.last_mut() {
                Some(last) if last.0 == step => last.1 = last.1.max(diff),
                _ => by_step.push((step, diff)),
            }
        }
    }
    by_step.sort_by(|a, b| a.0.total_cmp(&b.0));
    let agree_until = by_step.iter().take_while(|(_, d)| *d <= TOLERANCE).last().map(|(s, _)| *s as usize);
    Some(Agreement {
        seed,
        compared,
        max_abs_diff: worst,
        tolerance: TOLERANCE,
        agree: worst <= TOLERANCE,
        agree_until,
    })
}

/// A value as the file writes it: rounded to f32 (the engine's own precision), `None` for NaN.
fn rounded(v: f64) -> Option<f64> {
    if v.is_finite() {
        // The shortest decimal that reads back as this f32, as an f64.
        Some(format!("{}", v as f32).parse::<f64>().unwrap_or(v))
    } else {
        None
    }
}

/// One run's record and rows, as found on disk: `source` (`results/…/NAME`), its config, its
/// wall seconds and its CSV text.
pub struct Found {
    /// `results/…/NAME` (without `-seedK`).
    pub source: String,
    /// The run's config (its record's `config`).
    pub config: RunConfig,
    /// The record's `wall_s`.
    pub wall_s: Option<f64>,
    /// The CSV's text.
    pub csv: String,
}

/// The file from runs found on disk: grouped by [`group_key`] (in the order of their first run,
/// runs by seed; of two runs of one seed in a group, the one with more rows), each run's hero
/// columns (a CSV without one of them is left out, with the reason in the second value).
pub fn build(found: Vec<Found>, written_by: &str) -> (MeasuredFile, Vec<String>) {
    let mut groups: Vec<Group> = vec![];
    let mut skipped = vec![];
    for f in found {
        let experiment = f.config.experiment.name().to_string();
        let columns: Vec<String> = hero_columns(&experiment).iter().map(|s| s.to_string()).collect();
        let mut lines = f.csv.lines();
        let Some(header) = lines.next() else {
            skipped.push(format!("{}: an empty CSV", f.source));
            continue;
        };
        let names: Vec<&str> = header.split(',').collect();
        let Some(idx) = columns.iter().map(|c| names.iter().position(|n| n == c)).collect::<Option<Vec<usize>>>()
        else {
            skipped.push(format!("{} (seed {}): the CSV lacks a hero column of {experiment}", f.source, f.config.seed));
            continue;
        };
        let rows: Vec<Vec<Option<f64>>> = lines
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let cells: Vec<&str> = l.split(',').collect();
                idx.iter().map(|&i| cells.get(i).and_then(|c| c.parse::<f64>().ok()).and_then(rounded)).collect()
            })
            .collect();
        let run = MeasuredRun { seed: f.config.seed, wall_s: f.wall_s, rows };
        let query = group_key(&f.config);
        match groups.iter_mut().find(|g| g.query == query) {
            Some(g) => {
                match g.runs.iter_mut().find(|r| r.seed == run.seed) {
                    Some(old) if old.rows.len() >= run.rows.len() => continue,
                    Some(old) => *old = run,
                    None => g.runs.push(run),
                }
                if !g.source.split(", ").any(|s| s == f.source) {
                    g.source = format!("{}, {}", g.source, f.source);
                }
            }
            None => groups.push(Group {
                experiment,
                preset: f.config.preset.name().to_string(),
                source: f.source,
                query,
                columns,
                runs: vec![run],
            }),
        }
    }
    for g in &mut groups {
        g.runs.sort_by_key(|r| r.seed);
    }
    // The budget: top-level groups first (in order), then the subfolders' in FOLDER_ORDER.
    let size = |g: &Group| serde_json::to_string(g).map_or(0, |t| t.len() + 1);
    let top = |g: &Group| g.source.split(", ").any(|s| s.matches('/').count() <= 1);
    let folder = |g: &Group| {
        let name = g.source.split(", ").next().unwrap_or("").split('/').rev().nth(1).unwrap_or("");
        FOLDER_ORDER.iter().position(|f| *f == name).unwrap_or(FOLDER_ORDER.len())
    };
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&i| {
        let g = &groups[i];
        if top(g) {
            (0, 0, 0, i)
        } else {
            (1, folder(g), size(g), i)
        }
    });
    let mut used = 64;
    let mut keep = vec![false; groups.len()];
    for i in order {
        let s = size(&groups[i]);
        if top(&groups[i]) || used + s <= BUDGET_BYTES {
            used += s;
            keep[i] = true;
        } else {
            skipped.push(format!(
                "{} ({} runs, {s} bytes): over the file's budget of {BUDGET_BYTES} bytes",
                groups[i].source,
                groups[i].runs.len()
            ));
        }
    }
    let groups = groups.into_iter().zip(keep).filter_map(|(g, k)| k.then_some(g)).collect();
    (MeasuredFile { version: VERSION, written_by: written_by.to_string(), groups }, skipped)
}

/// Every run under `dir` (recursively, in name order) with a record (`NAME-seedK.json` whose
/// `config` reads as a config) and its CSV; folders whose name starts with `transcription` (the
/// PyTorch transcription's runs, not the engine's) are left out.
#[cfg(not(target_arch = "wasm32"))]
pub fn find_runs(dir: &std::path::Path) -> std::io::Result<Vec<Found>> {
    let mut entries: Vec<std::path::PathBuf> =
        std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    let mut out = vec![];
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if p.is_dir() {
            if !name.starts_with("transcription") {
                out.extend(find_runs(&p)?);
            }
            continue;
        }
        let Some(stem) = name.strip_suffix(".json") else { continue };
        let csv = p.with_file_name(format!("{stem}.csv"));
        let (Ok(record), Ok(csv)) = (std::fs::read_to_string(&p), std::fs::read_to_string(&csv)) else { continue };
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&record) else { continue };
        let Ok(config) = serde_json::from_value::<RunConfig>(record["config"].clone()) else { continue };
        let base = stem.rsplit_once("-seed").map_or(stem, |(a, _)| a);
        let source = p.with_file_name(base).to_string_lossy().replace('\\', "/");
        out.push(Found { source, config, wall_s: record["wall_s"].as_f64(), csv });
    }
    Ok(out)
}

/// The file as written: compact JSON, one line.
pub fn to_json(file: &MeasuredFile) -> String {
    serde_json::to_string(file).expect("plain data")
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn runs_group_by_their_config_without_the_seed_and_keep_the_hero_columns() {
        let csv = "step,loss,output_loss,train_acc,test_acc,first_token_acc,repetition\n0,2.5,2.75,0,0.1,0.2,0.5\n25,1.0,NaN,0,0.5,1,0.5\n";
        let mut c10 = cfg(Task::Mws, 0);
        c10.c = 10.0;
        let (file, skipped) = build(
            vec![
                found(cfg(Task::Mws, 1), csv),
                found(cfg(Task::Mws, 0), csv),
                found(c10, csv),
                found(cfg(Task::Mws, 0), "step\n0\n"),
            ],
            "test",
        );
        assert_eq!(file.groups.len(), 2, "c = 1 and c = 10");
        let g = &file.groups[0];
        assert_eq!(g.columns, ["step", "output_loss", "test_acc"]);
        assert_eq!(g.runs.iter().map(|r| r.seed).collect::<Vec<_>>(), [0, 1], "by seed");
        assert_eq!(g.runs[0].rows, [vec![Some(0.0), Some(2.75), Some(0.1)], vec![Some(25.0), None, Some(0.5)]]);
        assert_eq!(skipped.len(), 1, "the CSV without the hero columns: {skipped:?}");
        // The page's config finds its group whatever its seed; another c finds the other.
        assert_eq!(matching(&file, &cfg(Task::Mws, 7)).len(), 1);
        assert_eq!(matching(&file, &cfg(Task::Mws, 7))[0].query, g.query);
        let mut c5 = cfg(Task::Mws, 0);
        c5.c = 5.0;
        assert!(matching(&file, &c5).is_empty());
        assert_eq!(group_key(&cfg(Task::Mws, 3)), group_key(&cfg(Task::Mws, 0)));
        assert!(!group_key(&cfg(Task::Mws, 3)).contains("seed"));
    }

    #[test]
    fn values_are_kept_at_f32_precision() {
        // The shortest decimal that reads back as the same f32.
        assert_eq!(rounded(4.700784206390381), Some(4.700784));
        assert_eq!(4.700784f32, 4.700784206390381f64 as f32);
        assert!((rounded(0.1 + 0.2).unwrap() - 0.3).abs() < 1e-7);
        assert_eq!(rounded(f64::NAN), None);
    }

    #[test]
    fn agreement_compares_the_hero_columns_at_common_steps() {
        let csv =
            "step,loss,output_loss,train_acc,test_acc,first_token_acc\n0,2.5,2.75,0,0.1,0.2\n25,1.0,0.5,0,0.5,1\n";
        let (file, _) = build(vec![found(cfg(Task::Mws, 0), csv)], "test");
        let g = &file.groups[0];
        let row = |step: f64, loss: f64| {
            serde_json::from_value::<std::collections::BTreeMap<String, serde_json::Value>>(serde_json::json!({
                "step": step, "loss": 1.0, "output_loss": loss,
                "test_acc": if step == 0.0 { 0.1 } else { 0.5 }, "first_token_acc": if step == 0.0 { 0.2 } else { 1.0 },
                "apm": 0.3
            }))
            .unwrap()
        };
        // Within the tolerance: agree; 2 columns × 2 steps compared (step 50 is not measured).
        let a = agreement(g, 0, &[row(0.0, 2.75 + 1e-6), row(25.0, 0.5), row(50.0, 0.1)]).unwrap();
        assert_eq!((a.compared, a.agree, a.agree_until), (4, true, Some(25)));
        assert!((a.max_abs_diff - 1e-6).abs() < 1e-9);
        // An output loss 1e-4 away does not agree.
        let b = agreement(g, 0, &[row(0.0, 2.7501)]).unwrap();
        assert!(!b.agree && (b.max_abs_diff - 1e-4).abs() < 1e-9, "{b:?}");
        assert_eq!(b.agree_until, None, "the first step already differs");
        // Together at step 0, apart at 25: they agreed until step 0.
        let c = agreement(g, 0, &[row(0.0, 2.75), row(25.0, 0.6)]).unwrap();
        assert_eq!((c.agree, c.agree_until), (false, Some(0)));
        // No run of seed 3.
        assert_eq!(agreement(g, 3, &[row(0.0, 2.5)]), None);
    }
}
