//! What the runs measured by the command-line tool at one configuration show, in one line: the
//! "measured" half of each try-this step on the page. It reads the columns the measured-runs file
//! keeps (`plateau measured`: step and each chapter's hero columns) and applies each chapter's own
//! rule to them — chapter 1's drop ([`DROP_ACC`]), chapter 2's held-out answer ([`Answer::of`]),
//! chapter 3's loss drop ([`loss_drop_step`]), chapter 4's hidden-cosine peak — so the page never
//! computes one of these numbers itself.

use crate::chapters::anchors::summary::Answer;
use crate::chapters::plateau::summary::DROP_ACC;
use crate::chapters::syntax::metrics::loss_drop_step;
use crate::config::chapters::ChapterId;
pub use crate::measured::MeasuredRun;

/// One line on the runs of one configuration of `experiment` (`mws`, `prefix-sum`, `anchors`,
/// `syntax`, `lm`), whose rows hold `columns`; `None` when the experiment is not one of them, the
/// columns it needs are missing or there are no runs.
pub fn measured_outcome(experiment: &str, columns: &[String], runs: &[MeasuredRun]) -> Option<String> {
    if runs.is_empty() {
        return None;
    }
    let idx = |name: &str| columns.iter().position(|c| c == name);
    let column = |run: &MeasuredRun, k: usize| -> Vec<f64> {
        run.rows.iter().map(|r| r.get(k).copied().flatten().unwrap_or(f64::NAN)).collect()
    };
    let steps = |run: &MeasuredRun| -> Option<Vec<usize>> {
        let k = idx("step")?;
        Some(column(run, k).iter().map(|&s| if s.is_finite() && s >= 0.0 { s as usize } else { 0 }).collect())
    };
    let n = runs.len();
    let seeds = runs.iter().map(|r| r.seed.to_string()).collect::<Vec<_>>().join(", ");
    match crate::config::Task::parse(experiment)?.chapter() {
        ChapterId::Plateau => {
            let acc = idx("test_acc")?;
            let drops: Vec<Option<usize>> = runs
                .iter()
                .map(|r| {
                    let s = steps(r)?;
                    s.iter().zip(column(r, acc)).find(|(_, a)| *a >= DROP_ACC).map(|(&s, _)| s)
                })
                .collect();
            let list = drops.iter().map(|d| d.map_or("none".into(), |s| s.to_string())).collect::<Vec<_>>().join(", ");
            let dropped = drops.iter().filter(|d| d.is_some()).count();
            Some(format!(
                "measured: the drop (test accuracy ≥ {DROP_ACC}) in {dropped} of {n} runs, at step {list} (seeds {seeds})"
            ))
        }
        ChapterId::Init => {
            let (inf, sym) = (idx("acc_inferential")?, idx("acc_symmetric")?);
            let mut counts = [0usize; 3];
            for r in runs {
                let last = |k: usize| column(r, k).last().copied().unwrap_or(f64::NAN);
                counts[match Answer::of(last(inf), last(sym)) {
                    Answer::Inferential => 0,
                    Answer::Symmetric => 1,
                    Answer::Neither => 2,
                }] += 1;
            }
            Some(format!(
                "measured: the held-out pair answered inferentially in {} of {n} runs, symmetrically in {}, neither in {} (seeds {seeds})",
                counts[0], counts[1], counts[2]
            ))
        }
        ChapterId::Syntax => {
            let verb = idx("verb_loss")?;
            let mut at: Vec<usize> = runs.iter().filter_map(|r| loss_drop_step(&steps(r)?, &column(r, verb))).collect();
            at.sort_unstable();
            let when = if at.is_empty() { String::new() } else { format!(", at step {} (median)", median_step(&at)) };
            Some(format!(
                "measured: the far-subject verb loss leaves its plateau in {} of {n} runs{when} (seeds {seeds})",
                at.len()
            ))
        }
        ChapterId::Text => {
            let cos = idx("hidden_cos")?;
            let mut peaks: Vec<f64> = runs
                .iter()
                .map(|r| column(r, cos).into_iter().filter(|v| v.is_finite()).fold(f64::NAN, f64::max))
                .collect();
            let mut ends: Vec<f64> =
                runs.iter().map(|r| column(r, cos).into_iter().rfind(|v| v.is_finite()).unwrap_or(f64::NAN)).collect();
            Some(format!(
                "measured: the hidden-state cosine peaks at {:.2} and ends at {:.2} (medians of {n} runs, seeds {seeds})",
                median(&mut peaks),
                median(&mut ends)
            ))
        }
    }
}

/// When the runs measured at one configuration reached the chapter's event, for the status line
/// while the live run has not reached it yet ("measured runs: the drop at step 225, about 6 s
/// here"): by the same rules as [`measured_outcome`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeasuredEvent {
    /// The event in the page's words: "the drop", "answers by the rule", "answers as the mirror
    /// pair", "the loss falls", "recovery".
    pub what: &'static str,
    /// The median step ([`median_step`]) over the runs that reached it.
    pub step: usize,
    /// How many runs reached it.
    pub reached: usize,
    /// How many runs were measured.
    pub runs: usize,
}

