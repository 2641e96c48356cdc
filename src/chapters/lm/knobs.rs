//! Chapter 4's config section: its one knob (the log-spaced evaluations where the collapse
//! happens), its default and presets. It imports only [`crate::schema`]; `config` flattens it
//! into the one key schema (`RunConfig::lm`).

use crate::schema::{count, Kind, Knob, Preset};
use serde::{Deserialize, Serialize};

/// Chapter 4's knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Knobs {
    /// Evaluate on the log-spaced schedule dense at the start as well (1), or only every
    /// `eval-every` steps (0).
    #[serde(default = "one")]
    pub log_evals: usize,
}

fn one() -> usize {
    1
}

impl Knobs {
    /// The values a run of another chapter carries (and both of chapter 4's presets').
    pub const NEUTRAL: Knobs = Knobs { log_evals: 1 };

    /// Chapter 4's values under `preset`: the log-spaced evaluations on in both.
    pub fn preset(_preset: Preset) -> Knobs {
        Knobs::NEUTRAL
    }
}

/// Chapter 4's keys, in the order the schema lists them.
pub const KNOBS: &[Knob<Knobs>] = &[
    Knob {
        key: "log-evals",
        doc: "Chapter 4: also evaluate on a log-spaced schedule dense at the start (every step up to 8, then four per doubling), where the collapse happens (1), or only every eval-every steps (0).",
        kind: Kind::Int { min: 0, max: 1 },
        live: true,
        field: count!(log_evals),
    },
];
