//! The schema: every parameter once, with its kind and range, its doc and whether it applies
//! live. How the page shows a key (label, help, widget) is the page's: `crate::controls`.

use super::{
    describe, fmt_f64, Attention, ConfigError, Grammar, MemoryLabels, MemoryPosition, ModelKind, Preset, RunConfig,
};

/// Where a parameter lives in [`RunConfig`]: its reader and writer, by the field's type. With
/// this, a key is spelled once, in its [`ParamSpec`]; [`RunConfig::get`] and [`RunConfig::set`]
/// look the field up here.
#[derive(Clone, Copy, Debug)]
pub enum Field {
    /// A count (`usize`).
    Count(fn(&RunConfig) -> usize, fn(&mut RunConfig, usize)),
    /// The seed (`u64`).
    Seed(fn(&RunConfig) -> u64, fn(&mut RunConfig, u64)),
    /// A real number.
    Real(fn(&RunConfig) -> f64, fn(&mut RunConfig, f64)),
    /// A named choice (its `name()` and its parser; the name is one of the kind's choices).
    Named(fn(&RunConfig) -> &'static str, fn(&mut RunConfig, &str)),
}

macro_rules! count {
    ($f:ident) => {
        Field::Count(|c| c.$f, |c, v| c.$f = v)
    };
}
macro_rules! real {
    ($f:ident) => {
        Field::Real(|c| c.$f, |c, v| c.$f = v)
    };
}

/// The kind and valid range of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// A float in `min..=max`; `log` says the UI should use a log scale.
    Float { min: f64, max: f64, log: bool },
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
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
    pub field: Field,
    /// The chapters whose runs it changes (empty: every chapter).
    pub chapters: &'static [u8],
}

