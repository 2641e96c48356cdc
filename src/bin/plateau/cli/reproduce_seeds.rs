//! `plateau reproduce --against-transcription`: chapter 1's paper preset at c = 1 over many
//! seeds, the engine beside the PyTorch transcription trained with PyTorch's own random numbers
//! (`bench/seeds.py`), compared as distributions (median, quartiles, a rank-sum test).

use super::reproduce_plateau::PLATEAU_CHECKPOINT;
use super::shared::{int_flag, stop_after_flag, today, write_section, MAX_STEPS};
use super::sweep::{resumed_or_new, save_checkpoint};
use super::{drive, output, CliError, Flags};
use plateau::backend::BackendKind;
use plateau::chapters::plateau::summary::{summarize, RunSummary, DROP_ACC};
use plateau::chapters::plateau::MetricRow;
use plateau::config::Preset;
use plateau::config::RunConfig;
use plateau::history::Row;
use plateau::run::Run;
use plateau::seeds::{median, quantile, rank_sum_test};
use plateau::train::Status;
use std::process::ExitCode;
use std::time::Instant;

/// The section this command writes.
const SECTION: &str = "chapter1-seed-distributions";

/// One seed's run, from either side.
struct SeedRun {
    seed: u64,
    summary: RunSummary,
    /// `(step, mean hidden cosine)` at every evaluation (the early collapse).
    cos: Vec<(usize, f64)>,
    /// Last evaluated step.
    last_step: usize,
}

