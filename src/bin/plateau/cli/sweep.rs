//! How a reproduction keeps its runs: checkpoints (save, load, continue), the finished runs of
//! chapters 2 to 4 read back from their CSVs ([`Kept`]), and the [`Sweep`] every sweep of
//! chapters 2 to 4 trains its runs through.

use super::shared::{int_flag, my_turn, stop_after_flag, today, write_page_block, write_section, Shard, MAX_STEPS};
use super::{drive, output, CliError, Flags};
use plateau::backend;
use plateau::backend::BackendKind;
use plateau::config::RunConfig;
use plateau::run::{InRun, Run};
use plateau::train::Chapter;
use plateau::train::Status;
use plateau::train::Trainer;
use std::process::ExitCode;
use std::time::Instant;
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

/// What a sweep of one chapter never holds: a run of another.
const MIXED: &str = "a chapter's sweep holds only its own runs";

/// The [`Kept`] of the chapter whose trainer is `$chapter`, its CSV read by `$parse`: one
/// definition for every chapter's table below.
macro_rules! kept {
    ($chapter:ty, $parse:expr) => {
        Kept {
            parse: $parse,
            step: |r| r.step,
            rows: |run| <$chapter>::trainer(run).expect(MIXED).history.rows.clone(),
            save: |run, dir, kind, wall| save_checkpoint(dir, <$chapter>::trainer(run).expect(MIXED), kind, wall),
            load: |dir, cfg, kind| {
                load_checkpoint::<$chapter>(dir, cfg, kind).map(|(t, wall)| (<$chapter>::wrap(Box::new(t)), wall))
            },
        }
    };
}

pub(super) const ANCHOR_RUNS: Kept<plateau::chapters::anchors::AnchorRow> =
    kept!(plateau::chapters::anchors::Anchors, plateau::chapters::anchors::from_csv);

pub(super) const SYNTAX_RUNS: Kept<plateau::chapters::syntax::SyntaxRow> =
    kept!(plateau::chapters::syntax::Syntax, plateau::chapters::syntax::from_csv);

pub(super) const LM_RUNS: Kept<plateau::chapters::lm::LmRow> =
    kept!(plateau::chapters::lm::Lm, plateau::history::from_csv);

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

/// One reproduction's runs (chapters 2 to 4): which backend trains them (`--backend`), whether
/// this invocation trains (`--finished-only` trains none, reads what is finished), how a run is
/// carried across invocations (its state saved every `--checkpoint-every` steps, 100 by default,
/// to `{stem}.ckpt/`; `--resume` continues it; `--stop-after N` trains at most N steps in this
/// invocation, then saves and stops), which share of the runs it trains (`--shard`), and where the
/// section goes (`--out`). Each run goes through [`Sweep::run`]; [`Sweep::finish`] ends the
/// training part and [`Sweep::publish`] writes what the command made of the runs.
pub(super) struct Sweep {
    /// `--out`: the document the section goes into.
    pub(super) out: String,
    /// `--backend`.
    pub(super) kind: BackendKind,
    finished_only: bool,
    quiet: bool,
    every: usize,
    resume: bool,
    budget: Option<usize>,
    shard: Option<Shard>,
    /// Runs asked for that are not finished (not trained yet, stopped, or another shard's).
    missing: usize,
}

impl Sweep {
    /// The flags' values.
    pub(super) fn from_flags(flags: &Flags) -> Result<Sweep, CliError> {
        Ok(Sweep {
            out: flags.get("out").unwrap_or("REPRODUCTION.md").to_string(),
            kind: flags.backend()?,
            finished_only: flags.get("finished-only").is_some(),
            quiet: flags.get("quiet").is_some(),
            every: int_flag(flags, "checkpoint-every", 100, 0, MAX_STEPS)? as usize,
            resume: flags.get("resume").is_some(),
            budget: stop_after_flag(flags)?,
            shard: Shard::from_flags(flags)?,
            missing: 0,
        })
    }

    /// A run of the sweep that was found finished elsewhere (another command's folder): counted
    /// like any run, so every shard splits the same list.
    pub(super) fn found(&mut self) {
        my_turn(&mut self.shard);
    }

    /// One run, kept as `{stem}.csv` (its rows) and `{stem}.json` (config, backend, wall seconds):
    /// read back when finished with the same config and backend, else trained when `train` (the
    /// command's own choice, e.g. `--factors`), the invocation trains (not `--finished-only`) and
    /// the run is its share (`--shard`) — continued from `{stem}.ckpt/` with `--resume`,
    /// checkpointed as the sweep says, `None` when `--stop-after` stopped it; an error if it
    /// diverges — else `None`.
    pub(super) fn run<R>(
        &mut self,
        kept: &Kept<R>,
        cfg: &RunConfig,
        stem: &str,
        label: &str,
        train: bool,
    ) -> Result<Option<(Vec<R>, f64)>, CliError> {
        let kind = self.kind;
        let (csv, meta) = (format!("{stem}.csv"), format!("{stem}.json"));
        let mine = my_turn(&mut self.shard);
        if let Some(done) = finished_kept_run(kept, &csv, &meta, cfg, kind) {
            return Ok(Some(done));
        }
        if !train || self.finished_only || !mine || self.budget == Some(0) {
            self.missing += 1;
            return Ok(None);
        }
        let ckpt = format!("{stem}.ckpt");
        let (mut run, wall_before) = resumed_or_new(&ckpt, cfg, kind, self.resume, label, kept.load)?;
        let start = Instant::now();
        let mut stopped = false;
        let secs = {
            let (every, budget) = (self.every, &mut self.budget);
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
            wall_before + drive(&mut run, self.quiet, label, &mut after_step)?
        };
        if stopped {
            eprintln!(
                "{label}: stopped at step {} (--stop-after); checkpoint in {ckpt}, continue with --resume",
                run.step()
            );
            self.missing += 1;
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

    /// Ends the training part, before the command writes anything: a shard stops here with its
    /// summary ([`Shard::finish`]); otherwise the runs not finished are named, and with none
    /// finished (`finished` is 0) the command stops — successfully after `--stop-after` ran out
    /// (the section comes once runs finish), with an error otherwise. `None`: go on and publish.
    pub(super) fn finish(&self, finished: usize) -> Option<Result<ExitCode, CliError>> {
        if let Some(s) = self.shard {
            return Some(Ok(s.finish()));
        }
        if self.missing > 0 {
            eprintln!("{} run(s) not finished yet: the section lists the finished ones", self.missing);
        }
        if finished > 0 {
            None
        } else if self.budget == Some(0) {
            eprintln!(
                "no run has finished yet (--stop-after): the section is written once one has; continue with --resume"
            );
            Some(Ok(ExitCode::SUCCESS))
        } else {
            Some(Err(CliError("no finished runs to write a section from".into())))
        }
    }

    /// Writes section `name` of `--out` from the runs, and `page`'s paragraph (`(block, text)`)
    /// into the page when the command writes one.
    pub(super) fn publish(
        &self,
        flags: &Flags,
        name: &str,
        body: &str,
        page: Option<(&str, &str)>,
    ) -> Result<ExitCode, CliError> {
        write_section(&self.out, name, body)?;
        if let Some((block, text)) = page {
            write_page_block(flags, block, text)?;
        }
        Ok(ExitCode::SUCCESS)
    }
}
