//! Chapter 3's records: one [`SyntaxRow`] per evaluated step (its first six CSV columns are a
//! contract) and [`SyntaxSnapshot`]s of the best head on the showcase sentence.

use super::metrics::{Direction, SlotMetrics};
use crate::config::RunConfig;
use crate::history::{AtStep, Record, Row};
use serde::{Deserialize, Serialize};

/// The CSV columns of a chapter 3 row, in order. The first six are a contract (other tools read
/// them); the rest are extra.
pub const CSV_COLUMNS: &[&str] = SyntaxRow::PLAIN_COLUMNS;

/// The columns appended after [`CSV_COLUMNS`] in a run of the copy-agreement language only
/// (`grammar = copy`; [`SyntaxRow::slots`]): the loss at the always-masked agreement slots of
/// the held-out batch, by the slot's clause depth (0 the outermost), the slots' top-1
/// accuracy, and the best head's UAS on the slot → subject unit arcs (its class token, noun or
/// particle) with its fixed-offset guess (NaN when read from a file written before them). Other grammars write none of them, so their files (the golden ones included) keep
/// their columns; read back, a file without them has `slots = None`.
pub const SLOT_COLUMNS: &[&str] = &[
    "slot_loss",
    "slot_loss_d0",
    "slot_loss_d1",
    "slot_loss_d2",
    "slot_acc",
    "uas_subject_unit",
    "offset_uas_subject_unit",
];

crate::csv_row! {
    /// Metrics of one evaluated step (the model after `step` updates).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    pub struct SyntaxRow {
        /// Updates done.
        pub step: usize => int,
        /// MLM cross-entropy on the masked positions of this step's training batch (without λ·R).
        pub loss: f64 => num,
        /// MLM cross-entropy on a fresh held-out batch, masked the same way.
        pub heldout_loss: f64 => num,
        /// UAS of the best head and direction on the unmasked held-out sentences.
        pub uas: f64 => num,
        /// Share of agreement minimal pairs whose masked main verb gets a higher logit in the right
        /// number than in the wrong one.
        pub agreement_acc: f64 => num,
        /// The SAS regularizer R on the unmasked held-out sentences.
        pub sas_reg: f64 => num,
        /// Layer of the best head (0-based).
        pub best_layer: usize => int,
        /// Index of the best head within its layer (0-based).
        pub best_head: usize => int,
        /// `"dep->head"` (word attends to its head) or `"head->dep"` (the transpose).
        pub best_direction: String => text,
        /// UAS of the best fixed-offset baseline on the same sentences.
        pub offset_uas: f64 => num,
        /// R on this step's training batch (masked inputs, as the regularizer sees it).
        pub train_reg: f64 => num,
        /// The λ in force at this step (0 outside the window).
        pub lambda: f64 => num,
        /// The probe restricted to one relation, the main subject → main verb arc (nsubj, the long
        /// arc that agreement needs): best head and direction, scored on that arc only.
        pub uas_subject: f64 => num,
        /// The best fixed-offset guess on the same arcs.
        pub offset_uas_subject: f64 => num,
        /// Cross-entropy of the main verb, masked alone, in the [`VERB_ITEMS`](super::VERB_ITEMS) fixed held-out
        /// sentences whose subject stands [`VERB_MIN_DISTANCE`](super::VERB_MIN_DISTANCE) or more words before it
        /// ([`verb_items`](super::verb_items)): the loss where syntax matters. Its number is given only by the distant
        /// subject, so it sits near its lexical floor + ln 2 until agreement is learned.
        pub verb_loss: f64 => num,
        /// UAS of the best head and direction over the non-adjacent arcs only (`|head − i| ≥ 2`,
        /// [`super::metrics::nonadjacent_arcs`]) of the [`PROBE_SENTENCES`](super::PROBE_SENTENCES) fixed held-out sentences, unmasked.
        pub uas_nonadjacent: f64 => num,
        /// The best fixed-offset guess on the same arcs (constant over a run: the set is fixed).
        pub offset_uas_nonadjacent: f64 => num,
        /// Mean log-odds of the right verb number over the wrong one on the agreement minimal pairs
        /// ([`super::metrics::agreement_logodds`]): 0 at chance.
        pub agreement_logodds: f64 => num,
        /// The number part of `verb_loss` on the same items: the cross-entropy of the right verb
        /// form against its other-number twin only ([`super::metrics::pair_loss`]; ln 2 at chance).
        pub verb_number_loss: f64 => num,
    }
    extra {
        /// Copy agreement only ([`SLOT_COLUMNS`]): the held-out batch's slot loss, by depth, and
        /// accuracy ([`super::metrics::slot_metrics`]); `None` for the other grammars.
        #[serde(default)]
        pub slots: Option<SlotMetrics>,
    }
}

