//! One typed schema for every experiment parameter.
//!
//! [`PARAMS`] is the single table of parameters: key, one-line doc, kind and valid range, and
//! whether a change needs a reset. It drives CLI flags (`--key value`), URL parsing
//! (`?key=value`), the UI controls and the presets, in the spirit of TensorFlow Playground's
//! `State.PROPS`. [`RunConfig`] holds the values: the keys every chapter reads, and each
//! chapter's own section (its typed knobs, declared beside its model in
//! `chapters::<name>::knobs` and flattened, so every key keeps its name in URLs, flags and
//! JSON); [`Preset`] gives the defaults.
//!
//! ```
//! use plateau::config::{Preset, RunConfig};
//! let mut cfg = RunConfig::preset(Preset::Paper);
//! cfg.set("c", "2.5").unwrap();
//! assert_eq!(cfg.plateau.c, 2.5);
//! assert!(cfg.set("c", "-1").is_err());
//! ```

use serde::{Deserialize, Serialize};

use crate::chapters::anchors::knobs as anchors;
pub use crate::chapters::anchors::knobs::{MemoryLabels, MemoryPosition, ModelKind};
use crate::chapters::lm::knobs as lm;
use crate::chapters::plateau::knobs as plateau;
pub use crate::chapters::plateau::knobs::{Attention, SumTask};
use crate::chapters::syntax::knobs as syntax;
pub use crate::chapters::syntax::knobs::Grammar;
pub use crate::schema::{describe, fmt_f64, Kind, Preset};
use crate::schema::{parse_value, Value};

/// Which data the model trains on: the `experiment` key. A chapter's task is its chapter
/// ([`Task::chapter`]); chapter 1 has two, which are its own type ([`SumTask`], declared in its
/// section). Written and read as its name (`mws`, `prefix-sum`, `anchors`, `syntax`, `lm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Chapter 1 (Gopalani & Hu): one of its sums.
    Sum(SumTask),
    /// Chapter 2: the composite anchor task with reasoning and memory anchors (Yao et al.).
    Anchors,
    /// Chapter 3: masked language modelling on a synthetic dependency grammar (Chen et al.).
    Syntax,
    /// Chapter 4: next-token prediction on real text (Gopalani & Hu's LLM measurement).
    Lm,
}

impl Task {
    /// Moving-window sum: `y_1 = x_1`, `y_i = (x_{i-1} + x_i) mod 17` (`mws`).
    pub const MWS: Task = Task::Sum(SumTask::MovingWindow);
    /// Prefix sum: `y_i = (Σ_{j≤i} x_j) mod 17` (`prefix-sum`).
    pub const PREFIX_SUM: Task = Task::Sum(SumTask::Prefix);

    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Task::Sum(t) => t.name(),
            Task::Anchors => "anchors",
            Task::Syntax => "syntax",
            Task::Lm => "lm",
        }
    }
    /// Every task, in chapter order.
    pub fn all() -> [Task; 5] {
        [Task::MWS, Task::PREFIX_SUM, Task::Anchors, Task::Syntax, Task::Lm]
    }
    /// Parses a task name.
    pub fn parse(s: &str) -> Option<Task> {
        Task::all().into_iter().find(|t| t.name() == s)
    }
}

