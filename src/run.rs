//! A run of any chapter behind one type, so the CLI and the page drive every experiment the same
//! way: [`Run::new`] picks the chapter from `experiment`, [`Run::advance`] takes one step,
//! [`Run::csv`] exports the chapter's CSV.

use crate::chapters::anchors::AnchorTrainer;
use crate::chapters::lm::LmTrainer;
use crate::chapters::plateau::PlateauTrainer;
use crate::chapters::syntax::SyntaxTrainer;
use crate::config::{ConfigError, RunConfig, Task};
use crate::history::{csv_lines, to_csv, Row};
use crate::train::Status;
use crate::view::View;
use burn::tensor::Device;

/// One training run of chapter 1 (moving-window sum / prefix sum), chapter 2 (anchors),
/// chapter 3 (syntax) or chapter 4 (a language model on real text).
pub enum Run {
    /// Chapter 1.
    Plateau(Box<PlateauTrainer>),
    /// Chapter 2.
    Anchors(Box<AnchorTrainer>),
    /// Chapter 3.
    Syntax(Box<SyntaxTrainer>),
    /// Chapter 4.
    Lm(Box<LmTrainer>),
}

/// The CSV columns of a run of `cfg`'s chapter (its row type's [`Row::columns`]).
pub fn columns(cfg: &RunConfig) -> Vec<String> {
    crate::with_rows!(cfg.experiment, R => R::columns(cfg))
}

/// `$body` with `$t` bound to the run's trainer, whichever chapter it is.
macro_rules! each {
    ($run:expr, $t:ident => $body:expr) => {
        match $run {
            Run::Plateau($t) => $body,
            Run::Anchors($t) => $body,
            Run::Syntax($t) => $body,
            Run::Lm($t) => $body,
        }
    };
}
#[cfg_attr(not(target_arch = "wasm32"), allow(unused_imports))]
pub(crate) use each;

/// A chapter whose trainer a [`Run`] holds in a variant of its own.
pub trait InRun: crate::train::Chapter + Sized {
    /// The run of this trainer.
    fn wrap(trainer: Box<crate::train::Trainer<Self>>) -> Run;
    /// The trainer, when `run` is one of this chapter.
    fn trainer(run: &Run) -> Option<&crate::train::Trainer<Self>>;
}

macro_rules! in_run {
    ($variant:ident, $chapter:ty) => {
        impl InRun for $chapter {
            fn wrap(trainer: Box<crate::train::Trainer<Self>>) -> Run {
                Run::$variant(trainer)
            }
            fn trainer(run: &Run) -> Option<&crate::train::Trainer<Self>> {
                if let Run::$variant(t) = run {
                    Some(t)
                } else {
                    None
                }
            }
        }
    };
}
in_run!(Plateau, crate::chapters::plateau::Plateau);
in_run!(Anchors, crate::chapters::anchors::Anchors);
in_run!(Syntax, crate::chapters::syntax::Syntax);
in_run!(Lm, crate::chapters::lm::Lm);

/// Makes a trainer of whichever chapter [`Run::of_chapter`] asks for.
trait MakeTrainer {
    /// What stops it.
    type Error;
    /// The trainer of chapter `C`.
    fn make<C: crate::train::Chapter>(self) -> Result<Box<crate::train::Trainer<C>>, Self::Error>;
}

impl Run {
    /// The one dispatch from a chapter to its trainer: `make`'s trainer of `task`'s chapter.
    /// Chapter 4 first checks that its corpus is there.
    fn of_chapter<M: MakeTrainer>(task: Task, make: M) -> Result<Run, M::Error>
    where
        M::Error: From<String>,
    {
        use crate::chapters::{anchors::Anchors, lm::Lm, plateau::Plateau, syntax::Syntax};
        use crate::config::chapters::ChapterId;
        Ok(match task.chapter() {
            ChapterId::Plateau => Plateau::wrap(make.make()?),
            ChapterId::Init => Anchors::wrap(make.make()?),
            ChapterId::Syntax => Syntax::wrap(make.make()?),
            ChapterId::Text => {
                crate::chapters::lm::corpus::corpus().map_err(|e| format!("Chapter 4 cannot start: {e}."))?;
                Lm::wrap(make.make()?)
            }
        })
    }