/// The [`MeasuredEvent`] of the runs of one configuration of `experiment`, whose rows hold
/// `columns`: chapter 1's drop (the first evaluation with test accuracy ≥ [`DROP_ACC`]), chapter
/// 2's settled answer on the held-out pair (the answer most runs settle on and the step from
/// which it held, [`crate::chapters::anchors::summary::settled`]), chapter 3's loss drop
/// ([`loss_drop_step`]), chapter 4's recovery ([`crate::chapters::lm::summary::recovery`]).
/// `None` when no run reached it or the columns it needs are missing.
pub fn measured_event(experiment: &str, columns: &[String], runs: &[MeasuredRun]) -> Option<MeasuredEvent> {
    let idx = |name: &str| columns.iter().position(|c| c == name);
    let column = |run: &MeasuredRun, k: usize| -> Vec<f64> {
        run.rows.iter().map(|r| r.get(k).copied().flatten().unwrap_or(f64::NAN)).collect()
    };
    let s = idx("step")?;
    let steps = |run: &MeasuredRun| -> Vec<usize> {
        column(run, s).iter().map(|&v| if v.is_finite() && v >= 0.0 { v as usize } else { 0 }).collect()
    };
    let (what, mut at): (&'static str, Vec<usize>) = match crate::config::Task::parse(experiment)?.chapter() {
        ChapterId::Plateau => {
            let acc = idx("test_acc")?;
            let at = runs
                .iter()
                .filter_map(|r| steps(r).into_iter().zip(column(r, acc)).find(|(_, a)| *a >= DROP_ACC).map(|(s, _)| s))
                .collect();
            ("the drop", at)
        }
        ChapterId::Init => {
            let (inf, sym) = (idx("acc_inferential")?, idx("acc_symmetric")?);
            let answers: Vec<(Answer, usize)> = runs
                .iter()
                .filter_map(|r| {
                    let (i, y) = (column(r, inf), column(r, sym));
                    crate::chapters::anchors::summary::settled(
                        steps(r).into_iter().enumerate().map(|(k, step)| (step, i[k], y[k])),
                    )
                })
                .collect();
            let rule = answers.iter().filter(|a| a.0 == Answer::Inferential).count();
            let mirror = answers.len() - rule;
            let (answer, what) = if rule >= mirror {
                (Answer::Inferential, "answers by the rule")
            } else {
                (Answer::Symmetric, "answers as the mirror pair")
            };
            (what, answers.iter().filter(|a| a.0 == answer).map(|a| a.1).collect())
        }
        ChapterId::Syntax => {
            let verb = idx("verb_loss")?;
            ("the loss falls", runs.iter().filter_map(|r| loss_drop_step(&steps(r), &column(r, verb))).collect())
        }
        ChapterId::Text => {
            let cos = idx("hidden_cos")?;
            let at = runs
                .iter()
                .filter_map(|r| {
                    let evals: Vec<(usize, f64)> =
                        steps(r).into_iter().zip(column(r, cos)).filter(|(_, c)| c.is_finite()).collect();
                    let init = evals.first()?.1;
                    let peak = evals
                        .iter()
                        .fold((f64::NAN, 0), |(b, bs), &(s, c)| if b.is_nan() || c > b { (c, s) } else { (b, bs) });
                    crate::chapters::lm::summary::recovery(init, peak, evals.iter().copied())
                })
                .collect();
            ("recovery", at)
        }
    };
    if at.is_empty() {
        return None;
    }
    at.sort_unstable();
    Some(MeasuredEvent { what, step: median_step(&at), reached: at.len(), runs: runs.len() })
}

/// The median of sorted steps (the lower middle one of an even count: a step that was evaluated).
fn median_step(sorted: &[usize]) -> usize {
    sorted[(sorted.len() - 1) / 2]
}

