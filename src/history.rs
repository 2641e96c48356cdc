//! What a run records: one [`MetricRow`] per evaluated step and [`Snapshot`]s of the maps at
//! a cadence, with CSV and JSON export. Memory is bounded: at most [`MAX_SNAPSHOTS`] snapshots
//! (older ones are thinned to every other one when full) and at most [`MAX_ROWS`] rows (thinned
//! the same way), so a 100 000-step run keeps a flat footprint.

use serde::{Deserialize, Serialize};

/// Most snapshots kept; when full, every second one (the first and last kept) is dropped and the
/// cadence doubles.
pub const MAX_SNAPSHOTS: usize = 256;
/// Most metric rows kept; thinned like snapshots.
pub const MAX_ROWS: usize = 20_000;

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

/// Rows and snapshots of one run (chapter 1's [`MetricRow`] and [`Snapshot`] by default; the
/// other chapters record their own row and snapshot types in the same bounded store).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct History<R = MetricRow, S = Snapshot> {
    /// Evaluated steps, in order.
    pub rows: Vec<R>,
    /// Snapshots, in order.
    pub snapshots: Vec<S>,
}

impl<R, S> Default for History<R, S> {
    fn default() -> Self {
        History { rows: vec![], snapshots: vec![] }
    }
}

/// Anything recorded at a training step.
pub trait AtStep {
    /// Updates done when it was recorded.
    fn step(&self) -> usize;
}

impl AtStep for Snapshot {
    fn step(&self) -> usize {
        self.step
    }
}

fn thin<T>(v: &mut Vec<T>) {
    let last = v.len() - 1;
    let mut i = 0;
    v.retain(|_| {
        let keep = i % 2 == 0 || i == last;
        i += 1;
        keep
    });
}

impl<R, S: AtStep> History<R, S> {
    /// Appends a row (thinning when full).
    pub fn push_row(&mut self, row: R) {
        if self.rows.len() >= MAX_ROWS {
            thin(&mut self.rows);
        }
        self.rows.push(row);
    }

    /// Appends a snapshot (thinning when full).
    pub fn push_snapshot(&mut self, s: S) {
        if self.snapshots.len() >= MAX_SNAPSHOTS {
            thin(&mut self.snapshots);
        }
        self.snapshots.push(s);
    }

    /// The snapshot recorded at or most recently before `step`.
    pub fn snapshot_at(&self, step: usize) -> Option<&S> {
        let i = self.snapshots.partition_point(|s| s.step() <= step);
        if i == 0 {
            self.snapshots.first()
        } else {
            self.snapshots.get(i - 1)
        }
    }
}

impl History {
    /// The CSV header: [`CSV_COLUMNS`] then `acc_pos_1..acc_pos_n`.
    pub fn csv_header(n: usize) -> String {
        let mut cols: Vec<String> = CSV_COLUMNS.iter().map(|s| s.to_string()).collect();
        cols.extend((1..=n).map(|j| format!("acc_pos_{j}")));
        cols.join(",")
    }

    /// One CSV line (no newline). Floats print in Rust's shortest round-trip form.
    pub fn csv_line(r: &MetricRow) -> String {
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
        ];
        out.extend(r.position_acc.iter().map(|v| v.to_string()));
        out.join(",")
    }

    /// The whole history as CSV (header and one line per row).
    pub fn to_csv(&self, n: usize) -> String {
        let mut s = Self::csv_header(n);
        s.push('\n');
        for r in &self.rows {
            s.push_str(&Self::csv_line(r));
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: usize) -> MetricRow {
        MetricRow {
            step,
            loss: 2.5,
            output_loss: 2.75,
            train_acc: 0.125,
            test_acc: 0.0625,
            first_token_acc: 1.0,
            repetition: 0.5,
            data_repetition: 0.058,
            apm: 0.25,
            hidden_cos: 0.9,
            test_loss: 2.5,
            test_output_loss: 2.625,
            mask_c: 1.0,
            position_acc: vec![1.0, 0.5],
        }
    }

    #[test]
    fn csv_has_the_contract_columns_in_order() {
        let mut h: History = History::default();
        h.push_row(row(0));
        let csv = h.to_csv(2);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "step,loss,output_loss,train_acc,test_acc,first_token_acc,repetition,data_repetition,apm,hidden_cos,test_loss,test_output_loss,mask_c,acc_pos_1,acc_pos_2"
        );
        assert_eq!(lines.next().unwrap(), "0,2.5,2.75,0.125,0.0625,1,0.5,0.058,0.25,0.9,2.5,2.625,1,1,0.5");
    }

    #[test]
    fn snapshots_stay_bounded_and_findable() {
        let mut h: History = History::default();
        for s in 0..10_000 {
            h.push_snapshot(Snapshot { step: s, seq: 0, attention: vec![], n: 0, hidden_cos: vec![], samples: vec![] });
        }
        assert!(h.snapshots.len() <= MAX_SNAPSHOTS);
        assert_eq!(h.snapshots[0].step, 0);
        assert_eq!(h.snapshots.last().unwrap().step, 9_999);
        let s = h.snapshot_at(5_000).unwrap();
        assert!(s.step <= 5_000);
        assert!(h.snapshots.iter().all(|x| x.step <= s.step || x.step > 5_000));
    }
}
