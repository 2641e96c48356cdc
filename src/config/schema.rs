//! The schema: every parameter once, with its kind and range, its doc and whether it applies
//! live. The keys every chapter reads are [`COMMON`]; each chapter's own keys are its section's
//! knobs (`chapters::<name>::knobs::KNOBS`), lifted into [`PARAMS`] with their chapter. How the
//! page shows a key (label, help, widget) is the page's: `crate::controls`.

use super::chapters::ChapterId;
use super::{anchors, lm, plateau, syntax, ConfigError, Preset, RunConfig};
use crate::schema::{count, describe, real, Field, Kind, Knob, Value};
use std::sync::LazyLock;

/// Where a parameter lives in [`RunConfig`]: a field of the run itself or of one chapter's
/// section, read and written as its type. With this, a key is spelled once, in its
/// [`ParamSpec`] or its chapter's knob; [`RunConfig::get`] and [`RunConfig::set`] look it up here.
#[derive(Clone, Copy, Debug)]
pub enum Place {
    /// A key every chapter reads.
    Run(Field<RunConfig>),
    /// Chapter 1's section.
    Plateau(Field<plateau::Knobs>),
    /// Chapter 2's section.
    Anchors(Field<anchors::Knobs>),
    /// Chapter 3's section.
    Syntax(Field<syntax::Knobs>),
    /// Chapter 4's section.
    Lm(Field<lm::Knobs>),
}

impl Place {
    /// The value in `cfg` as text.
    pub fn text(self, cfg: &RunConfig) -> String {
        match self {
            Place::Run(f) => f.text(cfg),
            Place::Plateau(f) => f.text(&cfg.plateau),
            Place::Anchors(f) => f.text(&cfg.anchors),
            Place::Syntax(f) => f.text(&cfg.syntax),
            Place::Lm(f) => f.text(&cfg.lm),
        }
    }

    /// Writes a parsed value into `cfg`.
    pub fn assign(self, cfg: &mut RunConfig, v: &Value) {
        match self {
            Place::Run(f) => f.assign(cfg, v),
            Place::Plateau(f) => f.assign(&mut cfg.plateau, v),
            Place::Anchors(f) => f.assign(&mut cfg.anchors, v),
            Place::Syntax(f) => f.assign(&mut cfg.syntax, v),
            Place::Lm(f) => f.assign(&mut cfg.lm, v),
        }
    }

    fn check(self, cfg: &RunConfig, kind: Kind) -> Result<(), (String, Option<String>)> {
        match self {
            Place::Run(f) => f.check(cfg, kind),
            Place::Plateau(f) => f.check(&cfg.plateau, kind),
            Place::Anchors(f) => f.check(&cfg.anchors, kind),
            Place::Syntax(f) => f.check(&cfg.syntax, kind),
            Place::Lm(f) => f.check(&cfg.lm, kind),
        }
    }
}

/// One row of the schema.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key in flags (`--key`), URLs (`?key=`) and JSON.
    pub key: &'static str,
    /// One line saying what it does.
    pub doc: &'static str,
    /// Type and valid range.
    pub kind: Kind,
    /// `true` when a change applies to a running run; `false` when it needs a reset.
    pub live: bool,
    /// The [`RunConfig`] field it sets.
    pub field: Place,
    /// The chapters whose runs it changes (empty: every chapter).
    pub chapters: &'static [u8],
}

