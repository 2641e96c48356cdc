//! The runs the command-line tool measured for `REPRODUCTION.md`, as the page draws them: one
//! compact file (`www/measured.json`, written by `plateau measured` from `results/`) with, for
//! every configuration that was measured, its runs' *hero columns* (the few columns each
//! chapter's hero figure draws), and the two questions the page asks of it: which runs were
//! measured at the configuration on screen ([`matching`]), and does the live run agree with the
//! measured run of its seed ([`agreement`]). Each configuration also names the command that
//! trains its runs, as `REPRODUCTION.md`'s section on them quotes it ([`command_for`]).
//!
//! A configuration is identified by its URL query without the seed ([`group_key`]): the engine's
//! one canonical form of a config (`v=4` and the keys that differ from the chapter's defaults),
//! so the file and the page compute the same key from the same config, whatever the order or
//! spelling of the record. Run records are read as the sweeps read them (serde, so a record
//! written before a key existed takes that key's serde default). Finding the runs on disk is the
//! command line's (`plateau measured`); nothing here reads a file, so the page's view build has it
//! all.

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
/// those with the fewest keys changed from their chapter's defaults first, then the smallest)
/// while the file stays within this budget; the rest are left out, with the reason ([`build`]).
pub const BUDGET_BYTES: usize = 880_000;

/// The order in which `results/`'s subfolders fill the budget: the runs of chapter 2's default
/// (4 shards) and of its comparison's budget, of chapter 4's and chapter 3's defaults, chapter 2's learning order (the page links to it), the language design
/// search (a grammar option), chapter 1's seed distributions, then chapter 2's ablation and
/// chapter 3's plateau search (configurations the page does not link to). A folder not listed
/// comes last.
pub const FOLDER_ORDER: &[&str] = &[
    "anchors-s4",
    "anchors-s4-budget",
    "lm",
    "syntax-nested-1layer",
    "learning-order",
    "syntax-design",
    "seeds",
    "seeds-early",
    "ablation",
    "syntax-search",
];

/// The columns each chapter's hero figure draws or the page checks a live run by, `step` first
/// (CSV column names: a contract): chapter 1's loss, output loss, test accuracy and first-token
/// accuracy; chapter 2's two answers on the held-out pair, its training accuracy and its key
/// cosine by key distance; chapter 3's far-subject verb loss, subject → verb UAS (and its offset
/// baseline) and held-out loss; chapter 4's loss, hidden-state cosine and repetition.
pub fn hero_columns(experiment: crate::config::Task) -> &'static [&'static str] {
    use crate::config::chapters::ChapterId;
    match experiment.chapter() {
        ChapterId::Plateau => &["step", "loss", "output_loss", "test_acc", "first_token_acc"],
        ChapterId::Init => &[
            "step",
            "acc_inferential",
            "acc_symmetric",
            "train_acc",
            "key_cos_d1",
            "key_cos_d2",
            "key_cos_d3_5",
            "key_cos_d6_19",
            "key_cos_d20plus",
        ],
        ChapterId::Syntax => &["step", "verb_loss", "uas_subject", "offset_uas_subject", "heldout_loss"],
        ChapterId::Text => &["step", "loss", "hidden_cos", "repetition"],
    }
}

/// One measured run: its seed, its wall seconds and its rows (each the group's columns in order;
/// `None` where the CSV has NaN).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasuredRun {
    /// The run's seed.
    pub seed: u64,
    /// Wall-clock seconds the run took (its record's `wall_s`; records written before it existed
    /// have none).
    #[serde(default)]
    pub wall_s: Option<f64>,
    /// Rows in step order (whole numbers written without a fraction: `25`, not `25.0`).
    #[serde(serialize_with = "compact_rows")]
    pub rows: Vec<Vec<Option<f64>>>,
}

