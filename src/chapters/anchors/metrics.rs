//! Metrics of the anchor-function chapter (PAPERS.md §B), each one function on plain host arrays.
//!
//! Arrays are row-major. Logits here are those of the *last* position only, `[batch, vocab]`
//! (use [`last_position_logits`] to cut them out of `[batch, seq, vocab]`). Inputs are `f32`,
//! results `f64`, computed in `f64`.
//!
//! No function here panics on empty, mis-sized or non-finite input: a quantity that is undefined
//! (no samples, zero variance, NaN in the input, a label outside the vocabulary) comes back as NaN,
//! or as `None` where the signature says so.

use crate::chapters::anchors::data::Subset;

/// The logits of the last position, `[batch, seq, vocab]` → `[batch, vocab]`. Returns an empty
/// vector when `seq` or `vocab` is 0 or `logits.len()` is not a multiple of `seq · vocab`.
pub fn last_position_logits(logits: &[f32], seq: usize, vocab: usize) -> Vec<f32> {
    let row = seq * vocab;
    if row == 0 || logits.len() % row != 0 {
        return Vec::new();
    }
    logits.chunks(row).flat_map(|r| r[row - vocab..].iter().copied()).collect()
}

/// Per-sample cross-entropy at the last position,
/// `ℓ_b = log Σ_v exp(z_{b,v}) − z_{b,y_b}`, with the max-shift `m_b = max_v z_{b,v}` for a
/// stable log-sum-exp (`logits: [batch, vocab]`, `batch = labels.len()`).
///
/// A sample gets NaN when its label is outside `0..vocab`, its logit row is missing (`logits`
/// too short), or the row holds a NaN or is all `−∞`.
pub fn last_token_ce(logits: &[f32], vocab: usize, labels: &[i64]) -> Vec<f64> {
    labels
        .iter()
        .enumerate()
        .map(|(b, &y)| {
            if vocab == 0 || y < 0 || y as usize >= vocab || logits.len() < (b + 1) * vocab {
                return f64::NAN;
            }
            let z = &logits[b * vocab..(b + 1) * vocab];
            if z.iter().any(|v| v.is_nan()) {
                return f64::NAN;
            }
            let m = z.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
            if !m.is_finite() {
                return f64::NAN;
            }
            let lse = m + z.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
            lse - z[y as usize] as f64
        })
        .collect()
}

