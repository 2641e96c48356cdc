//! Chen et al.'s syntax metrics (PAPERS.md §C), each one function on plain host arrays: the UAS
//! probe of attention heads, the fixed-offset baselines, the SAS regularizer, the onsets of
//! structure and of the loss drop, and agreement accuracy.
//!
//! Conventions. Attention maps are row-major `[layers, heads, batch, t, t]` with row = query:
//! `A[l,h,b,i,j]` is how much token `i` attends to token `j`. Gold trees are given per sentence as
//! `gold[b][i] = Some(j)` (the head of word `i` is word `j`, 0-based positions in the model input)
//! or `None` (the root). Sentence `b` occupies positions `0..L_b` with
//! `L_b = min(lengths[b], t, gold[b].len())`; everything at or after `L_b` is padding. There is no
//! CLS/SEP in this project's inputs, so padding is the only special position. A sentence missing
//! from `gold` or `lengths` counts as empty.
//!
//! Scored words `W_b = { i < L_b : gold[b][i] = Some(g), g < L_b }`: root words have no head to
//! predict and are not scored, and neither is a word whose head was cut off by truncation (as in
//! the paper's code). Clark et al.'s code, which Chen et al. adapt, keeps root words in its "all"
//! score, where an attention head can never get them right (ROOT is not a position it can
//! attend to); dropping them lets a map that follows the tree exactly score 1.

use crate::metrics::argmax_by;
/// Which way a head's attention map is read as a parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// The predicted head of word `i` is `argmax_j A[i,j]` (the word `i` attends to most).
    DependentToHead,
    /// The predicted head of word `i` is `argmax_j A[j,i]` (the word attending most to `i`), i.e.
    /// the same rule on the transposed map.
    HeadToDependent,
}

/// The UAS of one attention head read in one direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadUas {
    /// Layer index.
    pub layer: usize,
    /// Head index within the layer.
    pub head: usize,
    /// How the map was read.
    pub direction: Direction,
    /// Share of scored words whose predicted head is the gold head.
    pub uas: f64,
}

/// The effective length of sentence `b`: `min(lengths[b], t, gold[b].len())`, 0 when missing.
fn sentence_len(gold: &[Vec<Option<usize>>], lengths: &[usize], b: usize, t: usize) -> usize {
    match (gold.get(b), lengths.get(b)) {
        (Some(g), Some(&l)) => l.min(t).min(g.len()),
        _ => 0,
    }
}

/// The scored words of sentence `b` with their gold heads.
fn scored(gold: &[Vec<Option<usize>>], lengths: &[usize], b: usize, t: usize) -> Vec<(usize, usize)> {
    let len = sentence_len(gold, lengths, b, t);
    (0..len).filter_map(|i| gold[b][i].filter(|&g| g < len && g != i).map(|g| (i, g))).collect()
}

/// UAS of every attention head in both directions (Clark et al. 2019; Chen et al.'s probe).
///
/// For head `(l,h)` and direction `d`, the predicted head of a scored word `i ∈ W_b` is
/// `p(i) = argmax_{j<L_b, j≠i} A[l,h,b,i,j]` (`DependentToHead`) or
/// `p(i) = argmax_{j<L_b, j≠i} A[l,h,b,j,i]` (`HeadToDependent`): the diagonal and the padding are
/// removed from the candidates, ties go to the lowest position. The score is pooled over words,
/// `UAS = Σ_b Σ_{i∈W_b} 1[p(i) = gold_b(i)] / Σ_b |W_b|`, as the reference code counts.
/// (The reference code zeroes the diagonal instead of removing it; the two differ only when
/// every other weight in the row is 0.)
///
/// Returns `layers · heads · 2` entries in the order layer, head, direction (`DependentToHead`
/// first). With no scored word every UAS is 0. When `attn` is shorter than
/// `layers·heads·batch·t·t` the result is empty.
pub fn uas_per_head(
    attn: &[f32],
    layers: usize,
    heads: usize,
    batch: usize,
    t: usize,
    gold: &[Vec<Option<usize>>],
    lengths: &[usize],
) -> Vec<HeadUas> {
    let need = layers.saturating_mul(heads).saturating_mul(batch).saturating_mul(t).saturating_mul(t);
    if attn.len() < need {
        return Vec::new();
    }
    let words: Vec<Vec<(usize, usize)>> = (0..batch).map(|b| scored(gold, lengths, b, t)).collect();
    let lens: Vec<usize> = (0..batch).map(|b| sentence_len(gold, lengths, b, t)).collect();
    let total: usize = words.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(layers * heads * 2);
    for layer in 0..layers {
        for head in 0..heads {
            let (mut fwd, mut bwd) = (0usize, 0usize);
            for b in 0..batch {
                let a = &attn[((layer * heads + head) * batch + b) * t * t..][..t * t];
                let len = lens[b];
                for &(i, g) in &words[b] {
                    fwd += usize::from(argmax_by((0..len).filter(|&j| j != i).map(|j| (j, a[i * t + j]))) == Some(g));
                    bwd += usize::from(argmax_by((0..len).filter(|&j| j != i).map(|j| (j, a[j * t + i]))) == Some(g));
                }
            }
            let uas = |c: usize| if total == 0 { 0.0 } else { c as f64 / total as f64 };
            out.push(HeadUas { layer, head, direction: Direction::DependentToHead, uas: uas(fwd) });
            out.push(HeadUas { layer, head, direction: Direction::HeadToDependent, uas: uas(bwd) });
        }
    }
    out
}