/// Writes rows with whole numbers as integers (steps, most accuracies): the same values in fewer
/// bytes; every reader of JSON reads `25` as the number 25.0.
fn compact_rows<S: serde::Serializer>(rows: &[Vec<Option<f64>>], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    struct Row<'a>(&'a [Option<f64>]);
    impl Serialize for Row<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(self.0.len()))?;
            for v in self.0 {
                match v {
                    Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => seq.serialize_element(&(*x as i64))?,
                    other => seq.serialize_element(other)?,
                }
            }
            seq.end()
        }
    }
    let mut seq = s.serialize_seq(Some(rows.len()))?;
    for r in rows {
        seq.serialize_element(&Row(r))?;
    }
    seq.end()
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
    /// The command that trains these runs ([`command_for`]: the `plateau reproduce` command
    /// that `REPRODUCTION.md`'s section on the runs' folder quotes, without the flags that only
    /// say how it ran), one per source separated by `; ` (a source no section names stands as
    /// itself); absent where no section names any (the page then names `source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The section(s) of `REPRODUCTION.md` that command wrote, separated by `, `.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// [`group_key`] of the configuration.
    pub query: String,
    /// The configuration without its seed (the run record's keys, kebab-case).
    #[serde(default)]
    pub config: serde_json::Map<String, serde_json::Value>,
    /// The columns of every row.
    pub columns: Vec<String>,
    /// One run per seed, by seed.
    pub runs: Vec<MeasuredRun>,
    /// Set where the runs were trained for more steps than the configuration asked for and are
    /// shown up to this step ([`matching`]); never in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<usize>,
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
    to_query(cfg).split('&').filter(|kv| !kv.starts_with("seed=")).collect::<Vec<_>>().join("&")
}

/// The groups measured at `cfg` (any seed): those of its configuration, or, where none was
/// measured, the runs of the same configuration trained for more steps, cut at `cfg`'s steps
/// ([`Group::cut`]). Every chapter's learning rate is a linear warm-up, then constant, and its
/// data and evaluations follow the step, not the budget, so a run's first steps are the shorter
/// run's (chapter 2's budget search checks this row for row against its sweep's runs).
pub fn matching<'a>(file: &'a MeasuredFile, cfg: &RunConfig) -> Vec<std::borrow::Cow<'a, Group>> {
    use std::borrow::Cow;
    let key = group_key(cfg);
    let exact: Vec<Cow<Group>> = file.groups.iter().filter(|g| g.query == key).map(Cow::Borrowed).collect();
    if !exact.is_empty() {
        return exact;
    }
    file.groups
        .iter()
        .filter(|g| {
            let steps = g.config.get("steps").and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
            steps > cfg.steps && group_key(&RunConfig { steps, ..cfg.clone() }) == g.query
        })
        .map(|g| Cow::Owned(cut(g, cfg.steps)))
        .collect()
}

/// `g` with every run's rows up to step `steps` ([`Group::cut`] set; its `query` stays the
/// measured configuration's, by which [`agreement`] finds it).
fn cut(g: &Group, steps: usize) -> Group {
    let runs = g
        .runs
        .iter()
        .map(|r| MeasuredRun {
            rows: r
                .rows
                .iter()
                .filter(|row| row.first().copied().flatten().is_some_and(|s| s <= steps as f64))
                .cloned()
                .collect(),
            ..r.clone()
        })
        .collect();
    Group { runs, cut: Some(steps), ..g.clone() }
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

/// A section of `REPRODUCTION.md` as the measured runs need it: its name, the command that
/// wrote it (its "Written by `…`" line) and the folders of runs its text names (`results/…/`).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// The section's name (`chapter2-ablation`).
    pub name: String,
    /// The command, as the section quotes it.
    pub command: String,
    /// The folders its text names (`results`, `results/ablation`), each once.
    pub folders: Vec<String>,
}

/// The sections of a `REPRODUCTION.md` (`<!-- BEGIN name -->` … `<!-- END name -->`) that say which
/// command wrote them; in the document's order.
pub fn sections(doc: &str) -> Vec<Section> {
    const BEGIN: &str = "<!-- BEGIN ";
    let mut out = vec![];
    let mut rest = doc;
    while let Some(i) = rest.find(BEGIN) {
        let after = &rest[i + BEGIN.len()..];
        let Some(j) = after.find(" -->") else { break };
        let name = after[..j].to_string();
        let tail = &after[j + " -->".len()..];
        let body = tail.find(&format!("<!-- END {name} -->")).map_or(tail, |k| &tail[..k]);
        rest = &tail[body.len()..];
        let Some(command) = body.split("Written by `").nth(1).and_then(|c| c.split('`').next()) else { continue };
        out.push(Section { name, command: command.to_string(), folders: folders_named(body) });
    }
    out
}

