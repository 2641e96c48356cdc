//! Summaries and the generated `REPRODUCTION.md` sections of chapters 2 and 3.
//!
//! Every number comes from recorded rows; every sentence that compares with a paper is chosen by
//! a rule on those numbers (stated next to it), never typed in for the result.

use crate::chapter2::AnchorRow;
use crate::chapter3::{self, SyntaxRow};

/// Accuracy at which a subset counts as learned, and at which a held-out answer counts as the
/// model's answer.
pub const LEARNED: f64 = 0.5;

/// One line with a chapter 1 run's key numbers (the page's runs table and comparison): the
/// drop step (test accuracy ≥ 0.5) and the final test accuracy. `None` without rows.
pub fn headline_plateau(rows: &[crate::history::MetricRow]) -> Option<String> {
    let last = rows.last()?;
    let drop = crate::report::first_step(rows, |r| r.test_acc >= crate::report::DROP_ACC);
    Some(format!(
        "{} at step {}; test accuracy {:.2}",
        drop.map_or("no drop yet".to_string(), |d| format!("drop at step {d}")),
        last.step,
        last.test_acc
    ))
}

/// Chapter 2's line: the most negative key order correlation, the held-out pair's answer and the
/// subset accuracies.
pub fn headline_anchors(rows: &[AnchorRow]) -> Option<String> {
    let last = rows.last()?;
    let s = summarize_anchors(rows, 0.0, 0, 0.0);
    Some(format!(
        "key order correlation {:.2} (most negative); (4,3) answered {} at step {}; memory {:.2}, reasoning {:.2}",
        s.min_key_corr,
        heldout_answer(&s),
        last.step,
        s.final_acc[0],
        s.final_acc[1]
    ))
}

/// Chapter 3's line: the onsets, the agreement accuracy and the subject-arc UAS.
pub fn headline_syntax(rows: &[SyntaxRow]) -> Option<String> {
    let last = rows.last()?;
    let o = chapter3::onsets(rows);
    Some(format!(
        "UAS onset {}, loss drop {}; agreement {:.2} and subject-arc UAS {:.2} at step {}",
        step(o.structure),
        step(o.drop),
        last.agreement_acc,
        last.uas_subject,
        last.step
    ))
}

/// The key numbers of one chapter 2 run.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorSummary {
    /// Init scale γ.
    pub gamma: f64,
    /// Seed.
    pub seed: u64,
    /// First evaluated step with memory accuracy ≥ [`LEARNED`].
    pub memory_step: Option<usize>,
    /// First evaluated step with seen-pair reasoning accuracy ≥ [`LEARNED`].
    pub reasoning_step: Option<usize>,
    /// Final accuracies: memory, reasoning, held-out inferential, held-out symmetric.
    pub final_acc: [f64; 4],
    /// Largest inferential and symmetric accuracy on the held-out pair over the run.
    pub peak_heldout: [f64; 2],
    /// Most negative key distance–cosine correlation over the run (ordered structure).
    pub min_key_corr: f64,
    /// The same at the end.
    pub final_key_corr: f64,
    /// Mean pairwise cosine of the reasoning and of the memory anchors at the end.
    pub anchor_cos: [f64; 2],
    /// Wall seconds.
    pub wall_s: f64,
}

fn first(rows: &[AnchorRow], pred: impl Fn(&AnchorRow) -> bool) -> Option<usize> {
    rows.iter().find(|r| pred(r)).map(|r| r.step)
}

/// Summarizes a chapter 2 run.
pub fn summarize_anchors(rows: &[AnchorRow], gamma: f64, seed: u64, wall_s: f64) -> AnchorSummary {
    let last = rows.last().expect("a run records at least one row");
    let fold = |f: fn(&AnchorRow) -> f64, init: f64, pick: fn(f64, f64) -> f64| {
        rows.iter().map(f).filter(|v| v.is_finite()).fold(init, pick)
    };
    AnchorSummary {
        gamma,
        seed,
        memory_step: first(rows, |r| r.acc_memory >= LEARNED),
        reasoning_step: first(rows, |r| r.acc_reasoning >= LEARNED),
        final_acc: [last.acc_memory, last.acc_reasoning, last.acc_inferential, last.acc_symmetric],
        peak_heldout: [fold(|r| r.acc_inferential, 0.0, f64::max), fold(|r| r.acc_symmetric, 0.0, f64::max)],
        min_key_corr: fold(|r| r.key_order_corr, f64::INFINITY, f64::min),
        final_key_corr: last.key_order_corr,
        anchor_cos: [last.reasoning_anchor_cos, last.memory_anchor_cos],
        wall_s,
    }
}