/// The best entry of [`uas_per_head`]'s output (the reported UAS is its `uas`): largest UAS, ties
/// to the earliest entry. An empty slice gives layer 0, head 0, `DependentToHead`, UAS 0.
pub fn best_head(scores: &[HeadUas]) -> HeadUas {
    let mut best = HeadUas { layer: 0, head: 0, direction: Direction::DependentToHead, uas: 0.0 };
    let mut found = false;
    for s in scores {
        if !found || s.uas > best.uas {
            best = *s;
            found = true;
        }
    }
    best
}

/// The offsets of the paper's baselines (−3..+2 without 0, relative to the dependent).
pub const OFFSETS: [i64; 5] = [-3, -2, -1, 1, 2];

/// UAS of the fixed-offset baseline "the head of word `i` is word `i + offset`", over the same
/// scored words as [`uas_per_head`]: `Σ_b Σ_{i∈W_b} 1[p(i) = gold_b(i)] / Σ_b |W_b|` with, as in
/// the reference code, `p(i) = ROOT` (always wrong here) when `i + offset < 0` and
/// `p(i) = L_b − 1` when `i + offset ≥ L_b`. 0 when there is no scored word. Sentences are
/// clipped to `t = usize::MAX`, i.e. only to `lengths` and `gold`.
pub fn offset_baseline_uas(gold: &[Vec<Option<usize>>], lengths: &[usize], offset: i64) -> f64 {
    let (mut hit, mut total) = (0usize, 0usize);
    for b in 0..gold.len() {
        let len = sentence_len(gold, lengths, b, usize::MAX);
        for (i, g) in scored(gold, lengths, b, usize::MAX) {
            total += 1;
            let p = i as i64 + offset;
            let pred = if p < 0 { None } else { Some((p as usize).min(len - 1)) };
            hit += usize::from(pred == Some(g));
        }
    }
    if total == 0 {
        0.0
    } else {
        hit as f64 / total as f64
    }
}

/// The best fixed-offset baseline over [`OFFSETS`]: `(offset, uas)`, ties to the earlier offset
/// in the order −3, −2, −1, +1, +2. With no scored word, `(−3, 0.0)`.
pub fn best_offset_baseline(gold: &[Vec<Option<usize>>], lengths: &[usize]) -> (i64, f64) {
    let mut best = (OFFSETS[0], offset_baseline_uas(gold, lengths, OFFSETS[0]));
    for &o in &OFFSETS[1..] {
        let u = offset_baseline_uas(gold, lengths, o);
        if u > best.1 {
            best = (o, u);
        }
    }
    best
}

/// The SAS edge mask `E: [batch, t, t]` (batch = `gold.len()`), row-major: `E[b,i,g] = E[b,g,i]
/// = 1` for every scored word `i` with gold head `g` (both directions of every arc), 0 elsewhere.
/// The root has no arc (the paper's code also penalizes the root–CLS pair; there is no CLS here), and
/// padding rows and columns are 0. A tree has at most one arc per pair, so every entry is 0 or 1.
pub fn sas_edge_mask(gold: &[Vec<Option<usize>>], lengths: &[usize], t: usize) -> Vec<f32> {
    let mut e = vec![0.0f32; gold.len() * t * t];
    for b in 0..gold.len() {
        for (i, g) in scored(gold, lengths, b, t) {
            e[(b * t + i) * t + g] = 1.0;
            e[(b * t + g) * t + i] = 1.0;
        }
    }
    e
}

/// The SAS regularizer on the host (for testing the tensor version):
/// `R = (1/B) Σ_b Σ_l Σ_h Σ_{i,j} A[l,h,b,i,j] · E[b,i,j]`, the attention weight on both
/// directions of every dependency arc, summed over layers, heads and arcs and **averaged over
/// the B sentences** of the batch; the loss is `L_MLM + λ·R` (λ > 0 suppresses SAS, λ < 0
/// promotes it).
///
/// The paper's code ("uniform", p = 1) *sums* over the batch instead, so its λ = 0.01 at batch
/// size B corresponds to λ = 0.01·B here. On tensors: `(attn * E.unsqueeze()).sum() / B`.
///
/// Returns 0 when `batch = 0` or when `attn` (`layers·heads·batch·t·t`) or `edges`
/// (`batch·t·t`) is shorter than its shape.
pub fn sas_reg(attn: &[f32], layers: usize, heads: usize, batch: usize, t: usize, edges: &[f32]) -> f64 {
    let per = batch.saturating_mul(t).saturating_mul(t);
    if batch == 0 || edges.len() < per || attn.len() < layers.saturating_mul(heads).saturating_mul(per) {
        return 0.0;
    }
    let mut r = 0.0f64;
    for lh in 0..layers * heads {
        let a = &attn[lh * per..(lh + 1) * per];
        r += a.iter().zip(&edges[..per]).map(|(&a, &e)| a as f64 * e as f64).sum::<f64>();
    }
    r / batch as f64
}

