//! Chapter 2's records: one [`AnchorRow`] per evaluated step (its first ten CSV columns and the
//! five `key_cos_*` ones are a contract) and [`AnchorSnapshot`]s of the embedding structure.

use crate::config::RunConfig;
use crate::history::{AtStep, Record, Row};
use serde::{Deserialize, Serialize};

/// The columns of a chapter 2 row's [`AnchorRow::key_cos_by_distance`], after its plain fields'
/// (a contract, as are the first ten plain columns; the rest are extra).
pub const KEY_COS_COLUMNS: [&str; 5] = ["key_cos_d1", "key_cos_d2", "key_cos_d3_5", "key_cos_d6_19", "key_cos_d20plus"];

/// The CSV columns of a chapter 2 row, in order: the plain fields', then [`KEY_COS_COLUMNS`].
pub fn csv_columns() -> Vec<String> {
    AnchorRow::PLAIN_COLUMNS.iter().chain(&KEY_COS_COLUMNS).map(|s| s.to_string()).collect()
}

crate::csv_row! {
    /// Metrics of one evaluated step (the model after `step` updates).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct AnchorRow {
        /// Updates done.
        pub step: usize => int,
        /// Last-token cross-entropy on this step's training batch.
        pub loss: f64 => num,
        /// Last-token cross-entropy on the evaluation samples of the memory subset.
        pub loss_memory: f64 => num,
        /// The same on fresh samples of the 15 seen reasoning pairs.
        pub loss_reasoning: f64 => num,
        /// The same on the held-out pair (4,3), against its inferential label `key − 10`.
        pub loss_heldout: f64 => num,
        /// Argmax accuracy on the memory subset.
        pub acc_memory: f64 => num,
        /// Argmax accuracy on the seen reasoning pairs.
        pub acc_reasoning: f64 => num,
        /// Argmax accuracy on the held-out pair (against the inferential label).
        pub acc_heldout: f64 => num,
        /// Fraction of held-out samples answered with the inferential answer `key − 10`.
        pub acc_inferential: f64 => num,
        /// Fraction of held-out samples answered with the symmetric answer `key − 6`.
        pub acc_symmetric: f64 => num,
        /// Argmax accuracy on this step's training batch.
        pub train_acc: f64 => num,
        /// Pearson correlation between key distance |k_i − k_j| and the cosine of their embeddings
        /// (negative: an ordered structure, neighbouring keys similar).
        pub key_order_corr: f64 => num,
        /// Mean pairwise embedding cosine of the reasoning anchors 1..4.
        pub reasoning_anchor_cos: f64 => num,
        /// Mean pairwise embedding cosine of the memory anchors 5..8 (NaN when the task has none).
        pub memory_anchor_cos: f64 => num,
        /// How close layer 1's attention is to a prefix average (1 = exactly; NaN for Emb-MLP).
        pub prefix_avg: f64 => num,
    }
    extra {
        /// Mean key-embedding cosine by key distance |i − j| = 1, 2, 3–5, 6–19, ≥ 20
        /// ([`super::metrics::cosine_by_distance`]).
        pub key_cos_by_distance: [f64; 5],
    }
}

/// The embedding structure at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorSnapshot {
    /// Updates done.
    pub step: usize,
    /// Tokens of the cosine matrix rows, in order: the 8 anchors, then the 80 keys ascending.
    pub tokens: Vec<i64>,
    /// Cosine matrix of their embeddings, `[tokens, tokens]` row-major.
    pub cosine: Vec<f32>,
    /// Their embedding vectors, `[tokens, d_model]` row-major.
    pub embeddings: Vec<f32>,
    /// Embedding width.
    pub d: usize,
    /// 2-D PCA of the key embeddings: `[x, y]` per key (keys ascending), signs aligned with the
    /// previous snapshot so the animation does not flip.
    pub pca: Vec<[f32; 2]>,
    /// Fraction of the key embeddings' variance on each of the two components.
    pub explained: [f64; 2],
    /// Batch-mean attention of layer 1 on the evaluation batch, `[seq, seq]` (empty for
    /// Emb-MLP).
    pub attention: Vec<f32>,
    /// Sequence length of the attention map.
    pub seq: usize,
}

impl AtStep for AnchorSnapshot {
    fn step(&self) -> usize {
        self.step
    }
}

