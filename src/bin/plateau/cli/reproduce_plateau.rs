//! `plateau reproduce` for chapter 1: the paper's c sweep over seeds, with checkpoints, resume
//! and shards; one CSV per run and this preset's section of `REPRODUCTION.md`.

use super::shared::{int_flag, list_flag, my_turn, seed_list, stop_after_flag, today, write_section, Shard, MAX_STEPS};
use super::sweep::{load_checkpoint, resumed_or_new, save_checkpoint};
use super::{drive, output, CliError, Flags};
use plateau::backend::BackendKind;
use plateau::chapters::plateau::MetricRow;
use plateau::config::RunConfig;
use plateau::history::Row;
use plateau::run::Run;
use plateau::train::Status;
use std::process::ExitCode;
use std::time::Instant;
/// Chapter 1's sweep: c × seeds (runs with c < 1 train `--long-factor` times longer, as the
/// paper's); writes one CSV per run and rewrites this preset's section of `REPRODUCTION.md` from
/// the recorded numbers.
pub(super) fn reproduce_plateau(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::plateau::summary as report;
    let seeds = seed_list(flags, "0,1,2")?;
    let cs = list_flag(flags, "cs", "0.5,1,2.5,10")?;
    // Runs with c < 1 train `--long-factor` times `--steps`: the product must be a valid `steps`.
    let long = int_flag(flags, "long-factor", 5, 1, MAX_STEPS)? as usize;
    if flags.cfg.steps.checked_mul(long).is_none_or(|n| n as u64 > MAX_STEPS) {
        return Err(CliError(format!(
            "--long-factor {long}: runs with c < 1 train {long} × --steps {} steps, over the largest --steps ({MAX_STEPS})",
            flags.cfg.steps
        )));
    }
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let csv_dir = flags.get("csv-dir").unwrap_or("results").to_string();
    let kind = flags.backend()?;
    std::fs::create_dir_all(&csv_dir)?;
    let base = flags.cfg.clone();
    let mut summaries = vec![];
    let mut resumed = 0;
    // `--finished-only`: write the section from the runs finished so far, train nothing.
    let finished_only = flags.get("finished-only").is_some();
    // `--checkpoint-every K`: save each run's state every K steps (0: never), so `--resume`
    // continues an interrupted run; `--stop-after N`: train at most N steps in this invocation.
    let every = int_flag(flags, "checkpoint-every", 25, 0, MAX_STEPS)? as usize;
    let mut budget = stop_after_flag(flags)?;
    let mut missing: Vec<String> = vec![];
    let mut diverged = 0;
    let mut shard = Shard::from_flags(flags)?;
    for &c in &cs {
        for &seed in &seeds {
            if !my_turn(&mut shard) {
                continue;
            }
            let mut cfg = base.clone();
            cfg.set("c", &c.to_string())?;
            cfg.set("seed", &seed.to_string())?;
            if c < 1.0 {
                // The paper trains 2000 steps (5× 400) for c < 1.
                cfg.steps = base.steps * long;
            }
            let path = format!("{csv_dir}/{}-{}-c{c}-seed{seed}.csv", cfg.preset.name(), cfg.experiment.name());
            let meta_path = format!("{}.json", path.trim_end_matches(".csv"));
            if flags.get("resume").is_some() || finished_only {
                if let Some(summary) = finished_run(&meta_path, &cfg, kind) {
                    eprintln!("c={c} seed={seed}: reusing the finished run in {meta_path} (--resume)");
                    summaries.push(summary);
                    resumed += 1;
                    continue;
                }
            }
            if finished_only {
                missing.push(format!("c = {c} seed {seed}"));
                continue;
            }
            if budget == Some(0) {
                missing.push(format!("c = {c} seed {seed}"));
                continue;
            }
            let ckpt_dir = format!("{}.ckpt", path.trim_end_matches(".csv"));
            let label = format!("c={c} seed={seed}");
            let (mut run, wall_before) =
                resumed_or_new(&ckpt_dir, &cfg, kind, flags.get("resume").is_some(), &label, PLATEAU_CHECKPOINT)?;
            let run_start = Instant::now();
            let mut stopped = false;
            let mut after_step = |run: &Run| -> Result<bool, CliError> {
                let Run::Plateau(t) = run else { unreachable!("reproduce trains chapter 1 runs") };
                let out_of_budget = budget.as_mut().is_some_and(|b| {
                    *b -= 1;
                    *b == 0
                });
                if out_of_budget || (every > 0 && t.step() % every == 0) {
                    save_checkpoint(&ckpt_dir, t, kind, wall_before + run_start.elapsed().as_secs_f64())?;
                }
                stopped = out_of_budget;
                Ok(!out_of_budget)
            };
            let secs = wall_before + drive(&mut run, flags.get("quiet").is_some(), &label, &mut after_step)?;
            let Run::Plateau(run) = run else { unreachable!("reproduce trains chapter 1 runs") };
            if stopped {
                eprintln!("{label}: stopped at step {} (--stop-after); checkpoint in {ckpt_dir}", run.step());
                missing.push(format!("c = {c} seed {seed} (checkpointed at step {} of {})", run.step(), cfg.steps));
                continue;
            }
            output::write_file(
                &path,
                plateau::history::to_csv(&MetricRow::columns(&cfg), &run.history.rows).as_bytes(),
            )?;
            if let Status::Diverged(msg) = run.status() {
                // Kept for inspection, recorded as diverged: never reused as finished (`finished_run`
                // skips it, so `--resume` trains it again) and reported below, exit status 3.
                let meta =
                    serde_json::json!({ "config": cfg, "backend": kind.name(), "date": today(), "diverged": msg });
                output::write_file(&meta_path, serde_json::to_string_pretty(&meta)?.as_bytes())?;
                missing.push(format!("c = {c} seed {seed} (diverged at step {})", run.step()));
                diverged += 1;
                continue;
            }
            let summary = report::summarize(&run.history, cfg.seed, c, secs);
            let meta =
                serde_json::json!({ "config": cfg, "backend": kind.name(), "date": today(), "summary": summary });
            output::write_file(&meta_path, serde_json::to_string_pretty(&meta)?.as_bytes())?;
            summaries.push(summary);
            if std::path::Path::new(&ckpt_dir).exists() {
                std::fs::remove_dir_all(&ckpt_dir)?;
            }
        }
    }
    if let Some(s) = shard {
        return Ok(s.finish());
    }
    let name = format!("chapter1-{}-{}", base.preset.name(), base.experiment.name());
    let cmd = format!("cargo run --release --bin plateau -- reproduce {}", args.join(" "));
    let written = format!(
        "Written by `{}` on {} ({} backend, {} threads available)",
        cmd.trim(),
        today(),
        kind.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let reuse = report::Reuse { finished_only, resumed };
    let body = report::plateau_section(&written, &base, &csv_dir, long, reuse, &summaries, &missing);
    write_section(&out, &name, &body)?;
    if diverged > 0 {
        eprintln!("{diverged} run(s) diverged; the section lists them as not finished");
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary of a finished run recorded in `meta_path` (written after each run of
/// `reproduce`), if it was made with exactly `cfg` on `kind`.
pub(super) fn finished_run(
    meta_path: &str,
    cfg: &RunConfig,
    kind: BackendKind,
) -> Option<plateau::chapters::plateau::summary::RunSummary> {
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(meta_path).ok()?).ok()?;
    let same_cfg = serde_json::from_value::<RunConfig>(meta["config"].clone()).ok()? == *cfg;
    let same_backend = meta["backend"].as_str()? == kind.name();
    if !(same_cfg && same_backend) || meta.get("diverged").is_some() {
        return None;
    }
    serde_json::from_value(meta["summary"].clone()).ok()
}

/// Reads a checkpoint of chapter 1 ([`load_checkpoint`]) as a [`Run`].
pub(super) const PLATEAU_CHECKPOINT: fn(&str, &RunConfig, BackendKind) -> Option<(Run, f64)> = |dir, cfg, kind| {
    load_checkpoint::<plateau::chapters::plateau::Plateau>(dir, cfg, kind)
        .map(|(t, wall)| (Run::Plateau(Box::new(t)), wall))
};