/// The best head's view of the showcase sentence ([`showcase_sentence`](super::showcase_sentence), the same at every step)
/// at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyntaxSnapshot {
    /// Updates done.
    pub step: usize,
    /// The showcase sentence's words.
    pub words: Vec<String>,
    /// Its gold heads (`-1` for the root).
    pub heads: Vec<i64>,
    /// Attention of every layer and head on it, `[layers, heads, len, len]` row-major.
    pub attention: Vec<f32>,
    /// Layers and heads of `attention`.
    pub layers: usize,
    /// Heads per layer.
    pub n_heads: usize,
    /// The best head (over the held-out batch) at this step.
    pub best_layer: usize,
    /// The best head's index.
    pub best_head: usize,
    /// Whether the best head reads the transpose (head → dependent).
    pub transposed: bool,
    /// UAS of every head and direction, `[layers, heads, 2]` (dep→head, head→dep).
    pub head_uas: Vec<f64>,
    /// The best head's predicted head of every word of the sentence (the probe's rule), `-1`
    /// where there is none.
    pub pred: Vec<i64>,
    /// The attention weight of each predicted arc.
    pub pred_weight: Vec<f32>,
    /// Words of the sentence whose predicted head is the gold head.
    pub sample_right: usize,
    /// Words of the sentence that are scored (all but the root).
    pub sample_scored: usize,
}

impl AtStep for SyntaxSnapshot {
    fn step(&self) -> usize {
        self.step
    }
}

/// The CSV name of a probe direction.
pub fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::DependentToHead => "dep->head",
        Direction::HeadToDependent => "head->dep",
    }
}

impl Row for SyntaxRow {
    /// [`CSV_COLUMNS`], then [`SLOT_COLUMNS`] for `grammar = copy`.
    fn columns(cfg: &RunConfig) -> Vec<String> {
        columns_for(cfg.syntax.grammar == crate::config::Grammar::Copy)
    }

    fn cells(&self) -> Vec<String> {
        let slots = self
            .slots
            .iter()
            .flat_map(|x| [x.loss, x.by_depth[0], x.by_depth[1], x.by_depth[2], x.acc, x.unit_uas, x.unit_offset]);
        self.plain_cells().into_iter().chain(slots.map(|v| v.to_string())).collect()
    }

    fn read(rec: &Record) -> Result<SyntaxRow, String> {
        let n = |i: usize| rec.num(SLOT_COLUMNS[i]);
        let slots = match rec.text(SLOT_COLUMNS[0]) {
            Err(_) => None,
            Ok(_) => Some(SlotMetrics {
                loss: n(0)?,
                by_depth: [n(1)?, n(2)?, n(3)?],
                acc: n(4)?,
                // written since the unit UAS was added: NaN in older files
                unit_uas: rec.num_or_nan(SLOT_COLUMNS[5])?,
                unit_offset: rec.num_or_nan(SLOT_COLUMNS[6])?,
            }),
        };
        SyntaxRow::read_plain(rec, slots)
    }
}

/// [`CSV_COLUMNS`], followed by [`SLOT_COLUMNS`] when `slots`.
fn columns_for(slots: bool) -> Vec<String> {
    let extra: &[&str] = if slots { SLOT_COLUMNS } else { &[] };
    CSV_COLUMNS.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// Rows as CSV ([`CSV_COLUMNS`], and [`SLOT_COLUMNS`] when the rows have them, then one line per
/// row).
pub fn to_csv(rows: &[SyntaxRow]) -> String {
    crate::history::to_csv(&columns_for(rows.first().is_some_and(|r| r.slots.is_some())), rows)
}

/// Rows back from [`to_csv`]'s text ([`crate::history::from_csv`]: columns found by name, so a
/// file with extra columns reads too; an error names the first line or column that does not parse).
pub fn from_csv(text: &str) -> Result<Vec<SyntaxRow>, String> {
    crate::history::from_csv(text)
}

/// The events of a run, each the end of a plateau ([`super::metrics::plateau_end`] with [`super::metrics::PLATEAU_RULE`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Onsets {
    /// Structure onset: the non-adjacent UAS (`uas_nonadjacent`) leaves its plateau upward.
    pub structure: Option<usize>,
    /// The loss drop: `verb_loss` (the loss where syntax matters) leaves its plateau downward.
    pub drop: Option<usize>,
    /// The same rule on the overall held-out MLM loss (`heldout_loss`).
    pub heldout_drop: Option<usize>,
    /// The same rule on the all-arc UAS (`uas`).
    pub uas_onset: Option<usize>,
    /// The same rule on `verb_number_loss`, the part of the verb's loss only its number decides.
    pub number_drop: Option<usize>,
    /// The same rule rising on the subject → verb UAS (`uas_subject`): the arcs `verb_loss` needs.
    pub subject_onset: Option<usize>,
}

/// The events of recorded rows (see [`Onsets`]).
pub fn onsets(rows: &[SyntaxRow]) -> Onsets {
    let steps: Vec<usize> = rows.iter().map(|r| r.step).collect();
    let col = |f: fn(&SyntaxRow) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
    Onsets {
        structure: crate::chapters::syntax::metrics::structure_onset(&steps, &col(|r| r.uas_nonadjacent)),
        drop: crate::chapters::syntax::metrics::loss_drop_step(&steps, &col(|r| r.verb_loss)),
        heldout_drop: crate::chapters::syntax::metrics::loss_drop_step(&steps, &col(|r| r.heldout_loss)),
        uas_onset: crate::chapters::syntax::metrics::structure_onset(&steps, &col(|r| r.uas)),
        number_drop: crate::chapters::syntax::metrics::loss_drop_step(&steps, &col(|r| r.verb_number_loss)),
        subject_onset: crate::chapters::syntax::metrics::structure_onset(&steps, &col(|r| r.uas_subject)),
    }
}