/// Every parameter of a run, once. Defaults live in [`RunConfig::preset`].
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        key: "experiment",
        doc: "Task: moving-window sum or prefix sum (chapter 1), anchors (chapter 2), syntax (chapter 3), lm (chapter 4: a language model on real text).",
        kind: Kind::Choice(&["mws", "prefix-sum", "anchors", "syntax", "lm"]),
        live: false,
        field: Field::Named(|c| c.experiment.name(), RunConfig::switch_experiment),
        chapters: &[],
    },
    ParamSpec {
        key: "preset",
        doc: "Named defaults: the paper's exact setup or the small interactive model.",
        kind: Kind::Choice(&["paper", "interactive"]),
        live: false,
        field: Field::Named(|c| c.preset.name(), |c, s| c.preset = Preset::parse(s).unwrap_or(c.preset)),
        chapters: &[],
    },
    ParamSpec {
        key: "seed",
        doc: "Seed for initialization, training data and held-out data.",
        kind: Kind::Int { min: 0, max: 4_294_967_295 },
        live: false,
        field: Field::Seed(|c| c.seed, |c, v| c.seed = v),
        chapters: &[],
    },
    ParamSpec {
        key: "steps",
        doc: "Number of training steps.",
        kind: Kind::Int { min: 1, max: 1_000_000 },
        live: true,
        field: count!(steps),
        chapters: &[],
    },
    ParamSpec {
        key: "n",
        doc: "Number of input tokens x_1..x_n (the paper uses 16).",
        kind: Kind::Int { min: 2, max: 32 },
        live: false,
        field: count!(n),
        chapters: &[1],
    },
    ParamSpec { key: "layers", doc: "Transformer layers.", kind: Kind::Int { min: 1, max: 8 }, live: false,
        field: count!(layers),
        chapters: &[] },
    ParamSpec {
        key: "heads",
        doc: "Attention heads per layer (must divide d-model).",
        kind: Kind::Int { min: 1, max: 16 },
        live: false,
        field: count!(heads),
        chapters: &[],
    },
    ParamSpec {
        key: "d-model",
        doc: "Width of the residual stream.",
        kind: Kind::Int { min: 8, max: 1024 },
        live: false,
        field: count!(d_model),
        chapters: &[],
    },
    ParamSpec { key: "d-ff", doc: "Hidden width of the MLP.", kind: Kind::Int { min: 8, max: 4096 }, live: false,
        field: count!(d_ff),
        chapters: &[] },
    ParamSpec {
        key: "attention",
        doc: "Linear attention as in the paper (no softmax), or softmax.",
        kind: Kind::Choice(&["linear", "softmax"]),
        live: false,
        field: Field::Named(|c| c.attention.name(), |c, s| c.attention = if s == "linear" { Attention::Linear } else { Attention::Softmax }),
        chapters: &[1],
    },
    ParamSpec {
        key: "c",
        doc: "Attention-mask strength on the optimal map Ω (1 = off, >1 toward it, <1 away).",
        kind: Kind::Float { min: 0.01, max: 100.0, log: true },
        live: true,
        field: real!(c),
        chapters: &[1],
    },
    ParamSpec {
        key: "c-from",
        doc: "Training step from which the mask c is applied.",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: true,
        field: count!(c_from),
        chapters: &[1],
    },
    ParamSpec {
        key: "lr",
        doc: "Adam learning rate (constant).",
        kind: Kind::Float { min: 1e-6, max: 1.0, log: true },
        live: true,
        field: real!(lr),
        chapters: &[],
    },
    ParamSpec {
        key: "batch",
        doc: "Training sequences per step (a fresh batch each step).",
        kind: Kind::Int { min: 1, max: 4096 },
        live: false,
        field: count!(batch),
        chapters: &[],
    },
    ParamSpec {
        key: "eval-batch",
        doc: "Held-out sequences per evaluation (a fresh batch each evaluation).",
        kind: Kind::Int { min: 1, max: 4096 },
        live: false,
        field: count!(eval_batch),
        chapters: &[],
    },
    ParamSpec {
        key: "eval-every",
        doc: "Evaluate (greedy decoding, APM, collapse) every K steps.",
        kind: Kind::Int { min: 1, max: 100_000 },
        live: true,
        field: count!(eval_every),
        chapters: &[],
    },
    ParamSpec {
        key: "snapshot-every",
        doc: "Record attention and cosine maps every K steps (bounded history).",
        kind: Kind::Int { min: 1, max: 100_000 },
        live: true,
        field: count!(snapshot_every),
        chapters: &[],
    },
    ParamSpec {
        key: "gamma",
        doc: "Chapter 2 init scale γ: every weight ~ N(0, (d_in^-γ)²); larger γ = smaller init.",
        kind: Kind::Float { min: 0.1, max: 1.5, log: false },
        live: false,
        field: real!(gamma),
        chapters: &[2],
    },
    ParamSpec {
        key: "model",
        doc: "Chapter 2 network: the transformer, or the simplified Emb-MLP.",
        kind: Kind::Choice(&["transformer", "emb-mlp"]),
        live: false,
        field: Field::Named(|c| c.model.name(), |c, s| c.model = if s == "emb-mlp" { ModelKind::EmbMlp } else { ModelKind::Transformer }),
        chapters: &[2],
    },
    ParamSpec {
        key: "memory",
        doc: "Chapter 2: fraction of each training batch that is memory samples (anchors 5-8, a lookup table); 0 = reasoning only.",
        kind: Kind::Float { min: 0.0, max: 0.9, log: false },
        live: false,
        field: real!(memory),
        chapters: &[2],
    },
    ParamSpec {
        key: "seq-len",
        doc: "Chapter 2 sequence length: the key, its anchor pair and noise tokens.",
        kind: Kind::Int { min: 4, max: 16 },
        live: false,
        field: count!(seq_len),
        chapters: &[2],
    },
    ParamSpec {
        key: "memory-keys",
        doc: "Chapter 2: facts per memory anchor: memory samples draw their key from the first N keys (20 .. 19+N); 80 = every key.",
        kind: Kind::Int { min: 1, max: 80 },
        live: false,
        field: count!(memory_keys),
        chapters: &[2],
    },
    ParamSpec {
        key: "memory-labels",
        doc: "Chapter 2: memory table labels drawn per (anchor, key) cell (cell) or as one permutation of the keys per anchor, so the anchor alone says nothing about the label (permutation).",
        kind: Kind::Choice(&["cell", "permutation"]),
        live: false,
        field: Field::Named(
            |c| c.memory_labels.name(),
            |c, s| c.memory_labels = if s == "permutation" { MemoryLabels::Permutation } else { MemoryLabels::Cell },
        ),
        chapters: &[2],
    },
    ParamSpec {
        key: "memory-position",
        doc: "Chapter 2: the memory anchor follows its key (after: [key, m]) or precedes it (before: [m, key]).",
        kind: Kind::Choice(&["after", "before"]),
        live: false,
        field: Field::Named(
            |c| c.memory_position.name(),
            |c, s| c.memory_position = if s == "before" { MemoryPosition::Before } else { MemoryPosition::After },
        ),
        chapters: &[2],
    },
    ParamSpec {
        key: "warmup",
        doc: "Steps of linear learning-rate warm-up from 0 (chapters 2 to 4); 0 = constant rate.",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: false,
        field: count!(warmup),
        chapters: &[2, 3, 4],
    },
    ParamSpec {
        key: "lexicon",
        doc: "Chapter 3: words per open class of the grammar (agreement: nouns, verbs, adjectives; nested: nouns, at most 8, and each noun's verbs, at most 3); fewer = lower lexical entropy, so more of the loss is syntax; 10 = the full grammar.",
        kind: Kind::Int { min: 1, max: 10 },
        live: false,
        field: count!(lexicon),
        chapters: &[3],
    },
    ParamSpec {
        key: "grammar",
        doc: "Chapter 3's language: agreement (the dependency grammar with number agreement; the paper preset's), nested (centre-embedded clauses whose verb its subject selects, matched by index particles; the interactive default, on 1 layer), nested-verbs (the same with only verbs masked), dyck (typed brackets nested like Dyck words) or copy (copy agreement: 3 centre-embedded clauses, each verb's always-masked slot copies its own subject's class token; lexicon does not apply).",
        kind: Kind::Choice(&["agreement", "nested", "nested-verbs", "dyck", "copy"]),
        live: false,
        field: Field::Named(|c| c.grammar.name(), |c, s| c.grammar = Grammar::from_name(s).unwrap_or_default()),
        chapters: &[3],
    },
    ParamSpec {
        key: "weight-decay",
        doc: "Decoupled weight decay of AdamW (chapters 2 to 4; chapter 1's Adam has none).",
        kind: Kind::Float { min: 0.0, max: 1.0, log: false },
        live: false,
        field: real!(weight_decay),
        chapters: &[2, 3, 4],
    },
    ParamSpec {
        key: "lambda",
        doc: "Chapter 3 SAS regularizer strength: loss = MLM + λ·R; λ > 0 suppresses, λ < 0 promotes.",
        kind: Kind::Float { min: -1.0, max: 1.0, log: false },
        live: true,
        field: real!(lambda),
        chapters: &[3],
    },
    ParamSpec {
        key: "lambda-from",
        doc: "First training step at which λ applies.",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: true,
        field: count!(lambda_from),
        chapters: &[3],
    },
    ParamSpec {
        key: "lambda-until",
        doc: "Step at which λ stops applying (the window is [from, until)).",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: true,
        field: count!(lambda_until),
        chapters: &[3],
    },
    ParamSpec {
        key: "log-evals",
        doc: "Chapter 4: also evaluate on a log-spaced schedule dense at the start (every step up to 8, then four per doubling), where the collapse happens (1), or only every eval-every steps (0).",
        kind: Kind::Int { min: 0, max: 1 },
        live: true,
        field: count!(log_evals),
        chapters: &[4],
    },
    ParamSpec {
        key: "flat-out",
        doc: "Chapter 3: draw each block's two output projections (attention out, MLP down) N(0, 0.02²) like every other weight (1, the copy-agreement reference toy's init) or N(0, (0.02/√(2·layers))²) as the paper (0).",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(flat_out),
        chapters: &[3],
    },
    ParamSpec {
        key: "qk-init",
        doc: "Chapter 3: the init std of the query and key weights as a multiple of the paper's 0.02 (1 = the paper's; smaller = attention starts closer to uniform).",
        kind: Kind::Float { min: 0.001, max: 10.0, log: true },
        live: false,
        field: real!(qk_init),
        chapters: &[3],
    },
    ParamSpec {
        key: "decoys",
        doc: "Chapter 3, copy agreement: decoy class tokens per sentence, each of a uniform class in a uniform gap between two units (or after the last), so that the class token nearest a slot need not be its subject's; 0 = none (the reference language). Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 6 },
        live: false,
        field: count!(decoys),
        chapters: &[3],
    },
    ParamSpec {
        key: "repeat-classes",
        doc: "Chapter 3, copy agreement: draw each clause's subject class independently, with repetition (1), so that no slot's class follows by elimination from the others', or as a permutation of the 3 classes (0, the reference language). Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(repeat_classes),
        chapters: &[3],
    },
    ParamSpec {
        key: "sas-unit",
        doc: "Chapter 3, copy agreement: the pairs λ acts on in training: each slot with its own subject's class token, noun and particle (0), or every word of each verb unit (particle, verb, slot) with every word of its own subject unit (1), which also covers a relay through the verb's particle or the verb. The sas_reg column always measures the first. Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(sas_unit),
        chapters: &[3],
    },
    ParamSpec {
        key: "mask-only",
        doc: "Chapter 3, copy agreement: how a word masking selects is replaced: always by MASK (1, the reference toy's masking) or BERT-style, 80 % MASK, 10 % a random word, 10 % kept (0). The agreement slots are always MASK. Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(mask_only),
        chapters: &[3],
    },
    ParamSpec {
        key: "shards",
        doc: "Split each step's batch into S equal shards whose gradients are summed in a fixed order (1 = one gradient of the whole batch, as every preset but chapter 2's interactive, which trains 4). The page's workers share the shards of a step, so the rows are the same for any number of workers; must divide batch; chapter 3 trains as one shard.",
        kind: Kind::Int { min: 1, max: 16 },
        live: false,
        field: count!(shards),
        chapters: &[1, 2, 4],
    },
];

