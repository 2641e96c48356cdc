//! Metric helpers every chapter shares, each with one rule: argmax (ties to the lowest index, as
//! `torch.argmax` and `np.argmax`; NaN never wins), the cosine of two vectors, the repetition
//! frequency of generated sequences (chapters 1 and 4) and the batch mean of attention maps
//! (chapters 1 and 2).

/// The index of the largest score among `candidates` (`(index, score)` pairs, in index order):
/// ties go to the first, NaN never wins, `None` when no candidate has a non-NaN score.
pub fn argmax_by(candidates: impl IntoIterator<Item = (usize, f32)>) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (j, v) in candidates {
        if !v.is_nan() && best.is_none_or(|(_, b)| v > b) {
            best = Some((j, v));
        }
    }
    best.map(|(j, _)| j)
}

/// Index of the largest logit in every row of `vocab` entries (`[rows, vocab]` → `[rows]`), by
/// [`argmax_by`]; a row with no comparable entry gives −1 (never a label, so it counts as wrong).
/// Empty when `vocab` is 0.
pub fn argmax_rows(logits: &[f32], vocab: usize) -> Vec<i64> {
    if vocab == 0 {
        return Vec::new();
    }
    logits.chunks_exact(vocab).map(|z| argmax_by(z.iter().copied().enumerate()).map_or(-1, |i| i as i64)).collect()
}

/// Cosine `u·v / (‖u‖‖v‖)` in f64 (0 when either vector is zero).
pub fn cosine(u: &[f32], v: &[f32]) -> f64 {
    let (mut uv, mut uu, mut vv) = (0.0f64, 0.0f64, 0.0f64);
    for (&a, &b) in u.iter().zip(v) {
        uv += a as f64 * b as f64;
        uu += a as f64 * a as f64;
        vv += b as f64 * b as f64;
    }
    if uu == 0.0 || vv == 0.0 {
        0.0
    } else {
        uv / (uu.sqrt() * vv.sqrt())
    }
}

/// Cosine matrix of `n` positions of every sequence, averaged over the sequences:
/// `C[i,j] = mean_b cos(h_{b,from+i}, h_{b,from+j})` for `i, j = 0..n−1`, from states
/// `hidden: [batch, t, d]` (row-major; `[n, n]` out).
pub fn cosine_matrix(hidden: &[f32], t: usize, d: usize, from: usize, n: usize) -> Vec<f64> {
    let batch = hidden.len() / (t * d);
    let mut c = vec![0.0f64; n * n];
    for b in 0..batch {
        let h = |p: usize| &hidden[(b * t + p) * d..(b * t + p + 1) * d];
        for i in 0..n {
            for j in 0..=i {
                let v = cosine(h(from + i), h(from + j));
                c[i * n + j] += v;
                if i != j {
                    c[j * n + i] += v;
                }
            }
        }
    }
    c.iter_mut().for_each(|v| *v /= batch.max(1) as f64);
    c
}

/// Repetition frequency: `mean_b (1/(n−1)) Σ_{j=1}^{n−1} 1[ŷ_{b,j} = ŷ_{b,j+1}]`, the share of
/// adjacent generated pairs that repeat (`seqs: [batch, n]`). On uniformly random moving-window
/// sums it is about 0.058.
pub fn repetition_frequency(seqs: &[i64], n: usize) -> f64 {
    let batch = seqs.len() / n;
    let mut hits = 0usize;
    for b in 0..batch {
        let s = &seqs[b * n..(b + 1) * n];
        hits += s.windows(2).filter(|w| w[0] == w[1]).count();
    }
    hits as f64 / (batch * (n - 1)) as f64
}

/// Batch mean of attention maps, `[batch, T, T]` → `[T, T]`.
pub fn batch_mean_map(attn: &[f32], t: usize) -> Vec<f32> {
    let batch = attn.len() / (t * t);
    let mut out = vec![0.0f64; t * t];
    for b in 0..batch {
        for (o, &v) in out.iter_mut().zip(&attn[b * t * t..(b + 1) * t * t]) {
            *o += v as f64;
        }
    }
    out.into_iter().map(|v| (v / batch as f64) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_by_hand() {
        // [5 5 5 2]: 2 of 3 pairs repeat; [1 2 1 2]: none.
        assert!((repetition_frequency(&[5, 5, 5, 2, 1, 2, 1, 2], 4) - 2.0 / 6.0).abs() < 1e-12);
        assert_eq!(repetition_frequency(&[7; 16], 16), 1.0);
    }

    #[test]
    fn batch_mean_map_by_hand() {
        assert_eq!(batch_mean_map(&[1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0, 0.0], 2), vec![2.0, 2.0, 2.0, 2.0]);
    }

    #[test]
    fn argmax_breaks_ties_low_and_skips_nan() {
        assert_eq!(argmax_rows(&[1.0, 3.0, 3.0, 0.0, -1.0, -2.0], 3), vec![1, 0]);
        assert_eq!(argmax_rows(&[5., 4., 3., 1., 7., 7.], 3), vec![0, 1]);
        assert_eq!(argmax_rows(&[f32::NAN, 1.0, f32::NAN, f32::NAN], 2), vec![1, -1]);
        assert!(argmax_rows(&[1.0], 0).is_empty());
        assert_eq!(argmax_by([(3, 1.0), (5, 2.0), (7, 2.0)]), Some(5));
        assert_eq!(argmax_by(std::iter::empty()), None);
    }

    #[test]
    fn cosine_of_known_vectors() {
        assert!((cosine(&[1.0, 0.0], &[0.0, 2.0])).abs() < 1e-12);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-12);
        assert!((cosine(&[1.0, 0.0], &[1.0, 1.0]) - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }
}