/// The held-out pair's answer at the end: `inferential`, `symmetric` or `neither` (whichever
/// reaches [`LEARNED`]).
pub fn heldout_answer(s: &AnchorSummary) -> &'static str {
    if s.final_acc[2] >= LEARNED {
        "inferential"
    } else if s.final_acc[3] >= LEARNED {
        "symmetric"
    } else {
        "neither"
    }
}

/// Which subset is learned first: `memory`, `reasoning`, `same step` or `neither`.
pub fn first_learned(s: &AnchorSummary) -> &'static str {
    match (s.memory_step, s.reasoning_step) {
        (Some(m), Some(r)) if m < r => "memory",
        (Some(m), Some(r)) if r < m => "reasoning",
        (Some(_), Some(_)) => "same step",
        (Some(_), None) => "memory",
        (None, Some(_)) => "reasoning",
        (None, None) => "neither",
    }
}

fn step(s: Option<usize>) -> String {
    s.map_or("—".into(), |v| v.to_string())
}

/// The per-run table of chapter 2.
pub fn anchors_table(runs: &[AnchorSummary]) -> String {
    let mut t = String::from(
        "| γ | seed | memory ≥ 0.5 at | reasoning ≥ 0.5 at | final acc memory / reasoning | held-out (4,3): inferential / symmetric (final, peak) | answer | key order corr. (min, final) | anchor cos reasoning / memory | wall s |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for s in runs {
        t.push_str(&format!(
            "| {} | {} | {} | {} | {:.2} / {:.2} | {:.2} / {:.2} ({:.2} / {:.2}) | {} | {:.2}, {:.2} | {:.2} / {:.2} | {:.0} |\n",
            s.gamma,
            s.seed,
            step(s.memory_step),
            step(s.reasoning_step),
            s.final_acc[0],
            s.final_acc[1],
            s.final_acc[2],
            s.final_acc[3],
            s.peak_heldout[0],
            s.peak_heldout[1],
            heldout_answer(s),
            s.min_key_corr,
            s.final_key_corr,
            s.anchor_cos[0],
            s.anchor_cos[1],
            s.wall_s
        ));
    }
    t
}

/// Per γ: the answers, which subset came first, the mean most-negative key correlation; then
/// the comparison with Yao et al., each verdict computed from these numbers.
pub fn anchors_comparison(runs: &[AnchorSummary]) -> String {
    let mut gammas: Vec<f64> = runs.iter().map(|s| s.gamma).collect();
    gammas.sort_by(f64::total_cmp);
    gammas.dedup();
    let mut out = String::new();
    let mut per = vec![];
    for &g in &gammas {
        let rs: Vec<&AnchorSummary> = runs.iter().filter(|s| s.gamma == g).collect();
        let count = |f: &dyn Fn(&AnchorSummary) -> bool| rs.iter().filter(|s| f(s)).count();
        let inf = count(&|s| heldout_answer(s) == "inferential");
        let sym = count(&|s| heldout_answer(s) == "symmetric");
        let mem_first = count(&|s| first_learned(s) == "memory");
        let rea_first = count(&|s| first_learned(s) == "reasoning");
        let corr = rs.iter().map(|s| s.min_key_corr).sum::<f64>() / rs.len() as f64;
        out.push_str(&format!(
            "- γ = {g}: held-out pair answered inferentially in {inf} of {n} runs, symmetrically in {sym}; \
             memory learned first in {mem_first}, reasoning first in {rea_first}; mean most-negative key order correlation {corr:.2}.\n",
            n = rs.len()
        ));
        per.push((g, inf, sym, rea_first, rs.len(), corr));
    }
    out.push_str("\nAgainst the paper (each verdict is computed from the lines above):\n\n");
    if let (Some(lo), Some(hi)) = (per.first(), per.last()) {
        let verdict = |ok: bool| if ok { "matches" } else { "differs" };
        out.push_str(&format!(
            "- *Small init (largest γ = {}) answers the held-out pair inferentially; large init (γ = {}) symmetrically.* \
             Here: {} of {} inferential at γ = {}, {} of {} symmetric at γ = {} — {}.\n",
            hi.0,
            lo.0,
            hi.1,
            hi.4,
            hi.0,
            lo.2,
            lo.4,
            lo.0,
            verdict(2 * hi.1 > hi.4 && 2 * lo.2 > lo.4)
        ));
        out.push_str(&format!(
            "- *At small init the reasoning subset is learned before the memory subset.* Here at γ = {}: reasoning first in {} of {} — {}.\n",
            hi.0,
            hi.3,
            hi.4,
            verdict(2 * hi.3 > hi.4)
        ));
        out.push_str(&format!(
            "- *Small init gives key embeddings an ordered structure (neighbouring keys similar).* Here the mean most-negative \
             key distance–cosine correlation is {:.2} at γ = {} and {:.2} at γ = {} — {}.\n",
            hi.5,
            hi.0,
            lo.5,
            lo.0,
            verdict(hi.5 < lo.5 - 0.1)
        ));
    }
    out
}

