//! Chapter 3's config section: its knobs (the language and its lexicon, the SAS regularizer λ
//! and its window, the copy-agreement variants and the init of the reference toy), their defaults
//! and presets. It imports only [`crate::schema`]; `config` flattens it into the one key schema
//! (`RunConfig::syntax`).

use crate::schema::{count, named, real, Kind, Knob, Preset};
use serde::{Deserialize, Serialize};

/// Words per open class (`lexicon`): the full lexicon.
pub const FULL_LEXICON: usize = 10;

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

/// Chapter 3's knobs. Keys added after the first results have serde defaults, so older result
/// files still read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Knobs {
    /// Words per open class of the grammar (10 = the full grammar).
    #[serde(default = "full_lexicon")]
    pub lexicon: usize,
    /// The language.
    #[serde(default)]
    pub grammar: Grammar,
    /// SAS regularizer strength λ.
    pub lambda: f64,
    /// First step of the λ window.
    pub lambda_from: usize,
    /// End (exclusive) of the λ window.
    pub lambda_until: usize,
    /// Draw each block's two output projections N(0, 0.02²) like every other weight (1, the
    /// copy-agreement reference toy's init) instead of the paper's N(0, (0.02/√(2·layers))²) (0).
    #[serde(default)]
    pub flat_out: usize,
    /// The std of W_q and W_k is `qk_init · 0.02` (1 = the paper's init).
    #[serde(default = "one")]
    pub qk_init: f64,
    /// Copy agreement: decoy class tokens per sentence, each a uniform class in a uniform gap
    /// between units (0 = none, the reference language).
    #[serde(default)]
    pub decoys: usize,
    /// Copy agreement: the subject classes drawn independently, with repetition (1), or as a
    /// permutation of the classes (0, the reference language).
    #[serde(default)]
    pub repeat_classes: usize,
    /// Copy agreement: λ's pairs in training are every word of each verb unit with every word of
    /// its own subject unit (1), or each slot with its own subject unit (0).
    #[serde(default)]
    pub sas_unit: usize,
    /// Copy agreement: every word masking selects becomes `MASK` (1, the reference toy's
    /// masking) instead of BERT's 80 % `MASK`, 10 % a random word, 10 % kept (0).
    #[serde(default)]
    pub mask_only: usize,
}

fn full_lexicon() -> usize {
    FULL_LEXICON
}
fn one() -> f64 {
    1.0
}

impl Knobs {
    /// The values a run of another chapter carries (the agreement grammar, λ off).
    pub const NEUTRAL: Knobs = Knobs {
        lexicon: FULL_LEXICON,
        grammar: Grammar::Agreement,
        lambda: 0.0,
        lambda_from: 0,
        lambda_until: 1_000_000,
        flat_out: 0,
        qk_init: 1.0,
        decoys: 0,
        repeat_classes: 0,
        sas_unit: 0,
        mask_only: 0,
    };

    /// Chapter 3's values under `preset` (the reasons are `RunConfig::syntax`'s): the nested
    /// language for `interactive`, the agreement grammar for `paper`; λ off.
    pub fn preset(preset: Preset) -> Knobs {
        match preset {
            Preset::Interactive => Knobs { grammar: Grammar::Nested, ..Knobs::NEUTRAL },
            Preset::Paper => Knobs::NEUTRAL,
        }
    }
}

/// Chapter 3's keys, in the order the schema lists them.
pub const KNOBS: &[Knob<Knobs>] = &[
    Knob {
        key: "lexicon",
        doc: "Chapter 3: words per open class of the grammar (agreement: nouns, verbs, adjectives; nested: nouns, at most 8, and each noun's verbs, at most 3); fewer = lower lexical entropy, so more of the loss is syntax; 10 = the full grammar.",
        kind: Kind::Int { min: 1, max: 10 },
        live: false,
        field: count!(lexicon),
    },
    Knob {
        key: "grammar",
        doc: "Chapter 3's language: agreement (the dependency grammar with number agreement; the paper preset's), nested (centre-embedded clauses whose verb its subject selects, matched by index particles; the interactive default, on 1 layer), nested-verbs (the same with only verbs masked), dyck (typed brackets nested like Dyck words) or copy (copy agreement: 3 centre-embedded clauses, each verb's always-masked slot copies its own subject's class token; lexicon does not apply).",
        kind: Kind::Choice(&["agreement", "nested", "nested-verbs", "dyck", "copy"]),
        live: false,
        field: named!(grammar, Grammar),
    },
    Knob {
        key: "lambda",
        doc: "Chapter 3 SAS regularizer strength: loss = MLM + λ·R; λ > 0 suppresses, λ < 0 promotes.",
        kind: Kind::Float { min: -1.0, max: 1.0, log: false },
        live: true,
        field: real!(lambda),
    },
    Knob {
        key: "lambda-from",
        doc: "First training step at which λ applies.",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: true,
        field: count!(lambda_from),
    },
    Knob {
        key: "lambda-until",
        doc: "Step at which λ stops applying (the window is [from, until)).",
        kind: Kind::Int { min: 0, max: 1_000_000 },
        live: true,
        field: count!(lambda_until),
    },
    Knob {
        key: "flat-out",
        doc: "Chapter 3: draw each block's two output projections (attention out, MLP down) N(0, 0.02²) like every other weight (1, the copy-agreement reference toy's init) or N(0, (0.02/√(2·layers))²) as the paper (0).",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(flat_out),
    },
    Knob {
        key: "qk-init",
        doc: "Chapter 3: the init std of the query and key weights as a multiple of the paper's 0.02 (1 = the paper's; smaller = attention starts closer to uniform).",
        kind: Kind::Float { min: 0.001, max: 10.0, log: true },
        live: false,
        field: real!(qk_init),
    },
    Knob {
        key: "decoys",
        doc: "Chapter 3, copy agreement: decoy class tokens per sentence, each of a uniform class in a uniform gap between two units (or after the last), so that the class token nearest a slot need not be its subject's; 0 = none (the reference language). Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 6 },
        live: false,
        field: count!(decoys),
    },
    Knob {
        key: "repeat-classes",
        doc: "Chapter 3, copy agreement: draw each clause's subject class independently, with repetition (1), so that no slot's class follows by elimination from the others', or as a permutation of the 3 classes (0, the reference language). Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(repeat_classes),
    },
    Knob {
        key: "sas-unit",
        doc: "Chapter 3, copy agreement: the pairs λ acts on in training: each slot with its own subject's class token, noun and particle (0), or every word of each verb unit (particle, verb, slot) with every word of its own subject unit (1), which also covers a relay through the verb's particle or the verb. The sas_reg column always measures the first. Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(sas_unit),
    },
    Knob {
        key: "mask-only",
        doc: "Chapter 3, copy agreement: how a word masking selects is replaced: always by MASK (1, the reference toy's masking) or BERT-style, 80 % MASK, 10 % a random word, 10 % kept (0). The agreement slots are always MASK. Ignored by the other languages.",
        kind: Kind::Int { min: 0, max: 1 },
        live: false,
        field: count!(mask_only),
    },
];
