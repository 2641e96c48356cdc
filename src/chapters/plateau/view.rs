//! What the command line and the page read of chapter 1's runs ([`View`]).

use super::summary::{first_step, headline_plateau, DROP_ACC};
use super::MetricRow;
use crate::config::chapters::ChapterId;
use crate::seeds::{Measure, Value};
use crate::view::View;

/// Chapter 1's events: `{drop}`, the first recorded step with test accuracy ≥ [`DROP_ACC`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Events {
    /// The drop's step.
    pub drop: Option<usize>,
}

impl View for MetricRow {
    const CHAPTER: ChapterId = ChapterId::Plateau;
    const MARK_COLUMN: &'static str = "apm";
    type Events = Events;

    fn events(rows: &[Self]) -> Events {
        Events { drop: first_step(rows, |r| r.test_acc >= DROP_ACC) }
    }

    /// The drop step (first evaluation with test accuracy ≥ [`DROP_ACC`]), the final test
    /// accuracy, repetition and APM.
    fn measures(rows: &[Self]) -> Vec<Measure> {
        let last = rows.last();
        let at = |f: fn(&MetricRow) -> f64| Value::Number(last.map_or(f64::NAN, f));
        vec![
            Measure::new("drop step", Value::Step(first_step(rows, |r| r.test_acc >= DROP_ACC))),
            Measure::new("final test accuracy", at(|r| r.test_acc)),
            Measure::new("final repetition", at(|r| r.repetition)),
            Measure::new("final APM", at(|r| r.apm)),
        ]
    }

    fn progress(rows: &[Self]) -> (f64, &'static str, f64) {
        let r = rows.last();
        (r.map_or(f64::NAN, |r| r.loss), "test_acc", r.map_or(f64::NAN, |r| r.test_acc))
    }

    fn headline(rows: &[Self]) -> Option<String> {
        headline_plateau(rows)
    }

    /// The `2n` positions the model reads ([`super::data::input_positions`]) and the 18 tokens.
    fn shape(cfg: &crate::config::RunConfig) -> crate::config::Shape {
        crate::config::Shape { positions: super::data::input_positions(cfg.plateau.n), vocab: super::data::VOCAB }
    }
}