/// The median of `v` (NaN when empty).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        m if m % 2 == 1 => v[m / 2],
        m => (v[m / 2 - 1] + v[m / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn run(seed: u64, rows: &[&[f64]]) -> MeasuredRun {
        MeasuredRun { seed, wall_s: None, rows: rows.iter().map(|r| r.iter().map(|&v| Some(v)).collect()).collect() }
    }

    #[test]
    fn chapter_one_counts_the_drop_at_the_first_evaluation_at_half_accuracy() {
        let c = cols(&["step", "test_acc"]);
        let runs =
            [run(0, &[&[0.0, 0.0], &[25.0, 0.4], &[50.0, 0.5], &[75.0, 0.9]]), run(1, &[&[0.0, 0.0], &[25.0, 0.1]])];
        assert_eq!(
            measured_outcome("mws", &c, &runs).unwrap(),
            "measured: the drop (test accuracy ≥ 0.5) in 1 of 2 runs, at step 50, none (seeds 0, 1)"
        );
        assert_eq!(measured_outcome("mws", &cols(&["step"]), &runs), None);
        assert_eq!(measured_outcome("mws", &c, &[]), None);
    }

    #[test]
    fn chapter_two_reads_the_final_answer_of_each_run() {
        let c = cols(&["step", "acc_inferential", "acc_symmetric"]);
        let runs = [
            run(3, &[&[0.0, 0.9, 0.0], &[25.0, 0.6, 0.1]]),
            run(4, &[&[0.0, 0.0, 0.0], &[25.0, 0.0, 0.7]]),
            run(5, &[&[0.0, 0.6, 0.0], &[25.0, 0.2, 0.3]]),
        ];
        assert_eq!(
            measured_outcome("anchors", &c, &runs).unwrap(),
            "measured: the held-out pair answered inferentially in 1 of 3 runs, symmetrically in 1, neither in 1 (seeds 3, 4, 5)"
        );
    }

    #[test]
    fn measured_events_are_the_median_step_of_the_runs_that_reached_them() {
        // Chapter 1: drops at 50 and 75, one run never: the lower middle of [50, 75].
        let c = cols(&["step", "test_acc"]);
        let runs = [
            run(0, &[&[0.0, 0.0], &[25.0, 0.4], &[50.0, 0.5]]),
            run(1, &[&[0.0, 0.0], &[25.0, 0.1], &[50.0, 0.2], &[75.0, 0.9]]),
            run(2, &[&[0.0, 0.0], &[25.0, 0.1]]),
        ];
        assert_eq!(
            measured_event("mws", &c, &runs),
            Some(MeasuredEvent { what: "the drop", step: 50, reached: 2, runs: 3 })
        );
        assert_eq!(measured_event("mws", &c, &runs[2..]), None, "no run dropped");
        // Chapter 2: two runs settle inferential (from 25 and from 50), one symmetric: the rule's
        // answer, at the lower middle of [25, 50].
        let c = cols(&["step", "acc_inferential", "acc_symmetric"]);
        let runs = [
            run(0, &[&[0.0, 0.0, 0.0], &[25.0, 0.9, 0.0], &[50.0, 0.9, 0.0]]),
            run(1, &[&[0.0, 0.9, 0.0], &[25.0, 0.0, 0.9], &[50.0, 0.9, 0.0]]),
            run(2, &[&[0.0, 0.0, 0.0], &[25.0, 0.0, 0.9], &[50.0, 0.0, 0.9]]),
        ];
        assert_eq!(
            measured_event("anchors", &c, &runs),
            Some(MeasuredEvent { what: "answers by the rule", step: 25, reached: 2, runs: 3 })
        );
        assert_eq!(
            measured_event("anchors", &c, &runs[2..]),
            Some(MeasuredEvent { what: "answers as the mirror pair", step: 25, reached: 1, runs: 1 })
        );
        // Chapter 4: from 0.1 up to 0.99 at step 10, back by half the rise (≤ 0.545) at 30.
        let c = cols(&["step", "hidden_cos"]);
        let runs = [run(0, &[&[0.0, 0.1], &[10.0, 0.99], &[20.0, 0.6], &[30.0, 0.5]])];
        assert_eq!(
            measured_event("lm", &c, &runs),
            Some(MeasuredEvent { what: "recovery", step: 30, reached: 1, runs: 1 })
        );
        assert_eq!(measured_event("lm", &cols(&["hidden_cos"]), &runs), None, "no step column");
    }

    #[test]
    fn chapter_three_applies_the_plateau_rule_and_chapter_four_the_peak() {
        let c = cols(&["step", "verb_loss"]);
        let flat_then_drop: Vec<Vec<f64>> = [3.0, 3.0, 3.01, 2.99, 3.0, 3.0, 1.0, 0.9, 0.9, 0.9]
            .iter()
            .enumerate()
            .map(|(i, &v)| vec![i as f64 * 25.0, v])
            .collect();
        let rows: Vec<&[f64]> = flat_then_drop.iter().map(|r| r.as_slice()).collect();
        let out = measured_outcome("syntax", &c, &[run(0, &rows)]).unwrap();
        assert_eq!(
            measured_event("syntax", &c, &[run(0, &rows)]),
            Some(MeasuredEvent { what: "the loss falls", step: 150, reached: 1, runs: 1 })
        );
        assert_eq!(
            out,
            "measured: the far-subject verb loss leaves its plateau in 1 of 1 runs, at step 150 (median) (seeds 0)"
        );
        let c = cols(&["step", "hidden_cos"]);
        let runs =
            [run(0, &[&[0.0, 0.1], &[10.0, 0.99], &[20.0, 0.3]]), run(1, &[&[0.0, 0.2], &[10.0, 0.95], &[20.0, 0.1]])];
        assert_eq!(
            measured_outcome("lm", &c, &runs).unwrap(),
            "measured: the hidden-state cosine peaks at 0.97 and ends at 0.20 (medians of 2 runs, seeds 0, 1)"
        );
    }
}
