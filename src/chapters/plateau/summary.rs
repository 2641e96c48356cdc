//! Summaries of finished runs and the generated sections of `REPRODUCTION.md`.
//!
//! Every number in a report comes from a recorded [`History`]; nothing is typed in by hand.
//! Sections are delimited by `<!-- BEGIN name -->` / `<!-- END name -->` so that a command can
//! rewrite its own section and leave the others alone.

use super::rows::{MetricRow, Snapshot};
use crate::history::History;

// The sections of REPRODUCTION.md: written by the command line, never by the page.
#[cfg(feature = "engine")]
mod section;
#[cfg(feature = "engine")]
pub use section::*;

/// Test accuracy that counts as "the drop has happened".
pub const DROP_ACC: f64 = 0.5;

/// Training-batch first-output accuracy at which the authors' code counts the partial solution
/// as learnt.
pub const PARTIAL_TRAIN_ACC: f64 = 0.95;

/// The key numbers of one chapter 1 run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunSummary {
    /// Seed.
    pub seed: u64,
    /// Mask strength.
    pub c: f64,
    /// Steps trained.
    pub steps: usize,
    /// First evaluated step with test accuracy ≥ [`DROP_ACC`].
    pub drop_step: Option<usize>,
    /// First evaluated step with first-token accuracy ≥ 0.9 (the partial solution).
    pub partial_step: Option<usize>,
    /// First evaluated step with the training batch's teacher-forced first-output accuracy ≥
    /// [`PARTIAL_TRAIN_ACC`] (the authors' partial solution; `None` in summaries written before
    /// the column existed).
    #[serde(default)]
    pub partial_step_train: Option<usize>,
    /// Largest repetition frequency before the drop (whole run when there is none), step 0 excluded.
    pub peak_repetition: f64,
    /// Largest mean hidden cosine before the drop (whole run when there is none), step 0 excluded.
    pub peak_hidden_cos: f64,
    /// APM at step 0.
    pub apm_start: f64,
    /// APM at the last evaluated step before the drop (`None` without a drop).
    pub apm_before_drop: Option<f64>,
    /// APM at the drop step itself (`None` without a drop, or in older summaries).
    #[serde(default)]
    pub apm_at_drop: Option<f64>,
    /// APM at the end.
    pub apm_end: f64,
    /// Training loss at the end.
    pub final_loss: f64,
    /// Output-only training loss at the end.
    pub final_output_loss: f64,
    /// Test accuracy at the end.
    pub final_test_acc: f64,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// First evaluated step at which `pred` holds.
pub fn first_step(rows: &[MetricRow], pred: impl Fn(&MetricRow) -> bool) -> Option<usize> {
    rows.iter().find(|r| pred(r)).map(|r| r.step)
}

/// Summarizes a run's history.
pub fn summarize(h: &History<MetricRow, Snapshot>, seed: u64, c: f64, wall_s: f64) -> RunSummary {
    let rows = &h.rows;
    let last = rows.last().expect("a run records at least one row");
    let drop_step = first_step(rows, |r| r.test_acc >= DROP_ACC);
    let plateau: Vec<&MetricRow> = rows.iter().filter(|r| r.step > 0 && drop_step.is_none_or(|d| r.step < d)).collect();
    let peak = |f: fn(&MetricRow) -> f64| plateau.iter().map(|r| f(r)).fold(f64::NAN, f64::max);
    RunSummary {
        seed,
        c,
        steps: last.step,
        drop_step,
        partial_step: first_step(rows, |r| r.first_token_acc >= 0.9),
        partial_step_train: first_step(rows, |r| r.train_first_acc >= PARTIAL_TRAIN_ACC),
        peak_repetition: peak(|r| r.repetition),
        peak_hidden_cos: peak(|r| r.hidden_cos),
        apm_start: rows[0].apm,
        apm_before_drop: drop_step.and_then(|d| rows.iter().rev().find(|r| r.step < d).map(|r| r.apm)),
        apm_at_drop: drop_step.and_then(|d| rows.iter().find(|r| r.step == d).map(|r| r.apm)),
        apm_end: last.apm,
        final_loss: last.loss,
        final_output_loss: last.output_loss,
        final_test_acc: last.test_acc,
        wall_s,
    }
}

