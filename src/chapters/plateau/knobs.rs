//! Chapter 1's config section: its knobs (the inputs n, the kind of attention, the mask strength
//! c and the step it starts), their defaults and presets. It imports only [`crate::schema`];
//! `config` flattens it into the one key schema (`RunConfig::plateau`).

use crate::schema::{count, named, real, Kind, Knob, Preset};
use serde::{Deserialize, Serialize};

/// How attention scores become weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attention {
    /// The paper's linear attention: `A = causal0(q·kᵀ/√d_head)`, no softmax.
    Linear,
    /// Standard causal softmax attention (the paper's appendix variant).
    Softmax,
}

impl Attention {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Attention::Linear => "linear",
            Attention::Softmax => "softmax",
        }
    }

    /// The kind called `name`, `None` for any other text.
    pub fn from_name(name: &str) -> Option<Attention> {
        [Attention::Linear, Attention::Softmax].into_iter().find(|a| a.name() == name)
    }
}

/// Chapter 1's own tasks: the `experiment` values `mws` and `prefix-sum` (the config's `Task`
/// names every chapter's task; chapter 1's is `Task::Sum` of one of these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SumTask {
    /// Moving-window sum, the paper's main task.
    MovingWindow,
    /// Prefix sum.
    Prefix,
}

impl SumTask {
    /// Its `experiment` value.
    pub fn name(self) -> &'static str {
        match self {
            SumTask::MovingWindow => "mws",
            SumTask::Prefix => "prefix-sum",
        }
    }
}

/// Chapter 1's knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Knobs {
    /// Number of inputs n (sequence length 2n+1).
    pub n: usize,
    /// Attention kind.
    pub attention: Attention,
    /// Mask strength on Ω (1 = no mask).
    pub c: f64,
    /// Step from which the mask applies.
    pub c_from: usize,
}

impl Knobs {
    /// The values a run of another chapter carries (and chapter 1's interactive preset's).
    pub const NEUTRAL: Knobs = Knobs { n: 8, attention: Attention::Linear, c: 1.0, c_from: 0 };

    /// Chapter 1's values under `preset`: the authors' n = 16 for `paper`.
    pub fn preset(preset: Preset) -> Knobs {
        match preset {
            Preset::Paper => Knobs { n: 16, ..Knobs::NEUTRAL },
            Preset::Interactive => Knobs::NEUTRAL,
        }
    }
}

/// Chapter 1's keys, in the order the schema lists them.
pub const KNOBS: &[Knob<Knobs>] = &[
    Knob {
        key: "n",
        doc: "Number of input tokens x_1..x_n (the paper uses 16).",
        kind: Kind::Int { min: 2, max: 32 },
        live: false,
        field: count!(n),
    },
    Knob {
        key: "attention",
        doc: "Linear attention as in the paper (no softmax), or softmax.",
        kind: Kind::Choice(&["linear", "softmax"]),
        live: false,
        field: named!(attention, Attention),
    },
    Knob {
        key: "c",
        doc: "Attention-mask strength on the optimal map Ω (1 = off, >1 toward it, <1 away).",
        kind: Kind::Float { min: 0.01, max: 100.0, log: true },
        live: true,
        field: real!(c),
    },
    Knob {
        key: "c-from",
        doc: "Training step from which the mask c is applied.",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: true,
        field: count!(c_from),
    },
];