/// The step of the steepest change of a curve evaluated at `steps`.
///
/// Over the pairs of evaluations `k` and `k + window` (`window ≥ 1`; 1 = consecutive
/// evaluations, larger windows smooth a noisy curve), the slope is
/// `s_k = (v[k+window] − v[k]) / (steps[k+window] − steps[k])`, divided by the step gap so that
/// unevenly spaced evaluations compare fairly. With `rising` the largest positive slope wins,
/// otherwise the most negative one; ties go to the earliest pair. The returned step is the
/// midpoint `⌊(steps[k] + steps[k+window]) / 2⌋` of the winning pair: the best estimate of where
/// the change happened. `None` when there are fewer than `window + 1` usable evaluations, when
/// the curve never moves in the requested direction, or when `window = 0`. Pairs with a NaN
/// value or a non-increasing step are skipped; only the first `min(steps.len(), values.len())`
/// entries are read.
pub fn steepest_change(steps: &[usize], values: &[f64], window: usize, rising: bool) -> Option<usize> {
    let n = steps.len().min(values.len());
    if window == 0 || n <= window {
        return None;
    }
    let mut best: Option<(usize, f64)> = None;
    for k in 0..n - window {
        let (s0, s1) = (steps[k], steps[k + window]);
        let (v0, v1) = (values[k], values[k + window]);
        if s1 <= s0 || v0.is_nan() || v1.is_nan() {
            continue;
        }
        let slope = (v1 - v0) / (s1 - s0) as f64;
        let score = if rising { slope } else { -slope };
        if score > 0.0 && best.is_none_or(|(_, b)| score > b) {
            best = Some((s0 + (s1 - s0) / 2, score));
        }
    }
    best.map(|(s, _)| s)
}

/// Evaluation-to-evaluation noise of a curve: `σ̂ = 1.4826 · median_k |v[k+1] − v[k]| / √2`
/// over consecutive finite pairs (the median absolute difference, scaled so that for independent
/// Gaussian noise of standard deviation σ around a flat or slowly moving signal `σ̂ ≈ σ`). A
/// trend inflates it only where it moves the curve by more than the noise between most pairs.
/// 0 with fewer than two finite values.
pub fn jitter(values: &[f64]) -> f64 {
    let mut d: Vec<f64> =
        values.windows(2).filter(|w| w[0].is_finite() && w[1].is_finite()).map(|w| (w[1] - w[0]).abs()).collect();
    if d.is_empty() {
        return 0.0;
    }
    d.sort_by(f64::total_cmp);
    let m = d.len();
    let median = if m % 2 == 1 { d[m / 2] } else { (d[m / 2 - 1] + d[m / 2]) / 2.0 };
    1.4826 * median / std::f64::consts::SQRT_2
}

/// The rule that finds the end of a plateau ([`plateau_end`]). All widths are in evaluations,
/// all heights in units of the curve's noise [`jitter`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlateauRule {
    /// A plateau is at least this many consecutive evaluations…
    pub min_len: usize,
    /// …whose range (max − min) is at most `band · σ̂`.
    pub band: f64,
    /// The event: the curve falls at least `fall · σ̂` below the plateau's mean…
    pub fall: f64,
    /// …within this many evaluations after the plateau's last one…
    pub within: usize,
    /// …and stays below that level for this many consecutive evaluations (the first included).
    pub sustain: usize,
}

/// The rule every chapter 3 marker uses: 5 flat evaluations within a band of 4σ̂, then a fall of
/// 6σ̂ below the window's lowest value within the next 5 that holds for 2. With
/// `band / (min_len − 1) · within < fall` (4/4·5 = 5 < 6) no convex decay (a straight line
/// included) can trigger it: a window flat to 4σ̂ over 5 points ends with a fall of at most 1σ̂
/// per evaluation, a convex curve never falls faster later, so it loses at most 5σ̂ in the next
/// 5 evaluations. Chosen before any run was searched (issue
/// #18), and never tuned on results.
pub const PLATEAU_RULE: PlateauRule = PlateauRule { min_len: 5, band: 4.0, fall: 6.0, within: 5, sustain: 2 };

/// The end of a plateau found by [`plateau_end`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlateauEnd {
    /// Step of the plateau's first evaluation (its flat stretch extended back as far as the
    /// band allows).
    pub start: usize,
    /// Step of the plateau's last evaluation before the event.
    pub end: usize,
    /// The plateau's level: the mean of its last `min_len` evaluations before the event.
    pub level: f64,
    /// The event's step: the first evaluation at least `fall · σ̂` past the level.
    pub event: usize,
    /// The noise σ̂ used ([`jitter`], floored at 10⁻⁹ of the curve's range).
    pub noise: f64,
}