fn opt_step(s: Option<usize>) -> String {
    s.map_or("—".into(), |v| v.to_string())
}

fn opt_f(s: Option<f64>) -> String {
    s.map_or("—".into(), |v| format!("{v:.3}"))
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The markdown table of a set of runs, one row each.
pub fn table(runs: &[RunSummary]) -> String {
    let mut s = String::from(
        "| c | seed | drop step (test acc ≥ 0.5) | partial solution step | peak repetition | peak hidden cos | APM start | APM before drop | APM end | final loss | final output loss | final test acc | wall s |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in runs {
        s += &format!(
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.0} |\n",
            r.c,
            r.seed,
            opt_step(r.drop_step),
            opt_step(r.partial_step),
            r.peak_repetition,
            r.peak_hidden_cos,
            r.apm_start,
            opt_f(r.apm_before_drop),
            r.apm_end,
            r.final_loss,
            r.final_output_loss,
            r.final_test_acc,
            r.wall_s
        );
    }
    s
}

/// Mean drop step over the runs with mask strength `c` (runs without a drop count as their
/// step budget, flagged by the second value).
pub fn mean_drop(runs: &[RunSummary], c: f64) -> Option<(f64, usize)> {
    let sel: Vec<&RunSummary> = runs.iter().filter(|r| r.c == c).collect();
    let missing = sel.iter().filter(|r| r.drop_step.is_none()).count();
    mean(&sel.iter().map(|r| r.drop_step.unwrap_or(r.steps) as f64).collect::<Vec<_>>()).map(|m| (m, missing))
}

/// The comparison with the paper's claims, stated from the numbers.
pub fn comparison(runs: &[RunSummary], paper_preset: bool) -> String {
    let mut out = String::new();
    let describe = |c: f64| match mean_drop(runs, c) {
        Some((m, 0)) => format!("mean drop step {m:.0}"),
        Some((m, k)) => format!("mean drop step ≥ {m:.0} ({k} run(s) never reached test accuracy 0.5)"),
        None => "not run".into(),
    };
    let base = mean_drop(runs, 1.0);
    out += &format!("- **c = 1 (no mask):** {}.", describe(1.0));
    if paper_preset {
        out += " The paper reports the drop near step 150.";
    }
    out += "\n";
    let mut cs: Vec<f64> = runs.iter().map(|r| r.c).collect();
    cs.sort_by(f64::total_cmp);
    cs.dedup();
    for c in cs.into_iter().filter(|&c| c != 1.0) {
        let expect = if c > 1.0 { "earlier" } else { "later" };
        let verdict = match (mean_drop(runs, c), base) {
            (Some((m, _)), Some((b, _))) => {
                let holds = if c > 1.0 { m < b } else { m > b };
                format!(
                    "{} (paper: {expect}) — {}",
                    describe(c),
                    if holds { "as in the paper" } else { "**differs from the paper**" }
                )
            }
            _ => describe(c),
        };
        out += &format!("- **c = {c}:** {verdict}.\n");
    }
    let group = |pred: fn(f64) -> bool, f: fn(&RunSummary) -> f64| {
        mean(&runs.iter().filter(|r| pred(r.c)).map(f).collect::<Vec<_>>())
    };
    let (rep1, rep_hi) = (group(|c| c == 1.0, |r| r.peak_repetition), group(|c| c > 1.0, |r| r.peak_repetition));
    let (cos1, cos_hi) = (group(|c| c == 1.0, |r| r.peak_hidden_cos), group(|c| c > 1.0, |r| r.peak_hidden_cos));
    if let (Some(a), Some(b), Some(x), Some(y)) = (rep1, rep_hi, cos1, cos_hi) {
        out += &format!(
            "- **Repetition and collapse for c > 1:** mean peak repetition {b:.3} vs {a:.3} at c = 1 ({}); mean peak hidden cosine {y:.3} vs {x:.3} ({}). The paper: both weaker for c > 1.\n",
            if b < a { "weaker, as in the paper" } else { "**not weaker**" },
            if y < x { "weaker, as in the paper" } else { "**not weaker**" },
        );
    }
    let rising: Vec<&RunSummary> = runs.iter().filter(|r| r.apm_before_drop.is_some()).collect();
    if !rising.is_empty() {
        let up = rising.iter().filter(|r| r.apm_before_drop.unwrap() > r.apm_start).count();
        out += &format!(
            "- **APM before the drop:** higher than at step 0 in {up} of {} runs that dropped (the paper: APM grows through the plateau, before the drop).\n",
            rising.len()
        );
    }
    out
}

