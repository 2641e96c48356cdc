//! The text of chapter 4's section of `REPRODUCTION.md`, beside the tables it quotes
//! (`plateau reproduce --experiment lm` writes it).

use super::{init_table, lm_comparison, lm_table, InitCell, LmSummary};
use crate::chapters::lm::corpus as C;
use crate::config::RunConfig;

/// What the section says about the corpus: its split and the unigram baseline.
pub struct CorpusFacts {
    /// Tokens of the training part.
    pub train_tokens: usize,
    /// Tokens of the held-out part.
    pub heldout_tokens: usize,
    /// The held-out loss of a model that knows only how often each token occurs, in nats.
    pub unigram_loss: f64,
}

/// Chapter 4's section for the runs of `base` (`csv_dir` holds their CSVs): the written-by line,
/// the setup, the runs' table, the comparison with the paper's language models, the ablation of
/// the value at initialization (`results`: the runs, the ablation's cells, its finding), the
/// model's size (`params`), and, for the page's default, the page's paragraph.
pub fn lm_section(
    written_by: &str,
    base: &RunConfig,
    csv_dir: &str,
    corpus: &CorpusFacts,
    results: (&[LmSummary], &[InitCell], &str),
    params: usize,
    page: Option<&str>,
) -> String {
    let (runs, cells, init_finding) = results;
    let page_paragraph = match page {
        Some(paragraph) => format!("\n### On the page\n\nChapter 4's text quotes this paragraph (`index.html`, section `chapter4-findings`):\n\n> {paragraph}\n"),
        None => String::new(),
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
    format!(
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
        written_by,
        decoder,
        C::CONTEXT,
        corpus.train_tokens,
        corpus.heldout_tokens,
        C::VOCAB,
        base.eval_batch,
        base.eval_every,
        C::PROMPTS,
        C::PROMPT_LEN,
        C::GENERATE,
        corpus.unigram_loss,
        lm_table(runs),
        lm_comparison(runs),
        init_table(cells),
        params,
        C::CONTEXT,
        page_paragraph,
    )
}