/// The compared statistics: name, and how to read it from a run (`None`: the event did not
/// happen).
type Stat = (&'static str, fn(&SeedRun) -> Option<f64>);

const STATS: &[Stat] = &[
    ("drop step (held-out accuracy ≥ 0.5)", |r| r.summary.drop_step.map(|s| s as f64)),
    ("partial solution (held-out first output ≥ 0.9)", |r| r.summary.partial_step.map(|s| s as f64)),
    ("partial solution (training batch first output ≥ 0.95, the authors')", |r| {
        r.summary.partial_step_train.map(|s| s as f64)
    }),
    ("plateau length (drop − held-out partial)", |r| {
        Some(r.summary.drop_step? as f64 - r.summary.partial_step? as f64)
    }),
    ("plateau length (drop − the authors' partial)", |r| {
        Some(r.summary.drop_step? as f64 - r.summary.partial_step_train? as f64)
    }),
    ("peak repetition before the drop", |r| Some(r.summary.peak_repetition).filter(|v| v.is_finite())),
    ("peak hidden cosine before the drop", |r| Some(r.summary.peak_hidden_cos).filter(|v| v.is_finite())),
    ("hidden cosine at step 10", |r| r.cos_at(10)),
    ("APM at the drop", |r| r.summary.apm_at_drop),
];

impl SeedRun {
    /// The mean hidden cosine at `step`, if evaluated there.
    fn cos_at(&self, step: usize) -> Option<f64> {
        self.cos.iter().find(|c| c.0 == step).map(|c| c.1)
    }
}

/// The statistics of the early-collapse comparison (runs of [`EARLY_STEPS`] steps).
const EARLY_STATS: &[Stat] = &[
    ("hidden cosine at step 0 (the initialization alone)", |r| r.cos_at(0)),
    ("hidden cosine at step 5", |r| r.cos_at(5)),
    ("hidden cosine at step 10", |r| r.cos_at(10)),
];

/// Steps of the early-collapse runs.
const EARLY_STEPS: usize = 10;

/// A run's rows read back from its CSV (the engine's and the transcription's have the same
/// columns), summarized by the engine's own [`summarize`].
fn seed_run(csv: &str, seed: u64, wall_s: f64) -> Result<SeedRun, CliError> {
    let text = std::fs::read_to_string(csv).map_err(|e| CliError(format!("{csv}: {e}")))?;
    let rows: Vec<MetricRow> = plateau::history::from_csv(&text).map_err(|e| CliError(format!("{csv}: {e}")))?;
    if rows.is_empty() {
        return Err(CliError(format!("{csv}: no rows")));
    }
    if rows.iter().any(|r| r.train_first_acc.is_nan()) {
        return Err(CliError(format!("{csv}: no train_first_acc column (written before it existed): rerun it")));
    }
    let cos = rows.iter().map(|r| (r.step, r.hidden_cos)).collect();
    let last_step = rows.last().map_or(0, |r| r.step);
    let h = plateau::history::History { rows, snapshots: vec![] };
    Ok(SeedRun { seed, summary: summarize(&h, seed, 1.0, wall_s), cos, last_step })
}

/// The engine's config of one seed: the paper preset at c = 1.
fn seed_config(base: &RunConfig, seed: u64) -> Result<RunConfig, CliError> {
    let mut cfg = base.clone();
    cfg.set("c", "1")?;
    cfg.set("seed", &seed.to_string())?;
    Ok(cfg)
}

/// Trains (or reads back, or continues) the engine's run of `seed`, which stops `after_drop`
/// steps after the drop or at `cfg.steps`; `None` when `--stop-after` ran out first.
#[allow(clippy::too_many_arguments)]
fn engine_run(
    cfg: &RunConfig,
    stem: &str,
    kind: BackendKind,
    after_drop: usize,
    train: bool,
    resume: bool,
    every: usize,
    budget: &mut Option<usize>,
    quiet: bool,
) -> Result<Option<SeedRun>, CliError> {
    let (csv, meta) = (format!("{stem}.csv"), format!("{stem}.json"));
    let same = |m: &serde_json::Value| {
        serde_json::from_value::<RunConfig>(m["config"].clone()).ok().as_ref() == Some(cfg)
            && m["backend"].as_str() == Some(kind.name())
            && m["after_drop"].as_u64() == Some(after_drop as u64)
    };
    if let Some(m) =
        std::fs::read_to_string(&meta).ok().and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    {
        if same(&m) {
            return seed_run(&csv, cfg.seed, m["wall_s"].as_f64().unwrap_or(f64::NAN)).map(Some);
        }
    }
    if !train || *budget == Some(0) {
        return Ok(None);
    }
    let ckpt = format!("{stem}.ckpt");
    let label = format!("engine seed {}", cfg.seed);
    let (mut run, wall_before) = resumed_or_new(&ckpt, cfg, kind, resume, &label, PLATEAU_CHECKPOINT)?;
    let start = Instant::now();
    let (mut stopped, mut dropped) = (false, false);
    let secs = {
        let mut after_step = |run: &Run| -> Result<bool, CliError> {
            let Run::Plateau(t) = run else { unreachable!("chapter 1 runs") };
            let drop = t.history.rows.iter().find(|r| r.test_acc >= DROP_ACC).map(|r| r.step);
            let last = t.history.rows.last().map_or(0, |r| r.step);
            dropped = drop.is_some_and(|d| last >= d + after_drop);
            let out = budget.as_mut().is_some_and(|b| {
                *b -= 1;
                *b == 0
            });
            if !dropped && (out || (every > 0 && t.step() % every == 0)) {
                save_checkpoint(&ckpt, t, kind, wall_before + start.elapsed().as_secs_f64())?;
            }
            stopped = out && !dropped;
            Ok(!(out || dropped))
        };
        wall_before + drive(&mut run, quiet, &label, &mut after_step)?
    };
    if stopped {
        eprintln!("{label}: stopped at step {} (--stop-after); checkpoint in {ckpt}", run.step());
        return Ok(None);
    }
    if let Status::Diverged(msg) = run.status() {
        return Err(CliError(format!("{label}: {msg}")));
    }
    let Run::Plateau(t) = run else { unreachable!("chapter 1 runs") };
    output::write_file(&csv, plateau::history::to_csv(&MetricRow::columns(cfg), &t.history.rows).as_bytes())?;
    let m = serde_json::json!({
        "config": cfg, "backend": kind.name(), "after_drop": after_drop, "wall_s": secs, "date": today()
    });
    output::write_file(&meta, serde_json::to_string_pretty(&m)?.as_bytes())?;
    if std::path::Path::new(&ckpt).exists() {
        std::fs::remove_dir_all(&ckpt)?;
    }
    seed_run(&csv, cfg.seed, secs).map(Some)
}

/// The transcription's run of `seed` in `dir` (`bench/seeds.py`), if it finished with this
/// comparison's protocol; its PyTorch version.
fn transcription_run(
    dir: &str,
    seed: u64,
    cfg: &RunConfig,
    after_drop: usize,
) -> Result<Option<(SeedRun, String)>, CliError> {
    let stem = format!("{dir}/paper-mws-c1-seed{seed}");
    let Ok(text) = std::fs::read_to_string(format!("{stem}.json")) else { return Ok(None) };
    let m: serde_json::Value = serde_json::from_str(&text)?;
    let c = &m["config"];
    let want = [
        ("steps", cfg.steps as f64),
        ("after-drop", after_drop as f64),
        ("eval-every", cfg.eval_every as f64),
        ("batch", cfg.batch as f64),
        ("eval-batch", cfg.eval_batch as f64),
        ("d-model", cfg.d_model as f64),
        ("d-ff", cfg.d_ff as f64),
        ("n", cfg.plateau.n as f64),
        ("lr", cfg.lr),
    ];
    if let Some((k, v)) = want.iter().find(|(k, v)| c[k].as_f64() != Some(*v)) {
        return Err(CliError(format!(
            "{stem}.json: {k} is {}, this comparison uses {v}: rerun bench/seeds.py with the same protocol",
            c[k]
        )));
    }
    let run = seed_run(&format!("{stem}.csv"), seed, m["wall_s"].as_f64().unwrap_or(f64::NAN))?;
    Ok(Some((run, m["torch"].as_str().unwrap_or("?").to_string())))
}

/// How the engine's missing runs are trained (see [`engine_run`]).
struct Training {
    kind: BackendKind,
    after_drop: usize,
    train: bool,
    resume: bool,
    every: usize,
    budget: Option<usize>,
    quiet: bool,
}

/// Every seed's run on both sides for the config `base` (at c = 1): the engine's (trained when
/// missing, as `t` says) from `engine_dir`, the transcription's from `torch_dir`; the runs not
/// there, and the PyTorch versions.
#[allow(clippy::type_complexity)]
fn collect(
    seeds: &[u64],
    base: &RunConfig,
    engine_dir: &str,
    torch_dir: &str,
    t: &mut Training,
) -> Result<(Vec<SeedRun>, Vec<SeedRun>, Vec<String>, std::collections::BTreeSet<String>), CliError> {
    std::fs::create_dir_all(engine_dir)?;
    let (mut engine, mut torch, mut missing) = (vec![], vec![], vec![]);
    let mut versions = std::collections::BTreeSet::new();
    for &seed in seeds {
        let cfg = seed_config(base, seed)?;
        let stem = format!("{engine_dir}/paper-mws-c1-seed{seed}");
        match engine_run(&cfg, &stem, t.kind, t.after_drop, t.train, t.resume, t.every, &mut t.budget, t.quiet)? {
            Some(r) => engine.push(r),
            None => missing.push(format!("engine seed {seed} ({engine_dir})")),
        }
        match transcription_run(torch_dir, seed, &cfg, t.after_drop)? {
            Some((r, v)) => {
                torch.push(r);
                versions.insert(v);
            }
            None => missing.push(format!("transcription seed {seed} ({torch_dir})")),
        }
    }
    Ok((engine, torch, missing, versions))
}

/// The table of `stats` over both sides' runs, one row each: medians, quartiles, the rank-sum
/// test; also each statistic's p-value.
fn comparison_table(engine: &[SeedRun], torch: &[SeedRun], stats: &[Stat]) -> (String, Vec<(&'static str, f64)>) {
    let mut table = String::from(
        "| statistic | engine: median [quartiles] | transcription: median [quartiles] | rank-sum U | two-sided p |\n\
         |---|---|---|---|---|\n",
    );
    let mut ps = vec![];
    for (name, f) in stats {
        let a: Vec<Option<f64>> = engine.iter().map(f).collect();
        let b: Vec<Option<f64>> = torch.iter().map(f).collect();
        let test = rank_sum_test(&a, &b).expect("both sides have runs");
        ps.push((*name, test.p));
        table.push_str(&format!(
            "| {name} | {} | {} | {:.1} | {:.3}{} |\n",
            distribution(engine, *f),
            distribution(torch, *f),
            test.u,
            test.p,
            if test.exact { "" } else { " (normal approximation)" }
        ));
    }
    (table, ps)
}

/// Seeds as the command line gives them: `a..b` when consecutive, else a comma list.
fn seed_range(seeds: &[u64]) -> String {
    match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) if seeds.windows(2).all(|w| w[1] == w[0] + 1) && seeds.len() > 2 => format!("{a}..{b}"),
        _ => seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(","),
    }
}