impl Serialize for Task {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Task {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Task, D::Error> {
        let name = String::deserialize(d)?;
        Task::parse(&name).ok_or_else(|| {
            let all: Vec<&str> = Task::all().iter().map(|t| t.name()).collect();
            serde::de::Error::custom(format!("unknown experiment `{name}`, expected one of {}", all.join(", ")))
        })
    }
}

pub mod chapters;
mod error;
pub use error::ConfigError;
mod live;
pub use live::LiveChange;
mod memory;
pub use memory::*;
mod presets;
pub use presets::INTERACTIVE_ANCHOR_SHARDS;
mod schema;
pub use schema::*;
mod url;
pub use url::*;

/// Every value of one run. Construct with [`RunConfig::preset`], change with [`RunConfig::set`].
///
/// The keys every chapter reads sit here; each chapter's own keys sit in its section, declared
/// beside its model (`chapters::<name>::knobs`) and flattened, so the JSON of a config is one
/// object of every key, as it always was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct RunConfig {
    /// Task.
    pub experiment: Task,
    /// The preset these defaults came from.
    pub preset: Preset,
    /// Seed of every random stream.
    pub seed: u64,
    /// Training steps.
    pub steps: usize,
    /// Layers.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Model width.
    pub d_model: usize,
    /// MLP width.
    pub d_ff: usize,
    /// Learning rate.
    pub lr: f64,
    /// Training batch size.
    pub batch: usize,
    /// Held-out batch size.
    pub eval_batch: usize,
    /// Evaluation cadence in steps.
    pub eval_every: usize,
    /// Snapshot cadence in steps.
    pub snapshot_every: usize,
    /// Linear learning-rate warm-up steps (chapters 2 to 4).
    #[serde(default)]
    pub warmup: usize,
    /// AdamW weight decay (chapters 2 to 4).
    pub weight_decay: f64,
    /// Shards S of each step's batch: S > 1 computes the gradient of each of S equal slices of
    /// the batch separately and sums them in a fixed order on the host (`train::shards`), so the
    /// page's workers can share a step and give the same rows for any number of them. 1 (every
    /// preset but chapter 2's interactive) is one gradient of the whole batch. Must divide
    /// `batch`; chapter 3 trains as one.
    #[serde(default = "default_shards")]
    pub shards: usize,
    /// Chapter 1's section: n, attention, c, c-from.
    #[serde(flatten)]
    pub plateau: plateau::Knobs,
    /// Chapter 2's section: γ, the network, the memory mix and table.
    #[serde(flatten)]
    pub anchors: anchors::Knobs,
    /// Chapter 3's section: the language, λ and its window, the copy-agreement variants.
    #[serde(flatten)]
    pub syntax: syntax::Knobs,
    /// Chapter 4's section: the log-spaced evaluations.
    #[serde(flatten)]
    pub lm: lm::Knobs,
}

fn default_shards() -> usize {
    1
}

/// The learning rate at step `step` (0-based update index) with `warmup` steps of linear warm-up:
/// `lr · min(1, (step + 1) / warmup)`, the plain `lr` when `warmup` is 0.
///
/// ```
/// assert_eq!(plateau::config::warmup_lr(1e-3, 4, 0), 2.5e-4);
/// assert_eq!(plateau::config::warmup_lr(1e-3, 4, 3), 1e-3);
/// assert_eq!(plateau::config::warmup_lr(1e-3, 0, 0), 1e-3);
/// ```
pub fn warmup_lr(lr: f64, warmup: usize, step: usize) -> f64 {
    if warmup == 0 {
        lr
    } else {
        lr * ((step + 1) as f64 / warmup as f64).min(1.0)
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig::preset(Preset::Interactive)
    }
}

impl RunConfig {
    /// The value of a parameter as text (the form flags and URLs use).
    pub fn get(&self, key: &str) -> Option<String> {
        Some(spec(key)?.field.text(self))
    }

