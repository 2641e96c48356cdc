//! Chapter 3 engine: a bidirectional softmax encoder trained by masked language modelling on the
//! synthetic dependency grammar ([`crate::chapters::syntax::data`]), with Chen et al.'s UAS probe and SAS
//! regularizer.
//!
//! Each step of the one [`Trainer`] draws `batch` fresh sentences (`Train` stream at `s`),
//! masks them BERT-style (`Mask` stream at `s`), computes the MLM loss on the selected positions
//! and, when `λ ≠ 0` and `s ∈ [lambda-from, lambda-until)`, adds `λ·R` with
//! `R = (1/B) Σ_b Σ_layers Σ_heads Σ_arcs (A[i, head(i)] + A[head(i), i])`
//! ([`crate::chapters::syntax::metrics::sas_reg`]). At the evaluation cadence it records, on a fresh
//! held-out batch (`Eval` stream at `s`): the held-out MLM loss, the UAS of the best head and
//! direction on the *unmasked* sentences (as the probe reads BERT), R on those sentences, and the
//! agreement accuracy on a fixed set of minimal pairs drawn once per seed (`Table` stream). Then
//! one AdamW step unless `s` is the last.

use super::copy;
use super::data::{self as grammar, AgreementItem, Sentence, IGNORE, PAD};
use super::language::{self as lang, Draw, Grammar};
use super::metrics::{self as m, Direction};
use super::rows::{direction_name, SyntaxRow, SyntaxSnapshot};
use crate::config::{Attention, RunConfig};
use crate::model::init::Init;
use crate::model::transformer::{Sees, Transformer, TransformerConfig};
use crate::rng::{stream, Stream};
use crate::tensor::{int_tensor, read_f32};
use crate::train::{Chapter, Forward, Observed, Part, Trainer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Bool, Device, Tensor, TensorData};

/// Number of agreement minimal pairs scored at every evaluation (drawn once per seed).
pub const AGREEMENT_ITEMS: usize = 256;

/// Number of fixed held-out sentences whose masked main verb gives `verb_loss` (drawn once per
/// seed, [`verb_items`]).
pub const VERB_ITEMS: usize = 512;

/// Least distance from the main subject to the main verb in a `verb_loss` item: at least two
/// words between them (a phrase or a clause), so no adjacent context gives the verb's number.
pub const VERB_MIN_DISTANCE: usize = 3;

/// Number of fixed held-out sentences the non-adjacent UAS is probed on (drawn once per seed).
pub const PROBE_SENTENCES: usize = 256;

/// Chapter 3 for the one [`Trainer`]: the grammar's batches with BERT masking, the paper's init,
/// the MLM loss + λ·R in λ's step window, AdamW with the config's warm-up, and the fixed held-out
/// sets of the seed.
pub struct Syntax {
    /// The language and its longest sentence (the model's positions).
    grammar: Grammar,
    /// What its draws depend on besides the grammar (the lexicon, copy agreement's options).
    draw: Draw,
    t: usize,
    agreement: Vec<AgreementItem>,
    /// The fixed `verb_loss` items ([`verb_items`]).
    verbs: Vec<AgreementItem>,
    /// The fixed probe sentences of the non-adjacent UAS.
    probe: Vec<Sentence>,
    /// The sentence every snapshot shows ([`showcase_sentence`]).
    showcase: Sentence,
}

/// Chapter 3's trainer.
pub type SyntaxTrainer = Trainer<Syntax>;

/// The gold heads of one relation only: the main subject's head noun → the main verb (nsubj);
/// every other word `None`, so the UAS probe scores just that arc (Chen et al.'s probe reports
/// accuracy per relation). Copy agreement scores its slot → subject class arcs instead
/// ([`lang::subject_arcs`]).
pub fn subject_arcs(sentences: &[Sentence]) -> Vec<Vec<Option<usize>>> {
    lang::subject_arcs(Grammar::Agreement, sentences)
}

