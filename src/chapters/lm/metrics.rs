//! Chapter 4's metrics (Gopalani & Hu's LLM measurement, PAPERS.md §A), each one function on
//! plain host arrays. The generations are `[prompts, GENERATE]` token ids; the hidden states are
//! `[prompts, GENERATE, d]`, entry `j` the final-LN output at the position that produced
//! generated token `j` (the last prompt token for `j = 0`).

pub use crate::metrics::repetition_frequency;

/// Hidden-state similarity of generated tokens: `C[i,j] = mean_p cos(h_{p,i}, h_{p,j})` over the
/// prompts `p` (`hidden: [prompts, k, d]` → `[k, k]`, row-major).
pub fn generation_cosine_matrix(hidden: &[f32], k: usize, d: usize) -> Vec<f64> {
    crate::metrics::cosine_matrix(hidden, k, d, 0, k)
}

/// The paper's representation-collapse measure: the mean pairwise cosine similarity of the
/// generated tokens' hidden states, `(2/(k(k−1))) Σ_{i<j} C[i,j]` (28 pairs for k = 8), which
/// equals the mean over prompts of each prompt's mean pairwise cosine. 0 when `k < 2`.
pub fn mean_pairwise_cosine(c: &[f64], k: usize) -> f64 {
    let pairs: Vec<f64> = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).map(|(i, j)| c[i * k + j]).collect();
    if pairs.is_empty() {
        0.0
    } else {
        pairs.iter().sum::<f64>() / pairs.len() as f64
    }
}

/// Distinct-n (Li et al., 2016) over all generations together: the number of distinct n-grams
/// divided by the number of n-grams, `|{g}| / (prompts · (k − n + 1))` (`seqs: [prompts, k]`).
/// 1 when no n-gram repeats anywhere; `1/(prompts·(k−n+1))` when every generation is the same
/// token again and again. 0 when there is no n-gram.
pub fn distinct_n(seqs: &[i64], k: usize, n: usize) -> f64 {
    if n == 0 || k < n {
        return 0.0;
    }
    let grams: Vec<&[i64]> = seqs.chunks_exact(k).flat_map(|s| s.windows(n)).collect();
    if grams.is_empty() {
        return 0.0;
    }
    let mut unique = grams.clone();
    unique.sort_unstable();
    unique.dedup();
    unique.len() as f64 / grams.len() as f64
}

/// Whether step `s` is on the log-spaced evaluation schedule: `s = 0` or `s = round(2^{i/4})` for
/// some `i ≥ 0` (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32, 38, 45, 54, 64, 76, 91,
/// 108, 128, …: four points per doubling, every step at the start, where the collapse happens).
pub fn log_step(s: usize) -> bool {
    if s <= 8 {
        return true;
    }
    let i = (4.0 * (s as f64).log2()).round() as i32;
    (i - 1..=i + 1).any(|i| 2f64.powf(i as f64 / 4.0).round() as usize == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_cosine_of_hand_made_states() {
        // One prompt, three states in 2-d: (1,0), (0,1), (1,1).
        let h = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        let c = generation_cosine_matrix(&h, 3, 2);
        let r = 0.5f64.sqrt();
        let want = [1.0, 0.0, r, 0.0, 1.0, r, r, r, 1.0];
        for (a, b) in c.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{c:?}");
        }
        // Pairs (0,1) = 0, (0,2) = (1,2) = √½: mean (2·√½)/3.
        assert!((mean_pairwise_cosine(&c, 3) - 2.0 * r / 3.0).abs() < 1e-12);
        // Two prompts: all states parallel in the second one → its pairs are 1; the matrix
        // averages the prompts.
        let h2 = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 1.0];
        let c2 = generation_cosine_matrix(&h2, 3, 2);
        assert!((mean_pairwise_cosine(&c2, 3) - (2.0 * r / 3.0 + 1.0) / 2.0).abs() < 1e-12);
        assert_eq!(mean_pairwise_cosine(&[1.0], 1), 0.0);
    }

    #[test]
    fn repetition_of_generations() {
        // 8 tokens, 7 adjacent pairs: "a a a b b c d d" repeats 2 + 1 + 1 = 4 of 7.
        let s = [1, 1, 1, 2, 2, 3, 4, 4];
        assert!((repetition_frequency(&s, 8) - 4.0 / 7.0).abs() < 1e-12);
        // With a second prompt that never repeats: (4/7 + 0)/2.
        let two = [1, 1, 1, 2, 2, 3, 4, 4, 1, 2, 3, 4, 5, 6, 7, 8];
        assert!((repetition_frequency(&two, 8) - 2.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn distinct_n_counts_unique_grams_over_all_generations() {
        let s = [1, 2, 1, 2, 3, 3]; // two prompts of 3: "1 2 1", "2 3 3"
        assert!((distinct_n(&s, 3, 1) - 3.0 / 6.0).abs() < 1e-12);
        // Bigrams: (1,2) (2,1) (2,3) (3,3): 4 distinct of 4.
        assert!((distinct_n(&s, 3, 2) - 1.0).abs() < 1e-12);
        let same = [7; 16];
        assert!((distinct_n(&same, 8, 1) - 1.0 / 16.0).abs() < 1e-12);
        assert!((distinct_n(&same, 8, 2) - 1.0 / 14.0).abs() < 1e-12);
        assert_eq!(distinct_n(&s, 3, 4), 0.0);
        assert_eq!(distinct_n(&[], 3, 1), 0.0);
    }

    #[test]
    fn the_log_schedule() {
        let due: Vec<usize> = (0..140).filter(|&s| log_step(s)).collect();
        assert_eq!(due, [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32, 38, 45, 54, 64, 76, 91, 108, 128]);
        // Four per doubling from then on.
        assert_eq!((1024..2048).filter(|&s| log_step(s)).count(), 4);
    }
}