/// The key numbers of one chapter 3 run.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxSummary {
    /// Condition name (baseline, suppress, promote, brief suppression).
    pub condition: String,
    /// λ and its window.
    pub lambda: (f64, usize, usize),
    /// Seed.
    pub seed: u64,
    /// Structure onset (steepest UAS rise).
    pub structure_onset: Option<usize>,
    /// Steepest held-out loss fall.
    pub loss_drop: Option<usize>,
    /// Largest UAS over the run, and the best offset baseline's UAS at the end.
    pub max_uas: f64,
    /// Best offset baseline at the end.
    pub offset_uas: f64,
    /// Held-out MLM loss at the end (mean of the last 5 evaluations, to smooth batch noise).
    pub final_loss: f64,
    /// Agreement accuracy at the end (mean of the last 5 evaluations).
    pub final_agreement: f64,
    /// First step with agreement accuracy ≥ 0.9.
    pub agreement_step: Option<usize>,
    /// Wall seconds.
    pub wall_s: f64,
}

/// Summarizes a chapter 3 run.
pub fn summarize_syntax(
    rows: &[SyntaxRow],
    condition: &str,
    lambda: (f64, usize, usize),
    seed: u64,
    wall_s: f64,
) -> SyntaxSummary {
    let last = rows.last().expect("a run records at least one row");
    let tail = &rows[rows.len().saturating_sub(5)..];
    let mean = |f: fn(&SyntaxRow) -> f64| tail.iter().map(f).sum::<f64>() / tail.len() as f64;
    let o = chapter3::onsets(rows);
    SyntaxSummary {
        condition: condition.to_string(),
        lambda,
        seed,
        structure_onset: o.structure,
        loss_drop: o.drop,
        max_uas: rows.iter().map(|r| r.uas).fold(0.0, f64::max),
        offset_uas: last.offset_uas,
        final_loss: mean(|r| r.heldout_loss),
        final_agreement: mean(|r| r.agreement_acc),
        agreement_step: rows.iter().find(|r| r.agreement_acc >= 0.9).map(|r| r.step),
        wall_s,
    }
}

/// The per-run table of chapter 3.
pub fn syntax_table(runs: &[SyntaxSummary]) -> String {
    let mut t = String::from(
        "| condition | λ [from, until) | seed | structure onset | loss drop | max UAS | best offset UAS | agreement ≥ 0.9 at | final held-out loss | final agreement | wall s |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for s in runs {
        t.push_str(&format!(
            "| {} | {} [{}, {}) | {} | {} | {} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.0} |\n",
            s.condition,
            s.lambda.0,
            s.lambda.1,
            s.lambda.2,
            s.seed,
            step(s.structure_onset),
            step(s.loss_drop),
            s.max_uas,
            s.offset_uas,
            step(s.agreement_step),
            s.final_loss,
            s.final_agreement,
            s.wall_s
        ));
    }
    t
}