impl ParamSpec {
    /// Whether `cfg`'s value of this parameter is within its kind, read as its type (no text
    /// round trip): an integer or a finite number in range, or one of the choices. The error
    /// names the key, the value, the allowed range and the clamped value where there is one.
    pub fn check(&self, cfg: &RunConfig) -> Result<(), ConfigError> {
        let fail = |value: String, safe: Option<String>| ConfigError {
            key: self.key.to_string(),
            value,
            allowed: describe(self.kind),
            safe,
        };
        match (self.field, self.kind) {
            (Field::Count(get, _), Kind::Int { min, max }) => {
                let v = get(cfg) as i128;
                let clamped = v.clamp(min as i128, max as i128);
                (v == clamped).then_some(()).ok_or_else(|| fail(v.to_string(), Some(clamped.to_string())))
            }
            (Field::Seed(get, _), Kind::Int { min, max }) => {
                let v = get(cfg) as i128;
                let clamped = v.clamp(min as i128, max as i128);
                (v == clamped).then_some(()).ok_or_else(|| fail(v.to_string(), Some(clamped.to_string())))
            }
            (Field::Real(get, _), Kind::Float { min, max, .. }) => {
                let v = get(cfg);
                if !v.is_finite() {
                    return Err(fail(fmt_f64(v), None));
                }
                let clamped = v.clamp(min, max);
                (v == clamped).then_some(()).ok_or_else(|| fail(fmt_f64(v), Some(fmt_f64(clamped))))
            }
            (Field::Named(get, _), Kind::Choice(names)) => {
                let v = get(cfg);
                names.contains(&v).then_some(()).ok_or_else(|| fail(v.to_string(), None))
            }
            _ => Err(fail(
                cfg.get(self.key).unwrap_or_default(),
                Some(format!("(the schema pairs {}'s field with another kind)", self.key)),
            )),
        }
    }
}

/// Looks a parameter up by key.
pub fn spec(key: &str) -> Option<&'static ParamSpec> {
    PARAMS.iter().find(|p| p.key == key)
}
