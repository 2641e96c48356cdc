//! The comparison run's budget (issue 50, item 6): how many steps the large init needs before its
//! answer on the held-out pair settles. One long run per seed is read at several budgets `B`: the
//! learning rate is constant after its warm-up, so the first `B` steps of a longer run are a run of
//! `B` steps (the section checks this against the sweep's 800-step runs where both exist).
//!
//! The rules, fixed before the runs: a run has **settled** at `B` when the answer of its last
//! evaluation at or before `B` is inferential or symmetric and has held for [`HOLD_EVALS`]
//! evaluations up to it ([`settled_at`]); the budget is the smallest `B` at which at least
//! [`SEARCHED_NEEDED`] of the searched seeds have settled on the large init's answer,
//! symmetric ([`choose_budget`]); the fresh seeds are then counted at that `B` alone.

use super::{answer_step, AnchorRow, Answer};

/// Evaluations an answer must have held, up to the budget, to count as settled (the last one
/// and the two before it).
pub const HOLD_EVALS: usize = 3;

/// Searched seeds (of six) that must have settled symmetric for a budget to be chosen.
pub const SEARCHED_NEEDED: usize = 5;

/// Where one run stands at budget `budget`: its answer at its last evaluation at or before it, the
/// step since which that answer held ([`answer_step`] of the rows up to `budget`), and whether it
/// has settled (an answer, held for [`HOLD_EVALS`] evaluations: since at most
/// `budget − (HOLD_EVALS − 1) · eval_every`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AtBudget {
    /// The answer at the budget's last evaluation.
    pub answer: Answer,
    /// The first evaluated step from which the answer held up to the budget (`None`: neither).
    pub since: Option<usize>,
    /// Settled: an answer that held for [`HOLD_EVALS`] evaluations up to the budget.
    pub settled: bool,
}

/// Where `rows` stand at `budget` (see [`AtBudget`]); `None` when the run has no evaluation at or
/// before the budget, or ended before it.
pub fn settled_at(rows: &[AnchorRow], budget: usize, eval_every: usize) -> Option<AtBudget> {
    let upto: Vec<AnchorRow> = rows.iter().filter(|r| r.step <= budget).cloned().collect();
    let last = upto.last()?;
    if rows.last().is_none_or(|r| r.step < budget) {
        return None;
    }
    let answer = Answer::of(last.acc_inferential, last.acc_symmetric);
    let since = answer_step(&upto);
    let need = budget.saturating_sub((HOLD_EVALS - 1) * eval_every);
    let settled = answer != Answer::Neither && since.is_some_and(|s| s <= need);
    Some(AtBudget { answer, since, settled })
}

/// The smallest budget at which at least `needed` of `runs` (each a run's rows) have settled on
/// `answer`; `None` when no budget qualifies.
pub fn choose_budget(
    runs: &[&[AnchorRow]],
    budgets: &[usize],
    eval_every: usize,
    answer: Answer,
    needed: usize,
) -> Option<usize> {
    budgets.iter().copied().find(|&b| settled_count(runs, b, eval_every, answer) >= needed)
}

/// How many of `runs` have settled on `answer` at `budget`.
pub fn settled_count(runs: &[&[AnchorRow]], budget: usize, eval_every: usize, answer: Answer) -> usize {
    runs.iter()
        .filter(|rows| settled_at(rows, budget, eval_every).is_some_and(|a| a.settled && a.answer == answer))
        .count()
}

