//! Gopalani & Hu's metrics (PAPERS.md §A), each one function on plain host arrays.
//!
//! Indices are 0-based positions of the `2n`-token model input; query `t` predicts token `t+1`,
//! so the outputs `y_1..y_n` are predicted by queries `n..2n-1`. Arrays are row-major. The
//! repetition frequency and the batch mean of attention maps, which other chapters use too, live
//! in [`crate::metrics`].

pub use crate::metrics::{batch_mean_map, repetition_frequency};

/// Mean next-token cross-entropy `−(1/|P|·B) Σ_b Σ_{t∈P} log softmax(z_{b,t})[target_{b,t}]`
/// over the positions `P` (`logits: [batch, seq, vocab]`, `targets: [batch, seq]`), computed in
/// f64 with the max-shift for stability.
pub fn cross_entropy(
    logits: &[f32],
    targets: &[i64],
    seq: usize,
    vocab: usize,
    positions: std::ops::Range<usize>,
) -> f64 {
    let batch = targets.len() / seq;
    let mut total = 0.0f64;
    for b in 0..batch {
        for t in positions.clone() {
            let z = &logits[(b * seq + t) * vocab..(b * seq + t + 1) * vocab];
            let m = z.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v)) as f64;
            let lse = m + z.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
            total += lse - z[targets[b * seq + t] as usize] as f64;
        }
    }
    total / (batch * positions.len()) as f64
}

/// Accuracy `mean_{b,j} 1[ŷ_{b,j} = y_{b,j}]` over all samples and output positions
/// (`pred`, `truth`: `[batch, n]`).
pub fn accuracy(pred: &[i64], truth: &[i64]) -> f64 {
    assert_eq!(pred.len(), truth.len());
    pred.iter().zip(truth).filter(|(a, b)| a == b).count() as f64 / pred.len() as f64
}

/// Per-position accuracy: entry `j` is `mean_b 1[ŷ_{b,j} = y_{b,j}]` (`[batch, n]` → `[n]`).
/// Entry 0 is the partial-solution accuracy (the first output `y_1 = x_1`, a plain copy).
pub fn per_position_accuracy(pred: &[i64], truth: &[i64], n: usize) -> Vec<f64> {
    let batch = pred.len() / n;
    (0..n).map(|j| (0..batch).filter(|b| pred[b * n + j] == truth[b * n + j]).count() as f64 / batch as f64).collect()
}

/// Partial-solution accuracy: accuracy of the first output token only, `mean_b 1[ŷ_{b,1} = x_{b,1}]`.
pub fn first_token_accuracy(pred: &[i64], truth: &[i64], n: usize) -> f64 {
    per_position_accuracy(pred, truth, n)[0]
}

/// Attention progress measure:
/// `APM = mean_b [ Σ_{(t,s)∈Ω} |A_b[t,s]| / Σ_{t=n}^{2n−1} Σ_s |A_b[t,s]| ]`
/// on the map `A: [batch, T, T]` (`T = 2n`), with absolute values since linear attention can be
/// negative. A sample whose output rows are all zero contributes 0.
pub fn apm(attn: &[f32], t: usize, n: usize, omega: &[(usize, usize)]) -> f64 {
    let batch = attn.len() / (t * t);
    let mut sum = 0.0f64;
    for b in 0..batch {
        let a = &attn[b * t * t..(b + 1) * t * t];
        let den: f64 =
            (n..2 * n).flat_map(|q| (0..t).map(move |k| (q, k))).map(|(q, k)| a[q * t + k].abs() as f64).sum();
        let num: f64 = omega.iter().map(|&(q, k)| a[q * t + k].abs() as f64).sum();
        if den > 0.0 {
            sum += num / den;
        }
    }
    sum / batch as f64
}

/// Hidden-state cosine matrix: `C[i,j] = mean_b cos(h_{b,n+i}, h_{b,n+j})` for `i, j = 0..n−1`,
/// from the final-LN outputs `hidden: [batch, T, d]` (`[n, n]`, row-major).
pub fn hidden_cosine_matrix(hidden: &[f32], t: usize, d: usize, n: usize) -> Vec<f64> {
    crate::metrics::cosine_matrix(hidden, t, d, n, n)
}