/// The fixed `verb_loss` items of a seed: the first [`VERB_ITEMS`] sentences of the seed's `Table`
/// stream (index 2) whose main subject stands at least [`VERB_MIN_DISTANCE`] words before the
/// main verb, each with that verb (and nothing else) masked. Drawn once per run, so every
/// evaluation scores the same sentences and the curve's noise is the model's, not the sample's.
pub fn verb_items(seed: u64) -> Vec<AgreementItem> {
    verb_items_with(seed, &Draw::FULL, Grammar::Agreement)
}

/// [`verb_items`] from `g` drawn as `draw` says (in the nested language the foil is another
/// noun's verb, [`crate::chapters::syntax::nested::foil`]).
pub fn verb_items_with(seed: u64, draw: &Draw, g: Grammar) -> Vec<AgreementItem> {
    let mut rng = stream(seed, Stream::Table, 2);
    let mut items = Vec::with_capacity(VERB_ITEMS);
    while items.len() < VERB_ITEMS {
        items.extend(
            lang::minimal_pairs(g, &mut rng, 1, draw)
                .into_iter()
                .filter(|it| it.verb_pos >= it.subject_pos + VERB_MIN_DISTANCE),
        );
    }
    items
}

/// Logits at each item's masked verb, `[items, vocab]` row-major.
async fn logits_at_verbs(
    model: &Transformer,
    g: Grammar,
    t: usize,
    items: &[AgreementItem],
    device: &Device,
) -> Vec<f32> {
    let mut tokens = vec![PAD; items.len() * t];
    for (k, it) in items.iter().enumerate() {
        let l = it.tokens.len().min(t);
        tokens[k * t..k * t + l].copy_from_slice(&it.tokens[..l]);
    }
    let pads = pad_mask(&tokens, items.len(), t, device);
    let f = model.forward_padded(int_tensor(tokens, items.len(), t, device), None, Some(pads));
    let logits = read_f32(f.logits).await; // [items, t, v]
    let v = lang::vocab_size(g);
    items
        .iter()
        .enumerate()
        .flat_map(|(k, it)| logits[(k * t + it.verb_pos) * v..(k * t + it.verb_pos + 1) * v].to_vec())
        .collect()
}

/// The sentence the snapshots show, the same at every step so that a reader watches one
/// sentence's arcs form: the first sentence of the seed's `Table` stream (index 1) whose main
/// subject and verb stand at least 3 words apart (a phrase or a clause in between: the case
/// where agreement needs the syntax; in the bracket language the outer pair) and that has at most 12 words, so its arcs stay readable;
/// if none of 200 draws qualifies, the longest of them. It only feeds the snapshot, never a metric.
pub fn showcase_sentence(seed: u64) -> Sentence {
    showcase_sentence_with(seed, &Draw::FULL, Grammar::Agreement)
}

/// [`showcase_sentence`] from `g` drawn as `draw` says.
pub fn showcase_sentence_with(seed: u64, draw: &Draw, g: Grammar) -> Sentence {
    let mut rng = stream(seed, Stream::Table, 1);
    let mut longest: Option<Sentence> = None;
    for _ in 0..200 {
        let s = lang::sample(g, &mut rng, draw);
        if s.root.abs_diff(s.subject) >= 3 && s.len() <= 12 {
            return s;
        }
        if longest.as_ref().is_none_or(|l| s.len() > l.len()) {
            longest = Some(s);
        }
    }
    longest.expect("200 draws")
}

/// A padded batch on the host: tokens `[b, t]`, lengths and gold heads.
struct Padded {
    tokens: Vec<i64>,
    lengths: Vec<usize>,
    gold: Vec<Vec<Option<usize>>>,
}

fn pad(sentences: &[Sentence], t: usize) -> Padded {
    let (tokens, lengths) = grammar::batch(sentences, t);
    Padded { tokens, lengths, gold: grammar::gold_heads(sentences) }
}

