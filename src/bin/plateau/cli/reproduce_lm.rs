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
    let page_paragraph = if page_default {
        format!("\n### On the page\n\nChapter 4's text quotes this paragraph (`index.html`, section `chapter4-findings`):\n\n> {paragraph}\n")
    } else {
        String::new()
    };
    let decoder = format!(
        "{} layer(s), {} head(s), d {}, d_ff {}, batch {} windows, lr {}{}, weight decay {}, {} steps",
        base.layers,
        base.heads,
        base.d_model,
        base.d_ff,
        base.batch,
        base.lr,
        if base.warmup > 0 { format!(" after a {}-step linear warm-up", base.warmup) } else { String::new() },
        base.weight_decay,
        base.steps
    );
    let body = format!(
        "## Chapter 4 — {} preset, a language model on real text (generated)\n\n\
         {}. Decoder: {}; context {} tokens; \
         the paper's init N(0, 0.02²); AdamW. Corpus: *Moby Dick* (`data/moby-dick.txt`, public domain), chapters 1–121 \
         for training ({} tokens), 122–135 and the epilogue held out ({} tokens), a byte-pair vocabulary of {} subwords \
         learned on the training part. The held-out loss is measured on {} fixed windows evenly spaced over the held-out part. At every evaluation (log-spaced: every step up to 8, then four per doubling, plus \
         every {} steps) each of {} fixed held-out prompts of {} tokens gets {} greedily generated tokens; `hidden_cos` is \
         the mean pairwise cosine of the final-LN hidden states at the positions that produced them (the paper's measure \
         on 100 ARC-Easy questions), `repetition` the share of adjacent generated pairs that repeat. A model that knows \
         only how often each token occurs has a held-out loss of {:.3} nats. Per-run CSVs: `{csv_dir}/`.\n\n{}\n\
         ### Against the paper's language models\n\n{}\n\
         ### What sets the value at initialization\n\n\
         The hidden cosine at step 0 (before any update) of the same decoder at other depths and widths (d_ff four \
         times the width; the seeds above, median and range):\n\n{}\n{init_finding} Pythia's models are 128 \
         (14M) to 2560 (2.8B) wide and 6 to 32 layers deep, with rotary positions instead of learned ones and an \
         initialization of their own; only width and depth were varied here. A likely reason, not tested here: the weights are \
         N(0, 0.02²) whatever the width, so a wider layer's outputs are larger and share more of their direction \
         across positions (the mean of the GELU and of the attention average over the prefix are common to all of \
         them).\n\n\
         **Where this differs from the paper:** the paper measures pretrained checkpoints of Pythia (14M–2.8B) and \
         OLMo-2 (7B) on ARC-Easy questions; this chapter trains a model of {} parameters from scratch on one novel, with \
         a context of {} tokens, in the reader's browser. The steps are this model's, not Pythia's or OLMo-2's (their \
         batches hold millions of tokens).\n{}",
        base.preset.name(),
        written_by(args, kind),
        decoder,
        corpus::CONTEXT,
        c.train.len(),
        c.heldout.len(),
        corpus::VOCAB,
        base.eval_batch,
        base.eval_every,
        corpus::PROMPTS,
        corpus::PROMPT_LEN,
        corpus::GENERATE,
        c.unigram_loss(),
        r::lm_table(&runs),
        r::lm_comparison(&runs),
        r::init_table(&cells),
        plateau::chapters::lm::model_config(&base)
            .init(plateau::model::init::Init::Paper, 0, &backend::cpu_device())
            .param_count(),
        corpus::CONTEXT,
        page_paragraph,
    );
    sweep.publish(
        flags,
        &format!("chapter4-{}-lm", base.preset.name()),
        &body,
        page_default.then_some(("chapter4-findings", paragraph.as_str())),
    )
}
