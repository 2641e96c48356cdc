//! Chapter 4's trainer: a causal softmax decoder (pre-LN, learned positions, the paper's init
//! N(0, 0.02²)) trained by next-token prediction on the corpus ([`super::corpus`]) with AdamW.
//!
//! Each step of the one [`Trainer`] draws `batch` windows of [`CONTEXT`] + 1 training tokens at
//! uniform random starts (`Train` stream at `s`) and minimizes the mean next-token cross-entropy
//! over all [`CONTEXT`] positions. Evaluation follows a log-spaced schedule dense at the start
//! ([`super::metrics::log_step`], plus every `eval-every` steps and the last), since the collapse
//! happens in the first steps (`log-evals 0` turns it off); each evaluation records, on the model after `s` updates:
//! - the held-out loss on `eval-batch` fixed windows, evenly spaced over the held-out part;
//! - for each of the 100 fixed prompts, 8 tokens generated greedily (argmax, ties to the lowest
//!   id), and from them the repetition frequency, distinct-1 and -2 and the top token's share;
//! - the hidden states (final-LN output) at the 8 positions that produced the generated tokens,
//!   and their mean pairwise cosine (the paper's measure), averaged over the prompts.
//!
//! Every evaluation also records a snapshot: four prompts' generations and the 8 × 8 similarity
//! matrix.

use super::corpus::{self, Corpus, CONTEXT, GENERATE, PROMPT_LEN, VOCAB};
use super::metrics as m;
use super::rows::{Generation, LmRow, LmSnapshot};
use crate::config::{Attention, RunConfig};
use crate::model::init::Init;
use crate::model::transformer::{Sees, Transformer, TransformerConfig};
use crate::rng::{stream, Stream};
use crate::tensor::cross_entropy;
use crate::tensor::{int_tensor, read_f32};
use crate::train::{Chapter, Forward, Observed, Part, Trainer};
use burn::tensor::Device;
use rand::Rng;

/// Prompts whose generations each snapshot shows.
pub const SHOWN: usize = 4;

/// Chapter 4 for the one [`Trainer`].
pub struct Lm {
    corpus: &'static Corpus,
}

/// Chapter 4's trainer.
pub type LmTrainer = Trainer<Lm>;

/// The decoder shape a chapter 4 config asks for.
pub fn model_config(cfg: &RunConfig) -> TransformerConfig {
    TransformerConfig::sized(cfg, VOCAB, CONTEXT, Attention::Softmax, Sees::Earlier)
}

/// The starts of `count` windows of `CONTEXT + 1` tokens evenly spaced over `len` tokens.
pub fn even_starts(len: usize, count: usize) -> Vec<usize> {
    let span = len - CONTEXT - 1;
    (0..count).map(|i| i * span / count.max(1)).collect()
}

/// Inputs and next-token targets (`[b, CONTEXT]` each, row-major) of the windows at `starts`.
pub fn windows(tokens: &[u32], starts: &[usize]) -> (Vec<i64>, Vec<i64>) {
    let mut x = Vec::with_capacity(starts.len() * CONTEXT);
    let mut y = Vec::with_capacity(starts.len() * CONTEXT);
    for &s in starts {
        x.extend(tokens[s..s + CONTEXT].iter().map(|&t| t as i64));
        y.extend(tokens[s + 1..s + CONTEXT + 1].iter().map(|&t| t as i64));
    }
    (x, y)
}

/// Training batch `s` of a seed: `batch` uniform window starts from the `Train` stream at `s`.
pub fn train_starts(corpus: &Corpus, seed: u64, s: usize, batch: usize) -> Vec<usize> {
    let mut rng = stream(seed, Stream::Train, s as u64);
    let span = corpus.train.len() - CONTEXT - 1;
    (0..batch).map(|_| rng.random_range(0..span)).collect()
}

/// Mean next-token loss of `model` on the windows at `starts` of `tokens` (read back).
async fn window_loss(model: &Transformer, tokens: &[u32], starts: &[usize], device: &Device) -> f64 {
    let (x, y) = windows(tokens, starts);
    let b = starts.len();
    let logits = model.forward(int_tensor(x, b, CONTEXT, device), None).logits;
    read_f32(cross_entropy(logits, int_tensor(y, b, CONTEXT, device))).await[0] as f64
}

/// What greedy generation from every prompt produced: the tokens `[prompts, GENERATE]` and the
/// final-LN states `[prompts, GENERATE, d]` at the positions that produced them.
pub struct Generated {
    /// Generated token ids.
    pub tokens: Vec<i64>,
    /// Hidden states.
    pub hidden: Vec<f32>,
}

/// Generates [`GENERATE`] tokens greedily from each prompt. Step `g` runs the model on the
/// prompt and the `g` tokens so far, takes the argmax of the last position's logits (ties to the
/// lowest id) and keeps that position's hidden state (causal attention: the same state a forward
/// over the whole generation computes there).
pub async fn generate(model: &Transformer, prompts: &[&[u32]], d: usize, device: &Device) -> Generated {
    let p = prompts.len();
    let mut seqs: Vec<Vec<i64>> = prompts.iter().map(|q| q.iter().map(|&t| t as i64).collect()).collect();
    let mut hidden = vec![0f32; p * GENERATE * d];
    let mut tokens = vec![0i64; p * GENERATE];
    for g in 0..GENERATE {
        let t = PROMPT_LEN + g;
        let flat: Vec<i64> = seqs.iter().flatten().copied().collect();
        let f = model.forward(int_tensor(flat, p, t, device), None);
        let logits = read_f32(f.logits.slice([0..p, t - 1..t])).await; // [p, 1, V]
        let h = read_f32(f.hidden.slice([0..p, t - 1..t])).await; // [p, 1, d]
        let next = crate::metrics::argmax_rows(&logits, VOCAB);
        for (k, s) in seqs.iter_mut().enumerate() {
            s.push(next[k]);
            tokens[k * GENERATE + g] = next[k];
            hidden[(k * GENERATE + g) * d..(k * GENERATE + g + 1) * d].copy_from_slice(&h[k * d..(k + 1) * d]);
        }
    }
    Generated { tokens, hidden }
}