fn pad_mask(tokens: &[i64], b: usize, t: usize, device: &Device) -> Tensor<2, Bool> {
    let v: Vec<bool> = tokens.iter().map(|&x| x == PAD).collect();
    Tensor::from_data(TensorData::new(v, [b, t]), device)
}

/// Mean MLM cross-entropy over the selected positions: `−(1/|S|) Σ_{(b,i)∈S} log p(x_{b,i})`,
/// `S` the positions whose target is not [`IGNORE`].
fn mlm_loss(logits: Tensor<3>, targets: &[i64], device: &Device) -> Tensor<1> {
    let [b, t, _] = logits.dims();
    let weight: Vec<f32> = targets.iter().map(|&y| if y == IGNORE { 0.0 } else { 1.0 }).collect();
    let count = weight.iter().sum::<f32>().max(1.0);
    let safe: Vec<i64> = targets.iter().map(|&y| if y == IGNORE { 0 } else { y }).collect();
    let picked = log_softmax(logits, 2).gather(2, int_tensor(safe, b, t, device).unsqueeze_dim::<3>(2)); // [b, t, 1]
    let w = Tensor::<3>::from_data(TensorData::new(weight, [b, t, 1]), device);
    (picked * w).sum().div_scalar(count).neg()
}

/// `R` on tensors: `(1/B) Σ (A_l ⊙ E)` over layers, heads and entries.
fn sas_tensor(attention: &[Tensor<4>], edges: &Tensor<3>) -> Tensor<1> {
    let b = edges.dims()[0] as f64;
    let e = edges.clone().unsqueeze_dim::<4>(1); // [b, 1, t, t]
    let mut total: Option<Tensor<1>> = None;
    for a in attention {
        let s = (a.clone() * e.clone()).sum();
        total = Some(match total {
            Some(t) => t + s,
            None => s,
        });
    }
    total.expect("at least one layer").div_scalar(b)
}

/// [`m::slot_metrics`] of copy-agreement sentences from the logits `[b, t, vocab]` of their
/// masked batch (every slot masked): the rows at each sentence's slots, their classes (`tokens`,
/// the unmasked batch) and clause depths ([`copy::slots`]).
fn slot_metrics(logits: Vec<f32>, sentences: &[Sentence], tokens: &[i64], t: usize, v: usize) -> m::SlotMetrics {
    let (mut z, mut y, mut d) = (vec![], vec![], vec![]);
    for (b, s) in sentences.iter().enumerate() {
        for x in copy::slots(s) {
            let k = b * t + x.pos;
            z.extend_from_slice(&logits[k * v..(k + 1) * v]);
            y.push(tokens[k]);
            d.push(x.depth);
        }
    }
    m::slot_metrics(&z, v, &y, &d)
}

