//! Chapter 1's records: one [`MetricRow`] per evaluated step (its CSV columns are a contract) and
//! [`Snapshot`]s of the attention map, the hidden-state cosines and a few generations.

use crate::config::RunConfig;
use crate::history::{AtStep, Record, Row};
use serde::{Deserialize, Serialize};

/// The CSV columns every chapter 1 row has, in order (a contract: other tools read them).
pub const CSV_COLUMNS: &[&str] = &[
    "step",
    "loss",
    "output_loss",
    "train_acc",
    "test_acc",
    "first_token_acc",
    "repetition",
    "data_repetition",
    "apm",
    "hidden_cos",
    "test_loss",
    "test_output_loss",
    "mask_c",
    "train_first_acc",
];

/// Metrics of one evaluated step. Every value is computed on the model after `step` updates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    /// Updates done.
    pub step: usize,
    /// Next-token cross-entropy over all `2n` positions of this step's training batch.
    pub loss: f64,
    /// The same over the `n` output positions only.
    pub output_loss: f64,
    /// Teacher-forced accuracy of the outputs on the training batch.
    pub train_acc: f64,
    /// Greedy-decoding accuracy of the outputs on a fresh held-out batch.
    pub test_acc: f64,
    /// Greedy accuracy of the first output token (the partial solution `y_1 = x_1`).
    pub first_token_acc: f64,
    /// Repetition frequency of the greedy generations.
    pub repetition: f64,
    /// Repetition frequency of the held-out ground truth.
    pub data_repetition: f64,
    /// Attention progress measure on the held-out batch (layer 1, heads averaged).
    pub apm: f64,
    /// Mean hidden-state cosine over the pairs 1 ≤ j < i ≤ n−1.
    pub hidden_cos: f64,
    /// Teacher-forced cross-entropy over all positions of the held-out batch.
    pub test_loss: f64,
    /// The same over the output positions only.
    pub test_output_loss: f64,
    /// The mask strength in force at this step (1 when off).
    pub mask_c: f64,
    /// Teacher-forced accuracy of the first output `y_1` on the training batch: the authors'
    /// partial-solution measure (their code calls the partial solution learnt at ≥ 0.95). `NaN`
    /// when read from a CSV written before the column existed.
    pub train_first_acc: f64,
    /// Greedy accuracy at each output position `y_1..y_n`.
    pub position_acc: Vec<f64>,
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
        cols.extend((1..=cfg.n).map(|j| format!("acc_pos_{j}")));
        cols
    }

    fn cells(&self) -> Vec<String> {
        let r = self;
        let mut out = vec![
            r.step.to_string(),
            r.loss.to_string(),
            r.output_loss.to_string(),
            r.train_acc.to_string(),
            r.test_acc.to_string(),
            r.first_token_acc.to_string(),
            r.repetition.to_string(),
            r.data_repetition.to_string(),
            r.apm.to_string(),
            r.hidden_cos.to_string(),
            r.test_loss.to_string(),
            r.test_output_loss.to_string(),
            r.mask_c.to_string(),
            r.train_first_acc.to_string(),
        ];
        out.extend(r.position_acc.iter().map(|v| v.to_string()));
        out
    }

    fn read(rec: &Record) -> Result<MetricRow, String> {
        let mut position_acc = vec![];
        while let Ok(v) = rec.num(&format!("acc_pos_{}", position_acc.len() + 1)) {
            position_acc.push(v);
        }
        Ok(MetricRow {
            step: rec.int("step")?,
            loss: rec.num("loss")?,
            output_loss: rec.num("output_loss")?,
            train_acc: rec.num("train_acc")?,
            test_acc: rec.num("test_acc")?,
            first_token_acc: rec.num("first_token_acc")?,
            repetition: rec.num("repetition")?,
            data_repetition: rec.num("data_repetition")?,
            apm: rec.num("apm")?,
            hidden_cos: rec.num("hidden_cos")?,
            test_loss: rec.num("test_loss")?,
            test_output_loss: rec.num("test_output_loss")?,
            mask_c: rec.num("mask_c")?,
            // Older files have no such column.
            train_first_acc: rec.num("train_first_acc").unwrap_or(f64::NAN),
            position_acc,
        })
    }
}
