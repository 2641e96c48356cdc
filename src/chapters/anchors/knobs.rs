//! Chapter 2's config section: its knobs (the init scale γ, the network, the memory mix and the
//! memory table's layout), their defaults and presets. It imports only [`crate::schema`];
//! `config` flattens it into the one key schema (`RunConfig::anchors`).

use crate::schema::{count, named, real, Kind, Knob, Preset};
use serde::{Deserialize, Serialize};

/// The share of memory samples in the mixed task (`memory`).
pub const MEMORY_FRACTION: f64 = 0.5;
/// Tokens per sequence of the mixed task (`seq-len`).
pub const SEQ_LEN: usize = 9;
/// Facts per memory anchor (`memory-keys`): every key, 20..=99.
pub const MEMORY_KEYS: usize = 80;

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

    /// The network called `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<ModelKind> {
        [ModelKind::Transformer, ModelKind::EmbMlp].into_iter().find(|m| m.name() == name)
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

    /// The labelling called `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<MemoryLabels> {
        [MemoryLabels::Cell, MemoryLabels::Permutation].into_iter().find(|m| m.name() == name)
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

    /// The position called `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<MemoryPosition> {
        [MemoryPosition::After, MemoryPosition::Before].into_iter().find(|m| m.name() == name)
    }
}

/// Chapter 2's knobs. Keys added after the first results have serde defaults, so older result
/// files still read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Knobs {
    /// Init scale γ.
    pub gamma: f64,
    /// The network.
    pub model: ModelKind,
    /// Fraction of memory samples in a training batch.
    #[serde(default = "memory_fraction")]
    pub memory: f64,
    /// Sequence length.
    #[serde(default = "seq_len")]
    pub seq_len: usize,
    /// Keys per memory anchor that carry a fact (memory samples draw their key from the first
    /// `memory_keys` keys; all 80 by default).
    #[serde(default = "memory_keys")]
    pub memory_keys: usize,
    /// How the memory table draws its labels.
    #[serde(default)]
    pub memory_labels: MemoryLabels,
    /// Where the memory anchor sits relative to its key.
    #[serde(default)]
    pub memory_position: MemoryPosition,
}

fn memory_fraction() -> f64 {
    MEMORY_FRACTION
}
fn seq_len() -> usize {
    SEQ_LEN
}
fn memory_keys() -> usize {
    MEMORY_KEYS
}

impl Knobs {
    /// The values a run of another chapter carries.
    pub const NEUTRAL: Knobs = Knobs {
        gamma: 0.5,
        model: ModelKind::Transformer,
        memory: MEMORY_FRACTION,
        seq_len: SEQ_LEN,
        memory_keys: MEMORY_KEYS,
        memory_labels: MemoryLabels::Cell,
        memory_position: MemoryPosition::After,
    };

    /// Chapter 2's values under `preset` (the reasons are `RunConfig::anchors`'s): the
    /// predecessor's pure reasoning task (no memory samples, sequences of 8 tokens) at the
    /// paper's γ = 0.8, and γ = 0.7 for `interactive`.
    pub fn preset(preset: Preset) -> Knobs {
        let base = Knobs { gamma: 0.8, memory: 0.0, seq_len: 8, ..Knobs::NEUTRAL };
        match preset {
            Preset::Interactive => Knobs { gamma: 0.7, ..base },
            Preset::Paper => base,
        }
    }
}

/// Chapter 2's keys, in the order the schema lists them.
pub const KNOBS: &[Knob<Knobs>] = &[
    Knob {
        key: "gamma",
        doc: "Chapter 2 init scale γ: every weight ~ N(0, (d_in^-γ)²); larger γ = smaller init.",
        kind: Kind::Float { min: 0.1, max: 1.5, log: false },
        live: false,
        field: real!(gamma),
    },
    Knob {
        key: "model",
        doc: "Chapter 2 network: the transformer, or the simplified Emb-MLP.",
        kind: Kind::Choice(&["transformer", "emb-mlp"]),
        live: false,
        field: named!(model, ModelKind),
    },
    Knob {
        key: "memory",
        doc: "Chapter 2: fraction of each training batch that is memory samples (anchors 5-8, a lookup table); 0 = reasoning only.",
        kind: Kind::Float { min: 0.0, max: 0.9, log: false },
        live: false,
        field: real!(memory),
    },
    Knob {
        key: "seq-len",
        doc: "Chapter 2 sequence length: the key, its anchor pair and noise tokens.",
        kind: Kind::Int { min: 4, max: 16 },
        live: false,
        field: count!(seq_len),
    },
    Knob {
        key: "memory-keys",
        doc: "Chapter 2: facts per memory anchor: memory samples draw their key from the first N keys (20 .. 19+N); 80 = every key.",
        kind: Kind::Int { min: 1, max: 80 },
        live: false,
        field: count!(memory_keys),
    },
    Knob {
        key: "memory-labels",
        doc: "Chapter 2: memory table labels drawn per (anchor, key) cell (cell) or as one permutation of the keys per anchor, so the anchor alone says nothing about the label (permutation).",
        kind: Kind::Choice(&["cell", "permutation"]),
        live: false,
        field: named!(memory_labels, MemoryLabels),
    },
    Knob {
        key: "memory-position",
        doc: "Chapter 2: the memory anchor follows its key (after: [key, m]) or precedes it (before: [m, key]).",
        kind: Kind::Choice(&["after", "before"]),
        live: false,
        field: named!(memory_position, MemoryPosition),
    },
];
