//! A run of any chapter behind one type, so the CLI and the page drive every experiment the same
//! way: [`Run::new`] picks the chapter's trainer from `experiment`, [`Run::advance`] takes one
//! step, [`Run::csv`] exports the chapter's CSV.

use crate::chapter2::{self, AnchorTrainer};
use crate::chapter3::{self, SyntaxTrainer};
use crate::config::{ConfigError, RunConfig, Task};
use crate::train::{Status, Trainer};
use burn::tensor::Device;

/// One training run of chapter 1 (moving-window sum / prefix sum), chapter 2 (anchors) or
/// chapter 3 (syntax).
pub enum Run {
    /// Chapter 1.
    Plateau(Box<Trainer>),
    /// Chapter 2.
    Anchors(Box<AnchorTrainer>),
    /// Chapter 3.
    Syntax(Box<SyntaxTrainer>),
}

impl Run {
    /// Builds the chapter's trainer for `cfg.experiment` on `device`.
    pub fn new(cfg: RunConfig, device: &Device) -> Result<Run, ConfigError> {
        Ok(match cfg.experiment {
            Task::Mws | Task::PrefixSum => Run::Plateau(Box::new(Trainer::new(cfg, device)?)),
            Task::Anchors => Run::Anchors(Box::new(AnchorTrainer::new(cfg, device)?)),
            Task::Syntax => Run::Syntax(Box::new(SyntaxTrainer::new(cfg, device)?)),
        })
    }

    /// Handles the next step (see each trainer's `advance`).
    pub async fn advance(&mut self) -> Status {
        match self {
            Run::Plateau(t) => t.advance().await,
            Run::Anchors(t) => t.advance().await,
            Run::Syntax(t) => t.advance().await,
        }
    }

    /// The config in force.
    pub fn config(&self) -> &RunConfig {
        match self {
            Run::Plateau(t) => t.config(),
            Run::Anchors(t) => t.config(),
            Run::Syntax(t) => t.config(),
        }
    }

    /// Updates done.
    pub fn step(&self) -> usize {
        match self {
            Run::Plateau(t) => t.step(),
            Run::Anchors(t) => t.step(),
            Run::Syntax(t) => t.step(),
        }
    }

    /// Where the run stands.
    pub fn status(&self) -> &Status {
        match self {
            Run::Plateau(t) => t.status(),
            Run::Anchors(t) => t.status(),
            Run::Syntax(t) => t.status(),
        }
    }

    /// Number of parameters.
    pub fn param_count(&self) -> usize {
        match self {
            Run::Plateau(t) => t.param_count(),
            Run::Anchors(t) => t.param_count(),
            Run::Syntax(t) => t.param_count(),
        }
    }

    /// Changes a live parameter without losing the run.
    pub fn set_live(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        match self {
            Run::Plateau(t) => t.set_live(key, value),
            Run::Anchors(t) => t.set_live(key, value),
            Run::Syntax(t) => t.set_live(key, value),
        }
    }

    /// Fault-injection hook for tests (see `Trainer::force_lr`).
    #[doc(hidden)]
    pub fn force_lr(&mut self, lr: f64) {
        match self {
            Run::Plateau(t) => t.force_lr(lr),
            Run::Anchors(t) => t.force_lr(lr),
            Run::Syntax(t) => t.force_lr(lr),
        }
    }

    /// Rows recorded so far.
    pub fn row_count(&self) -> usize {
        match self {
            Run::Plateau(t) => t.history.rows.len(),
            Run::Anchors(t) => t.history.rows.len(),
            Run::Syntax(t) => t.history.rows.len(),
        }
    }

    /// The chapter's CSV of every recorded row.
    pub fn csv(&self) -> String {
        match self {
            Run::Plateau(t) => t.history.to_csv(t.config().n),
            Run::Anchors(t) => chapter2::to_csv(&t.history.rows),
            Run::Syntax(t) => chapter3::to_csv(&t.history.rows),
        }
    }

    /// The CSV lines (no header, each ending in a newline) of the rows from index `from` on:
    /// `csv()` without its header and first `from` rows, formatted in time proportional to the
    /// rows asked for (the CLI streams each new row with it).
    pub fn csv_rows_from(&self, from: usize) -> String {
        let tail = |csv: String| csv.split_once('\n').map_or(String::new(), |(_, rest)| rest.to_string());
        match self {
            Run::Plateau(t) => {
                t.history.rows.iter().skip(from).map(|r| crate::history::History::csv_line(r) + "\n").collect()
            }
            Run::Anchors(t) => tail(chapter2::to_csv(t.history.rows.get(from..).unwrap_or_default())),
            Run::Syntax(t) => tail(chapter3::to_csv(t.history.rows.get(from..).unwrap_or_default())),
        }
    }

    /// The latest training loss and the chapter's headline metric, named, for progress lines.
    pub fn progress(&self) -> (f64, &'static str, f64) {
        match self {
            Run::Plateau(t) => {
                let r = t.history.rows.last();
                (r.map_or(f64::NAN, |r| r.loss), "test_acc", r.map_or(f64::NAN, |r| r.test_acc))
            }
            Run::Anchors(t) => {
                let r = t.history.rows.last();
                (r.map_or(f64::NAN, |r| r.loss), "acc_heldout", r.map_or(f64::NAN, |r| r.acc_heldout))
            }
            Run::Syntax(t) => {
                let r = t.history.rows.last();
                (r.map_or(f64::NAN, |r| r.loss), "uas", r.map_or(f64::NAN, |r| r.uas))
            }
        }
    }
}
