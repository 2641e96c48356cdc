//! What the command line and the page read of chapter 3's runs ([`View`]).

use super::summary::headline_syntax;
use super::{onsets, Onsets, SyntaxRow};
use crate::config::chapters::ChapterId;
use crate::seeds::{Measure, Value};
use crate::view::View;

impl View for SyntaxRow {
    const CHAPTER: ChapterId = ChapterId::Syntax;
    const MARK_COLUMN: &'static str = "uas_nonadjacent";
    /// The onsets ([`onsets`]).
    type Events = Onsets;

    fn events(rows: &[Self]) -> Onsets {
        onsets(rows)
    }

    /// The verb-loss drop, the subject → verb and the non-adjacent structure onsets, the
    /// minimal-pair onset (the drop of the part of the verb's loss only the subject decides,
    /// [`Onsets`]), the final minimal-pair accuracy and the largest subject → verb UAS.
    fn measures(rows: &[Self]) -> Vec<Measure> {
        let o = onsets(rows);
        let max_uas = rows.iter().map(|r| r.uas_subject).filter(|v| v.is_finite()).fold(f64::NAN, f64::max);
        vec![
            Measure::new("verb-loss drop", Value::Step(o.drop)),
            Measure::new("subject→verb onset", Value::Step(o.subject_onset)),
            Measure::new("non-adjacent onset", Value::Step(o.structure)),
            Measure::new("minimal-pair onset", Value::Step(o.number_drop)),
            Measure::new(
                "final minimal-pair accuracy",
                Value::Number(rows.last().map_or(f64::NAN, |r| r.agreement_acc)),
            ),
            Measure::new("max subject→verb UAS", Value::Number(max_uas)),
        ]
    }

    fn progress(rows: &[Self]) -> (f64, &'static str, f64) {
        let r = rows.last();
        (r.map_or(f64::NAN, |r| r.loss), "uas", r.map_or(f64::NAN, |r| r.uas))
    }

    fn headline(rows: &[Self]) -> Option<String> {
        headline_syntax(rows)
    }

    /// The language's longest sentence and its vocabulary ([`super::language`]).
    fn shape(cfg: &crate::config::RunConfig) -> crate::config::Shape {
        use super::language::{max_len, vocab_size, Draw};
        crate::config::Shape {
            positions: max_len(cfg.syntax.grammar, &Draw::of(cfg)),
            vocab: vocab_size(cfg.syntax.grammar),
        }
    }
}
