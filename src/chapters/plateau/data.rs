//! Moving-window sum and prefix sum, exactly as in Gopalani & Hu's code (PAPERS.md §A).
//!
//! A sequence is `[x_1..x_n, SEP, y_1..y_n]` of length `2n+1` with `x_i ~ Uniform{1..16}`,
//! `SEP = 17` and a vocabulary of 18 tokens (0..17; 0 is never produced by the data). The
//! model reads the first `2n` tokens and predicts the next one at every position: query `t`
//! predicts token `t+1`, so queries `n..2n-1` predict the outputs `y_1..y_n`.
//!
//! - moving-window sum: `y_1 = x_1`, `y_i = (x_{i-1} + x_i) mod 17`;
//! - prefix sum: `y_i = (Σ_{j≤i} x_j) mod 17`.

use crate::config::Task;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The separator token.
pub const SEP: i64 = 17;
/// Vocabulary size (tokens 0..17).
pub const VOCAB: usize = 18;
/// Outputs are taken modulo this.
pub const MODULUS: i64 = 17;

pub use super::knobs::SumTask;

impl TryFrom<Task> for SumTask {
    type Error = String;
    /// Chapter 1's task of `task`; an error naming it for another chapter's.
    fn try_from(task: Task) -> Result<SumTask, String> {
        match task {
            Task::Sum(t) => Ok(t),
            Task::Anchors | Task::Syntax | Task::Lm => Err(format!(
                "{} is chapter {}'s task, not one of chapter 1's sums",
                task.name(),
                task.chapter().number()
            )),
        }
    }
}

/// Inputs are drawn from `1..=MAX_INPUT`.
pub const MAX_INPUT: i64 = 16;

/// A batch of full sequences, row-major `[batch, 2n+1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    /// Tokens, `batch × (2n+1)`.
    pub tokens: Vec<i64>,
    /// Number of sequences.
    pub batch: usize,
    /// Number of inputs per sequence.
    pub n: usize,
}

/// The positions the model reads of a sequence of `2n + 1` tokens (inputs, SEP, outputs): all
/// but the last, which is only ever a target. The model's shape, the memory estimate and the
/// bench's FLOP count all take it from here.
pub const fn input_positions(n: usize) -> usize {
    2 * n
}

impl Batch {
    /// Sequence length `2n+1`.
    pub fn seq_len(&self) -> usize {
        2 * self.n + 1
    }
    /// One full sequence.
    pub fn row(&self, b: usize) -> &[i64] {
        let l = self.seq_len();
        &self.tokens[b * l..(b + 1) * l]
    }
    /// Model inputs: the first `2n` tokens of every sequence ([`input_positions`]), `[batch, 2n]`.
    pub fn inputs(&self) -> Vec<i64> {
        (0..self.batch).flat_map(|b| self.row(b)[..input_positions(self.n)].to_vec()).collect()
    }
    /// Next-token targets: tokens `1..=2n` of every sequence, `[batch, 2n]`.
    pub fn targets(&self) -> Vec<i64> {
        (0..self.batch).flat_map(|b| self.row(b)[1..].to_vec()).collect()
    }
    /// The outputs `y_1..y_n` of sequence `b`.
    pub fn outputs(&self, b: usize) -> &[i64] {
        &self.row(b)[self.n + 1..]
    }
}

/// The outputs of `task` for inputs `x`.
pub fn outputs(task: SumTask, x: &[i64]) -> Vec<i64> {
    match task {
        SumTask::MovingWindow => {
            (0..x.len()).map(|i| if i == 0 { x[0] } else { (x[i - 1] + x[i]) % MODULUS }).collect()
        }
        SumTask::Prefix => x
            .iter()
            .scan(0, |acc, &v| {
                *acc = (*acc + v) % MODULUS;
                Some(*acc)
            })
            .collect(),
    }
}

/// Draws a batch of `batch` sequences with `n` inputs each.
pub fn generate(task: SumTask, n: usize, batch: usize, rng: &mut ChaCha8Rng) -> Batch {
    let mut tokens = Vec::with_capacity(batch * (2 * n + 1));
    for _ in 0..batch {
        let x: Vec<i64> = (0..n).map(|_| rng.random_range(1..=MAX_INPUT)).collect();
        let y = outputs(task, &x);
        tokens.extend_from_slice(&x);
        tokens.push(SEP);
        tokens.extend_from_slice(&y);
    }
    Batch { tokens, batch, n }
}