/// Chapter 3's snapshot at step `s`: the attention of every head on the showcase sentence `show`,
/// and the best head's (chosen on the evaluation batch) choices on it by the probe's rule.
#[allow(clippy::too_many_arguments)]
async fn showcase_snapshot(
    model: &Transformer,
    show: &Sentence,
    g: Grammar,
    s: usize,
    (layers, heads, t): (usize, usize, usize),
    best: &m::HeadUas,
    scores: &[m::HeadUas],
    plain: &Device,
) -> SyntaxSnapshot {
    // The best head (chosen on the evaluation batch above) on the showcase sentence.
    let sp = pad(std::slice::from_ref(show), t);
    let len = sp.lengths[0];
    let sf =
        model.forward_padded(int_tensor(sp.tokens.clone(), 1, t, plain), None, Some(pad_mask(&sp.tokens, 1, t, plain)));
    let mut att0 = Vec::with_capacity(layers * heads * len * len);
    for a in sf.attention {
        let a = read_f32(a).await; // [1, h, t, t]
        for h in 0..heads {
            for i in 0..len {
                att0.extend_from_slice(&a[(h * t + i) * t..(h * t + i) * t + len]);
            }
        }
    }
    // The best head's choices on this sentence, by the probe's rule.
    let bh = (best.layer * heads + best.head) * len * len;
    let w = |i: usize, j: usize| {
        if best.direction == Direction::HeadToDependent {
            att0[bh + j * len + i]
        } else {
            att0[bh + i * len + j]
        }
    };
    let gold0: Vec<Vec<Option<usize>>> = vec![show.heads.clone()];
    let one = m::uas_per_head(&att0[bh..bh + len * len], 1, 1, 1, len, &gold0, &[len]);
    let (pred, pred_weight): (Vec<i64>, Vec<f32>) = (0..len)
        .map(|i| {
            (0..len).filter(|&j| j != i).fold((-1i64, f32::NEG_INFINITY), |(bj, bw), j| {
                if w(i, j) > bw {
                    (j as i64, w(i, j))
                } else {
                    (bj, bw)
                }
            })
        })
        .unzip();
    let sample_scored = show.heads.iter().enumerate().filter(|(i, h)| h.is_some_and(|g| g != *i)).count();
    let k = usize::from(best.direction == Direction::HeadToDependent);
    let sample_right = (one.get(k).map_or(0.0, |h| h.uas) * sample_scored as f64).round() as usize;
    SyntaxSnapshot {
        step: s,
        words: show.tokens.iter().map(|&w| lang::word(g, w).to_string()).collect(),
        heads: show.heads.iter().map(|h| h.map_or(-1, |h| h as i64)).collect(),
        attention: att0,
        layers,
        n_heads: heads,
        best_layer: best.layer,
        best_head: best.head,
        transposed: best.direction == Direction::HeadToDependent,
        head_uas: scores.iter().map(|h| h.uas).collect(),
        pred,
        pred_weight,
        sample_right,
        sample_scored,
    }
}

/// The encoder shape a chapter 3 config asks for.
pub fn model_config(cfg: &RunConfig) -> TransformerConfig {
    TransformerConfig::sized(
        cfg,
        lang::vocab_size(cfg.syntax.grammar),
        lang::max_len(cfg.syntax.grammar, &Draw::of(cfg)),
        Attention::Softmax,
        Sees::All,
    )
}

/// The λ in force at step `s` (0 outside `[lambda-from, lambda-until)`).
pub fn lambda_at(cfg: &RunConfig, s: usize) -> f64 {
    if s >= cfg.syntax.lambda_from && s < cfg.syntax.lambda_until {
        cfg.syntax.lambda
    } else {
        0.0
    }
}

/// What chapter 3's evaluation takes from the training step besides its watched values (the
/// loss and R on the training batch): λ.
pub struct TrainStep {
    lambda: f64,
}

impl Chapter for Syntax {
    type Model = Transformer;
    type Row = SyntaxRow;
    type Snapshot = SyntaxSnapshot;
    type Batch = TrainStep;
    type Carry = ();

    /// The encoder (the paper's init, N(0, 0.02²), with `flat-out` and `qk-init` applied) and
    /// the fixed held-out sets of `cfg.seed`.
    fn build(cfg: &RunConfig, device: &Device) -> (Syntax, Transformer) {
        let init = Init::PaperWith { flat_out: cfg.syntax.flat_out == 1, qk: cfg.syntax.qk_init };
        let model = model_config(cfg).init(init, cfg.seed, device);
        let (draw, g) = (Draw::of(cfg), cfg.syntax.grammar);
        let agreement = lang::minimal_pairs(g, &mut stream(cfg.seed, Stream::Table, 0), AGREEMENT_ITEMS, &draw);
        let showcase = showcase_sentence_with(cfg.seed, &draw, g);
        let verbs = verb_items_with(cfg.seed, &draw, g);
        let probe = lang::sample_n(g, &mut stream(cfg.seed, Stream::Table, 3), PROBE_SENTENCES, &draw);
        let t = lang::max_len(g, &draw);
        (Syntax { grammar: g, draw, t, agreement, verbs, probe, showcase }, model)
    }