/// One cell of the budget table: `symmetric since 575 ✓` (✓: settled), `neither`, or `—` (the
/// run ended before the budget).
pub fn budget_cell(at: Option<AtBudget>) -> String {
    match at {
        None => "—".to_string(),
        Some(AtBudget { answer: Answer::Neither, .. }) => "neither".to_string(),
        Some(a) => format!(
            "{} since {}{}",
            a.answer.name(),
            a.since.map_or("—".to_string(), |s| s.to_string()),
            if a.settled { " ✓" } else { "" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows every 25 steps with the held-out answers `(inferential, symmetric)` given.
    fn rows(acc: &[(f64, f64)]) -> Vec<AnchorRow> {
        acc.iter()
            .enumerate()
            .map(|(i, &(inf, sym))| AnchorRow {
                step: 25 * i,
                loss: 1.0,
                loss_memory: 1.0,
                loss_reasoning: 1.0,
                loss_heldout: 1.0,
                acc_memory: f64::NAN,
                acc_reasoning: 1.0,
                acc_heldout: inf,
                acc_inferential: inf,
                acc_symmetric: sym,
                train_acc: 1.0,
                key_order_corr: 0.0,
                reasoning_anchor_cos: 0.0,
                memory_anchor_cos: f64::NAN,
                prefix_avg: f64::NAN,
                key_cos_by_distance: [f64::NAN; 5],
            })
            .collect()
    }

    #[test]
    fn a_run_has_settled_when_its_answer_held_for_three_evaluations_up_to_the_budget() {
        // Steps 0..=150: neither, then symmetric from step 75 on, inferential at 150.
        let r = rows(&[(0.0, 0.1), (0.0, 0.2), (0.1, 0.4), (0.0, 0.6), (0.0, 0.7), (0.1, 0.9), (0.6, 0.1)]);
        // At 75: symmetric since 75, held one evaluation: not settled.
        assert_eq!(
            settled_at(&r, 75, 25),
            Some(AtBudget { answer: Answer::Symmetric, since: Some(75), settled: false })
        );
        // At 125: since 75 = 125 − 2·25: settled.
        assert_eq!(
            settled_at(&r, 125, 25),
            Some(AtBudget { answer: Answer::Symmetric, since: Some(75), settled: true })
        );
        // A budget between evaluations reads the last one before it.
        assert_eq!(settled_at(&r, 140, 25).unwrap().since, Some(75));
        // At 150 the answer flipped: inferential since 150, not settled.
        assert_eq!(
            settled_at(&r, 150, 25),
            Some(AtBudget { answer: Answer::Inferential, since: Some(150), settled: false })
        );
        // Neither never settles; a budget past the run's end is unknown.
        assert!(!settled_at(&r, 50, 25).unwrap().settled);
        assert_eq!(settled_at(&r, 175, 25), None);
        assert_eq!(budget_cell(settled_at(&r, 125, 25)), "symmetric since 75 ✓");
        assert_eq!(budget_cell(settled_at(&r, 75, 25)), "symmetric since 75");
        assert_eq!(budget_cell(settled_at(&r, 50, 25)), "neither");
        assert_eq!(budget_cell(None), "—");
    }

    #[test]
    fn the_budget_is_the_first_at_which_enough_runs_settled_on_the_answer() {
        let fast = rows(&[(0.0, 0.6), (0.0, 0.6), (0.0, 0.6), (0.0, 0.6), (0.0, 0.6)]);
        let slow = rows(&[(0.0, 0.0), (0.0, 0.0), (0.0, 0.6), (0.0, 0.6), (0.0, 0.6)]);
        let never = rows(&[(0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]);
        let runs: Vec<&[AnchorRow]> = vec![&fast, &slow, &never];
        let budgets = [50, 75, 100];
        assert_eq!(settled_count(&runs, 50, 25, Answer::Symmetric), 1);
        assert_eq!(settled_count(&runs, 100, 25, Answer::Symmetric), 2);
        assert_eq!(choose_budget(&runs, &budgets, 25, Answer::Symmetric, 2), Some(100));
        assert_eq!(choose_budget(&runs, &budgets, 25, Answer::Symmetric, 1), Some(50));
        assert_eq!(choose_budget(&runs, &budgets, 25, Answer::Symmetric, 3), None);
        assert_eq!(choose_budget(&runs, &budgets, 25, Answer::Inferential, 1), None, "another answer does not count");
    }
}