/// Representation collapse: the mean of `C[i,j]` over the pairs `1 ≤ j < i ≤ n−1` (105 pairs
/// for n = 16; the first output position is left out, as in the paper).
pub fn mean_hidden_cosine(c: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    let mut count = 0usize;
    for i in 1..n {
        for j in 1..i {
            sum += c[i * n + j];
            count += 1;
        }
    }
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chapters::plateau::data::{omega, SumTask};

    #[test]
    fn cross_entropy_by_hand() {
        // one position, logits (0, ln 3): p = (1/4, 3/4)
        let l = [0.0f32, 3f32.ln()];
        assert!((cross_entropy(&l, &[1], 1, 2, 0..1) - (4.0f64 / 3.0).ln()).abs() < 1e-7);
        assert!((cross_entropy(&l, &[0], 1, 2, 0..1) - 4f64.ln()).abs() < 1e-7);
        // uniform logits over 18 tokens: ln 18
        let u = vec![0.5f32; 2 * 3 * 18];
        assert!((cross_entropy(&u, &[1, 2, 3, 4, 5, 6], 3, 18, 1..3) - 18f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn accuracies_by_hand() {
        let truth = [1, 2, 3, 4, 5, 6];
        let pred = [1, 0, 3, 4, 0, 0];
        assert!((accuracy(&pred, &truth) - 0.5).abs() < 1e-12);
        assert_eq!(per_position_accuracy(&pred, &truth, 3), vec![1.0, 0.0, 0.5]);
        assert_eq!(first_token_accuracy(&pred, &truth, 3), 1.0);
    }

    #[test]
    fn ground_truth_repetition_is_about_0_058() {
        let b = crate::chapters::plateau::data::generate(
            SumTask::MovingWindow,
            16,
            4000,
            &mut crate::rng::stream(0, crate::rng::Stream::Eval, 0),
        );
        let ys: Vec<i64> = (0..b.batch).flat_map(|i| b.outputs(i).to_vec()).collect();
        let r = repetition_frequency(&ys, 16);
        assert!((r - 0.058).abs() < 0.01, "{r}");
    }

    /// The optimal map: weight only on Ω in every output row.
    fn optimal_map(n: usize, task: SumTask, w: f32) -> Vec<f32> {
        let t = 2 * n;
        let mut a = vec![0.0f32; t * t];
        for (q, k) in omega(task, n) {
            a[q * t + k] = w;
        }
        a
    }

    #[test]
    fn apm_is_one_on_the_optimal_map_and_reads_exact_omega() {
        let (n, t) = (16, 32);
        let o = omega(SumTask::MovingWindow, n);
        let a = optimal_map(n, SumTask::MovingWindow, -0.7); // signs do not matter
        assert!((apm(&a, t, n, &o) - 1.0).abs() < 1e-12);
        // input rows (t < n) are ignored entirely
        let mut b = a.clone();
        b[3 * t + 1] = 100.0;
        assert!((apm(&b, t, n, &o) - 1.0).abs() < 1e-12);
        // one unit outside Ω in an output row: 31·0.7 / (31·0.7 + 1)
        b[20 * t + 10] = 1.0;
        let expect = 31.0 * 0.7 / (31.0 * 0.7 + 1.0);
        assert!((apm(&b, t, n, &o) - expect).abs() < 1e-6);
        // uniform causal map: Ω holds 31 of the Σ_{q=16}^{31}(q+1) = 392 entries
        let mut u = vec![0.0f32; t * t];
        for q in 0..t {
            for k in 0..=q {
                u[q * t + k] = 0.25;
            }
        }
        assert!((apm(&u, t, n, &o) - 31.0 / 392.0).abs() < 1e-12);
        // batch mean: optimal and uniform samples
        let both = [a, u].concat();
        assert!((apm(&both, t, n, &o) - (1.0 + 31.0 / 392.0) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn hidden_cosine_matrix_and_its_mean() {
        // n = 3, T = 6, d = 2, one sample: output positions 3, 4, 5 hold e1, e1, e2
        let mut h = vec![0.0f32; 6 * 2];
        h[3 * 2] = 1.0;
        h[4 * 2] = 3.0;
        h[5 * 2 + 1] = 1.0;
        let c = hidden_cosine_matrix(&h, 6, 2, 3);
        assert_eq!(c, vec![1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        // pairs 1 ≤ j < i ≤ 2: only (2,1) → 0
        assert_eq!(mean_hidden_cosine(&c, 3), 0.0);
        // all parallel → 1; count for n = 16 is 105
        let ones = vec![1.0; 256];
        assert_eq!(mean_hidden_cosine(&ones, 16), 1.0);
        let mut m = vec![0.0; 256];
        for i in 1..16 {
            for j in 1..i {
                m[i * 16 + j] = 1.0 / 105.0;
            }
        }
        assert!((mean_hidden_cosine(&m, 16) - 1.0 / 105.0).abs() < 1e-15);
    }
}
