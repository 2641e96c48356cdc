//! `plateau reproduce --experiment lm`: chapter 4's runs over seeds, set against the paper's
//! Pythia and OLMo-2 figures.

use super::shared::{seed_list, written_by};
use super::sweep::{Sweep, LM_RUNS};
use super::{train_any, CliError, Flags};
use plateau::backend;
use plateau::config::Preset;
use plateau::config::RunConfig;
use plateau::run::Run;
use std::process::ExitCode;
/// `plateau reproduce --experiment lm [--preset P] [--seeds 0,1,2] [--finished-only]`: one CSV
/// per seed (finished runs of the same config and backend are read back); writes the section
/// `chapter4-<preset>-lm` and, for the interactive default, the page's `chapter4-findings`.
pub(super) fn reproduce_lm(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::lm::{corpus, summary as r};
    let seeds = seed_list(flags, "0,1,2")?;
    let csv_dir = flags.get("csv-dir").unwrap_or("results").to_string();
    let mut sweep = Sweep::from_flags(flags)?;
    let kind = sweep.kind;
    std::fs::create_dir_all(&csv_dir)?;
    let base = flags.cfg.clone();
    let mut runs = vec![];
    for &seed in &seeds {
        let cfg = RunConfig { seed, ..base.clone() };
        let stem = format!("{csv_dir}/{}-lm-seed{seed}", cfg.preset.name());
        let label = format!("lm seed={seed}");
        if let Some((rows, wall_s)) = sweep.run(&LM_RUNS, &cfg, &stem, &label, true)? {
            let course = r::course(&rows).ok_or_else(|| CliError(format!("{stem}.csv: no rows")))?;
            runs.push(r::LmSummary { seed, course, wall_s });
        }
    }
    if let Some(done) = sweep.finish(runs.len()) {
        return done;
    }
    let c = corpus::corpus().map_err(CliError)?;
    // The ablation of the step-0 hidden cosine over model shapes (no training: the first
    // evaluation of a one-step run).
    let mut cells = vec![];
    for layers in [1, 2, 6] {
        for d_model in [64, 128, 256, 512] {
            let mut cell = r::InitCell { layers, d_model, cos: vec![], repetition: vec![] };
            for &seed in &seeds {
                let cfg = RunConfig { seed, layers, d_model, d_ff: 4 * d_model, steps: 1, ..base.clone() };
                let (run, _) = train_any(cfg, kind, true, "init")?;
                if let Run::Lm(t) = &run {
                    let r0 = &t.history.rows[0];
                    cell.cos.push(r0.hidden_cos);
                    cell.repetition.push(r0.repetition);
                }
            }
            cells.push(cell);
        }
    }
    let init_finding = r::init_finding(&cells, base.layers);
    let page_default = base.preset == Preset::Interactive
        && RunConfig { seed: 0, ..base.clone() } == RunConfig::defaults(plateau::config::Task::Lm, Preset::Interactive);
    let paragraph = r::lm_page_paragraph(&runs, &init_finding);
    let corpus_facts =
        r::CorpusFacts { train_tokens: c.train.len(), heldout_tokens: c.heldout.len(), unigram_loss: c.unigram_loss() };
    let params = plateau::chapters::lm::model_config(&base)
        .init(plateau::model::init::Init::Paper, 0, &backend::cpu_device())
        .param_count();
    let body = r::lm_section(
        &written_by(args, kind),
        &base,
        &csv_dir,
        &corpus_facts,
        (&runs, &cells, &init_finding),
        params,
        page_default.then_some(paragraph.as_str()),
    );
    sweep.publish(
        flags,
        &format!("chapter4-{}-lm", base.preset.name()),
        &body,
        page_default.then_some(("chapter4-findings", paragraph.as_str())),
    )
}
