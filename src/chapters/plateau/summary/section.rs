//! The text of chapter 1's section of `REPRODUCTION.md`, beside the tables it quotes
//! (`plateau reproduce` writes it).

use super::{comparison, table, RunSummary};
use crate::config::{Preset, RunConfig, Task};

/// How the runs of a section came to be: read back by `--finished-only` (this invocation trained
/// nothing), or `resumed` of them finished by earlier invocations with `--resume`.
#[derive(Clone, Copy, Debug)]
pub struct Reuse {
    /// `--finished-only`.
    pub finished_only: bool,
    /// Runs finished by earlier invocations and reused with `--resume`.
    pub resumed: usize,
}

/// Chapter 1's section of the c sweep of `base` (`written`: "Written by `…` on … (…)"; runs with
/// c < 1 train `long` times `base.steps`; `csv_dir` holds their CSVs; `missing` names the runs not
/// finished).
pub fn plateau_section(
    written: &str,
    base: &RunConfig,
    csv_dir: &str,
    long: usize,
    reuse: Reuse,
    summaries: &[RunSummary],
    missing: &[String],
) -> String {
    let cfgline: Vec<String> = base.non_default_pairs().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    let body = format!(
        "## Chapter 1 — {} preset, {} (generated)\n\n\
         {}. Model: {} layer(s), {} head(s), d {}, d_ff {}, {} attention, \
         n {}, batch {}, lr {}, {} steps ({}× for c < 1), evaluation every {} steps on a fresh held-out batch of {}. \
         Non-default settings: {}. Per-run CSVs: `{csv_dir}/`. *Wall s* is each run's wall-clock time, including any \
         time this machine gave to other work meanwhile (step timings measured side by side are in `BENCHMARKS.md`).{}\n\n{}\n\
         ### Against the paper\n\n{}",
        base.preset.name(),
        base.experiment.name(),
        written,
        base.layers,
        base.heads,
        base.d_model,
        base.d_ff,
        base.plateau.attention.name(),
        base.plateau.n,
        base.batch,
        base.lr,
        base.steps,
        long,
        base.eval_every,
        base.eval_batch,
        if cfgline.is_empty() { "none".to_string() } else { cfgline.join(", ") },
        if reuse.finished_only {
            format!(
                " `--finished-only`: the runs below were finished by earlier invocations (same config and backend; \
                 the date of each is in its `{csv_dir}/*.json`); this one trained nothing."
            )
        } else if reuse.resumed > 0 {
            format!(
                " {} of the {} runs were finished by earlier invocations with `--resume` (same config and \
                 backend; the date of each is in its `{csv_dir}/*.json`), the rest by this one.",
                reuse.resumed,
                summaries.len()
            )
        } else {
            String::new()
        },
        table(summaries),
        comparison(summaries, base.preset == Preset::Paper && base.experiment == Task::MWS),
    );
    if missing.is_empty() {
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
    }
}