/// Mean of `values` over the samples of subset `which`, `(1/|S|) Σ_{i∈S} values_i` with
/// `S = {i : subset_i = which}`. `None` when `S` is empty; NaN values propagate (NaN mean).
/// Only the common length of `values` and `subset` is read.
pub fn subset_means(values: &[f64], subset: &[Subset], which: Subset) -> Option<f64> {
    let (sum, n) =
        values.iter().zip(subset).filter(|(_, &s)| s == which).fold((0.0f64, 0usize), |(s, n), (&v, _)| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Mean last-token cross-entropy of subset `which`: [`subset_means`] of [`last_token_ce`].
pub fn subset_loss(logits: &[f32], vocab: usize, labels: &[i64], subset: &[Subset], which: Subset) -> Option<f64> {
    subset_means(&last_token_ce(logits, vocab, labels), subset, which)
}

/// Accuracy of subset `which`, `(1/|S|) Σ_{i∈S} 1[ŷ_i = y_i]`; `None` when `S` is empty.
pub fn subset_accuracy(pred: &[i64], labels: &[i64], subset: &[Subset], which: Subset) -> Option<f64> {
    let hits: Vec<f64> = pred.iter().zip(labels).map(|(p, y)| if p == y { 1.0 } else { 0.0 }).collect();
    subset_means(&hits, subset, which)
}

/// [`subset_loss`] for every subset, in the order of [`Subset::ALL`] (memory, reasoning, held-out).
pub fn subset_losses(logits: &[f32], vocab: usize, labels: &[i64], subset: &[Subset]) -> [Option<f64>; 3] {
    let ce = last_token_ce(logits, vocab, labels);
    Subset::ALL.map(|s| subset_means(&ce, subset, s))
}

/// [`subset_accuracy`] for every subset, in the order of [`Subset::ALL`].
pub fn subset_accuracies(pred: &[i64], labels: &[i64], subset: &[Subset]) -> [Option<f64>; 3] {
    Subset::ALL.map(|s| subset_accuracy(pred, labels, subset, s))
}

/// Inferential and symmetric accuracy on the held-out pair:
/// `(mean_{i∈H} 1[ŷ_i = inferential_i], mean_{i∈H} 1[ŷ_i = symmetric_i])` with
/// `H = {i : subset_i = ReasoningHeldout}`. `(NaN, NaN)` when `H` is empty. The two can sum to less
/// than 1 (neither answer) but not to more, since the answers differ.
pub fn inferential_symmetric_accuracy(
    pred: &[i64],
    inferential: &[i64],
    symmetric: &[i64],
    subset: &[Subset],
) -> (f64, f64) {
    let n = pred.len().min(inferential.len()).min(symmetric.len()).min(subset.len());
    let (mut inf, mut sym, mut count) = (0usize, 0usize, 0usize);
    for i in (0..n).filter(|&i| subset[i] == Subset::ReasoningHeldout) {
        count += 1;
        inf += usize::from(pred[i] == inferential[i]);
        sym += usize::from(pred[i] == symmetric[i]);
    }
    if count == 0 {
        return (f64::NAN, f64::NAN);
    }
    (inf as f64 / count as f64, sym as f64 / count as f64)
}

/// Cosine similarities of the chosen rows of an embedding table `emb: [vocab, d]`:
/// `C_{ij} = ⟨e_{r_i}, e_{r_j}⟩ / (‖e_{r_i}‖ ‖e_{r_j}‖)`, returned row-major `[r, r]` with
/// `r = rows.len()`. Entries involving a row that is out of range, has zero norm or holds a NaN
/// are NaN. Empty when `rows` is empty or `d` is 0.
pub fn cosine_matrix(emb: &[f32], d: usize, rows: &[usize]) -> Vec<f64> {
    if d == 0 {
        return Vec::new();
    }
    let vecs: Vec<Option<Vec<f64>>> = rows
        .iter()
        .map(|&r| {
            let e = emb.get(r * d..(r + 1) * d)?;
            let v: Vec<f64> = e.iter().map(|&x| x as f64).collect();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            (norm > 0.0 && norm.is_finite()).then(|| v.iter().map(|x| x / norm).collect())
        })
        .collect();
    let r = rows.len();
    let mut out = vec![f64::NAN; r * r];
    for i in 0..r {
        for j in 0..r {
            if let (Some(a), Some(b)) = (&vecs[i], &vecs[j]) {
                out[i * r + j] = a.iter().zip(b).map(|(x, y)| x * y).sum();
            }
        }
    }
    out
}

/// Pearson correlation between the value distance `|v_i − v_j|` and the cosine `cos_{ij}` over the
/// pairs `i < j` (`cos: [r, r]` with `r = values.len()`, e.g. from [`cosine_matrix`] over the keys):
/// `ρ = Σ (x − x̄)(y − ȳ) / √(Σ (x − x̄)² Σ (y − ȳ)²)`. Negative means ordered structure
/// (neighbouring values are more similar). NaN when `cos` is not `r × r`, there are fewer than two
/// pairs, either side has zero variance, or `cos` holds a NaN.
pub fn distance_cosine_correlation(cos: &[f64], values: &[i64]) -> f64 {
    let r = values.len();
    if cos.len() != r * r || r < 3 {
        return f64::NAN;
    }
    let mut xs = Vec::with_capacity(r * (r - 1) / 2);
    let mut ys = Vec::with_capacity(r * (r - 1) / 2);
    for i in 0..r {
        for j in i + 1..r {
            xs.push((values[i] - values[j]).abs() as f64);
            ys.push(cos[i * r + j]);
        }
    }
    pearson(&xs, &ys)
}

/// The key-distance bins of [`cosine_by_distance`]: `|v_i − v_j|` in `1`, `2`, `3..=5`, `6..=19`,
/// `20..` (inclusive bounds).
pub const DISTANCE_BINS: [(i64, i64); 5] = [(1, 1), (2, 2), (3, 5), (6, 19), (20, i64::MAX)];

/// Mean cosine of the pairs `i < j` whose value distance `|v_i − v_j|` falls in each of
/// [`DISTANCE_BINS`]: `c̄_k = (1/|P_k|) Σ_{(i,j)∈P_k} cos_{ij}` (`cos: [r, r]` with
/// `r = values.len()`, e.g. from [`cosine_matrix`] over the keys). An ordered embedding shows
/// `c̄_1 > c̄_2 > … `; an unstructured one shows equal bins. A bin with no pair is NaN; when `cos`
/// is not `r × r` every bin is NaN; a NaN cosine makes its bin NaN.
pub fn cosine_by_distance(cos: &[f64], values: &[i64]) -> [f64; 5] {
    let r = values.len();
    let mut out = [f64::NAN; 5];
    if cos.len() != r * r {
        return out;
    }
    let mut sum = [0.0f64; 5];
    let mut count = [0usize; 5];
    for i in 0..r {
        for j in i + 1..r {
            let dist = (values[i] - values[j]).abs();
            if let Some(k) = DISTANCE_BINS.iter().position(|&(lo, hi)| (lo..=hi).contains(&dist)) {
                sum[k] += cos[i * r + j];
                count[k] += 1;
            }
        }
    }
    for k in 0..5 {
        if count[k] > 0 {
            out[k] = sum[k] / count[k] as f64;
        }
    }
    out
}

fn pearson(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx > 0.0 && syy > 0.0 {
        sxy / (sxx * syy).sqrt()
    } else {
        f64::NAN
    }
}

/// Closeness of causal attention maps to the uniform prefix average:
/// `1 − (1/(B·T)) Σ_b Σ_i TV(A_b[i,·], u_i)`, where `u_i[j] = 1/(i+1)` for `j ≤ i` and 0 after,
/// and `TV(p, q) = ½ Σ_j |p_j − q_j|` is the total-variation distance (`attn: [batch, t, t]`,
/// rows summing to 1). 1 means every row is exactly the prefix average; a row putting all its mass
/// on one token scores `1 − i/(i+1)`. Every row is counted, row 0 included (always 1 for a causal
/// map). NaN when `batch` or `t` is 0, `attn.len() ≠ batch · t · t`, or `attn` holds a NaN.
pub fn prefix_average_closeness(attn: &[f32], batch: usize, t: usize) -> f64 {
    if batch == 0 || t == 0 || attn.len() != batch * t * t {
        return f64::NAN;
    }
    let mut tv_sum = 0.0f64;
    for row in attn.chunks_exact(t).enumerate() {
        let (k, a) = row;
        let i = k % t;
        let u = 1.0 / (i + 1) as f64;
        let tv: f64 =
            a.iter().enumerate().map(|(j, &p)| (p as f64 - if j <= i { u } else { 0.0 }).abs()).sum::<f64>() * 0.5;
        tv_sum += tv;
    }
    1.0 - tv_sum / (batch * t) as f64
}

/// A two-component principal component analysis.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pca2 {
    /// The centred points projected on the two components, `[n]`.
    pub coords: Vec<[f64; 2]>,
    /// Variance along each component as a fraction of the total variance.
    pub explained: [f64; 2],
    /// The two unit principal axes (loadings), each of length `d`; zeros for a component with
    /// no variance.
    pub components: [Vec<f64>; 2],
}

impl Pca2 {
    /// This PCA with each component's sign flipped where that makes it point along the same
    /// component of `prev` (non-negative dot product), so consecutive animation frames do not flip
    /// even when the largest loading moves to another coordinate. Unchanged when the dimensions
    /// differ.
    pub fn aligned_to(mut self, prev: &Pca2) -> Pca2 {
        for k in 0..2 {
            let (a, b) = (&self.components[k], &prev.components[k]);
            if a.len() == b.len() && a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() < 0.0 {
                self.components[k].iter_mut().for_each(|x| *x = -*x);
                self.coords.iter_mut().for_each(|c| c[k] = -c[k]);
            }
        }
        self
    }
}

/// PCA of `n` points in `d` dimensions (`points: [n, d]`), top two components.
///
/// Centre `X̃ = X − 1 x̄ᵀ`; covariance `C = X̃ᵀX̃ / n` (d × d, f64); eigendecomposition
/// `C = V Λ Vᵀ` by cyclic Jacobi rotations; components `v_1, v_2` for the two largest eigenvalues;
/// `coords_i = (x̃_i·v_1, x̃_i·v_2)`; `explained_k = λ_k / tr C`. When `n < d` the same
/// eigenpairs are obtained from the smaller Gram matrix `G = X̃X̃ᵀ / n` (n × n; `v = X̃ᵀu / ‖X̃ᵀu‖`),
/// which keeps the cost at `O(min(n, d)³)`.
///
/// Sign convention: each component's largest-|·| loading is positive (the first such index on a
/// tie); see also [`Pca2::aligned_to`].
///
/// Degenerate input: when `n` or `d` is 0, `points.len() ≠ n·d`, or a point is not finite, every
/// coordinate and fraction is NaN (components empty). When all points coincide, coordinates are 0
/// and the fractions NaN. With `d = 1` or rank 1 the second component is zero.
pub fn pca2(points: &[f32], n: usize, d: usize) -> Pca2 {
    let nan = Pca2 { coords: vec![[f64::NAN; 2]; n], explained: [f64::NAN; 2], components: [Vec::new(), Vec::new()] };
    if n == 0 || d == 0 || points.len() != n * d || points.iter().any(|x| !x.is_finite()) {
        return nan;
    }
    let mut mean = vec![0.0f64; d];
    for p in points.chunks_exact(d) {
        for (m, &x) in mean.iter_mut().zip(p) {
            *m += x as f64;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let x: Vec<f64> = points.chunks_exact(d).flat_map(|p| p.iter().zip(&mean).map(|(&v, m)| v as f64 - m)).collect();

    let (mut components, eig): ([Vec<f64>; 2], [f64; 2]);
    let total;
    if n < d {
        // Gram matrix G = X̃X̃ᵀ/n, n × n.
        let mut g = vec![0.0f64; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = dot(&x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]) / n as f64;
                g[i * n + j] = v;
                g[j * n + i] = v;
            }
        }
        total = (0..n).map(|i| g[i * n + i]).sum::<f64>();
        let (vals, vecs) = jacobi_eigen(g, n);
        let top = top2(&vals);
        eig = [top[0].map_or(0.0, |k| vals[k].max(0.0)), top[1].map_or(0.0, |k| vals[k].max(0.0))];
        components = top.map(|k| {
            let mut v = vec![0.0f64; d];
            if let Some(k) = k {
                for i in 0..n {
                    let u = vecs[k * n + i];
                    for (vj, xj) in v.iter_mut().zip(&x[i * d..(i + 1) * d]) {
                        *vj += u * xj;
                    }
                }
            }
            v
        });
    } else {
        // Covariance C = X̃ᵀX̃/n, d × d.
        let mut c = vec![0.0f64; d * d];
        for p in x.chunks_exact(d) {
            for a in 0..d {
                let pa = p[a];
                for b in 0..=a {
                    c[a * d + b] += pa * p[b];
                }
            }
        }
        for a in 0..d {
            for b in 0..=a {
                c[a * d + b] /= n as f64;
                c[b * d + a] = c[a * d + b];
            }
        }
        total = (0..d).map(|a| c[a * d + a]).sum::<f64>();
        let (vals, vecs) = jacobi_eigen(c, d);
        let top = top2(&vals);
        eig = [top[0].map_or(0.0, |k| vals[k].max(0.0)), top[1].map_or(0.0, |k| vals[k].max(0.0))];
        components = top.map(|k| k.map_or_else(|| vec![0.0; d], |k| vecs[k * d..(k + 1) * d].to_vec()));
    }

    // Normalize, zero out components without variance, fix the sign.
    let scale = total.abs().max(f64::MIN_POSITIVE);
    for k in 0..2 {
        let v = &mut components[k];
        let norm = dot(v, v).sqrt();
        if eig[k] <= 1e-12 * scale || norm == 0.0 || !norm.is_finite() {
            v.iter_mut().for_each(|x| *x = 0.0);
            continue;
        }
        v.iter_mut().for_each(|x| *x /= norm);
        let mut big = 0;
        for (i, a) in v.iter().enumerate() {
            if a.abs() > v[big].abs() {
                big = i;
            }
        }
        if v[big] < 0.0 {
            v.iter_mut().for_each(|x| *x = -*x);
        }
    }
    let coords = x.chunks_exact(d).map(|p| [dot(p, &components[0]), dot(p, &components[1])]).collect();
    let explained = if total > 0.0 {
        [if components[0].iter().any(|&v| v != 0.0) { eig[0] / total } else { 0.0 }, {
            if components[1].iter().any(|&v| v != 0.0) {
                eig[1] / total
            } else {
                0.0
            }
        }]
    } else {
        [f64::NAN; 2]
    };
    Pca2 { coords, explained, components }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Indices of the largest and second-largest values (`None` past the length).
fn top2(vals: &[f64]) -> [Option<usize>; 2] {
    let mut idx: Vec<usize> = (0..vals.len()).collect();
    idx.sort_by(|&a, &b| vals[b].total_cmp(&vals[a]).then(a.cmp(&b)));
    [idx.first().copied(), idx.get(1).copied()]
}

/// Eigendecomposition of the symmetric `m × m` matrix `a` (row-major) by cyclic Jacobi rotations.
/// Returns the eigenvalues (unsorted) and the eigenvectors as the *rows* of a row-major `m × m`
/// matrix (row `k` belongs to eigenvalue `k`). Each rotation `P` (angle chosen to zero `a_pq`)
/// updates `A ← PᵀAP` through rows `p, q` only, mirroring them into the columns, and `V ← VP`.
/// Sweeps until the off-diagonal mass `Σ_{p≠q} a_pq²` is at most `1e-24 Σ a²` (at most 100 sweeps).
fn jacobi_eigen(mut a: Vec<f64>, m: usize) -> (Vec<f64>, Vec<f64>) {
    let mut vt = vec![0.0f64; m * m];
    for i in 0..m {
        vt[i * m + i] = 1.0;
    }
    let total: f64 = a.iter().map(|x| x * x).sum();
    for _sweep in 0..100 {
        let mut off = 0.0f64;
        for p in 0..m {
            for q in p + 1..m {
                off += 2.0 * a[p * m + q] * a[p * m + q];
            }
        }
        if off <= 1e-24 * total {
            break;
        }
        for p in 0..m {
            for q in p + 1..m {
                let apq = a[p * m + q];
                let (app, aqq) = (a[p * m + p], a[q * m + q]);
                // Skip rotations that would not change the matrix in f64.
                if apq.abs() <= 1e-18 * (app.abs() + aqq.abs()) || apq == 0.0 {
                    a[p * m + q] = 0.0;
                    a[q * m + p] = 0.0;
                    continue;
                }
                let theta = (aqq - app) / (2.0 * apq);
                let t = if theta >= 0.0 { 1.0 } else { -1.0 } / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..m {
                    if k == p || k == q {
                        continue;
                    }
                    let (akp, akq) = (a[p * m + k], a[q * m + k]);
                    let (np, nq) = (c * akp - s * akq, s * akp + c * akq);
                    a[p * m + k] = np;
                    a[k * m + p] = np;
                    a[q * m + k] = nq;
                    a[k * m + q] = nq;
                }
                a[p * m + p] = app - t * apq;
                a[q * m + q] = aqq + t * apq;
                a[p * m + q] = 0.0;
                a[q * m + p] = 0.0;
                let (rp, rq) = vt.split_at_mut(q * m);
                for (vp, vq) in rp[p * m..(p + 1) * m].iter_mut().zip(&mut rq[..m]) {
                    let (x, y) = (*vp, *vq);
                    *vp = c * x - s * y;
                    *vq = s * x + c * y;
                }
            }
        }
    }
    ((0..m).map(|i| a[i * m + i]).collect(), vt)
}

#[cfg(test)]
mod tests;