    /// Sets one parameter from text, strictly: an invalid value leaves the config unchanged and
    /// returns an error that names the key, the value, the allowed range and the safe value.
    ///
    /// Setting `preset` replaces every value by that preset's defaults (apply it first).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        self.set_checked(key, value, true)
    }

    /// Sets several parameters strictly, as the CLI reads its flags: each value is range-checked
    /// as it is set (the first bad one is the error, `experiment` first wherever it stands), and
    /// the rules between keys (heads divide d-model) are checked once all are set, so
    /// `--heads 3 --d-model 48` and `--d-model 48 --heads 3` give the same config. On an error
    /// the config is left unchanged.
    pub fn set_all<'a>(&mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<(), ConfigError> {
        let mut pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
        pairs.sort_by_key(|(k, _)| *k != "experiment");
        let mut next = self.clone();
        for (k, v) in &pairs {
            next.set_checked(k, v, false)?;
        }
        if next.d_model % next.heads != 0 {
            let (key, value) = pairs
                .iter()
                .rev()
                .find(|(k, _)| *k == "heads" || *k == "d-model")
                .map_or(("heads", next.heads.to_string()), |(k, v)| (*k, v.to_string()));
            return Err(ConfigError {
                key: key.to_string(),
                value,
                allowed: format!("heads dividing d-model ({} heads, d-model {})", next.heads, next.d_model),
                safe: Some(self.get(key).unwrap_or_default()),
            });
        }
        next.check_shards()?;
        *self = next;
        Ok(())
    }

    fn set_checked(&mut self, key: &str, value: &str, cross: bool) -> Result<(), ConfigError> {
        let spec = spec(key).ok_or_else(|| ConfigError {
            key: key.to_string(),
            value: value.to_string(),
            allowed: PARAMS.iter().map(|p| p.key).collect::<Vec<_>>().join(", "),
            safe: None,
        })?;
        let parsed = parse_value(spec.kind, value).map_err(|safe| ConfigError {
            key: key.to_string(),
            value: value.to_string(),
            allowed: describe(spec.kind),
            safe: Some(safe.unwrap_or_else(|| self.get(key).unwrap_or_default())),
        })?;
        let before = self.clone();
        self.assign(key, &parsed);
        if cross && (key == "heads" || key == "d-model") && self.d_model % self.heads != 0 {
            let err = ConfigError {
                key: key.to_string(),
                value: value.to_string(),
                allowed: format!("heads dividing d-model ({} heads, d-model {})", self.heads, self.d_model),
                safe: Some(before.get(key).unwrap_or_default()),
            };
            *self = before;
            return Err(err);
        }
        // The shards must split the batch: a batch or shard count that breaks the rule is refused
        // (the other key stays), so a strict set never leaves an invalid config.
        if cross && (key == "batch" || key == "shards") {
            if let Err(mut err) = self.check_shards() {
                if key == "batch" {
                    err = ConfigError {
                        key: key.to_string(),
                        value: value.to_string(),
                        allowed: format!(
                            "a multiple of the shards ({}), so that every shard has the same size",
                            self.shards
                        ),
                        safe: Some(before.get(key).unwrap_or_default()),
                    };
                }
                *self = before;
                return Err(err);
            }
        }
        Ok(())
    }

    /// Sets one parameter leniently: an invalid value is replaced by the safe value (clamped to
    /// the range, or the current value when it cannot be parsed) and the error is returned as a
    /// notice to show the reader. Unknown keys are reported and ignored.
    pub fn set_lenient(&mut self, key: &str, value: &str) -> Option<ConfigError> {
        match self.set(key, value) {
            Ok(()) => None,
            Err(mut err) => {
                // The safe value goes through the same checks (a clamped `heads` must still
                // divide `d-model`); if it fails them too, the current value stays.
                if let Some(safe) = err.safe.clone() {
                    if self.set(key, &safe).is_err() {
                        err.safe = Some(self.get(key).unwrap_or_default());
                    }
                }
                Some(err)
            }
        }
    }

    /// Applies `key=value` pairs in order (a `preset` pair first, then `experiment`, wherever
    /// they stand), leniently;
    /// returns the notices for rejected values.
    pub fn apply_pairs<'a>(&mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<ConfigError> {
        let pairs: Vec<_> = pairs.into_iter().collect();
        let mut notices = Vec::new();
        for (k, v) in pairs.iter().filter(|(k, _)| *k == "preset") {
            match Preset::parse(v) {
                Some(p) => *self = RunConfig::defaults(self.experiment, p),
                None => notices.push(ConfigError {
                    key: k.to_string(),
                    value: v.to_string(),
                    allowed: describe(spec("preset").unwrap().kind),
                    safe: Some(self.preset.name().to_string()),
                }),
            }
        }
        // The experiment next (it picks the chapter's defaults), then everything else.
        for (k, v) in pairs.iter().filter(|(k, _)| *k == "experiment") {
            if let Some(n) = self.set_lenient(k, v) {
                notices.push(n);
            }
        }
        // The width pair last and together: heads must divide d-model once both are read, so
        // `heads=3&d-model=48` and `d-model=48&heads=3` open the same run; a pair that cannot
        // agree falls back to one key at a time, each with its notice.
        let (width, rest): (Vec<_>, Vec<_>) = pairs
            .iter()
            .filter(|(k, _)| *k != "preset" && *k != "experiment")
            .partition(|(k, _)| *k == "heads" || *k == "d-model");
        // The batch and the shards together too, whatever their order: each value is read alone
        // (range-checked), and the rule between them once, below (a shard count that does not
        // divide the batch falls back to 1, with its notice).
        let (split, rest): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(k, _)| *k == "batch" || *k == "shards");
        for (k, v) in rest {
            if let Some(n) = self.set_lenient(k, v) {
                notices.push(n);
            }
        }
        for (k, v) in split {
            if let Err(e) = self.set_checked(k, v, false) {
                if let Some(safe) = &e.safe {
                    let _ = self.set_checked(k, safe, false);
                }
                notices.push(e);
            }
        }
        if !width.is_empty() {
            let mut trial = self.clone();
            if trial.set_all(width.iter().map(|(k, v)| (*k, *v))).is_ok() {
                *self = trial;
            } else {
                for (k, v) in width {
                    if let Some(n) = self.set_lenient(k, v) {
                        notices.push(n);
                    }
                }
            }
        }
        if let Err(e) = self.check_shards() {
            self.shards = 1;
            notices.push(e);
        }
        notices
    }

    /// The pairs that differ from this config's preset defaults (for short URLs and logs).
    pub fn non_default_pairs(&self) -> Vec<(String, String)> {
        let base = RunConfig::defaults(self.experiment, self.preset);
        let mut out = vec![];
        if self.preset != Preset::Interactive {
            out.push(("preset".to_string(), self.preset.name().to_string()));
        }
        if self.experiment != Task::MWS {
            out.push(("experiment".to_string(), self.experiment.name().to_string()));
        }
        for p in PARAMS.iter().filter(|p| p.key != "preset" && p.key != "experiment") {
            let (a, b) = (self.get(p.key).unwrap(), base.get(p.key).unwrap());
            if a != b {
                out.push((p.key.to_string(), a));
            }
        }
        out
    }

    fn assign(&mut self, key: &str, v: &Value) {
        if let Some(spec) = spec(key) {
            spec.field.assign(self, v);
        }
    }

    /// Sets `experiment`; a task of another chapter brings that chapter's defaults (same preset
    /// and seed).
    fn switch_experiment(&mut self, name: &str) {
        let task = Task::parse(name).unwrap_or(self.experiment);
        if task.chapter() != self.experiment.chapter() {
            *self = RunConfig { seed: self.seed, ..RunConfig::defaults(task, self.preset) };
        }
        self.experiment = task;
    }

    /// Checks every value against the schema (for configs loaded from JSON) on the typed values
    /// themselves ([`ParamSpec::check`]), then the rules between keys: heads divide d-model, and
    /// the shards rule ([`RunConfig::check_shards`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        for p in PARAMS.iter().filter(|p| p.key != "preset") {
            p.check(self)?;
        }
        if self.heads == 0 || self.d_model % self.heads != 0 {
            return Err(ConfigError {
                key: "heads".to_string(),
                value: self.heads.to_string(),
                allowed: format!("heads dividing d-model ({} heads, d-model {})", self.heads, self.d_model),
                safe: None,
            });
        }
        self.check_shards()
    }
}

#[cfg(test)]
mod tests;