/// The end of the first plateau of a curve, by `rule`: scanning evaluations in order, the first
/// window of `min_len` consecutive evaluations whose range is `≤ band·σ̂` and after which, within
/// `within` evaluations, the curve first reaches `min − fall·σ̂` (`max + fall·σ̂` when `rising`),
/// `min` the window's lowest value, and stays past it for `sustain` evaluations; and
/// `σ̂ = max(jitter(values), 10⁻⁹·range, 10⁻¹²)` (the floor makes an exactly flat synthetic curve
/// usable). The loss drop is this event on a falling curve; the structure onset the same on a
/// rising one (issue #18: "the first sustained fall below the plateau level after at least N flat
/// evaluations, not the steepest single fall").
///
/// `None` when no window qualifies: a smooth convex decay (see [`PLATEAU_RULE`]), noise alone,
/// a plateau that never ends, or fewer than `min_len + sustain` evaluations. Evaluations with a
/// non-finite value never belong to a window or count as past the level. Only the first
/// `min(steps.len(), values.len())` entries are read.
pub fn plateau_end(steps: &[usize], values: &[f64], rising: bool, rule: PlateauRule) -> Option<PlateauEnd> {
    let n = steps.len().min(values.len());
    let x: Vec<f64> = values[..n].iter().map(|&v| if rising { -v } else { v }).collect();
    let finite: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    if rule.min_len == 0 || n < rule.min_len + rule.sustain.max(1) || finite.is_empty() {
        return None;
    }
    let range =
        finite.iter().copied().fold(f64::NEG_INFINITY, f64::max) - finite.iter().copied().fold(f64::INFINITY, f64::min);
    let sigma = jitter(&x).max(1e-9 * range).max(1e-12);
    let band = rule.band * sigma;
    let flat = |a: usize, b: usize| -> bool {
        let w = &x[a..=b];
        if w.iter().any(|v| !v.is_finite()) {
            return false;
        }
        let hi = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = w.iter().copied().fold(f64::INFINITY, f64::min);
        hi - lo <= band
    };
    let min_of = |a: usize, b: usize| x[a..=b].iter().copied().fold(f64::INFINITY, f64::min);
    for p in rule.min_len - 1..n {
        let a = p + 1 - rule.min_len;
        if !flat(a, p) {
            continue;
        }
        let thresh = min_of(a, p) - rule.fall * sigma;
        let last = (p + rule.within).min(n - 1);
        let Some(q) = (p + 1..=last).find(|&q| x[q] <= thresh) else { continue };
        let sustain = rule.sustain.max(1);
        if q + sustain > n || !x[q..q + sustain].iter().all(|&v| v <= thresh) {
            continue;
        }
        // Report the plateau as it stands just before the event: its last flat window before
        // `q`, extended back as far as it stays within the band.
        let mut end = p;
        while end + 1 < q && flat(end + 2 - rule.min_len, end + 1) {
            end += 1;
        }
        let a = end + 1 - rule.min_len;
        let mut start = a;
        while start > 0 && flat(start - 1, end) {
            start -= 1;
        }
        let level = x[a..=end].iter().sum::<f64>() / rule.min_len as f64;
        let level = if rising { -level } else { level };
        return Some(PlateauEnd { start: steps[start], end: steps[end], level, event: steps[q], noise: sigma });
    }
    None
}

/// Structure onset: the end of the first plateau of a UAS curve, `plateau_end(steps, uas, true,
/// PLATEAU_RULE)` — the first evaluation at which UAS rises `6σ̂` above a flat stretch of at
/// least 5 evaluations and stays there. `None` if it never does.
pub fn structure_onset(steps: &[usize], uas: &[f64]) -> Option<usize> {
    plateau_end(steps, uas, true, PLATEAU_RULE).map(|p| p.event)
}

/// Loss drop: the end of the first plateau of a loss curve, `plateau_end(steps, loss, false,
/// PLATEAU_RULE)` — the first sustained fall `6σ̂` below a flat stretch of at least 5
/// evaluations. `None` if there is no plateau that ends in a drop.
pub fn loss_drop_step(steps: &[usize], loss: &[f64]) -> Option<usize> {
    plateau_end(steps, loss, false, PLATEAU_RULE).map(|p| p.event)
}

/// The gold heads of the arcs no neighbour guess can get: `Some(h)` kept only where
/// `|h − i| ≥ 2`, every other word `None`. Scored with [`uas_per_head`] and
/// [`best_offset_baseline`], it gives the UAS over non-adjacent arcs and its own offset baseline
/// (where ±1 is always wrong, so the best of −3, −2, +2).
pub fn nonadjacent_arcs(gold: &[Vec<Option<usize>>]) -> Vec<Vec<Option<usize>>> {
    gold.iter().map(|g| g.iter().enumerate().map(|(i, h)| h.filter(|&h| h.abs_diff(i) >= 2)).collect()).collect()
}

/// Mean negative log-likelihood of target tokens: `−(1/K) Σ_k log softmax(z_k)[y_k]`, with
/// `logits: [K, vocab]` row-major and `targets[k] = y_k`, computed in f64 with the max
/// subtracted. A row that is missing or whose target is out of range counts as `+∞`; no targets
/// gives NaN.
pub fn mean_nll(logits: &[f32], vocab: usize, targets: &[i64]) -> f64 {
    if targets.is_empty() {
        return f64::NAN;
    }
    let nll = |k: usize, y: i64| -> f64 {
        let Some(z) = logits.get(k * vocab..(k + 1) * vocab) else { return f64::INFINITY };
        if y < 0 || y as usize >= vocab {
            return f64::INFINITY;
        }
        let m = z.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let lse = m + z.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
        lse - z[y as usize] as f64
    };
    targets.iter().enumerate().map(|(k, &y)| nll(k, y)).sum::<f64>() / targets.len() as f64
}

/// Mean cross-entropy of the right verb form against the wrong one only:
/// `(1/K) Σ_k −log(e^{z_k[good]} / (e^{z_k[good]} + e^{z_k[bad]})) = (1/K) Σ_k softplus(z_k[bad] − z_k[good])`,
/// the part of a masked verb's loss that only its number decides (ln 2 = 0.693 at chance, 0
/// when the model is sure of the right number), with the layout of [`agreement_accuracy`]. Items
/// whose ids or logits row are missing are skipped; none left gives NaN.
pub fn pair_loss(logits_at_verb: &[f32], vocab: usize, pairs: &[(i64, i64)]) -> f64 {
    let in_vocab = |x: i64| x >= 0 && (x as usize) < vocab;
    let softplus = |x: f64| if x > 0.0 { x + (-x).exp().ln_1p() } else { x.exp().ln_1p() };
    let d: Vec<f64> = pairs
        .iter()
        .enumerate()
        .filter(|(_, &(g, b))| in_vocab(g) && in_vocab(b))
        .filter_map(|(k, &(g, b))| {
            logits_at_verb
                .get(k * vocab..(k + 1) * vocab)
                .map(|z| softplus(z[b as usize] as f64 - z[g as usize] as f64))
        })
        .collect();
    if d.is_empty() {
        f64::NAN
    } else {
        d.iter().sum::<f64>() / d.len() as f64
    }
}