fn fmt_stat(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(x) if x.fract() == 0.0 && x.abs() >= 1.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.3}"),
    }
}

/// `median [q1, q3]` of a statistic over runs (`n of m` when some runs lack it).
fn distribution(runs: &[SeedRun], f: fn(&SeedRun) -> Option<f64>) -> String {
    let v: Vec<f64> = runs.iter().filter_map(f).collect();
    let missing = runs.len() - v.len();
    let text = match (median(&v), quantile(&v, 0.25), quantile(&v, 0.75)) {
        (Some(m), Some(a), Some(b)) => format!("{} [{}, {}]", fmt_stat(Some(m)), fmt_stat(Some(a)), fmt_stat(Some(b))),
        _ => "—".into(),
    };
    if missing > 0 {
        format!("{text} ({missing} of {} without)", runs.len())
    } else {
        text
    }
}

/// `plateau reproduce --against-transcription`.
pub(super) fn reproduce_seeds(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    let base = flags.cfg.clone();
    if base.preset != Preset::Paper || base.experiment != plateau::config::Task::MWS {
        return Err(CliError("--against-transcription compares chapter 1's paper preset: add --preset paper".into()));
    }
    let seeds = plateau::seeds::parse_seeds_flag("seeds", flags.get("seeds").unwrap_or("0..9")).map_err(CliError)?;
    let after_drop = int_flag(flags, "after-drop", 50, 0, MAX_STEPS)? as usize;
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let csv_dir = flags.get("csv-dir").unwrap_or("results/seeds").to_string();
    let torch_dir = flags.get("transcription-dir").unwrap_or("results/transcription").to_string();
    let kind = flags.backend()?;
    let finished_only = flags.get("finished-only").is_some();
    let every = int_flag(flags, "checkpoint-every", 25, 0, MAX_STEPS)? as usize;
    let budget = stop_after_flag(flags)?;
    let early_seeds = plateau::seeds::parse_seeds_flag("early-seeds", flags.get("early-seeds").unwrap_or("100..129"))
        .map_err(CliError)?;
    let early_dir = flags.get("early-dir").unwrap_or("results/seeds-early").to_string();
    let early_torch_dir = flags.get("early-transcription-dir").unwrap_or("results/transcription-early").to_string();
    let quiet = flags.get("quiet").is_some();
    let resume = flags.get("resume").is_some();
    let mut train = Training { kind, after_drop, train: !finished_only, resume, every, budget, quiet };
    let (engine, torch, mut missing, versions) = collect(&seeds, &base, &csv_dir, &torch_dir, &mut train)?;
    // The early collapse on more seeds: runs of EARLY_STEPS steps are cheap.
    let mut early_base = base.clone();
    early_base.steps = EARLY_STEPS;
    let (e_engine, e_torch, e_missing, e_versions) =
        collect(&early_seeds, &early_base, &early_dir, &early_torch_dir, &mut train)?;
    if engine.is_empty() || torch.is_empty() {
        eprintln!("not finished: {}", missing.iter().chain(&e_missing).cloned().collect::<Vec<_>>().join(", "));
        return Err(CliError("no finished runs on one side: nothing to compare yet (continue with --resume)".into()));
    }
    let mut body = format!(
        "## Chapter 1 — the engine against the transcription, {} (generated)\n\n\
         Written by `cargo run --release{} --bin plateau -- reproduce {}` on {} ({} backend for the engine, {} threads \
         available), from the engine's runs in `{csv_dir}/` and the transcription's in `{torch_dir}/` (`bench/seeds.py`, \
         PyTorch {}). Both train the paper preset at c = 1 (d {}, n {}, batch {}, lr {}, evaluation every {} steps on a \
         fresh held-out batch of {}) with their own random numbers: the engine its ChaCha streams, the transcription \
         `torch.manual_seed(seed)` for the authors' initialization and for every batch, in PyTorch's order. The step-by-step \
         parity test (`scripts/parity.sh`) holds the two equal on the same weights and batches, metrics included; this \
         section asks whether their seeds come from the same distribution. **Protocol:** each run stops {after_drop} \
         steps after its drop, or at step {}: every statistic below is known by then (the peaks are taken before the drop). \
         The seeds are the same numbers on both sides, but they draw different numbers, so the runs are not paired.\n\n",
        if engine.len() == torch.len() {
            format!("{} seed{} each", engine.len(), if engine.len() == 1 { "" } else { "s" })
        } else {
            format!("{} engine seeds against {} transcription seeds", engine.len(), torch.len())
        },
        // Flex is in builds with the `flex` feature only.
        if kind.flag() == "flex" { " --features flex" } else { "" },
        args.join(" "),
        today(),
        kind.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        versions.into_iter().collect::<Vec<_>>().join(", "),
        base.d_model,
        base.plateau.n,
        base.batch,
        base.lr,
        base.eval_every,
        base.eval_batch,
        base.steps,
    );
    let (table, ps) = comparison_table(&engine, &torch, STATS);
    body.push_str(&table);
    body.push_str(&verdict_text(&ps, engine.len(), torch.len()));
    body.push_str(&format!(
        "### The early collapse on {} more seed{}\n\n\
         Ten seeds a side detect only large differences. The representation collapse begins within the first ten steps \
         (the mean hidden-state cosine rises from about 0.07), and runs of {EARLY_STEPS} steps are cheap, so the early \
         collapse is compared again on seeds {} (the engine's \
         runs in `{early_dir}/`, the transcription's in `{early_torch_dir}/`, `bench/seeds.py --seeds {} --steps \
         {EARLY_STEPS} --dir {early_torch_dir}`), none of them among the seeds above.\n\n",
        early_seeds.len(),
        if early_seeds.len() == 1 { "" } else { "s" },
        seed_range(&early_seeds),
        seed_range(&early_seeds),
    ));
    if e_engine.is_empty() || e_torch.is_empty() {
        body.push_str("Not run yet on one side: run the commands above.\n\n");
    } else {
        let (table, ps) = comparison_table(&e_engine, &e_torch, EARLY_STATS);
        body.push_str(&table);
        let low: Vec<String> = ps.iter().filter(|(_, p)| *p < 0.05).map(|(n, p)| format!("{n} (p = {p:.3})")).collect();
        body.push_str(&format!(
            "\n{} (engine {} runs, transcription {}, PyTorch {}).\n\n",
            if low.is_empty() {
                "No step of the early collapse differs at the 5 % level between the two".to_string()
            } else {
                format!("Differs at the 5 % level: {}", low.join("; "))
            },
            e_engine.len(),
            e_torch.len(),
            e_versions.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    missing.extend(e_missing);
    body.push_str(&every_run_table(&engine, &torch));
    if !missing.is_empty() {
        body.push_str(&format!(
            "\n**Unfinished:** {}. The same command with `--resume` trains the engine's missing runs; \
             `bench/seeds.py` the transcription's.\n",
            missing.join(", ")
        ));
    }
    write_section(&out, SECTION, &body)?;
    Ok(ExitCode::SUCCESS)
}

/// The verdict of the comparison: which statistics differ at the 5 % level, with and without the
/// Bonferroni correction for the `ps.len()` tests.
fn verdict_text(ps: &[(&str, f64)], engine_n: usize, torch_n: usize) -> String {
    let k = ps.len() as f64;
    let below: Vec<String> = ps.iter().filter(|(_, p)| *p < 0.05).map(|(n, p)| format!("{n} (p = {p:.3})")).collect();
    let bonf: Vec<&str> = ps.iter().filter(|(_, p)| *p < 0.05 / k).map(|(n, _)| *n).collect();
    format!(
        "\n*Rank-sum U* is the engine's Mann–Whitney U (midranks; a run without the event ranks last); *p* is exact, \
         over every split of the pooled runs into groups of these sizes. Quartiles interpolate between order statistics.\n\n\
         ### Verdict\n\n{}\n\n",
        if bonf.is_empty() && below.is_empty() {
            format!(
                "No statistic differs at the 5 % level: on these {} against {} seeds the engine and the transcription are \
                 consistent with one distribution. A sample this small detects only large differences (a shift of about \
                 one interquartile range); it does not prove the two equal.",
                engine_n,
                torch_n
            )
        } else if bonf.is_empty() {
            format!(
                "{} of the {} statistics differ at the 5 % level: {}. None does after the Bonferroni correction for {} tests \
                 (p < {:.4}), so the evidence for a difference is weak; with {} tests, one or two below 0.05 are expected \
                 by chance a third of the time. More seeds would settle it.",
                below.len(),
                ps.len(),
                below.join("; "),
                ps.len(),
                0.05 / k,
                ps.len()
            )
        } else {
            format!(
                "The distributions differ: {} below the Bonferroni threshold p < {:.4} for {} tests ({}). The parity test \
                 passes, so the difference lies in what it does not cover: the random draws of the initialization and the \
                 data (tested against their distributions in `tests/distributions.rs`).",
                if bonf.len() == 1 { "one statistic is".to_string() } else { format!("{} statistics are", bonf.len()) },
                0.05 / k,
                ps.len(),
                bonf.join("; ")
            )
        }
    )
}

/// Every run of both sides, one row each.
fn every_run_table(engine: &[SeedRun], torch: &[SeedRun]) -> String {
    let mut body = String::from("### Every run\n\n| side | seed | drop | partial (held-out) | partial (train, authors') | peak repetition | peak hidden cos | hidden cos at 10 | APM at drop | last step | wall s |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (side, runs) in [("engine", engine), ("transcription", torch)] {
        for r in runs.iter() {
            let s = &r.summary;
            body.push_str(&format!(
                "| {side} | {} | {} | {} | {} | {:.3} | {:.3} | {} | {} | {} | {:.0} |\n",
                r.seed,
                fmt_stat(s.drop_step.map(|v| v as f64)),
                fmt_stat(s.partial_step.map(|v| v as f64)),
                fmt_stat(s.partial_step_train.map(|v| v as f64)),
                s.peak_repetition,
                s.peak_hidden_cos,
                fmt_stat(r.cos_at(10)),
                fmt_stat(s.apm_at_drop),
                r.last_step,
                s.wall_s
            ));
        }
    }
    body
}