/// The folders of runs a text names: each `results/…` path, without a file name or pattern at
/// its end (`results/*.json` and `results/` are the folder `results`).
fn folders_named(text: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for (i, _) in text.match_indices("results/") {
        if text[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || "/_-.".contains(c)) {
            continue;
        }
        let path: String =
            text[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || "/_-.*{}".contains(*c)).collect();
        let mut parts: Vec<&str> = path.trim_end_matches(['/', '.']).split('/').collect();
        if parts.len() > 1
            && parts.last().is_some_and(|p| p.contains(['*', '{']) || p.ends_with(".csv") || p.ends_with(".json"))
        {
            parts.pop();
        }
        let folder = parts.join("/");
        if !out.contains(&folder) {
            out.push(folder);
        }
    }
    out
}

/// The flags of a `plateau reproduce` command line (`--key value`, `--key=value`, or a switch
/// `--key` with no value), `None` when it is not one.
fn reproduce_flags(command: &str) -> Option<Vec<(String, Option<String>)>> {
    let (_, args) = command.split_once(" reproduce")?;
    let args: Vec<&str> = args.split_whitespace().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < args.len() {
        let key = args[i].strip_prefix("--")?;
        if let Some((k, v)) = key.split_once('=') {
            out.push((k.to_string(), Some(v.to_string())));
            i += 1;
        } else if let Some(v) = args.get(i + 1).filter(|v| !v.starts_with("--")) {
            out.push((key.to_string(), Some(v.to_string())));
            i += 2;
        } else {
            out.push((key.to_string(), None));
            i += 1;
        }
    }
    Some(out)
}

/// Whether `command` (a `plateau reproduce` line) trains runs of `cfg`: the same experiment and
/// preset (the command's, `mws` and `interactive` where it names none), and every config key it
/// sets at `cfg`'s value. The sweep's own flags (`--gammas`, `--seeds`, `--ablation`, …) are not
/// config keys and say nothing either way.
fn trains(command: &str, cfg: &RunConfig) -> bool {
    let Some(flags) = reproduce_flags(command) else { return false };
    let get = |k: &str| flags.iter().rev().find(|(f, _)| f == k).and_then(|(_, v)| v.clone());
    let experiment = get("experiment").unwrap_or_else(|| "mws".into());
    let preset = get("preset").unwrap_or_else(|| "interactive".into());
    experiment == cfg.experiment.name()
        && preset == cfg.preset.name()
        && flags.iter().all(|(k, v)| match v {
            Some(v) if k != "experiment" && k != "preset" => {
                let mut c = cfg.clone();
                c.set(k, v).is_err() || c == *cfg
            }
            _ => true,
        })
}

/// The flags that say how a command ran, not what it trains: left out of the command a group
/// names (without `--finished-only` the same command trains the runs it finds missing).
const HOW_IT_RAN: &[(&str, bool)] =
    &[("--finished-only", false), ("--quiet", false), ("--resume", false), ("--stop-after", true), ("--shard", true)];

/// `command` without [`HOW_IT_RAN`]'s flags.
fn cleaned(command: &str) -> String {
    let mut out: Vec<&str> = vec![];
    let mut words = command.split_whitespace();
    while let Some(w) = words.next() {
        let name = w.split('=').next().unwrap_or(w);
        match HOW_IT_RAN.iter().find(|(f, _)| *f == name) {
            Some((_, true)) if !w.contains('=') => {
                words.next();
            }
            Some(_) => {}
            None => out.push(w),
        }
    }
    out.join(" ")
}

/// The section of `REPRODUCTION.md` on the runs of `cfg` in `folder`: the one section whose text
/// names that folder and whose command [`trains`] `cfg`; `None` when there is none or more than
/// one (then nothing is said rather than something guessed).
pub fn command_for<'a>(sections: &'a [Section], folder: &str, cfg: &RunConfig) -> Option<&'a Section> {
    let mut found = sections.iter().filter(|s| s.folders.iter().any(|f| f == folder) && trains(&s.command, cfg));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The order in which `groups` fill the file's budget: the top-level groups (`results/NAME`) in