/// Ω: the (query, key) entries of the attention map that the task's optimal solution reads.
///
/// Moving-window sum (the paper's Ω): `(n, 0)` and, for `r = 1..n-1`, `(n+r, r-1)` and
/// `(n+r, r)`: the query predicting `y_{r+1} = x_r + x_{r+1}` reads both inputs.
///
/// Prefix sum (this project's Ω, a reconstruction: the paper's code does not define one):
/// `(n, 0)` and, for `r = 1..n-1`, `(n+r, r)` and `(n+r, n+r)`: the recurrent solution
/// `y_{r+1} = y_r + x_{r+1}` reads the new input and the previous output, which is the token at
/// the query position itself.
pub fn omega(task: SumTask, n: usize) -> Vec<(usize, usize)> {
    let mut out = vec![(n, 0)];
    for r in 1..n {
        match task {
            SumTask::MovingWindow => {
                out.push((n + r, r - 1));
                out.push((n + r, r));
            }
            SumTask::Prefix => {
                out.push((n + r, r));
                out.push((n + r, n + r));
            }
        }
    }
    out
}

/// The entries the attention mask multiplies by `c`: Ω without the first-output entry `(n, 0)`.
pub fn mask_entries(task: SumTask, n: usize) -> Vec<(usize, usize)> {
    omega(task, n).into_iter().filter(|&e| e != (n, 0)).collect()
}

/// The multiplicative mask `M` as a row-major `[2n, 2n]` matrix: ones, `c` on
/// [`mask_entries`].
pub fn mask_matrix(task: SumTask, n: usize, c: f32) -> Vec<f32> {
    let t = 2 * n;
    let mut m = vec![1.0f32; t * t];
    for (q, k) in mask_entries(task, n) {
        m[q * t + k] = c;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Stream};

    #[test]
    fn mws_outputs_by_hand() {
        assert_eq!(outputs(SumTask::MovingWindow, &[3, 16, 1, 9]), vec![3, 2, 0, 10]);
        assert_eq!(outputs(SumTask::Prefix, &[3, 16, 1, 9]), vec![3, 2, 3, 12]);
    }

    #[test]
    fn only_chapter_1s_tasks_are_sums() {
        assert_eq!(SumTask::try_from(Task::MWS), Ok(SumTask::MovingWindow));
        assert_eq!(SumTask::try_from(Task::PREFIX_SUM), Ok(SumTask::Prefix));
        for other in [Task::Anchors, Task::Syntax, Task::Lm] {
            let e = SumTask::try_from(other).unwrap_err();
            assert!(e.contains(other.name()) && e.contains("not one of chapter 1's sums"), "{e}");
        }
    }

    #[test]
    fn generated_batches_satisfy_the_task() {
        for task in [SumTask::MovingWindow, SumTask::Prefix] {
            let b = generate(task, 16, 128, &mut stream(3, Stream::Train, 0));
            assert_eq!(b.tokens.len(), 128 * 33);
            for i in 0..b.batch {
                let row = b.row(i);
                assert!(row[..16].iter().all(|&x| (1..=16).contains(&x)));
                assert_eq!(row[16], SEP);
                assert_eq!(b.outputs(i), outputs(task, &row[..16]).as_slice());
                assert!(row.iter().all(|&t| (0..VOCAB as i64).contains(&t)));
            }
            assert_eq!(b.inputs().len(), 128 * 32);
            assert_eq!(b.targets()[..32], b.row(0)[1..]);
        }
    }

    #[test]
    fn every_input_value_occurs() {
        let b = generate(SumTask::MovingWindow, 16, 64, &mut stream(0, Stream::Train, 0));
        for v in 1..=16 {
            assert!(b.tokens.contains(&v));
        }
    }

    #[test]
    fn omega_for_the_paper_setup() {
        let o = omega(SumTask::MovingWindow, 16);
        assert_eq!(o.len(), 31);
        assert_eq!(o[0], (16, 0));
        assert_eq!(o[1..3], [(17, 0), (17, 1)]);
        assert_eq!(o[29..], [(31, 14), (31, 15)]);
        assert_eq!(mask_entries(SumTask::MovingWindow, 16).len(), 30);
        let m = mask_matrix(SumTask::MovingWindow, 16, 2.5);
        assert_eq!(m[16 * 32], 1.0, "(16,0) is not masked");
        assert_eq!(m[17 * 32], 2.5);
        assert_eq!(m.iter().filter(|&&v| v == 2.5).count(), 30);
    }
}