    /// Builds the chapter's trainer for `cfg.experiment` on `device`.
    pub fn new(cfg: RunConfig, device: &Device) -> Result<Run, ConfigError> {
        struct New<'a>(RunConfig, &'a Device);
        impl MakeTrainer for New<'_> {
            type Error = ConfigError;
            fn make<C: crate::train::Chapter>(self) -> Result<Box<crate::train::Trainer<C>>, ConfigError> {
                crate::train::Trainer::new(self.0, self.1).map(Box::new)
            }
        }
        Run::of_chapter(cfg.experiment, New(cfg, device))
    }

    /// The run as one checkpoint file ([`crate::train::checkpoint::Checkpoint::to_file`]): config,
    /// step, weights, optimizer state and rows, read back asynchronously (WebGPU too).
    pub async fn save_file(&self) -> Result<Vec<u8>, String> {
        each!(self, t => t.checkpoint_async().await.map(|cp| cp.to_file()))
    }

    /// Continues the run saved in `bytes` ([`Run::save_file`]) on `device`, whichever chapter and
    /// backend it was saved with; a file of another engine version, a damaged file or a config
    /// this engine refuses is an error that says why.
    pub fn from_file(bytes: &[u8], device: &Device) -> Result<Run, String> {
        use crate::train::checkpoint::{read_file, Checkpoint, CheckpointState};
        use crate::train::Trainer;
        let (header, [model, optimizer, state]) = read_file(bytes)?;
        let task = Task::parse(&header.experiment)
            .ok_or_else(|| format!("the file holds an unknown experiment {:?}", header.experiment))?;
        struct Load<'a>([Vec<u8>; 3], &'a Device);
        impl MakeTrainer for Load<'_> {
            type Error = String;
            fn make<C: crate::train::Chapter>(self) -> Result<Box<Trainer<C>>, String> {
                let [model, optimizer, state] = self.0;
                let state = CheckpointState::from_bytes(&state)?;
                state.config.validate().map_err(|e| format!("the file's config is not valid here: {e}"))?;
                Trainer::from_checkpoint(Checkpoint { model, optimizer, state }, self.1).map(Box::new)
            }
        }
        Run::of_chapter(task, Load([model, optimizer, state], device))
    }

    /// Handles the next step ([`crate::train::Trainer::advance`]).
    pub async fn advance(&mut self) -> Status {
        each!(self, t => t.advance().await)
    }

    /// The first half of a sharded step ([`crate::train::Trainer::begin_step`]): records the
    /// step's row when due; `Running` means its slices' gradients are wanted.
    pub async fn begin_step(&mut self) -> Status {
        each!(self, t => t.begin_step().await)
    }

    /// The gradient payload of slice `index` of the step ([`crate::train::Trainer::shard_gradient`]).
    pub async fn shard_gradient(&mut self, index: usize) -> Vec<f32> {
        each!(self, t => t.shard_gradient(index).await)
    }

    /// Applies the sum of the step's payloads ([`crate::train::Trainer::apply_gradient`]).
    pub async fn apply_gradient(&mut self, sum: &[f32]) -> Result<Status, String> {
        each!(self, t => t.apply_gradient(sum).await)
    }

    /// Reads back what the steps since the last evaluation left unread and stops a diverged run
    /// ([`crate::train::Trainer::settle`]).
    pub async fn settle(&mut self) -> Status {
        each!(self, t => t.settle().await)
    }

    /// The config in force.
    pub fn config(&self) -> &RunConfig {
        each!(self, t => t.config())
    }

    /// Updates done.
    pub fn step(&self) -> usize {
        each!(self, t => t.step())
    }

    /// Where the run stands.
    pub fn status(&self) -> &Status {
        each!(self, t => t.status())
    }

    /// Number of parameters.
    pub fn param_count(&self) -> usize {
        each!(self, t => t.param_count())
    }

    /// Changes a live parameter without losing the run.
    pub fn set_live(&mut self, change: crate::config::LiveChange) {
        each!(self, t => t.set_live(change))
    }

    /// Fault-injection hook for tests (see [`crate::train::Trainer::force_lr`]).
    #[doc(hidden)]
    pub fn force_lr(&mut self, lr: f64) {
        each!(self, t => t.force_lr(lr))
    }

    /// Rows recorded so far.
    pub fn row_count(&self) -> usize {
        each!(self, t => t.history.rows.len())
    }

    /// The chapter's CSV of every recorded row ([`columns`] as the header).
    pub fn csv(&self) -> String {
        each!(self, t => to_csv(&columns(t.config()), &t.history.rows))
    }

    /// The CSV lines (no header, each ending in a newline) of the rows from index `from` on:
    /// `csv()` without its header and first `from` rows, formatted in time proportional to the
    /// rows asked for (the CLI streams each new row with it).
    pub fn csv_rows_from(&self, from: usize) -> String {
        each!(self, t => csv_lines(t.history.rows.get(from..).unwrap_or_default()))
    }

    /// The run's headline numbers for a seed summary ([`View::measures`]).
    pub fn measures(&self) -> Vec<crate::seeds::Measure> {
        each!(self, t => rows_of(t, View::measures))
    }

    /// The latest training loss and the chapter's headline metric, named, for progress lines
    /// ([`View::progress`]).
    pub fn progress(&self) -> (f64, &'static str, f64) {
        each!(self, t => rows_of(t, View::progress))
    }
}

/// `f` of the rows `t` has recorded so far.
fn rows_of<C: crate::train::Chapter, T>(t: &crate::train::Trainer<C>, f: fn(&[C::Row]) -> T) -> T {
    f(&t.history.rows)
}
