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

mod slots;
pub use slots::*;
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

/// [`sas_edge_mask`] for explicit pairs: `E[b,i,j] = E[b,j,i] = 1` for every `(i, j)` of
/// `pairs[b]` with `i ≠ j` and both below `min(lengths[b], t)`, 0 elsewhere (copy agreement's
/// slot ↔ subject pairs, which are not all tree arcs).
pub fn sas_pair_mask(pairs: &[Vec<(usize, usize)>], lengths: &[usize], t: usize) -> Vec<f32> {
    let mut e = vec![0.0f32; pairs.len() * t * t];
    for (b, p) in pairs.iter().enumerate() {
        let len = lengths.get(b).map_or(0, |&l| l.min(t));
        for &(i, j) in p.iter().filter(|&&(i, j)| i != j && i < len && j < len) {
            e[(b * t + i) * t + j] = 1.0;
            e[(b * t + j) * t + i] = 1.0;
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

/// How a plateau's end unfolds: the steps at which the curve has made 10 % and 90 % of its fall
/// from the plateau's level to its floor ([`fall_width`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FallWidth {
    /// Step of the first evaluation (at or after the plateau's end) from which the curve stays
    /// 10 % of the way from the level to the floor for [`FALL_SUSTAIN`] evaluations.
    pub from: usize,
    /// The same at 90 %, at or after `from`.
    pub to: usize,
    /// The floor: the median of the curve's last [`FLOOR_EVALS`] finite evaluations.
    pub floor: f64,
}

impl FallWidth {
    /// `to − from`, in steps: 0 for a cliff that falls between two evaluations.
    pub fn width(&self) -> usize {
        self.to - self.from
    }
}

/// Evaluations at the end of a curve whose median is its floor in [`fall_width`].
pub const FLOOR_EVALS: usize = 5;
/// Consecutive evaluations a 10 % or 90 % crossing must hold in [`fall_width`] (as the drop rule's
/// `sustain`), so one noisy evaluation does not mark it.
pub const FALL_SUSTAIN: usize = 2;
/// A plateau's end is *sudden* when its fall's 10–90 % width is at most this share of the
/// plateau's length ([`is_sudden`]). Fixed by issue #35 before any design was searched.
pub const SUDDEN_SHARE: f64 = 0.25;

/// The 10–90 % width of the fall that ends a plateau found by [`plateau_end`] on the same
/// `steps`/`values` (`rising` as there).
///
/// With `L` the plateau's level, `F` the floor (the median of the last [`FLOOR_EVALS`] finite
/// values) and `D = L − F` (mirrored when `rising`), `from` is the step of the first evaluation at
/// or after the plateau's last one whose value and the next `FALL_SUSTAIN − 1` are all at or
/// below `L − 0.1·D`, and `to` the first at or after `from` at or below `L − 0.9·D` likewise (the
/// last evaluations may hold it for fewer when the curve ends). `None` when the curve does not
/// end below its plateau (`D ≤ 0`) or a crossing is never reached.
pub fn fall_width(steps: &[usize], values: &[f64], rising: bool, plateau: &PlateauEnd) -> Option<FallWidth> {
    let n = steps.len().min(values.len());
    let x: Vec<f64> = values[..n].iter().map(|&v| if rising { -v } else { v }).collect();
    let mut tail: Vec<f64> = x.iter().rev().copied().filter(|v| v.is_finite()).take(FLOOR_EVALS).collect();
    if tail.is_empty() {
        return None;
    }
    tail.sort_by(f64::total_cmp);
    let m = tail.len();
    let floor = if m % 2 == 1 { tail[m / 2] } else { (tail[m / 2 - 1] + tail[m / 2]) / 2.0 };
    let level = if rising { -plateau.level } else { plateau.level };
    let fall = level - floor;
    if fall.is_nan() || fall <= 0.0 {
        return None;
    }
    let start = steps[..n].iter().position(|&s| s >= plateau.end)?;
    let crossing = |from: usize, share: f64| -> Option<usize> {
        let thresh = level - share * fall;
        (from..n).find(|&k| {
            let hold = (k + FALL_SUSTAIN).min(n);
            x[k..hold].iter().all(|&v| v <= thresh)
        })
    };
    let a = crossing(start, 0.1)?;
    let b = crossing(a, 0.9)?;
    let floor = if rising { -floor } else { floor };
    Some(FallWidth { from: steps[a], to: steps[b], floor })
}

/// Whether a plateau ends suddenly: its fall's 10–90 % width ([`fall_width`]) is at most
/// [`SUDDEN_SHARE`] of the plateau's length `end − start` (in steps). A plateau of length 0 is
/// never followed by a sudden end (there is nothing to compare with).
pub fn is_sudden(plateau: &PlateauEnd, fall: &FallWidth) -> bool {
    let len = plateau.end.saturating_sub(plateau.start);
    len > 0 && fall.width() as f64 <= SUDDEN_SHARE * len as f64
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

/// The plateau a curve is on, as a chart shades it ([`plateau_span`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlateauSpan {
    /// Step of the plateau's first evaluation.
    pub start: usize,
    /// Step of its last evaluation: before the event once it ended, the latest one while it lasts.
    pub end: usize,
    /// The step at which it ended ([`plateau_end`]'s event), or `None` while it lasts.
    pub event: Option<usize>,
}

/// The plateau of a curve by `rule`, ended or still lasting: the first plateau that ended
/// ([`plateau_end`]) when there is one; otherwise the stretch that ends at the latest evaluation
/// when its last `rule.min_len` evaluations lie within `rule.band · σ̂` (σ̂ as in [`plateau_end`]),
/// extended back as far as the whole stretch stays within the band; `None` when the curve is
/// not flat now (or has fewer than `min_len` evaluations). Only the rule's own flatness test is
/// used: nothing here is tuned to a chart. As there, σ̂ is the curve's own evaluation-to-evaluation
/// change, so a noiseless straight line counts as flat (its σ̂ is its slope); measured curves have
/// noise, and a fall that speeds up is not flat.
pub fn plateau_span(steps: &[usize], values: &[f64], rising: bool, rule: PlateauRule) -> Option<PlateauSpan> {
    if let Some(p) = plateau_end(steps, values, rising, rule) {
        return Some(PlateauSpan { start: p.start, end: p.end, event: Some(p.event) });
    }
    let n = steps.len().min(values.len());
    if rule.min_len == 0 || n < rule.min_len {
        return None;
    }
    let x: Vec<f64> = values[..n].iter().map(|&v| if rising { -v } else { v }).collect();
    let finite: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return None;
    }
    let range =
        finite.iter().copied().fold(f64::NEG_INFINITY, f64::max) - finite.iter().copied().fold(f64::INFINITY, f64::min);
    let band = rule.band * jitter(&x).max(1e-9 * range).max(1e-12);
    let flat = |a: usize| -> bool {
        let w = &x[a..n];
        if w.iter().any(|v| !v.is_finite()) {
            return false;
        }
        let hi = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = w.iter().copied().fold(f64::INFINITY, f64::min);
        hi - lo <= band
    };
    let mut start = n - rule.min_len;
    if !flat(start) {
        return None;
    }
    while start > 0 && flat(start - 1) {
        start -= 1;
    }
    Some(PlateauSpan { start: steps[start], end: steps[n - 1], event: None })
}

#[cfg(test)]
mod tests;
