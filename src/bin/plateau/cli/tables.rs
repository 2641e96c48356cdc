//! The run tables that more than one command reads: the configuration changes a table row makes
//! ([`Pairs`]), and chapter 3's design search ([`SYNTAX_DESIGN`]), which `reproduce syntax-design`
//! runs and `plateau measured` reads back. A leaf: it uses no other module of the CLI, so the
//! commands and `measured` can share it without an import circle (`tests/layers.rs`).

/// The configuration changes of one row of a run table: `(key, value)` pairs.
pub(super) type Pairs = &'static [(&'static str, &'static str)];

/// The chapter 3 design search (issue #35): each line changes the *language* (and, where named,
/// the model), starting from the agreement grammar's interactive configuration
/// (`RunConfig::syntax_agreement`). `(slug, name, folder, changes)`: the runs
/// live in `{csv-dir}/{folder}/{slug}-seed{s}` (the agreement grammar's are the plateau search's
/// own default runs, not trained twice).
pub(super) const SYNTAX_DESIGN: &[(&str, &str, &str, Pairs)] = &[
    ("default", "agreement: the dependency grammar with number agreement", "syntax-search", &[]),
    (
        "nested",
        "nested: centre-embedded clauses, verbs selected by their subject, index particles",
        "syntax-design",
        &[("grammar", "nested")],
    ),
    ("nested-3000", "nested, trained 3000 steps", "syntax-design", &[("grammar", "nested"), ("steps", "3000")]),
    (
        "nested-verbs",
        "nested-verbs: the nested language with only verbs masked",
        "syntax-design",
        &[("grammar", "nested-verbs")],
    ),
    (
        "nested-verbs-1head",
        "nested-verbs on 1 head per layer",
        "syntax-design",
        &[("grammar", "nested-verbs"), ("heads", "1")],
    ),
    ("dyck", "dyck: typed brackets nested like Dyck words", "syntax-design", &[("grammar", "dyck")]),
    // Family (c): one layer, so the arc must be found by a single attention map (chapter 1's
    // regime). The outermost verb's subject is the sentence's first noun: one layer can attend
    // to it (content and position of the key), though not match particles.
    ("nested-1layer", "nested on 1 layer (4 heads)", "syntax-design", &[("grammar", "nested"), ("layers", "1")]),
    (
        "nested-1layer-1head",
        "nested on 1 layer with 1 head",
        "syntax-design",
        &[("grammar", "nested"), ("layers", "1"), ("heads", "1")],
    ),
    (
        "nested-verbs-1layer-1head",
        "nested-verbs on 1 layer with 1 head",
        "syntax-design",
        &[("grammar", "nested-verbs"), ("layers", "1"), ("heads", "1")],
    ),
];
