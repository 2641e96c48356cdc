//! One typed schema for every experiment parameter.
//!
//! [`PARAMS`] is the single table of parameters: key, one-line doc, kind and valid range, and
//! whether a change needs a reset. It drives CLI flags (`--key value`), URL parsing
//! (`?key=value`), the UI controls and the presets, in the spirit of TensorFlow Playground's
//! `State.PROPS`. [`RunConfig`] holds the values; [`Preset`] gives the defaults.
//!
//! ```
//! use plateau::config::{Preset, RunConfig};
//! let mut cfg = RunConfig::preset(Preset::Paper);
//! cfg.set("c", "2.5").unwrap();
//! assert_eq!(cfg.c, 2.5);
//! assert!(cfg.set("c", "-1").is_err());
//! ```

use serde::{Deserialize, Serialize};

/// Which data the model trains on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    /// Moving-window sum: `y_1 = x_1`, `y_i = (x_{i-1} + x_i) mod 17` (Gopalani & Hu).
    Mws,
    /// Prefix sum: `y_i = (Σ_{j≤i} x_j) mod 17`.
    PrefixSum,
    /// Chapter 2: the composite anchor task with reasoning and memory anchors (Yao et al.).
    Anchors,
    /// Chapter 3: masked language modelling on a synthetic dependency grammar (Chen et al.).
    Syntax,
    /// Chapter 4: next-token prediction on real text (Gopalani & Hu's LLM measurement).
    Lm,
}

/// Which network chapter 2 trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// The chapter's transformer (decoder, softmax attention).
    Transformer,
    /// Yao et al.'s simplified model: embedding → mean over the sequence → 2-layer MLP → logits.
    EmbMlp,
}

impl ModelKind {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Transformer => "transformer",
            ModelKind::EmbMlp => "emb-mlp",
        }
    }
}

/// How chapter 2's memory table draws its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryLabels {
    /// Each (memory anchor, key) cell draws its label independently and uniformly (the
    /// reconstruction's default): a memory anchor's labels are uniform only in expectation.
    #[default]
    Cell,
    /// Each memory anchor's labels over the keys are a random permutation of the keys, so every
    /// label appears exactly once per anchor: the anchor token alone carries no information about
    /// the label.
    Permutation,
}

impl MemoryLabels {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            MemoryLabels::Cell => "cell",
            MemoryLabels::Permutation => "permutation",
        }
    }
}

/// Which language chapter 3 trains on (issue #35's design search).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Grammar {
    /// The dependency grammar with number agreement (`chapters::syntax::data`), BERT masking.
    #[default]
    Agreement,
    /// Centre-embedded clauses whose verb its own subject selects, matched by index particles
    /// (`chapters::syntax::nested`), BERT masking.
    Nested,
    /// The nested language with only verbs masked: every target is predicted by its arc alone.
    NestedVerbs,
    /// Typed brackets nested like Dyck words (`chapters::syntax::dyck`), BERT masking.
    Dyck,
    /// Copy agreement (`chapters::syntax::copy`, issue 52): 3 centre-embedded clauses whose verb
    /// units end in a slot, always masked, that copies its own subject's class token.
    Copy,
}

impl Grammar {
    /// Every grammar, in the order the search and the docs list them.
    pub const ALL: [Grammar; 5] =
        [Grammar::Agreement, Grammar::Nested, Grammar::NestedVerbs, Grammar::Dyck, Grammar::Copy];

    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Grammar::Agreement => "agreement",
            Grammar::Nested => "nested",
            Grammar::NestedVerbs => "nested-verbs",
            Grammar::Dyck => "dyck",
            Grammar::Copy => "copy",
        }
    }

    /// The grammar called `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<Grammar> {
        Grammar::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// Where chapter 2's memory anchor sits relative to its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryPosition {
    /// `[key, m]`, the way reasoning anchors follow their key (the reconstruction's default).
    #[default]
    After,
    /// `[m, key]`: the anchor comes first.
    Before,
}

impl MemoryPosition {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            MemoryPosition::After => "after",
            MemoryPosition::Before => "before",
        }
    }
}

/// How attention scores become weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attention {
    /// The paper's linear attention: `A = causal0(q·kᵀ/√d_head)`, no softmax.
    Linear,
    /// Standard causal softmax attention (the paper's appendix variant).
    Softmax,
}

