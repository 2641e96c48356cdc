//! Chapter 4's records: one [`LmRow`] per evaluated step (its first five CSV columns are a
//! contract: other tools read them) and [`LmSnapshot`]s of a few generations and the hidden-state
//! similarity matrix of the generated tokens.

use crate::config::RunConfig;
use crate::history::{AtStep, Record, Row};
use serde::{Deserialize, Serialize};

/// The CSV columns of a chapter 4 row, in order (its fields'). The first five are a contract.
pub const CSV_COLUMNS: &[&str] = LmRow::PLAIN_COLUMNS;

crate::csv_row! {
    /// Metrics of one evaluated step (the model after `step` updates).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct LmRow {
        /// Updates done.
        pub step: usize => int,
        /// Next-token cross-entropy (nats per token) over every position of this step's training
        /// batch.
        pub loss: f64 => num,
        /// The same on the fixed held-out windows.
        pub heldout_loss: f64 => num,
        /// Repetition frequency of the 8-token greedy generations, averaged over the 100 prompts
        /// ([`super::metrics::repetition_frequency`]).
        pub repetition: f64 => num,
        /// Mean pairwise cosine of the generated tokens' hidden states, averaged over the prompts
        /// ([`super::metrics::mean_pairwise_cosine`]): the paper's collapse measure.
        pub hidden_cos: f64 => num,
        /// Distinct unigrams over all generations ([`super::metrics::distinct_n`]).
        pub distinct_1: f64 => num_or_nan,
        /// Distinct bigrams over all generations.
        pub distinct_2: f64 => num_or_nan,
        /// Share of all generated tokens that are the most frequent generated token (1 when every
        /// prompt gets the same token again and again).
        pub top_share: f64 => num_or_nan,
        /// The learning rate of the update after this step.
        pub lr: f64 => num_or_nan,
    }
    extra {}
}

/// One prompt's generation at a snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// The prompt's text.
    pub prompt: String,
    /// The generated tokens' texts (`▁` marks a word start).
    pub pieces: Vec<String>,
    /// The generated token ids.
    pub ids: Vec<i64>,
}

/// The generations and the similarity matrix at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LmSnapshot {
    /// Updates done.
    pub step: usize,
    /// Generations of the first few prompts.
    pub samples: Vec<Generation>,
    /// `C[i,j]`, mean over the prompts of the cosine of generated tokens `i` and `j`'s hidden
    /// states, `[k, k]` row-major.
    pub hidden_cos: Vec<f64>,
    /// Generated tokens per prompt (`k`).
    pub k: usize,
}

impl AtStep for LmSnapshot {
    fn step(&self) -> usize {
        self.step
    }
}

impl Row for LmRow {
    fn columns(_cfg: &RunConfig) -> Vec<String> {
        CSV_COLUMNS.iter().map(|s| s.to_string()).collect()
    }

    fn cells(&self) -> Vec<String> {
        self.plain_cells()
    }

    fn read(rec: &Record) -> Result<LmRow, String> {
        LmRow::read_plain(rec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{from_csv, to_csv};

    #[test]
    fn the_contract_columns_come_first_and_read_back() {
        let cfg = RunConfig::defaults(crate::config::Task::Lm, crate::config::Preset::Interactive);
        let cols = LmRow::columns(&cfg);
        assert_eq!(cols[..5], ["step", "loss", "heldout_loss", "repetition", "hidden_cos"]);
        let row = LmRow {
            step: 3,
            loss: 6.5,
            heldout_loss: 6.25,
            repetition: 0.75,
            hidden_cos: 0.9375,
            distinct_1: 0.125,
            distinct_2: 0.25,
            top_share: 0.5,
            lr: 1e-3,
        };
        let csv = to_csv(&cols, std::slice::from_ref(&row));
        assert_eq!(csv.lines().nth(1).unwrap(), "3,6.5,6.25,0.75,0.9375,0.125,0.25,0.5,0.001");
        assert_eq!(from_csv::<LmRow>(&csv).unwrap(), [row]);
    }
}