/// The keys every chapter reads (and `warmup`, `weight-decay` and `shards`, which several do).
/// Defaults live in [`RunConfig::preset`].
pub const COMMON: &[ParamSpec] = &[
    ParamSpec {
        key: "experiment",
        doc: "Task: moving-window sum or prefix sum (chapter 1), anchors (chapter 2), syntax (chapter 3), lm (chapter 4: a language model on real text).",
        kind: Kind::Choice(&["mws", "prefix-sum", "anchors", "syntax", "lm"]),
        live: false,
        field: Place::Run(Field::Named(|c| c.experiment.name(), RunConfig::switch_experiment)),
        chapters: &[],
    },
    ParamSpec {
        key: "preset",
        doc: "Named defaults: the paper's exact setup or the small interactive model.",
        kind: Kind::Choice(&["paper", "interactive"]),
        live: false,
        field: Place::Run(Field::Named(|c| c.preset.name(), |c, s| c.preset = Preset::parse(s).unwrap_or(c.preset))),
        chapters: &[],
    },
    ParamSpec {
        key: "seed",
        doc: "Seed for initialization, training data and held-out data.",
        kind: Kind::Int { min: 0, max: 4_294_967_295 },
        live: false,
        field: Place::Run(Field::Seed(|c| c.seed, |c, v| c.seed = v)),
        chapters: &[],
    },
    ParamSpec {
        key: "steps",
        doc: "Number of training steps.",
        kind: Kind::Int { min: 1, max: 1_000_000 },
        live: true,
        field: Place::Run(count!(steps)),
        chapters: &[],
    },
    ParamSpec {
        key: "layers",
        doc: "Transformer layers.",
        kind: Kind::Int { min: 1, max: 8 },
        live: false,
        field: Place::Run(count!(layers)),
        chapters: &[],
    },
    ParamSpec {
        key: "heads",
        doc: "Attention heads per layer (must divide d-model).",
        kind: Kind::Int { min: 1, max: 16 },
        live: false,
        field: Place::Run(count!(heads)),
        chapters: &[],
    },
    ParamSpec {
        key: "d-model",
        doc: "Width of the residual stream.",
        kind: Kind::Int { min: 8, max: 1024 },
        live: false,
        field: Place::Run(count!(d_model)),
        chapters: &[],
    },
    ParamSpec {
        key: "d-ff",
        doc: "Hidden width of the MLP.",
        kind: Kind::Int { min: 8, max: 4096 },
        live: false,
        field: Place::Run(count!(d_ff)),
        chapters: &[],
    },
    ParamSpec {
        key: "lr",
        doc: "Adam learning rate (constant).",
        kind: Kind::Float { min: 1e-6, max: 1.0, log: true },
        live: true,
        field: Place::Run(real!(lr)),
        chapters: &[],
    },
    ParamSpec {
        key: "batch",
        doc: "Training sequences per step (a fresh batch each step).",
        kind: Kind::Int { min: 1, max: 4096 },
        live: false,
        field: Place::Run(count!(batch)),
        chapters: &[],
    },
    ParamSpec {
        key: "eval-batch",
        doc: "Held-out sequences per evaluation (a fresh batch each evaluation).",
        kind: Kind::Int { min: 1, max: 4096 },
        live: false,
        field: Place::Run(count!(eval_batch)),
        chapters: &[],
    },
    ParamSpec {
        key: "eval-every",
        doc: "Evaluate (greedy decoding, APM, collapse) every K steps.",
        kind: Kind::Int { min: 1, max: 100_000 },
        live: true,
        field: Place::Run(count!(eval_every)),
        chapters: &[],
    },
    ParamSpec {
        key: "snapshot-every",
        doc: "Record attention and cosine maps every K steps (bounded history).",
        kind: Kind::Int { min: 1, max: 100_000 },
        live: true,
        field: Place::Run(count!(snapshot_every)),
        chapters: &[],
    },
    ParamSpec {
        key: "warmup",
        doc: "Steps of linear learning-rate warm-up from 0 (chapters 2 to 4); 0 = constant rate.",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: false,
        field: Place::Run(count!(warmup)),
        chapters: &[2, 3, 4],
    },
    ParamSpec {
        key: "weight-decay",
        doc: "Decoupled weight decay of AdamW (chapters 2 to 4; chapter 1's Adam has none).",
        kind: Kind::Float { min: 0.0, max: 1.0, log: false },
        live: false,
        field: Place::Run(real!(weight_decay)),
        chapters: &[2, 3, 4],
    },
    ParamSpec {
        key: "shards",
        doc: "Split each step's batch into S equal shards whose gradients are summed in a fixed order (1 = one gradient of the whole batch, as every preset but chapter 2's interactive, which trains 4). The page's workers share the shards of a step, so the rows are the same for any number of workers; must divide batch; chapter 3 trains as one shard.",
        kind: Kind::Int { min: 1, max: 16 },
        live: false,
        field: Place::Run(count!(shards)),
        chapters: &[1, 2, 4],
    },
];

/// A chapter's knobs as rows of the schema, with the chapter as the one whose runs they change.
fn lift<T>(knobs: &'static [Knob<T>], place: fn(Field<T>) -> Place, chapter: &'static [u8]) -> Vec<ParamSpec> {
    knobs
        .iter()
        .map(|k| ParamSpec {
            key: k.key,
            doc: k.doc,
            kind: k.kind,
            live: k.live,
            field: place(k.field),
            chapters: chapter,
        })
        .collect()
}

/// Every parameter of a run, once: [`COMMON`], then each chapter's section in page order.
pub static PARAMS: LazyLock<Vec<ParamSpec>> = LazyLock::new(|| {
    let mut all = COMMON.to_vec();
    all.extend(lift(plateau::KNOBS, Place::Plateau, &[ChapterId::Plateau as u8]));
    all.extend(lift(anchors::KNOBS, Place::Anchors, &[ChapterId::Init as u8]));
    all.extend(lift(syntax::KNOBS, Place::Syntax, &[ChapterId::Syntax as u8]));
    all.extend(lift(lm::KNOBS, Place::Lm, &[ChapterId::Text as u8]));
    all
});

impl ParamSpec {
    /// Whether `cfg`'s value of this parameter is within its kind, read as its type (no text
    /// round trip): an integer or a finite number in range, or one of the choices. The error
    /// names the key, the value, the allowed range and the clamped value where there is one.
    pub fn check(&self, cfg: &RunConfig) -> Result<(), ConfigError> {
        self.field.check(cfg, self.kind).map_err(|(value, safe)| ConfigError {
            key: self.key.to_string(),
            value,
            allowed: describe(self.kind),
            safe,
        })
    }
}

/// Looks a parameter up by key.
pub fn spec(key: &str) -> Option<&'static ParamSpec> {
    PARAMS.iter().find(|p| p.key == key)
}