/// Named sets of defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// The paper's exact setup: n 16, d 256, batch 256, Adam lr 1e-4, 400 steps.
    Paper,
    /// A smaller model that shows the whole story in seconds (chosen by measurement).
    Interactive,
}

impl Task {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Task::Mws => "mws",
            Task::PrefixSum => "prefix-sum",
            Task::Anchors => "anchors",
            Task::Syntax => "syntax",
            Task::Lm => "lm",
        }
    }
    /// Every task, in chapter order.
    pub fn all() -> [Task; 5] {
        [Task::Mws, Task::PrefixSum, Task::Anchors, Task::Syntax, Task::Lm]
    }
    /// Parses a task name.
    pub fn parse(s: &str) -> Option<Task> {
        Task::all().into_iter().find(|t| t.name() == s)
    }
}

impl Attention {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Attention::Linear => "linear",
            Attention::Softmax => "softmax",
        }
    }
}

impl Preset {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Paper => "paper",
            Preset::Interactive => "interactive",
        }
    }
    /// Parses a preset name.
    pub fn parse(s: &str) -> Option<Preset> {
        match s {
            "paper" => Some(Preset::Paper),
            "interactive" => Some(Preset::Interactive),
            _ => None,
        }
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
    /// Number of inputs n (sequence length 2n+1).
    pub n: usize,
    /// Layers.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Model width.
    pub d_model: usize,
    /// MLP width.
    pub d_ff: usize,
    /// Attention kind.
    pub attention: Attention,
    /// Mask strength on Ω (1 = no mask).
    pub c: f64,
    /// Step from which the mask applies.
    pub c_from: usize,
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
    /// Chapter 2 init scale γ.
    pub gamma: f64,
    /// Chapter 2 network.
    pub model: ModelKind,
    /// Chapter 2: fraction of memory samples in a training batch.
    #[serde(default = "default_memory")]
    pub memory: f64,
    /// Chapter 2 sequence length.
    #[serde(default = "default_seq_len")]
    pub seq_len: usize,
    /// Chapter 2: keys per memory anchor that carry a fact (memory samples draw their key from
    /// the first `memory_keys` keys; all 80 by default).
    #[serde(default = "default_memory_keys")]
    pub memory_keys: usize,
    /// Chapter 2: how the memory table draws its labels.
    #[serde(default)]
    pub memory_labels: MemoryLabels,
    /// Chapter 2: where the memory anchor sits relative to its key.
    #[serde(default)]
    pub memory_position: MemoryPosition,
    /// Linear learning-rate warm-up steps (chapters 2 and 3).
    #[serde(default)]
    pub warmup: usize,
    /// Chapter 3: words per open class of the grammar (10 = the full grammar).
    #[serde(default = "default_lexicon")]
    pub lexicon: usize,
    /// Chapter 3: the language.
    #[serde(default)]
    pub grammar: Grammar,
    /// AdamW weight decay (chapters 2 and 3).
    pub weight_decay: f64,
    /// Chapter 3 SAS regularizer strength λ.
    pub lambda: f64,
    /// First step of the λ window.
    pub lambda_from: usize,
    /// End (exclusive) of the λ window.
    pub lambda_until: usize,
    /// Chapter 4: evaluate on the log-spaced schedule dense at the start as well (1), or only
    /// every `eval-every` steps (0).
    #[serde(default = "default_log_evals")]
    pub log_evals: usize,
    /// Shards S of each step's batch: S > 1 computes the gradient of each of S equal slices of
    /// the batch separately and sums them in a fixed order on the host (`train::shards`), so the
    /// page's workers can share a step and give the same rows for any number of them. 1 (every
    /// preset) is one gradient of the whole batch. Must divide `batch`; chapter 3 trains as one.
    #[serde(default = "default_shards")]
    pub shards: usize,
    /// Chapter 3: draw each block's two output projections N(0, 0.02²) like every other weight
    /// (1, the copy-agreement reference toy's init) instead of the paper's
    /// N(0, (0.02/√(2·layers))²) (0).
    #[serde(default)]
    pub flat_out: usize,
    /// Chapter 3: the std of W_q and W_k is `qk_init · 0.02` (1 = the paper's init).
    #[serde(default = "default_qk_init")]
    pub qk_init: f64,
    /// Chapter 3, copy agreement: decoy class tokens per sentence, each a uniform class in a
    /// uniform gap between units (0 = none, the reference language).
    #[serde(default)]
    pub decoys: usize,
    /// Chapter 3, copy agreement: the subject classes drawn independently, with repetition (1),
    /// or as a permutation of the classes (0, the reference language).
    #[serde(default)]
    pub repeat_classes: usize,
    /// Chapter 3, copy agreement: λ's pairs in training are every word of each verb unit with
    /// every word of its own subject unit (1), or each slot with its own subject unit (0).
    #[serde(default)]
    pub sas_unit: usize,
    /// Chapter 3, copy agreement: every word masking selects becomes `MASK` (1, the reference
    /// toy's masking) instead of BERT's 80 % `MASK`, 10 % a random word, 10 % kept (0).
    #[serde(default)]
    pub mask_only: usize,
}