impl Row for AnchorRow {
    /// [`csv_columns`].
    fn columns(_cfg: &RunConfig) -> Vec<String> {
        csv_columns()
    }

    fn cells(&self) -> Vec<String> {
        let mut out = self.plain_cells();
        out.extend(self.key_cos_by_distance.iter().map(|x| x.to_string()));
        out
    }

    /// Columns added after the first files (`key_cos_*`) read as NaN from an older file.
    fn read(rec: &Record) -> Result<AnchorRow, String> {
        let mut key_cos = [f64::NAN; 5];
        for (v, name) in key_cos.iter_mut().zip(KEY_COS_COLUMNS) {
            *v = rec.num_or_nan(name)?;
        }
        AnchorRow::read_plain(rec, key_cos)
    }
}

/// Rows as CSV ([`csv_columns`], then one line per row).
pub fn to_csv(rows: &[AnchorRow]) -> String {
    crate::history::to_csv(&csv_columns(), rows)
}

/// Rows back from [`to_csv`]'s text ([`crate::history::from_csv`]).
pub fn from_csv(text: &str) -> Result<Vec<AnchorRow>, String> {
    crate::history::from_csv(text)
}

/// Embedding snapshots as CSV for `--embeddings`: per snapshot and token (the 8 anchors, then
/// the 80 keys), `step,token,kind,pc1,pc2,e0..e{d-1}`; `kind` is `reasoning-anchor`,
/// `memory-anchor` or `key`; `pc1,pc2` are the key PCA coordinates (empty for anchors).
pub fn embeddings_csv(snaps: &[AnchorSnapshot]) -> String {
    let d = snaps.first().map_or(0, |s| s.d);
    let mut s = String::from("step,token,kind,pc1,pc2");
    for j in 0..d {
        s.push_str(&format!(",e{j}"));
    }
    s.push('\n');
    for snap in snaps {
        for (i, token) in snap.tokens.iter().enumerate() {
            let kind = match i {
                0..4 => "reasoning-anchor",
                4..8 => "memory-anchor",
                _ => "key",
            };
            let (pc1, pc2) = match i.checked_sub(8).and_then(|k| snap.pca.get(k)) {
                Some(p) => (p[0].to_string(), p[1].to_string()),
                None => (String::new(), String::new()),
            };
            s.push_str(&format!("{},{token},{kind},{pc1},{pc2}", snap.step));
            for x in &snap.embeddings[i * snap.d..(i + 1) * snap.d] {
                s.push(',');
                s.push_str(&x.to_string());
            }
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips_and_reads_older_files() {
        let row = AnchorRow {
            step: 25,
            loss: 4.5,
            loss_memory: f64::NAN,
            loss_reasoning: 3.25,
            loss_heldout: 4.0,
            acc_memory: f64::NAN,
            acc_reasoning: 0.5,
            acc_heldout: 0.125,
            acc_inferential: 0.125,
            acc_symmetric: 0.75,
            train_acc: 0.5,
            key_order_corr: -0.3,
            reasoning_anchor_cos: 0.2,
            memory_anchor_cos: f64::NAN,
            prefix_avg: 0.9,
            key_cos_by_distance: [0.5, 0.4, 0.3, 0.2, 0.1],
        };
        let text = to_csv(std::slice::from_ref(&row));
        assert_eq!(text.lines().next().unwrap(), csv_columns().join(","));
        let back = from_csv(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(to_csv(&back), text, "bit for bit, NaN included");
        // An older file without the key_cos_* columns.
        let old = "step,loss,loss_memory,loss_reasoning,loss_heldout,acc_memory,acc_reasoning,acc_heldout,\
                   acc_inferential,acc_symmetric,train_acc,key_order_corr,reasoning_anchor_cos,memory_anchor_cos,prefix_avg\n\
                   0,4.6,4.6,4.6,4.6,0,0,0,0,0.5,0,0.1,0.2,0.3,1\n";
        let r = &from_csv(old).unwrap()[0];
        assert_eq!((r.step, r.acc_symmetric, r.prefix_avg), (0, 0.5, 1.0));
        assert!(r.key_cos_by_distance.iter().all(|x| x.is_nan()));
        assert!(from_csv("step,loss\nx,1\n").is_err());
        assert!(from_csv("").is_err());
    }
}
