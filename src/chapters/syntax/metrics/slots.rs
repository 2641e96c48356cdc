//! Copy agreement's measures (issue 52): the loss and accuracy at the always-masked agreement
//! slots, and the probe on arcs with several gold heads per word (a slot's whole subject unit).

use super::{best_head, mean_nll, offset_baseline_uas, uas_per_head, HeadUas, OFFSETS};
use crate::metrics::argmax_by;

/// The best head on arcs with several gold heads per word, disjoint: `golds[k]` gives each scored
/// word its k-th gold head (the same words in every `golds[k]`, at distinct positions), and a
/// head's score is the share of words whose predicted head is any of them,
/// `Σ_k UAS(golds[k])` per layer, head and direction ([`uas_per_head`]; the events are disjoint,
/// so the sum is the share), the best as [`best_head`]. Used for copy agreement's slot → subject
/// unit (its class token, noun or particle).
pub fn best_head_any_of(
    attn: &[f32],
    (layers, heads, batch, t): (usize, usize, usize, usize),
    golds: &[Vec<Vec<Option<usize>>>],
    lengths: &[usize],
) -> HeadUas {
    let mut sum: Vec<HeadUas> = vec![];
    for gold in golds {
        let s = uas_per_head(attn, layers, heads, batch, t, gold, lengths);
        if sum.is_empty() {
            sum = s;
        } else {
            for (a, b) in sum.iter_mut().zip(s) {
                a.uas += b.uas;
            }
        }
    }
    best_head(&sum)
}

/// The best fixed offset on the same arcs as [`best_head_any_of`]: `max_o Σ_k
/// offset_baseline_uas(golds[k], o)` over [`OFFSETS`] (an offset points at one word, so the
/// events are disjoint); `(OFFSETS[0], 0)` when `golds` is empty.
pub fn best_offset_any_of(golds: &[Vec<Vec<Option<usize>>>], lengths: &[usize]) -> (i64, f64) {
    let score = |o: i64| golds.iter().map(|g| offset_baseline_uas(g, lengths, o)).sum::<f64>();
    let mut best = (OFFSETS[0], score(OFFSETS[0]));
    for &o in &OFFSETS[1..] {
        let u = score(o);
        if u > best.1 {
            best = (o, u);
        }
    }
    best
}

/// The loss and accuracy at agreement slots ([`slot_metrics`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SlotMetrics {
    /// Mean cross-entropy of the right class over every slot.
    pub loss: f64,
    /// The same over the slots of clause depth 0 (outermost), 1 and 2; NaN for a depth with none.
    pub by_depth: [f64; 3],
    /// Share of slots whose largest logit (over the whole vocabulary) is the right class.
    pub acc: f64,
    /// The best head's UAS on the slot → subject *unit* arcs: its predicted head is its own
    /// subject's class token, noun or particle ([`best_head_any_of`]), read on the held-out batch
    /// masked as in training (every slot masked: the model never sees a slot unmasked, while
    /// `uas_subject` reads the unmasked sentences, as the paper's probe does); NaN where not
    /// measured (files written before the column).
    #[serde(default = "not_measured")]
    pub unit_uas: f64,
    /// The best fixed-offset guess on the same arcs ([`best_offset_any_of`]).
    #[serde(default = "not_measured")]
    pub unit_offset: f64,
}

/// A measure a checkpoint or model file written before it existed does not have: NaN.
fn not_measured() -> f64 {
    f64::NAN
}

/// Slot metrics from `logits: [K, vocab]` row-major at K slots with right tokens `targets` and
/// clause depths `depths`: the loss [`mean_nll`] over all and per depth (depths ≥ 3 count only in
/// the whole), and the top-1 accuracy `mean_k 1[argmax z_k = y_k]` (ties to the lowest id, as
/// [`argmax_by`]). No slots: every field NaN. The unit UAS and its offset guess come from the
/// attention, not the logits: NaN here, set by the caller.
pub fn slot_metrics(logits: &[f32], vocab: usize, targets: &[i64], depths: &[usize]) -> SlotMetrics {
    let rows = |keep: &dyn Fn(usize) -> bool| -> (Vec<f32>, Vec<i64>) {
        let mut z = vec![];
        let mut y = vec![];
        for (k, &t) in targets.iter().enumerate() {
            if keep(k) {
                z.extend_from_slice(logits.get(k * vocab..(k + 1) * vocab).unwrap_or(&[]));
                y.push(t);
            }
        }
        (z, y)
    };
    let depth_loss = |d: usize| {
        let (z, y) = rows(&|k| depths.get(k) == Some(&d));
        mean_nll(&z, vocab, &y)
    };
    let hits = targets
        .iter()
        .enumerate()
        .filter(|&(k, &y)| {
            logits
                .get(k * vocab..(k + 1) * vocab)
                .is_some_and(|z| argmax_by(z.iter().copied().enumerate()).is_some_and(|a| a as i64 == y))
        })
        .count();
    SlotMetrics {
        loss: mean_nll(logits, vocab, targets),
        by_depth: [depth_loss(0), depth_loss(1), depth_loss(2)],
        acc: if targets.is_empty() { f64::NAN } else { hits as f64 / targets.len() as f64 },
        unit_uas: f64::NAN,
        unit_offset: f64::NAN,
    }
}
