//! What the command line and the page read of chapter 4's runs ([`View`]).

use super::summary::{course, headline_lm, Course};
use super::LmRow;
use crate::config::chapters::ChapterId;
use crate::seeds::{Measure, Value};
use crate::view::View;

impl View for LmRow {
    const CHAPTER: ChapterId = ChapterId::Text;
    const MARK_COLUMN: &'static str = "top_share";
    /// The course of the hidden-state similarity ([`course`]); none without rows.
    type Events = Option<Course>;

    fn events(rows: &[Self]) -> Option<Course> {
        course(rows)
    }

    /// The hidden cosine at initialization, its peak, when it passed 0.9 and recovered, its last
    /// value, and the repetition peak ([`Course`]).
    fn measures(rows: &[Self]) -> Vec<Measure> {
        let c = course(rows);
        let num = |f: fn(&Course) -> f64| Value::Number(c.as_ref().map_or(f64::NAN, f));
        vec![
            Measure::new("hidden cosine at step 0", num(|c| c.init)),
            Measure::new("peak hidden cosine", num(|c| c.peak.0)),
            Measure::new("collapse (hidden cosine ≥ 0.9)", Value::Step(c.as_ref().and_then(|c| c.collapsed))),
            Measure::new("recovery", Value::Step(c.as_ref().and_then(|c| c.recovered))),
            Measure::new("final hidden cosine", num(|c| c.last.0)),
            Measure::new("peak repetition", num(|c| c.peak_repetition.0)),
        ]
    }

    fn progress(rows: &[Self]) -> (f64, &'static str, f64) {
        let r = rows.last();
        (r.map_or(f64::NAN, |r| r.loss), "hidden_cos", r.map_or(f64::NAN, |r| r.hidden_cos))
    }

    fn headline(rows: &[Self]) -> Option<String> {
        headline_lm(rows)
    }

    /// The context and the subword vocabulary ([`super::corpus`]).
    fn shape(_cfg: &crate::config::RunConfig) -> crate::config::Shape {
        crate::config::Shape { positions: super::corpus::CONTEXT, vocab: super::corpus::VOCAB }
    }
}