/// Mean agreement log-odds on minimal pairs: `mean_k (z_k[good_k] − z_k[bad_k])`, the log of
/// the model's odds of the right verb number over the wrong one (0 at chance, growing as
/// agreement is learned), with the layout of [`agreement_accuracy`]. Items whose ids or logits
/// row are missing are skipped; none left gives NaN.
pub fn agreement_logodds(logits_at_verb: &[f32], vocab: usize, pairs: &[(i64, i64)]) -> f64 {
    let in_vocab = |x: i64| x >= 0 && (x as usize) < vocab;
    let d: Vec<f64> = pairs
        .iter()
        .enumerate()
        .filter(|(_, &(g, b))| in_vocab(g) && in_vocab(b))
        .filter_map(|(k, &(g, b))| {
            logits_at_verb.get(k * vocab..(k + 1) * vocab).map(|z| z[g as usize] as f64 - z[b as usize] as f64)
        })
        .collect();
    if d.is_empty() {
        f64::NAN
    } else {
        d.iter().sum::<f64>() / d.len() as f64
    }
}

/// Agreement accuracy on minimal pairs: `mean_k 1[z_k[good_k] > z_k[bad_k]]`, with
/// `logits_at_verb: [items, vocab]` the model's logits at each item's masked verb position and
/// `pairs[k] = (good_k, bad_k)` the token ids of the item (a tie counts as wrong). An item whose
/// ids are out of range or whose logits row is missing counts as wrong; no items gives 0.
pub fn agreement_accuracy(logits_at_verb: &[f32], vocab: usize, pairs: &[(i64, i64)]) -> f64 {
    if pairs.is_empty() {
        return 0.0;
    }
    let ok = |k: usize, &(good, bad): &(i64, i64)| -> bool {
        let in_vocab = |x: i64| x >= 0 && (x as usize) < vocab;
        if !in_vocab(good) || !in_vocab(bad) {
            return false;
        }
        match logits_at_verb.get(k * vocab..(k + 1) * vocab) {
            Some(z) => z[good as usize] > z[bad as usize],
            None => false,
        }
    };
    pairs.iter().enumerate().filter(|(k, p)| ok(*k, p)).count() as f64 / pairs.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "the dog near the cats runs ." with UD heads: the→dog, dog→runs, near→cats, the→cats,
    /// cats→dog, runs = root, .→runs.
    fn tree() -> Vec<Option<usize>> {
        vec![Some(1), Some(5), Some(4), Some(4), Some(1), None, Some(5)]
    }

    /// A `[t, t]` map with weight 1 on (dependent, head) of `gold`, or on (head, dependent) when
    /// `transpose`; the root row is uniform.
    fn tree_map(gold: &[Option<usize>], t: usize, transpose: bool) -> Vec<f32> {
        let mut a = vec![0.0f32; t * t];
        for (i, h) in gold.iter().enumerate() {
            match *h {
                Some(h) if transpose => a[h * t + i] = 1.0,
                Some(h) => a[i * t + h] = 1.0,
                None if !transpose => (0..gold.len()).for_each(|j| a[i * t + j] = 0.1),
                None => {}
            }
        }
        a
    }

    fn find(s: &[HeadUas], layer: usize, head: usize, d: Direction) -> f64 {
        s.iter().find(|x| x.layer == layer && x.head == head && x.direction == d).unwrap().uas
    }

    #[test]
    fn a_map_following_the_tree_scores_one_in_its_direction() {
        let g = vec![tree()];
        let t = 7;
        let s = uas_per_head(&tree_map(&g[0], t, false), 1, 1, 1, t, &g, &[7]);
        assert_eq!(s.len(), 2);
        assert_eq!(find(&s, 0, 0, Direction::DependentToHead), 1.0);
        // read transposed, it predicts for word i the word attending most to i: its first
        // dependent, or the root (whose row is uniform) for a word without dependents; that is
        // right only for the period (→ runs): 1 of 6
        let b = find(&s, 0, 0, Direction::HeadToDependent);
        assert!((b - 1.0 / 6.0).abs() < 1e-12, "{b}");
        // the transposed map scores 1 read transposed
        let s = uas_per_head(&tree_map(&g[0], t, true), 1, 1, 1, t, &g, &[7]);
        assert_eq!(find(&s, 0, 0, Direction::HeadToDependent), 1.0);
        assert!(find(&s, 0, 0, Direction::DependentToHead) < 1.0);
        assert_eq!(best_head(&s).direction, Direction::HeadToDependent);
    }

    #[test]
    fn uniform_map_picks_the_lowest_other_position() {
        // every word predicts position 0 except word 0 which predicts 1: only the→dog is right
        let g = vec![tree()];
        let a = vec![1.0 / 7.0; 49];
        let s = uas_per_head(&a, 1, 1, 1, 7, &g, &[7]);
        assert!((s[0].uas - 1.0 / 6.0).abs() < 1e-12);
        assert!((s[1].uas - 1.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn padding_and_diagonal_are_ignored() {
        let g = vec![tree()];
        let t = 9;
        let mut a = tree_map(&g[0], t, false);
        for i in 0..t {
            a[i * t + 7] = 5.0; // padding columns
            a[i * t + 8] = 5.0;
            a[i * t + i] = 9.0; // diagonal
        }
        let s = uas_per_head(&a, 1, 1, 1, t, &g, &[7]);
        assert_eq!(s[0].uas, 1.0);
        // a gold list longer than the length: the words past it are not scored
        let s = uas_per_head(&a, 1, 1, 1, t, &g, &[5]);
        // words 0..5 with heads < 5: the(1), near(4), the(4), cats(1) → all right
        assert_eq!(s[0].uas, 1.0);
    }

    #[test]
    fn layout_is_layers_heads_batch() {
        // 2 layers × 2 heads × 2 sentences; only layer 1, head 0 follows the tree, in both sentences
        let (layers, heads, batch, t) = (2, 2, 2, 8);
        let g = vec![tree(), vec![Some(1), None, Some(1)]];
        let lengths = [7, 3];
        let mut attn = vec![0.0f32; layers * heads * batch * t * t];
        for (b, gb) in g.iter().enumerate() {
            let m = tree_map(gb, t, false);
            let lh = heads; // layer 1, head 0
            let off = (lh * batch + b) * t * t;
            attn[off..off + t * t].copy_from_slice(&m);
        }
        let s = uas_per_head(&attn, layers, heads, batch, t, &g, &lengths);
        assert_eq!(s.len(), 8);
        let best = best_head(&s);
        assert_eq!((best.layer, best.head, best.direction, best.uas), (1, 0, Direction::DependentToHead, 1.0));
        // all-zero maps: lowest index → words with gold head 0 (none here; sentence 2 word 0 → 1 ✓,
        // sentence 1 word 0 → 1 ✓): 2 of 8 scored words
        assert!((find(&s, 0, 1, Direction::DependentToHead) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        assert!(uas_per_head(&[], 0, 0, 0, 0, &[], &[]).is_empty());
        assert!(uas_per_head(&[0.0; 3], 1, 1, 1, 2, &[vec![Some(1), None]], &[2]).is_empty());
        let s = uas_per_head(&[0.0; 4], 1, 1, 1, 2, &[], &[]);
        assert_eq!(s.iter().map(|x| x.uas).collect::<Vec<_>>(), vec![0.0, 0.0]);
        let s = uas_per_head(&[f32::NAN; 4], 1, 1, 1, 2, &[vec![Some(1), None]], &[2]);
        assert_eq!(s[0].uas, 0.0);
        assert_eq!(best_head(&[]).uas, 0.0);
        assert_eq!(best_offset_baseline(&[], &[]), (-3, 0.0));
        assert_eq!(offset_baseline_uas(&[vec![None]], &[1], 1), 0.0);
        assert!(sas_edge_mask(&[], &[], 4).is_empty());
        assert_eq!(sas_reg(&[], 1, 1, 0, 4, &[]), 0.0);
        assert_eq!(sas_reg(&[1.0; 3], 1, 1, 1, 2, &[1.0; 4]), 0.0);
        assert_eq!(structure_onset(&[], &[]), None);
        assert_eq!(structure_onset(&[5], &[0.5]), None);
        assert_eq!(loss_drop_step(&[1, 2], &[f64::NAN, 1.0]), None);
        assert_eq!(steepest_change(&[1, 2], &[0.0, 1.0], 0, true), None);
        assert_eq!(agreement_accuracy(&[], 4, &[]), 0.0);
        // a missing logits row and an out-of-range id count as wrong
        assert_eq!(agreement_accuracy(&[0.0, 1.0], 2, &[(1, 0), (1, 0), (5, 0)]), 1.0 / 3.0);
    }

    #[test]
    fn offset_baselines_by_hand() {
        // h − i over the scored words: +1, +4, +2, +1, −3, −1
        let g = vec![tree()];
        let l = [7];
        let u = |o| offset_baseline_uas(&g, &l, o);
        assert!((u(1) - 2.0 / 6.0).abs() < 1e-12);
        assert!((u(2) - 1.0 / 6.0).abs() < 1e-12);
        assert!((u(-1) - 1.0 / 6.0).abs() < 1e-12);
        assert!((u(-3) - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(u(-2), 0.0);
        assert_eq!(u(0), 0.0);
        assert_eq!(best_offset_baseline(&g, &l), (1, 2.0 / 6.0));
        // right-edge clamp as in the reference code: both words have the last word as head;
        // +1 gets word 1, +2 gets word 0 and (clamped from 3 to 2) word 1, as does +5
        let g = vec![vec![Some(2), Some(2), None]];
        assert_eq!(offset_baseline_uas(&g, &[3], 1), 0.5);
        assert_eq!(offset_baseline_uas(&g, &[3], 2), 1.0);
        assert_eq!(offset_baseline_uas(&g, &[3], 5), 1.0);
        // pooled over sentences
        let g = vec![tree(), vec![Some(1), None, Some(1)]];
        assert!((offset_baseline_uas(&g, &[7, 3], 1) - 3.0 / 8.0).abs() < 1e-12);
    }

    #[test]
    fn sas_mask_and_reg_by_hand() {
        // "dogs run ." (heads 1, root, 1) padded to t = 4, and "the dog near the cats runs ."
        let g = vec![vec![Some(1), None, Some(1)], tree()];
        let t = 7;
        let e = sas_edge_mask(&g, &[3, 7], t);
        assert_eq!(e.len(), 2 * t * t);
        let ones: Vec<(usize, usize, usize)> =
            (0..2 * t * t).filter(|&k| e[k] == 1.0).map(|k| (k / (t * t), k / t % t, k % t)).collect();
        assert_eq!(ones[..4], [(0, 0, 1), (0, 1, 0), (0, 1, 2), (0, 2, 1)]);
        assert_eq!(ones.len(), 4 + 12);
        assert!(e.iter().all(|&v| v == 0.0 || v == 1.0));
        // one layer, two heads. head 0: uniform 1/7 → R_b = (#edges)/7; head 1: weight 0.5 on
        // (0,1) and 0.25 on (1,2), (3,3) in sentence 0, nothing in sentence 1
        let (layers, heads, batch) = (1, 2, 2);
        let mut a = vec![1.0f32 / 7.0; layers * heads * batch * t * t];
        let h1 = batch * t * t;
        a[h1..].iter_mut().for_each(|v| *v = 0.0);
        a[h1 + 1] = 0.5;
        a[h1 + t + 2] = 0.25;
        a[h1 + 3 * t + 3] = 0.25; // not an edge
        let r = sas_reg(&a, layers, heads, batch, t, &e);
        let expect = (4.0 / 7.0 + 0.75 + 12.0 / 7.0) / 2.0;
        assert!((r - expect).abs() < 1e-6, "{r} vs {expect}");
    }

    #[test]
    fn steepest_change_on_constructed_curves() {
        let steps: Vec<usize> = (0..11).map(|k| k * 100).collect();
        let uas = [0.1, 0.1, 0.11, 0.12, 0.13, 0.6, 0.7, 0.75, 0.78, 0.8, 0.8];
        assert_eq!(steepest_change(&steps, &uas, 1, true), Some(450));
        let loss: Vec<f64> = uas.iter().map(|u| 3.0 - 2.0 * u).collect();
        assert_eq!(steepest_change(&steps, &loss, 1, false), Some(450));
        assert_eq!(steepest_change(&steps, &loss, 1, true), None, "a falling curve never rises");
        // uneven spacing: 0.3 over 100 steps is steeper than 0.5 over 1000
        let s2 = [0, 1000, 1100, 1200];
        assert_eq!(steepest_change(&s2, &[0.0, 0.5, 0.8, 0.85], 1, true), Some(1050));
        let noisy = [0.1, 0.15, 0.1, 0.15, 0.1, 0.5, 0.55, 0.6, 0.6, 0.62, 0.6];
        assert_eq!(steepest_change(&steps, &noisy, 1, true), Some(450));
        assert_eq!(steepest_change(&steps, &noisy, 3, true), Some(550));
        assert_eq!(steepest_change(&steps, &[0.3; 11], 1, true), None);
        assert_eq!(steepest_change(&[0, 0, 10], &[0.0, 1.0, 1.5], 1, true), Some(5));
    }

    /// A seeded standard normal (Box–Muller on a ChaCha stream), for the noisy synthetic curves.
    fn normals(seed: u64, n: usize) -> Vec<f64> {
        use rand::{Rng, SeedableRng};
        let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let (u, v): (f64, f64) = (r.random::<f64>().max(1e-300), r.random());
                (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
            })
            .collect()
    }

    #[test]
    fn jitter_by_hand_and_on_gaussian_noise() {
        // |Δ| = 1, 3, 1 → median 1 → 1.4826/√2
        assert!((jitter(&[0.0, 1.0, 4.0, 3.0]) - 1.4826 / 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(jitter(&[1.0]), 0.0);
        assert_eq!(jitter(&[1.0, f64::NAN, 2.0]), 0.0, "no finite pair");
        let z = normals(7, 4000);
        let s = jitter(&z.iter().map(|v| 0.05 * v).collect::<Vec<_>>());
        assert!((s - 0.05).abs() < 0.004, "σ̂ {s} for σ 0.05");
    }

    #[test]
    fn a_plateau_then_a_cliff_is_found_at_the_cliff() {
        // 40 evaluations every 25 steps: flat at 2.0 (noise 0.01) until step 500, then a cliff
        // to 1.2 over 3 evaluations, then flat again.
        let steps: Vec<usize> = (0..40).map(|k| k * 25).collect();
        let z = normals(1, 40);
        let y: Vec<f64> = (0..40)
            .map(|k| {
                let base = match k {
                    0..=20 => 2.0,
                    21 => 1.8,
                    22 => 1.5,
                    _ => 1.2,
                };
                base + 0.01 * z[k]
            })
            .collect();
        let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
        assert_eq!(p.event, 525, "{p:?}");
        assert_eq!(p.end, 500);
        assert_eq!(p.start, 0, "the plateau reaches back to the start");
        assert!((p.level - 2.0).abs() < 0.02);
        assert_eq!(loss_drop_step(&steps, &y), Some(525));
        // the same curve mirrored is a structure onset at the same step
        let up: Vec<f64> = y.iter().map(|v| 3.0 - v).collect();
        assert_eq!(structure_onset(&steps, &up), Some(525));
        assert_eq!(loss_drop_step(&steps, &up), None, "a rising curve has no drop");
        // an exactly flat synthetic plateau and a one-step cliff
        let exact: Vec<f64> = (0..12).map(|k| if k < 8 { 1.0 } else { 0.5 }).collect();
        let s12: Vec<usize> = (0..12).collect();
        assert_eq!(loss_drop_step(&s12, &exact), Some(8));
    }

    #[test]
    fn an_initial_descent_then_a_plateau_then_a_drop_finds_the_second_drop() {
        // what a loss curve looks like: a fast first fall, a shoulder, then the drop
        let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
        let z = normals(3, 60);
        let y: Vec<f64> = (0..60)
            .map(|k| {
                let k = k as f64;
                let first = 2.0 * (-k / 2.0).exp();
                let second = 0.6 / (1.0 + ((k - 35.0) / 1.5).exp());
                1.0 + first + second + 0.005 * z[k as usize]
            })
            .collect();
        let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
        assert!((31 * 25..=35 * 25).contains(&p.event), "{p:?}");
    }

    #[test]
    fn a_smooth_decay_has_no_drop() {
        let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
        for tau in [1.0, 3.0, 8.0, 20.0, 60.0] {
            let y: Vec<f64> = (0..60).map(|k| 1.0 + 3.0 * (-(k as f64) / tau).exp()).collect();
            assert_eq!(loss_drop_step(&steps, &y), None, "exp decay τ = {tau}");
            let z = normals(tau as u64, 60);
            let noisy: Vec<f64> = y.iter().zip(&z).map(|(v, z)| v + 0.01 * z).collect();
            assert_eq!(loss_drop_step(&steps, &noisy), None, "noisy exp decay τ = {tau}");
            // a power law too
            let pl: Vec<f64> = (0..60).map(|k| 1.0 + 3.0 / (1.0 + k as f64 / tau)).collect();
            assert_eq!(loss_drop_step(&steps, &pl), None, "power law τ = {tau}");
        }
        // nor does a straight line (the convex limit)
        let line: Vec<f64> = (0..60).map(|k| 3.0 - 0.01 * k as f64).collect();
        assert_eq!(loss_drop_step(&steps, &line), None, "linear decline");
        // and a smooth rise has no onset
        let rise: Vec<f64> = (0..60).map(|k| 0.5 - 0.4 * (-(k as f64) / 10.0).exp()).collect();
        assert_eq!(structure_onset(&steps, &rise), None);
    }

    #[test]
    fn noise_alone_has_no_drop() {
        let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
        let mut hits = 0;
        for seed in 0..200 {
            let y: Vec<f64> = normals(100 + seed, 60).iter().map(|z| 2.0 + 0.05 * z).collect();
            hits += usize::from(loss_drop_step(&steps, &y).is_some());
            hits += usize::from(structure_onset(&steps, &y).is_some());
        }
        assert_eq!(hits, 0, "false events on pure noise");
    }

    #[test]
    fn plateau_end_degenerate_inputs() {
        assert_eq!(loss_drop_step(&[], &[]), None);
        assert_eq!(loss_drop_step(&[0, 1, 2], &[1.0, 1.0, 0.0]), None, "too short for a plateau");
        let steps: Vec<usize> = (0..12).collect();
        assert_eq!(loss_drop_step(&steps, &[1.0; 12]), None, "a plateau that never ends");
        assert_eq!(loss_drop_step(&steps, &[f64::NAN; 12]), None);
        // a drop that does not hold (one low point, then back up) is not a drop
        let mut blip = vec![1.0; 12];
        blip[8] = 0.0;
        assert_eq!(loss_drop_step(&steps, &blip), None);
        // a NaN in the plateau breaks the windows that contain it
        let mut y: Vec<f64> = (0..12).map(|k| if k < 8 { 1.0 } else { 0.5 }).collect();
        y[4] = f64::NAN;
        assert_eq!(loss_drop_step(&steps, &y), None, "no 5 finite flat points before the drop");
    }

    #[test]
    fn nonadjacent_arcs_keep_only_long_arcs() {
        // the→dog (1), dog→runs (4), near→cats (2), the→cats (1), cats→dog (3), root, .→runs (1)
        let g = vec![tree()];
        let na = nonadjacent_arcs(&g);
        assert_eq!(na[0], vec![None, Some(5), Some(4), None, Some(1), None, None]);
        // the best offset on them: −3 gets cats→dog (4−3 = 1), +2 gets near→cats; −2 none
        let (off, u) = best_offset_baseline(&na, &[7]);
        assert_eq!((off, u), (-3, 1.0 / 3.0));
    }

    #[test]
    fn mean_nll_and_logodds_by_hand() {
        // row 0: logits [0, ln 3] → p(1) = 3/4; row 1: uniform over 2 → p = 1/2
        let z = [0.0, 3f32.ln(), 0.0, 0.0];
        let expect = (-(0.75f64).ln() - (0.5f64).ln()) / 2.0;
        assert!((mean_nll(&z, 2, &[1, 0]) - expect).abs() < 1e-6);
        assert_eq!(mean_nll(&z, 2, &[2, 0]), f64::INFINITY, "out-of-range target");
        assert!(mean_nll(&z, 2, &[]).is_nan());
        // log-odds: (ln 3 − 0) and (0 − 0) → ln 3 / 2
        assert!((agreement_logodds(&z, 2, &[(1, 0), (0, 1)]) - 3f64.ln() / 2.0).abs() < 1e-6);
        assert!(agreement_logodds(&z, 2, &[(5, 0)]).is_nan());
        // pair loss: softplus(0 − ln 3) = ln(4/3), softplus(0) = ln 2
        let expect = ((4.0f64 / 3.0).ln() + 2f64.ln()) / 2.0;
        assert!((pair_loss(&z, 2, &[(1, 0), (0, 1)]) - expect).abs() < 1e-6);
        // large margins stay finite and exact
        let big = [0.0, 100.0];
        assert!((pair_loss(&big, 2, &[(0, 1)]) - 100.0).abs() < 1e-9);
        assert!(pair_loss(&big, 2, &[(1, 0)]) < 1e-40);
        assert!(pair_loss(&z, 2, &[]).is_nan());
    }

    #[test]
    fn agreement_accuracy_by_hand() {
        // vocab 4; items (good, bad): (2, 3) right, (3, 2) wrong, (1, 0) tie → wrong
        let z = [0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 0.5, 0.3, 0.3, 0.0, 0.0];
        assert!((agreement_accuracy(&z, 4, &[(2, 3), (3, 2), (1, 0)]) - 1.0 / 3.0).abs() < 1e-12);
    }
}