/// Per condition means, then the four questions of the issue answered from the numbers.
pub fn syntax_comparison(runs: &[SyntaxSummary], eval_every: usize) -> String {
    let by = |c: &str| runs.iter().filter(|s| s.condition == c).collect::<Vec<_>>();
    let mean = |rs: &[&SyntaxSummary], f: &dyn Fn(&SyntaxSummary) -> f64| {
        if rs.is_empty() {
            f64::NAN
        } else {
            rs.iter().map(|s| f(s)).sum::<f64>() / rs.len() as f64
        }
    };
    let mut out = String::new();
    for c in ["baseline", "suppress", "promote", "brief suppression"] {
        let rs = by(c);
        if rs.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "- {c}: mean max UAS {:.3} (best offset guess {:.3}), mean final held-out loss {:.3}, mean final agreement {:.3}.\n",
            mean(&rs, &|s| s.max_uas),
            mean(&rs, &|s| s.offset_uas),
            mean(&rs, &|s| s.final_loss),
            mean(&rs, &|s| s.final_agreement)
        ));
    }
    let base = by("baseline");
    let sup = by("suppress");
    let pro = by("promote");
    let brief = by("brief suppression");
    out.push_str("\nThe questions, answered from the runs above (rules in brackets):\n\n");
    let near = base
        .iter()
        .filter(|s| matches!((s.structure_onset, s.loss_drop), (Some(a), Some(b)) if a.abs_diff(b) <= 2 * eval_every))
        .count();
    out.push_str(&format!(
        "- Does the loss drop coincide with the UAS rise? [onset and drop within two evaluations, {} steps] \
         {} of {} baseline runs.\n",
        2 * eval_every,
        near,
        base.len()
    ));
    let syntactic = |rs: &[&SyntaxSummary]| rs.iter().filter(|s| s.max_uas > s.offset_uas + 0.05).count();
    out.push_str(&format!(
        "- Does a syntactic head appear at all? [max UAS more than 0.05 above the best offset guess] baseline {} of {}, \
         suppressed {} of {}, promoted {} of {}.\n",
        syntactic(&base),
        base.len(),
        syntactic(&sup),
        sup.len(),
        syntactic(&pro),
        pro.len()
    ));
    out.push_str(&format!(
        "- Does suppression keep the structure down? [mean max UAS, suppressed vs baseline] {:.3} vs {:.3}.\n",
        mean(&sup, &|s| s.max_uas),
        mean(&base, &|s| s.max_uas)
    ));
    let agree = |rs: &[&SyntaxSummary]| mean(rs, &|s| s.agreement_step.map_or(f64::NAN, |v| v as f64));
    out.push_str(&format!(
        "- Does promotion bring it earlier? [mean step at which agreement first reaches 0.9; mean structure onset] \
         promoted {:.0} / {:.0} vs baseline {:.0} / {:.0}.\n",
        agree(&pro),
        mean(&pro, &|s| s.structure_onset.map_or(f64::NAN, |v| v as f64)),
        agree(&base),
        mean(&base, &|s| s.structure_onset.map_or(f64::NAN, |v| v as f64))
    ));
    out.push_str(&format!(
        "- Does a brief early suppression end as well or better? [mean final held-out loss] brief {:.3} vs baseline {:.3}.\n",
        mean(&brief, &|s| s.final_loss),
        mean(&base, &|s| s.final_loss)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(step: usize, mem: f64, rea: f64, inf: f64, sym: f64, corr: f64) -> AnchorRow {
        AnchorRow {
            step,
            loss: 1.0,
            loss_memory: 1.0,
            loss_reasoning: 1.0,
            loss_heldout: 1.0,
            acc_memory: mem,
            acc_reasoning: rea,
            acc_heldout: inf,
            acc_inferential: inf,
            acc_symmetric: sym,
            train_acc: 0.0,
            key_order_corr: corr,
            reasoning_anchor_cos: 0.1,
            memory_anchor_cos: 0.2,
            prefix_avg: f64::NAN,
        }
    }

    #[test]
    fn anchor_summary_reads_first_steps_answers_and_extremes() {
        let rows =
            [row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(10, 0.6, 0.1, 0.1, 0.3, -0.4), row(20, 1.0, 0.7, 0.2, 0.8, -0.2)];
        let s = summarize_anchors(&rows, 0.8, 1, 2.0);
        assert_eq!((s.memory_step, s.reasoning_step), (Some(10), Some(20)));
        assert_eq!(first_learned(&s), "memory");
        assert_eq!(heldout_answer(&s), "symmetric");
        assert_eq!(s.min_key_corr, -0.4);
        assert_eq!(s.final_key_corr, -0.2);
        assert_eq!(s.peak_heldout, [0.2, 0.8]);
        let c = anchors_comparison(&[s.clone(), AnchorSummary { gamma: 0.3, min_key_corr: 0.0, ..s }]);
        assert!(c.contains("γ = 0.8: held-out pair answered inferentially in 0 of 1 runs, symmetrically in 1"), "{c}");
        assert!(c.contains("-0.40 at γ = 0.8 and 0.00 at γ = 0.3 — matches"), "{c}");
        assert!(c.contains("reasoning first in 0 of 1 — differs"), "{c}");
    }

    fn srow(step: usize, loss: f64, uas: f64, agree: f64) -> SyntaxRow {
        SyntaxRow {
            step,
            loss,
            heldout_loss: loss,
            uas,
            agreement_acc: agree,
            sas_reg: 1.0,
            best_layer: 0,
            best_head: 0,
            best_direction: "dep->head".into(),
            offset_uas: 0.3,
            train_reg: 1.0,
            lambda: 0.0,
            uas_subject: uas,
            offset_uas_subject: 0.2,
        }
    }

    #[test]
    fn syntax_summary_finds_onsets_and_the_comparison_counts_coincidences() {
        let rows =
            [srow(0, 4.0, 0.1, 0.5), srow(10, 3.9, 0.12, 0.6), srow(20, 2.0, 0.6, 0.95), srow(30, 1.9, 0.62, 0.97)];
        let s = summarize_syntax(&rows, "baseline", (0.0, 0, 100), 0, 1.0);
        assert_eq!((s.structure_onset, s.loss_drop), (Some(15), Some(15)));
        assert_eq!(s.agreement_step, Some(20));
        assert!((s.max_uas - 0.62).abs() < 1e-12);
        assert!((s.final_loss - (4.0 + 3.9 + 2.0 + 1.9) / 4.0).abs() < 1e-12);
        let c = syntax_comparison(&[s], 10);
        assert!(c.contains("1 of 1 baseline runs"), "{c}");
        assert!(c.contains("baseline 1 of 1"), "{c}");
    }
}
