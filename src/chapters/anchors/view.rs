//! What the command line and the page read of chapter 2's runs ([`View`]).

use super::summary::{answer_step, headline_anchors, summarize_anchors, verdict, Answer, Verdict};
use super::AnchorRow;
use crate::config::chapters::ChapterId;
use crate::seeds::{Measure, Value};
use crate::view::View;

impl View for AnchorRow {
    const CHAPTER: ChapterId = ChapterId::Init;
    const MARK_COLUMN: &'static str = "acc_inferential";
    /// `{answer, step}` on the held-out pair ([`verdict`]); none without rows.
    type Events = Option<Verdict>;

    fn events(rows: &[Self]) -> Option<Verdict> {
        verdict(rows)
    }

    /// The held-out answer at the end and the step since which it held ([`answer_step`]), the
    /// most negative key order correlation, and the final seen-pair (reasoning) accuracy.
    fn measures(rows: &[Self]) -> Vec<Measure> {
        let Some(last) = rows.last() else { return vec![] };
        let s = summarize_anchors(rows, 0.0, 0, 0.0);
        vec![
            Measure::new("(4,3) answer", Value::Category(Answer::of(last.acc_inferential, last.acc_symmetric).name())),
            Measure::new("answer settled at", Value::Step(answer_step(rows))),
            Measure::new("most negative key order correlation", Value::Number(s.min_key_corr)),
            Measure::new("final seen-pair accuracy", Value::Number(last.acc_reasoning)),
        ]
    }

    fn progress(rows: &[Self]) -> (f64, &'static str, f64) {
        let r = rows.last();
        (r.map_or(f64::NAN, |r| r.loss), "acc_heldout", r.map_or(f64::NAN, |r| r.acc_heldout))
    }

    fn headline(rows: &[Self]) -> Option<String> {
        headline_anchors(rows)
    }

    /// `seq-len` positions and the 100 tokens.
    fn shape(cfg: &crate::config::RunConfig) -> crate::config::Shape {
        crate::config::Shape { positions: cfg.anchors.seq_len, vocab: super::data::VOCAB }
    }
}