fn default_qk_init() -> f64 {
    1.0
}

fn default_log_evals() -> usize {
    1
}

fn default_shards() -> usize {
    1
}

/// Defaults of keys whose meaning a chapter's data fixes; the chapter's data module re-exports
/// them under its own names (`config` imports nothing from the chapters, the chapters import
/// `config`).
pub mod defaults {
    /// Chapter 2: the share of memory samples in the mixed task (`memory`).
    pub const MEMORY_FRACTION: f64 = 0.5;
    /// Chapter 2: tokens per sequence (`seq-len`).
    pub const SEQ_LEN: usize = 9;
    /// Chapter 2: facts per memory anchor (`memory-keys`): every key, 20..=99.
    pub const MEMORY_KEYS: usize = 80;
    /// Chapter 3: words per open class (`lexicon`), the full lexicon.
    pub const FULL_LEXICON: usize = 10;
}

fn default_memory() -> f64 {
    defaults::MEMORY_FRACTION
}

fn default_lexicon() -> usize {
    defaults::FULL_LEXICON
}

fn default_memory_keys() -> usize {
    defaults::MEMORY_KEYS
}

fn default_seq_len() -> usize {
    defaults::SEQ_LEN
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
        Some(match spec(key)?.field {
            Field::Count(get, _) => get(self).to_string(),
            Field::Seed(get, _) => get(self).to_string(),
            Field::Real(get, _) => fmt_f64(get(self)),
            Field::Named(get, _) => get(self).to_string(),
        })
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
        let parsed = parse_value(spec, value).map_err(|safe| ConfigError {
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
        if self.experiment != Task::Mws {
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
        let Some(spec) = spec(key) else { return };
        match (spec.field, v) {
            (Field::Count(_, set), Value::Int(i)) => set(self, *i as usize),
            (Field::Seed(_, set), Value::Int(i)) => set(self, *i as u64),
            (Field::Real(_, set), Value::Float(x)) => set(self, *x),
            (Field::Named(_, set), Value::Choice(s)) => set(self, s),
            _ => {}
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

#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Float(f64),
    Choice(String),
}

/// Parses and range-checks; on failure returns the clamped safe value when there is one.
fn parse_value(spec: &ParamSpec, text: &str) -> Result<Value, Option<String>> {
    let text = text.trim();
    match spec.kind {
        Kind::Int { min, max } => {
            let v: i64 = text.parse().map_err(|_| None)?;
            if v < min || v > max {
                return Err(Some(v.clamp(min, max).to_string()));
            }
            Ok(Value::Int(v))
        }
        Kind::Float { min, max, .. } => {
            let v: f64 = text.parse().map_err(|_| None)?;
            if !v.is_finite() {
                return Err(None);
            }
            if v < min || v > max {
                return Err(Some(fmt_f64(v.clamp(min, max))));
            }
            Ok(Value::Float(v))
        }
        Kind::Choice(names) => {
            if names.contains(&text) {
                Ok(Value::Choice(text.to_string()))
            } else {
                Err(None)
            }
        }
    }
}

/// A human description of a kind's allowed values.
pub fn describe(kind: Kind) -> String {
    match kind {
        Kind::Int { min, max } => format!("an integer in {min}..={max}"),
        Kind::Float { min, max, .. } => format!("a number in [{}, {}]", fmt_f64(min), fmt_f64(max)),
        Kind::Choice(names) => format!("one of {}", names.join(", ")),
    }
}

/// Shortest text that parses back to the same `f64`.
pub fn fmt_f64(x: f64) -> String {
    format!("{x}")
}

#[cfg(test)]
mod tests;