    /// The whole batch only: chapter 3 trains as one shard ([`RunConfig::check_shards`]).
    async fn forward(
        &mut self,
        model: &Transformer,
        cfg: &RunConfig,
        s: usize,
        part: Part,
        device: &Device,
    ) -> Forward<TrainStep> {
        assert_eq!(part, Part::WHOLE, "chapter 3 trains as one shard");
        let (b, g, t) = (cfg.batch, self.grammar, self.t);
        let sentences = lang::sample_n(g, &mut stream(cfg.seed, Stream::Train, s as u64), b, &self.draw);
        let p = pad(&sentences, t);
        let (inputs, targets) = lang::mask(
            g,
            &self.draw,
            &sentences,
            &p.tokens,
            &p.lengths,
            t,
            &mut stream(cfg.seed, Stream::Mask, s as u64),
        );
        let fwd = model.forward_padded(int_tensor(inputs, b, t, device), None, Some(pad_mask(&p.tokens, b, t, device)));
        let mlm = mlm_loss(fwd.logits, &targets, device);
        let edges = Tensor::<3>::from_data(
            TensorData::new(lang::sas_edges_of(g, &sentences, &p.lengths, t, cfg.syntax.sas_unit == 1), [b, t, t]),
            device,
        );
        let reg = sas_tensor(&fwd.attention, &edges);
        let lambda = lambda_at(cfg, s);
        let watch = vec![mlm.clone(), reg.clone()];
        let objective = if lambda != 0.0 { mlm + reg.mul_scalar(lambda) } else { mlm };
        Forward { objective, watch, batch: TrainStep { lambda } }
    }

    fn diverged(cfg: &RunConfig, s: usize, loss: f64) -> String {
        format!(
            "Training diverged at step {s}: the loss became {loss}. Lower the learning rate (now {}) \
             or |λ| (now {}), then reset.",
            cfg.lr, cfg.syntax.lambda
        )
    }