/// Share of `tokens` that are its most frequent value (0 when empty).
pub fn top_share(tokens: &[i64]) -> f64 {
    let mut sorted = tokens.to_vec();
    sorted.sort_unstable();
    let best = sorted.chunk_by(|a, b| a == b).map(|g| g.len()).max().unwrap_or(0);
    if tokens.is_empty() {
        0.0
    } else {
        best as f64 / tokens.len() as f64
    }
}

impl Chapter for Lm {
    type Model = Transformer;
    type Row = LmRow;
    type Snapshot = LmSnapshot;
    type Batch = ();
    type Carry = ();

    /// The decoder with the paper's init (N(0, 0.02²), output projections scaled by
    /// 1/√(2·layers)) from the seed's `Init` stream. The corpus is the same for every seed.
    fn build(cfg: &RunConfig, device: &Device) -> (Lm, Transformer) {
        let corpus = corpus::corpus().expect("checked by Run::new");
        (Lm { corpus }, model_config(cfg).init(Init::Paper, cfg.seed, device))
    }

    fn due(cfg: &RunConfig, s: usize) -> (bool, bool) {
        let eval = (cfg.lm.log_evals == 1 && m::log_step(s)) || s % cfg.eval_every == 0;
        (eval, eval)
    }

    async fn forward(
        &mut self,
        model: &Transformer,
        cfg: &RunConfig,
        s: usize,
        part: Part,
        device: &Device,
    ) -> Forward<()> {
        let starts = train_starts(self.corpus, cfg.seed, s, cfg.batch);
        let starts = &starts[part.rows(cfg.batch)];
        let (x, y) = windows(&self.corpus.train, starts);
        let b = starts.len();
        let logits = model.forward(int_tensor(x, b, CONTEXT, device), None).logits;
        let objective = cross_entropy(logits, int_tensor(y, b, CONTEXT, device));
        Forward { objective: objective.clone(), watch: vec![objective], batch: () }
    }

    fn diverged(cfg: &RunConfig, s: usize, loss: f64) -> String {
        format!(
            "Training diverged at step {s}: the loss became {loss}. Lower the learning rate (now {}), then reset.",
            cfg.lr
        )
    }

    async fn evaluate(
        &mut self,
        model: &Transformer,
        cfg: &RunConfig,
        s: usize,
        train: Observed<()>,
        _snapshot: bool,
        plain: &Device,
    ) -> (LmRow, Option<LmSnapshot>) {
        let c = self.corpus;
        let held = even_starts(c.heldout.len(), cfg.eval_batch);
        let heldout_loss = window_loss(model, &c.heldout, &held, plain).await;
        let prompts = c.prompts();
        let d = cfg.d_model;
        let gen = generate(model, &prompts, d, plain).await;
        let matrix = m::generation_cosine_matrix(&gen.hidden, GENERATE, d);
        let row = LmRow {
            step: s,
            loss: train.loss,
            heldout_loss,
            repetition: m::repetition_frequency(&gen.tokens, GENERATE),
            hidden_cos: m::mean_pairwise_cosine(&matrix, GENERATE),
            distinct_1: m::distinct_n(&gen.tokens, GENERATE, 1),
            distinct_2: m::distinct_n(&gen.tokens, GENERATE, 2),
            top_share: top_share(&gen.tokens),
            lr: Self::lr(cfg, s),
        };
        let samples = (0..SHOWN.min(prompts.len()))
            .map(|k| {
                let ids = gen.tokens[k * GENERATE..(k + 1) * GENERATE].to_vec();
                Generation {
                    prompt: c.bpe.decode(prompts[k]),
                    pieces: ids.iter().map(|&i| c.bpe.piece(i as u32).to_string()).collect(),
                    ids,
                }
            })
            .collect();
        (row, Some(LmSnapshot { step: s, samples, hidden_cos: matrix, k: GENERATE }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_pair_each_token_with_the_next() {
        let tokens: Vec<u32> = (0..100).collect();
        let (x, y) = windows(&tokens, &[0, 10]);
        assert_eq!(x.len(), 2 * CONTEXT);
        assert_eq!(&x[..3], &[0, 1, 2]);
        assert_eq!(&y[..3], &[1, 2, 3]);
        assert_eq!(x[CONTEXT], 10);
        assert_eq!(y[2 * CONTEXT - 1], 10 + CONTEXT as i64);
        assert_eq!(even_starts(100, 4), [0, 16, 33, 50]);
    }

    #[test]
    fn top_share_of_tokens() {
        assert_eq!(top_share(&[3, 1, 3, 2]), 0.5);
        assert_eq!(top_share(&[7; 5]), 1.0);
        assert_eq!(top_share(&[]), 0.0);
    }
}