/// One line with a chapter 1 run's key numbers (the page's runs table and comparison): the
/// drop step (test accuracy ≥ 0.5) and the final test accuracy. `None` without rows.
pub fn headline_plateau(rows: &[MetricRow]) -> Option<String> {
    let last = rows.last()?;
    let drop = crate::chapters::plateau::summary::first_step(rows, |r| {
        r.test_acc >= crate::chapters::plateau::summary::DROP_ACC
    });
    Some(format!(
        "{} at step {}; test accuracy {:.2}",
        drop.map_or("no drop yet".to_string(), |d| format!("drop at step {d}")),
        last.step,
        last.test_acc
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: usize, acc: f64, rep: f64, apm: f64) -> MetricRow {
        MetricRow {
            step,
            loss: 2.0,
            output_loss: 2.5,
            train_acc: acc,
            test_acc: acc,
            first_token_acc: 1.0,
            repetition: rep,
            data_repetition: 0.06,
            apm,
            hidden_cos: rep,
            test_loss: 2.0,
            test_output_loss: 2.5,
            mask_c: 1.0,
            train_first_acc: acc,
            position_acc: vec![],
        }
    }

    #[test]
    fn the_drop_event_is_the_first_row_at_half_test_accuracy() {
        let rows = [row(0, 0.0, 0.1, 0.0), row(25, 0.49, 0.1, 0.0), row(50, 0.5, 0.1, 0.0), row(75, 0.3, 0.1, 0.0)];
        use crate::chapters::plateau::view::Events;
        use crate::view::View;
        let e = MetricRow::events(&rows);
        assert_eq!(e, Events { drop: Some(50) });
        assert_eq!(serde_json::to_string(&e).unwrap(), r#"{"drop":50}"#, "the page reads `drop`");
        assert_eq!(MetricRow::events(&rows[..2]), Events { drop: None });
    }

    #[test]
    fn summary_finds_drop_and_plateau_peaks() {
        let h = History {
            rows: vec![row(0, 0.0, 0.9, 0.1), row(10, 0.1, 0.7, 0.3), row(20, 0.6, 0.2, 0.8), row(30, 1.0, 0.95, 0.9)],
            snapshots: vec![],
        };
        let s = summarize(&h, 1, 1.0, 3.0);
        assert_eq!(s.drop_step, Some(20));
        assert_eq!(s.peak_repetition, 0.7, "step 0 and post-drop rows are excluded");
        assert_eq!(s.apm_before_drop, Some(0.3));
        assert_eq!(s.apm_at_drop, Some(0.8));
        assert_eq!(s.partial_step_train, Some(30), "the first row with training first-output accuracy ≥ 0.95");
        assert_eq!((s.apm_start, s.apm_end), (0.1, 0.9));
    }

    #[test]
    fn comparison_states_direction_from_numbers() {
        let mk = |c: f64, d: Option<usize>| RunSummary {
            seed: 0,
            c,
            steps: 400,
            drop_step: d,
            partial_step: Some(10),
            partial_step_train: Some(5),
            peak_repetition: 0.5,
            peak_hidden_cos: 0.9,
            apm_start: 0.1,
            apm_before_drop: Some(0.5),
            apm_at_drop: Some(0.6),
            apm_end: 0.9,
            final_loss: 1.3,
            final_output_loss: 0.1,
            final_test_acc: 1.0,
            wall_s: 1.0,
        };
        let text = comparison(&[mk(1.0, Some(150)), mk(2.5, Some(100)), mk(0.5, None)], true);
        assert!(text.contains("c = 2.5:** mean drop step 100 (paper: earlier) — as in the paper"), "{text}");
        assert!(text.contains("c = 0.5:** mean drop step ≥ 400 (1 run(s)"), "{text}");
    }
}