    async fn evaluate(
        &mut self,
        model: &Transformer,
        cfg: &RunConfig,
        s: usize,
        train: Observed<TrainStep>,
        snapshot: bool,
        plain: &Device,
    ) -> (SyntaxRow, Option<SyntaxSnapshot>) {
        let (loss, train_reg, lambda) = (train.loss, train.values[1], train.batch.lambda);
        let (eb, g, t) = (cfg.eval_batch, self.grammar, self.t);
        let mut rng = stream(cfg.seed, Stream::Eval, s as u64);
        let sentences = lang::sample_n(g, &mut rng, eb, &self.draw);
        let p = pad(&sentences, t);
        let pads = pad_mask(&p.tokens, eb, t, plain);

        // Held-out MLM loss (masked with the same eval stream, after the sentences).
        let (inputs, targets) = lang::mask(g, &self.draw, &sentences, &p.tokens, &p.lengths, t, &mut rng);
        let masked = model.forward_padded(int_tensor(inputs, eb, t, plain), None, Some(pads.clone()));
        // Copy agreement: the loss and accuracy at the always-masked slots of the same batch.
        let slots = if g == Grammar::Copy {
            Some(slot_metrics(read_f32(masked.logits.clone()).await, &sentences, &p.tokens, t, lang::vocab_size(g)))
        } else {
            None
        };
        let heldout_loss = read_f32(mlm_loss(masked.logits, &targets, plain)).await[0] as f64;
        // Copy agreement: the attention of that masked batch, the input training always gives a
        // slot (the model never sees one unmasked), for the slot → subject unit probe below.
        let mut masked_attn = Vec::new();
        if g == Grammar::Copy {
            for a in masked.attention {
                masked_attn.extend(read_f32(a.swap_dims(0, 1)).await);
            }
        }

        // The probe reads the attention on the unmasked sentences.
        let clean = model.forward_padded(int_tensor(p.tokens.clone(), eb, t, plain), None, Some(pads));
        let (layers, heads) = (cfg.layers, cfg.heads);
        let mut attn = Vec::with_capacity(layers * heads * eb * t * t);
        for a in clean.attention {
            // [b, h, t, t] → [h, b, t, t]
            attn.extend(read_f32(a.swap_dims(0, 1)).await);
        }
        let scores = m::uas_per_head(&attn, layers, heads, eb, t, &p.gold, &p.lengths);
        let best = m::best_head(&scores);
        let (_, offset_uas) = m::best_offset_baseline(&p.gold, &p.lengths);
        let subj = lang::subject_arcs(g, &sentences);
        let uas_subject = m::best_head(&m::uas_per_head(&attn, layers, heads, eb, t, &subj, &p.lengths)).uas;
        let (_, offset_uas_subject) = m::best_offset_baseline(&subj, &p.lengths);
        // Copy agreement: the same probe on the slot → subject unit arcs (class token, noun,
        // particle), read on the masked batch (every slot masked, as in training).
        let slots = slots.map(|mut x| {
            let unit = copy::unit_arcs(&sentences);
            x.unit_uas = m::best_head_any_of(&masked_attn, (layers, heads, eb, t), &unit, &p.lengths).uas;
            x.unit_offset = m::best_offset_any_of(&unit, &p.lengths).1;
            x
        });
        let edges = lang::sas_edges(g, &sentences, &p.lengths, t);
        let sas_reg = m::sas_reg(&attn, layers, heads, eb, t, &edges);

        // Agreement: logits at the masked main verb.
        let v = lang::vocab_size(g);
        let at_verb = logits_at_verbs(model, g, t, &self.agreement, plain).await;
        let pairs: Vec<(i64, i64)> = self.agreement.iter().map(|it| (it.good, it.bad)).collect();
        let agreement_acc = m::agreement_accuracy(&at_verb, v, &pairs);
        let agreement_logodds = m::agreement_logodds(&at_verb, v, &pairs);

        // The loss where syntax matters: the masked main verb of the fixed far-subject items.
        let at_far_verb = logits_at_verbs(model, g, t, &self.verbs, plain).await;
        let verb_targets: Vec<i64> = self.verbs.iter().map(|it| it.good).collect();
        let verb_loss = m::mean_nll(&at_far_verb, v, &verb_targets);
        let verb_pairs: Vec<(i64, i64)> = self.verbs.iter().map(|it| (it.good, it.bad)).collect();
        let verb_number_loss = m::pair_loss(&at_far_verb, v, &verb_pairs);

        // UAS over the non-adjacent arcs of the fixed probe sentences.
        let pb = self.probe.len();
        let pp = pad(&self.probe, t);
        let probe_out = model.forward_padded(
            int_tensor(pp.tokens.clone(), pb, t, plain),
            None,
            Some(pad_mask(&pp.tokens, pb, t, plain)),
        );
        let mut pattn = Vec::with_capacity(layers * heads * pb * t * t);
        for a in probe_out.attention {
            pattn.extend(read_f32(a.swap_dims(0, 1)).await);
        }
        let far = m::nonadjacent_arcs(&pp.gold);
        let uas_nonadjacent = m::best_head(&m::uas_per_head(&pattn, layers, heads, pb, t, &far, &pp.lengths)).uas;
        let (_, offset_uas_nonadjacent) = m::best_offset_baseline(&far, &pp.lengths);

        let snap = if snapshot {
            Some(showcase_snapshot(model, &self.showcase, g, s, (layers, heads, t), &best, &scores, plain).await)
        } else {
            None
        };
        let row = SyntaxRow {
            step: s,
            loss,
            heldout_loss,
            uas: best.uas,
            agreement_acc,
            sas_reg,
            best_layer: best.layer,
            best_head: best.head,
            best_direction: direction_name(best.direction).to_string(),
            offset_uas,
            train_reg,
            lambda,
            uas_subject,
            offset_uas_subject,
            verb_loss,
            uas_nonadjacent,
            offset_uas_nonadjacent,
            agreement_logodds,
            verb_number_loss,
            slots,
        };
        (row, snap)
    }
}
