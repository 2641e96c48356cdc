//! Chapter 1's records: one [`MetricRow`] per evaluated step (its CSV columns are a contract) and
//! [`Snapshot`]s of the attention map, the hidden-state cosines and a few generations.

use crate::config::RunConfig;
use crate::history::{AtStep, Record, Row};
use serde::{Deserialize, Serialize};

/// The CSV columns every chapter 1 row has, in order (a contract: other tools read them): its
/// plain fields'.
pub const CSV_COLUMNS: &[&str] = MetricRow::PLAIN_COLUMNS;

crate::csv_row! {
    /// Metrics of one evaluated step. Every value is computed on the model after `step` updates.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct MetricRow {
        /// Updates done.
        pub step: usize => int,
        /// Next-token cross-entropy over all `2n` positions of this step's training batch.
        pub loss: f64 => num,
        /// The same over the `n` output positions only.
        pub output_loss: f64 => num,
        /// Teacher-forced accuracy of the outputs on the training batch.
        pub train_acc: f64 => num,
        /// Greedy-decoding accuracy of the outputs on a fresh held-out batch.
        pub test_acc: f64 => num,
        /// Greedy accuracy of the first output token (the partial solution `y_1 = x_1`).
        pub first_token_acc: f64 => num,
        /// Repetition frequency of the greedy generations.
        pub repetition: f64 => num,
        /// Repetition frequency of the held-out ground truth.
        pub data_repetition: f64 => num,
        /// Attention progress measure on the held-out batch (layer 1, heads averaged).
        pub apm: f64 => num,
        /// Mean hidden-state cosine over the pairs 1 ≤ j < i ≤ n−1.
        pub hidden_cos: f64 => num,
        /// Teacher-forced cross-entropy over all positions of the held-out batch.
        pub test_loss: f64 => num,
        /// The same over the output positions only.
        pub test_output_loss: f64 => num,
        /// The mask strength in force at this step (1 when off).
        pub mask_c: f64 => num,
        /// Teacher-forced accuracy of the first output `y_1` on the training batch: the authors'
        /// partial-solution measure (their code calls the partial solution learnt at ≥ 0.95). `NaN`
        /// when read from a CSV written before the column existed.
        pub train_first_acc: f64 => num_or_nan,
    }
    extra {
        /// Greedy accuracy at each output position `y_1..y_n`.
        pub position_acc: Vec<f64>,
    }
}

/// Generations of a few held-out samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Inputs `x_1..x_n`.
    pub inputs: Vec<i64>,
    /// Ground truth `y_1..y_n`.
    pub truth: Vec<i64>,
    /// Greedy generation `ŷ_1..ŷ_n`.
    pub generated: Vec<i64>,
}

/// The maps at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Updates done.
    pub step: usize,
    /// Side of the attention map (`2n`).
    pub seq: usize,
    /// Batch-mean attention map of layer 1 (heads averaged), `[seq, seq]` row-major.
    pub attention: Vec<f32>,
    /// Number of outputs `n`.
    pub n: usize,
    /// Hidden-state cosine matrix `[n, n]` row-major.
    pub hidden_cos: Vec<f64>,
    /// Four held-out generations.
    pub samples: Vec<Sample>,
}

impl AtStep for Snapshot {
    fn step(&self) -> usize {
        self.step
    }
}

impl Row for MetricRow {
    /// [`CSV_COLUMNS`] then `acc_pos_1..acc_pos_n`.
    fn columns(cfg: &RunConfig) -> Vec<String> {
        let mut cols: Vec<String> = CSV_COLUMNS.iter().map(|s| s.to_string()).collect();
        cols.extend((1..=cfg.plateau.n).map(|j| format!("acc_pos_{j}")));
        cols
    }

    fn cells(&self) -> Vec<String> {
        let mut out = self.plain_cells();
        out.extend(self.position_acc.iter().map(|v| v.to_string()));
        out
    }

    fn read(rec: &Record) -> Result<MetricRow, String> {
        let mut position_acc = vec![];
        while let Ok(v) = rec.num(&format!("acc_pos_{}", position_acc.len() + 1)) {
            position_acc.push(v);
        }
        MetricRow::read_plain(rec, position_acc)
    }
}
