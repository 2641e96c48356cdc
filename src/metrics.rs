//! Metric helpers every chapter shares, each with one rule: argmax (ties to the lowest index, as
//! `torch.argmax` and `np.argmax`; NaN never wins) and the cosine of two vectors.

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

#[cfg(test)]
mod tests {
    use super::*;

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