/// their order, then the configurations the page links to (`linked`, [`group_key`]s), then the
/// subfolders' in [`FOLDER_ORDER`]; within a folder the configurations fewest changes away from
/// their chapter's defaults first (the ones a reader reaches with a control or two), then the
/// smallest.
fn budget_order(groups: &[Group], linked: &[String]) -> Vec<usize> {
    let size = |g: &Group| serde_json::to_string(g).map_or(0, |t| t.len() + 1);
    let top = |g: &Group| g.source.split(", ").any(|s| s.matches('/').count() <= 1);
    let folder = |g: &Group| {
        let name = g.source.split(", ").next().unwrap_or("").split('/').rev().nth(1).unwrap_or("");
        FOLDER_ORDER.iter().position(|f| *f == name).unwrap_or(FOLDER_ORDER.len())
    };
    let changes = |g: &Group| g.query.matches('&').count();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&i| {
        let g = &groups[i];
        if top(g) {
            (0, 0, 0, 0, i)
        } else if linked.contains(&g.query) {
            (1, 0, 0, size(g), i)
        } else {
            (2, folder(g), changes(g), size(g), i)
        }
    });
    order
}

/// The file from runs found on disk: grouped by [`group_key`] (in the order of their first run,
/// runs by seed; of two runs of one seed in a group, the one with more rows), each run's hero
/// columns (a CSV without one of them is left out, with the reason in the second value), each
/// group's command from `sections` ([`command_for`] for every folder it comes from); `linked` are
/// the [`group_key`]s of the configurations the page links to, which fill the budget right after
/// the top-level groups ([`budget_order`]).
pub fn build(
    found: Vec<Found>,
    sections: &[Section],
    written_by: &str,
    linked: &[String],
) -> (MeasuredFile, Vec<String>) {
    let mut groups: Vec<Group> = vec![];
    let mut configs: Vec<RunConfig> = vec![];
    let mut skipped = vec![];
    for f in found {
        let experiment = f.config.experiment.name().to_string();
        let columns: Vec<String> = hero_columns(f.config.experiment).iter().map(|s| s.to_string()).collect();
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
            None => {
                let mut config = match serde_json::to_value(&f.config) {
                    Ok(serde_json::Value::Object(m)) => m,
                    _ => serde_json::Map::new(),
                };
                config.remove("seed");
                groups.push(Group {
                    experiment,
                    preset: f.config.preset.name().to_string(),
                    source: f.source,
                    command: None,
                    section: None,
                    query,
                    config,
                    columns,
                    runs: vec![run],
                    cut: None,
                });
                configs.push(f.config);
            }
        }
    }
    for (g, cfg) in groups.iter_mut().zip(&configs) {
        g.runs.sort_by_key(|r| r.seed);
        // Each source's command, or its folder where no section names one; nothing when none does.
        let mut named = false;
        let mut commands: Vec<String> = vec![];
        let mut names: Vec<&str> = vec![];
        for source in g.source.split(", ") {
            let folder = source.rsplit_once('/').map_or("", |(dir, _)| dir);
            let said = match command_for(sections, folder, cfg) {
                Some(s) => {
                    named = true;
                    if !names.contains(&s.name.as_str()) {
                        names.push(&s.name);
                    }
                    cleaned(&s.command)
                }
                None => source.to_string(),
            };
            if !commands.contains(&said) {
                commands.push(said);
            }
        }
        if named {
            g.command = Some(commands.join("; "));
            g.section = Some(names.join(", "));
        }
    }
    let size = |g: &Group| serde_json::to_string(g).map_or(0, |t| t.len() + 1);
    let top = |g: &Group| g.source.split(", ").any(|s| s.matches('/').count() <= 1);
    let mut used = 64;
    let mut keep = vec![false; groups.len()];
    for i in budget_order(&groups, linked) {
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

/// The file as written: compact JSON, one line.
pub fn to_json(file: &MeasuredFile) -> String {
    serde_json::to_string(file).expect("plain data")
}

#[cfg(test)]
mod tests;
