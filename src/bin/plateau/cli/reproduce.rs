//! `plateau reproduce` for chapter 1 (the c sweep over seeds, with checkpoints and resume), and the
//! finished-run store chapters 2 to 4 share (`kept_run`, with checkpoints and resume).

#[allow(unused_imports)]
use super::*;

/// `plateau reproduce`: the paper's c sweep over seeds; writes one CSV per run and rewrites this
/// preset's section of `REPRODUCTION.md` from the recorded numbers.
pub(super) fn cmd_reproduce(args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::plateau::summary as report;
    let flags = parse_flags(
        args,
        &[
            "seeds",
            "cs",
            "out",
            "csv-dir",
            "backend",
            "quiet",
            "resume",
            "finished-only",
            "long-factor",
            "checkpoint-every",
            "stop-after",
            "gammas",
            "strength",
            "brief-until",
            "ablation",
            "learning-order",
            "factors",
            "page",
            "fresh-seeds",
            "search",
            "design",
            "configs",
            "max-memory",
            "against-transcription",
            "after-drop",
            "transcription-dir",
            "early-seeds",
            "early-dir",
            "early-transcription-dir",
            "shard",
        ],
    )?;
    apply_max_memory(&flags)?;
    // Every output is checked before anything trains: the document, and the folder of runs.
    check_document(flags.get("out").unwrap_or("REPRODUCTION.md"), "out")?;
    let csv_dir = flags.get("csv-dir").unwrap_or("results");
    if matches!(output::kind(csv_dir), output::Kind::File | output::Kind::Special) {
        return Err(CliError(format!("--csv-dir {csv_dir}: not a folder")));
    }
    if flags.get("against-transcription").is_none() {
        let only = ["after-drop", "transcription-dir", "early-seeds", "early-dir", "early-transcription-dir"];
        if let Some(f) = only.into_iter().find(|f| flags.get(f).is_some()) {
            return Err(CliError(format!("--{f} is for --against-transcription")));
        }
    }
    if matches!(
        flags.cfg.experiment,
        plateau::config::Task::Anchors | plateau::config::Task::Syntax | plateau::config::Task::Lm
    ) {
        // The chapter 1 sweep's own flags would be silently ignored by chapters 2 to 4.
        if let Some(f) = ["long-factor", "cs"].into_iter().find(|f| flags.get(f).is_some()) {
            return Err(CliError(format!("--{f} is for the chapter 1 sweep")));
        }
    }
    // `--shard` is checked before anything trains; the sweeps read it again where they train.
    Shard::from_flags(&flags)?;
    if flags.get("against-transcription").is_some() {
        if flags.get("shard").is_some() {
            return Err(CliError(
                "--shard is for the sweeps; --against-transcription trains its seeds in one invocation".into(),
            ));
        }
        return reproduce_seeds(&flags, args);
    }
    match flags.cfg.experiment {
        plateau::config::Task::Anchors => return reproduce_anchors(&flags, args),
        plateau::config::Task::Syntax => return reproduce_syntax(&flags, args),
        plateau::config::Task::Lm => return reproduce_lm(&flags, args),
        _ => {}
    }
    let seeds = seed_list(&flags, "0,1,2")?;
    let cs = list_flag(&flags, "cs", "0.5,1,2.5,10")?;
    // Runs with c < 1 train `--long-factor` times `--steps`: the product must be a valid `steps`.
    let long = int_flag(&flags, "long-factor", 5, 1, MAX_STEPS)? as usize;
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
    let every = int_flag(&flags, "checkpoint-every", 25, 0, MAX_STEPS)? as usize;
    let mut budget = stop_after_flag(&flags)?;
    let mut missing: Vec<String> = vec![];
    let mut diverged = 0;
    let mut shard = Shard::from_flags(&flags)?;
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
    let cfgline: Vec<String> = base.non_default_pairs().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    let body = format!(
        "## Chapter 1 — {} preset, {} (generated)\n\n\
         Written by `{}` on {} ({} backend, {} threads available). Model: {} layer(s), {} head(s), d {}, d_ff {}, {} attention, \
         n {}, batch {}, lr {}, {} steps ({}× for c < 1), evaluation every {} steps on a fresh held-out batch of {}. \
         Non-default settings: {}. Per-run CSVs: `{csv_dir}/`. *Wall s* is each run's wall-clock time, including any \
         time this machine gave to other work meanwhile (step timings measured side by side are in `BENCHMARKS.md`).{}\n\n{}\n\
         ### Against the paper\n\n{}",
        base.preset.name(),
        base.experiment.name(),
        cmd.trim(),
        today(),
        kind.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        base.layers,
        base.heads,
        base.d_model,
        base.d_ff,
        base.attention.name(),
        base.n,
        base.batch,
        base.lr,
        base.steps,
        long,
        base.eval_every,
        base.eval_batch,
        if cfgline.is_empty() { "none".to_string() } else { cfgline.join(", ") },
        if finished_only {
            format!(
                " `--finished-only`: the runs below were finished by earlier invocations (same config and backend; \
                 the date of each is in its `{csv_dir}/*.json`); this one trained nothing."
            )
        } else if resumed > 0 {
            format!(
                " {resumed} of the {} runs were finished by earlier invocations with `--resume` (same config and \
                 backend; the date of each is in its `{csv_dir}/*.json`), the rest by this one.",
                summaries.len()
            )
        } else {
            String::new()
        },
        report::table(&summaries),
        report::comparison(&summaries, base.preset == Preset::Paper && base.experiment == plateau::config::Task::Mws),
    );
    let body = if missing.is_empty() {
        body
    } else {
        format!(
            "{body}\n**Unfinished sweep:** {} of the {} runs are finished; not finished: {}. The same command with \
             `--resume` (instead of `--finished-only` or `--stop-after`) trains the missing runs, continues the \
             checkpointed ones and keeps the finished ones.\n",
            summaries.len(),
            summaries.len() + missing.len(),
            missing.join(", ")
        )
    };
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

/// Writes `t`'s [`Checkpoint`](plateau::train::checkpoint::Checkpoint) to the directory `dir` (`model.bpk`,
/// `optimizer.bpk`, `state.cbor`, and `run.json` with the backend and the wall seconds so far),
/// replacing the previous one only once the new one is complete.
pub(super) fn save_checkpoint<C: Chapter>(
    dir: &str,
    t: &Trainer<C>,
    kind: BackendKind,
    wall_s: f64,
) -> Result<(), CliError> {
    let cp = t.checkpoint().map_err(CliError)?;
    let tmp = format!("{dir}.tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    output::write_file(&format!("{tmp}/model.bpk"), &cp.model)?;
    output::write_file(&format!("{tmp}/optimizer.bpk"), &cp.optimizer)?;
    output::write_file(&format!("{tmp}/state.cbor"), &cp.state.to_bytes())?;
    let meta = serde_json::json!({ "backend": kind.name(), "step": t.step(), "wall_s": wall_s, "date": today() });
    output::write_file(&format!("{tmp}/run.json"), serde_json::to_string_pretty(&meta)?.as_bytes())?;
    if std::path::Path::new(dir).exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::rename(&tmp, dir)?;
    Ok(())
}

/// The run checkpointed in `dir` and its wall seconds so far, if there is one made with exactly
/// `cfg` on `kind`; otherwise (none, another config, unreadable) `None`, with a message unless
/// there is none.
pub(super) fn load_checkpoint<C: Chapter>(dir: &str, cfg: &RunConfig, kind: BackendKind) -> Option<(Trainer<C>, f64)> {
    use plateau::train::checkpoint::{Checkpoint, CheckpointState};
    if !std::path::Path::new(dir).exists() {
        return None;
    }
    let read = || -> Result<(Trainer<C>, f64), String> {
        let file = |name: &str| std::fs::read(format!("{dir}/{name}")).map_err(|e| format!("{name}: {e}"));
        let meta: serde_json::Value =
            serde_json::from_slice(&file("run.json")?).map_err(|e| format!("run.json: {e}"))?;
        if meta["backend"].as_str() != Some(kind.name()) {
            return Err(format!("it was trained on {}, this run uses {}", meta["backend"], kind.name()));
        }
        let state = CheckpointState::from_bytes(&file("state.cbor")?)?;
        // Live changes (none in reproduce) aside, the config must be the one asked for.
        if state.config != *cfg {
            return Err("it was made with another config".into());
        }
        let cp = Checkpoint { model: file("model.bpk")?, optimizer: file("optimizer.bpk")?, state };
        let wall = meta["wall_s"].as_f64().unwrap_or(0.0);
        Ok((Trainer::from_checkpoint(cp, &backend::device(kind))?, wall))
    };
    match read() {
        Ok(found) => Some(found),
        Err(why) => {
            eprintln!("ignoring the checkpoint in {dir} ({why}); starting the run afresh");
            None
        }
    }
}

/// The run to train: with `resume`, the checkpoint in `ckpt` when `load` reads one back for
/// `cfg` (said on stderr, with the wall seconds it had already taken), else a new run of `cfg`.
pub(super) fn resumed_or_new(
    ckpt: &str,
    cfg: &RunConfig,
    kind: BackendKind,
    resume: bool,
    label: &str,
    load: fn(&str, &RunConfig, BackendKind) -> Option<(Run, f64)>,
) -> Result<(Run, f64), CliError> {
    match if resume { load(ckpt, cfg, kind) } else { None } {
        Some((run, wall)) => {
            eprintln!("{label}: continuing from the checkpoint in {ckpt} at step {} (--resume)", run.step());
            Ok((run, wall))
        }
        None => Ok((Run::new(cfg.clone(), &backend::device(kind))?, 0.0)),
    }
}

/// Reads a checkpoint of chapter 1 ([`load_checkpoint`]) as a [`Run`].
pub(super) const PLATEAU_CHECKPOINT: fn(&str, &RunConfig, BackendKind) -> Option<(Run, f64)> = |dir, cfg, kind| {
    load_checkpoint::<plateau::chapters::plateau::Plateau>(dir, cfg, kind)
        .map(|(t, wall)| (Run::Plateau(Box::new(t)), wall))
};

/// How a reproduction keeps the runs of one chapter (2 to 4): its rows, how to read them back
/// from its CSV, and how to take them from a finished [`Run`].
pub(super) struct Kept<R> {
    parse: fn(&str) -> Result<Vec<R>, String>,
    step: fn(&R) -> usize,
    rows: fn(&Run) -> Vec<R>,
    /// Writes the run's checkpoint ([`save_checkpoint`]).
    save: fn(&Run, &str, BackendKind, f64) -> Result<(), CliError>,
    /// Reads a checkpoint of this chapter ([`load_checkpoint`]).
    load: fn(&str, &RunConfig, BackendKind) -> Option<(Run, f64)>,
}

/// The [`Kept`] of the chapter whose runs are `Run::$variant` and whose trainer is `$chapter`,
/// its CSV read by `$parse`: one definition for every chapter's table below.
macro_rules! kept {
    ($variant:ident, $chapter:ty, $parse:expr) => {
        Kept {
            parse: $parse,
            step: |r| r.step,
            rows: |run| match run {
                Run::$variant(t) => t.history.rows.clone(),
                _ => unreachable!("a chapter's runs are its own"),
            },
            save: |run, dir, kind, wall| match run {
                Run::$variant(t) => save_checkpoint(dir, t, kind, wall),
                _ => unreachable!("a chapter's runs are its own"),
            },
            load: |dir, cfg, kind| {
                load_checkpoint::<$chapter>(dir, cfg, kind).map(|(t, wall)| (Run::$variant(Box::new(t)), wall))
            },
        }
    };
}

pub(super) const ANCHOR_RUNS: Kept<plateau::chapters::anchors::AnchorRow> =
    kept!(Anchors, plateau::chapters::anchors::Anchors, plateau::chapters::anchors::from_csv);

pub(super) const SYNTAX_RUNS: Kept<plateau::chapters::syntax::SyntaxRow> =
    kept!(Syntax, plateau::chapters::syntax::Syntax, plateau::chapters::syntax::from_csv);

pub(super) const LM_RUNS: Kept<plateau::chapters::lm::LmRow> =
    kept!(Lm, plateau::chapters::lm::Lm, plateau::history::from_csv);

/// A finished run read back from its CSV and meta file, when both exist, the meta's config and
/// backend are this run's, and the CSV reaches the last step.
pub(super) fn finished_kept_run<R>(
    kept: &Kept<R>,
    csv: &str,
    meta: &str,
    cfg: &RunConfig,
    kind: BackendKind,
) -> Option<(Vec<R>, f64)> {
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(meta).ok()?).ok()?;
    if serde_json::from_value::<RunConfig>(m["config"].clone()).ok()? != *cfg || m["backend"].as_str()? != kind.name() {
        return None;
    }
    let rows = (kept.parse)(&std::fs::read_to_string(csv).ok()?).ok()?;
    ((kept.step)(rows.last()?) == cfg.steps).then_some((rows, m["wall_s"].as_f64()?))
}

/// How `reproduce` carries a run of chapters 2 to 4 across invocations: its state is saved every
/// `every` steps (`--checkpoint-every`, 0: never) to `{stem}.ckpt/`, `--resume` continues a run
/// from there, and `--stop-after N` trains at most N steps in this invocation (then saves and
/// stops, to be resumed).
pub(super) struct Resume {
    every: usize,
    resume: bool,
    budget: Option<usize>,
    /// `--shard i/N`: the runs of this invocation's share ([`Shard`]).
    pub(super) shard: Option<Shard>,
}

impl Resume {
    /// The flags' values (checkpoints every 100 steps by default).
    pub(super) fn from_flags(flags: &Flags) -> Result<Resume, CliError> {
        let every = int_flag(flags, "checkpoint-every", 100, 0, MAX_STEPS)? as usize;
        let budget = stop_after_flag(flags)?;
        Ok(Resume { every, resume: flags.get("resume").is_some(), budget, shard: Shard::from_flags(flags)? })
    }

    /// After a sharded invocation's share: its [`Shard::finish`], for the command to return
    /// before it writes anything; `None` without `--shard`.
    pub(super) fn sharded(&self) -> Option<ExitCode> {
        self.shard.map(|s| s.finish())
    }

    /// What a reproduction with no finished run says: after `--stop-after` ran out, that the
    /// section comes once runs finish (exit 0); otherwise an error.
    pub(super) fn nothing_finished(&self) -> Result<ExitCode, CliError> {
        if self.budget == Some(0) {
            eprintln!(
                "no run has finished yet (--stop-after): the section is written once one has; continue with --resume"
            );
            Ok(ExitCode::SUCCESS)
        } else {
            Err(CliError("no finished runs to write a section from".into()))
        }
    }
}

/// One run of a reproduction, kept as `{stem}.csv` (its rows) and `{stem}.json` (config, backend,
/// wall seconds): read back when finished with the same config and backend, else trained when
/// `train` and the run is this invocation's (`--shard`, [`Shard`]; an error if it diverges) —
/// continued from `{stem}.ckpt/` with `--resume`, checkpointed as [`Resume`] says, `None` when
/// `--stop-after` stopped it — else `None`.
#[allow(clippy::too_many_arguments)]
pub(super) fn kept_run<R>(
    kept: &Kept<R>,
    cfg: &RunConfig,
    stem: &str,
    kind: BackendKind,
    train: bool,
    quiet: bool,
    label: &str,
    resume: &mut Resume,
) -> Result<Option<(Vec<R>, f64)>, CliError> {
    let (csv, meta) = (format!("{stem}.csv"), format!("{stem}.json"));
    let mine = my_turn(&mut resume.shard);
    if let Some(done) = finished_kept_run(kept, &csv, &meta, cfg, kind) {
        return Ok(Some(done));
    }
    if !train || !mine || resume.budget == Some(0) {
        return Ok(None);
    }
    let ckpt = format!("{stem}.ckpt");
    let (mut run, wall_before) = resumed_or_new(&ckpt, cfg, kind, resume.resume, label, kept.load)?;
    let start = Instant::now();
    let mut stopped = false;
    let secs = {
        let (every, budget) = (resume.every, &mut resume.budget);
        let mut after_step = |run: &Run| -> Result<bool, CliError> {
            let out_of_budget = budget.as_mut().is_some_and(|b| {
                *b -= 1;
                *b == 0
            });
            if out_of_budget || (every > 0 && run.step() % every == 0) {
                (kept.save)(run, &ckpt, kind, wall_before + start.elapsed().as_secs_f64())?;
            }
            stopped = out_of_budget;
            Ok(!out_of_budget)
        };
        wall_before + drive(&mut run, quiet, label, &mut after_step)?
    };
    if stopped {
        eprintln!(
            "{label}: stopped at step {} (--stop-after); checkpoint in {ckpt}, continue with --resume",
            run.step()
        );
        return Ok(None);
    }
    if let Status::Diverged(msg) = run.status() {
        return Err(CliError(format!("{label}: {msg}")));
    }
    output::write_file(&csv, run.csv().as_bytes())?;
    let m = serde_json::json!({"config": cfg, "backend": kind.name(), "wall_s": secs});
    output::write_file(&meta, serde_json::to_string_pretty(&m).expect("plain JSON").as_bytes())?;
    if std::path::Path::new(&ckpt).exists() {
        std::fs::remove_dir_all(&ckpt)?;
    }
    Ok(Some(((kept.rows)(&run), secs)))
}
