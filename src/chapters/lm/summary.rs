//! Chapter 4's summaries: the course of the collapse in one run ([`Course`]), the headline line
//! the page and the CLI print, and the comparison with the paper's LLM figures.

use super::rows::LmRow;

/// The paper's collapse threshold for Pythia: the mean pairwise cosine rises "above 0.9" within
/// a few steps.
pub const COLLAPSED: f64 = 0.9;

/// The paper's LLM figures (Gopalani & Hu, via the seed review; PAPERS.md §A): Pythia 14M, 1B,
/// 1.4B and 2.8B start at a mean pairwise cosine of 0.4–0.65 and rise above 0.9 within a few
/// steps; OLMo-2 7B is at 0.93 at step 150 and 0.43 at step 600.
pub const PYTHIA_INIT: (f64, f64) = (0.4, 0.65);
/// OLMo-2 7B: `(step, mean pairwise cosine)`.
pub const OLMO2: [(usize, f64); 2] = [(150, 0.93), (600, 0.43)];

/// How the hidden-state similarity of the generations moved in a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Course {
    /// `hidden_cos` of the first row (the model at initialization when it is step 0).
    pub init: f64,
    /// The largest `hidden_cos` and the first step it was reached.
    pub peak: (f64, usize),
    /// First step with `hidden_cos ≥ COLLAPSED`.
    pub collapsed: Option<usize>,
    /// Recovery: the first step after the peak at which `hidden_cos` has fallen back by at least
    /// half of its rise, `≤ peak − (peak − init)/2` (none when it never rose).
    pub recovered: Option<usize>,
    /// `hidden_cos` of the last row and its step.
    pub last: (f64, usize),
    /// The largest repetition frequency and its first step.
    pub peak_repetition: (f64, usize),
    /// Repetition at initialization and at the last row.
    pub repetition: (f64, f64),
    /// Held-out loss at the last row.
    pub heldout_loss: f64,
}

/// The [`Course`] of recorded rows (`None` without rows).
pub fn course(rows: &[LmRow]) -> Option<Course> {
    let first = rows.first()?;
    let last = rows.last()?;
    let peak_of = |f: fn(&LmRow) -> f64| {
        rows.iter().filter(|r| f(r).is_finite()).fold((f64::NAN, 0), |(b, bs), r| {
            if b.is_nan() || f(r) > b {
                (f(r), r.step)
            } else {
                (b, bs)
            }
        })
    };
    let peak = peak_of(|r| r.hidden_cos);
    let rise = peak.0 - first.hidden_cos;
    let recovered = (rise > 0.0)
        .then(|| {
            let level = peak.0 - rise / 2.0;
            rows.iter().find(|r| r.step > peak.1 && r.hidden_cos <= level).map(|r| r.step)
        })
        .flatten();
    Some(Course {
        init: first.hidden_cos,
        peak,
        collapsed: rows.iter().find(|r| r.hidden_cos >= COLLAPSED).map(|r| r.step),
        recovered,
        last: (last.hidden_cos, last.step),
        peak_repetition: peak_of(|r| r.repetition),
        repetition: (first.repetition, last.repetition),
        heldout_loss: last.heldout_loss,
    })
}

/// One line with a run's course: "hidden cosine 0.21 at step 0 → peak 0.97 at step 13 →
/// 0.45 at step 1500 (recovered by step 300); repetition peak 0.86 at step 8, 0.04 at the end".
pub fn headline_lm(rows: &[LmRow]) -> Option<String> {
    let c = course(rows)?;
    let recovered = match c.recovered {
        Some(s) => format!("recovered by step {s}"),
        None => "not recovered yet".to_string(),
    };
    Some(format!(
        "hidden cosine {:.2} at step {} → peak {:.2} at step {} → {:.2} at step {} ({recovered}); repetition peak {:.2} at step {}, {:.2} at step {}",
        c.init,
        rows[0].step,
        c.peak.0,
        c.peak.1,
        c.last.0,
        c.last.1,
        c.peak_repetition.0,
        c.peak_repetition.1,
        c.repetition.1,
        c.last.1
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: usize, hidden_cos: f64, repetition: f64) -> LmRow {
        LmRow {
            step,
            loss: 1.0,
            heldout_loss: 2.0,
            repetition,
            hidden_cos,
            distinct_1: 0.5,
            distinct_2: 0.5,
            top_share: 0.1,
            lr: 1e-3,
        }
    }

    #[test]
    fn the_course_of_a_hand_made_run() {
        // 0.3 → 0.95 (step 4) → falls; half the rise (0.325) below the peak is 0.625: step 16.
        let rows = [
            row(0, 0.3, 0.1),
            row(2, 0.92, 0.8),
            row(4, 0.95, 0.9),
            row(8, 0.7, 0.5),
            row(16, 0.6, 0.2),
            row(32, 0.5, 0.1),
        ];
        let c = course(&rows).unwrap();
        assert_eq!(c.init, 0.3);
        assert_eq!(c.peak, (0.95, 4));
        assert_eq!(c.collapsed, Some(2));
        assert_eq!(c.recovered, Some(16));
        assert_eq!(c.last, (0.5, 32));
        assert_eq!(c.peak_repetition, (0.9, 4));
        assert_eq!(c.repetition, (0.1, 0.1));
        assert_eq!(
            headline_lm(&rows).unwrap(),
            "hidden cosine 0.30 at step 0 → peak 0.95 at step 4 → 0.50 at step 32 (recovered by step 16); repetition peak 0.90 at step 4, 0.10 at step 32"
        );
        // A run that only falls never collapsed nor recovered.
        let c = course(&[row(0, 0.5, 0.0), row(1, 0.4, 0.0)]).unwrap();
        assert_eq!((c.collapsed, c.recovered, c.peak), (None, None, (0.5, 0)));
        assert!(course(&[]).is_none());
    }
}
