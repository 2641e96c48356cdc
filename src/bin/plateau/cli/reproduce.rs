//! `plateau reproduce`: the flags every sweep shares, checked once, and the hand-over to each
//! chapter's sweep (`reproduce_plateau.rs`, `reproduce_anchors.rs`, `reproduce_syntax.rs`,
//! `reproduce_lm.rs`; `sweep.rs` keeps their runs).

use super::reproduce_anchors::reproduce_anchors;
use super::reproduce_lm::reproduce_lm;
use super::reproduce_plateau::reproduce_plateau;
use super::reproduce_seeds::reproduce_seeds;
use super::reproduce_syntax::reproduce_syntax;
use super::shared::{apply_max_memory, check_document, Shard};
use super::{output, parse_flags, CliError};
use std::process::ExitCode;
/// `plateau reproduce`: reads and checks the flags before anything trains, then hands over to the
/// chapter's sweep (`--experiment`; chapter 1's also with `--against-transcription`).
pub(super) fn cmd_reproduce(args: &[String]) -> Result<ExitCode, CliError> {
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
            "budgets",
            "short-dir",
            "search",
            "design",
            "copy",
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
    use plateau::config::chapters::ChapterId;
    match flags.cfg.experiment.chapter() {
        ChapterId::Plateau => reproduce_plateau(&flags, args),
        ChapterId::Init => reproduce_anchors(&flags, args),
        ChapterId::Syntax => reproduce_syntax(&flags, args),
        ChapterId::Text => reproduce_lm(&flags, args),
    }
}
