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
        heldout_answer(&s).name(),
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
        "structure onset {}, verb-loss drop {}; agreement {:.2}, non-adjacent UAS {:.2} at step {}",
        step(o.structure),
        step(o.drop),
        last.agreement_acc,
        last.uas_nonadjacent,
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
    /// When the held-out answer settled ([`answer_step`]).
    pub answer_step: Option<usize>,
    /// Final key-embedding cosine by key distance (1, 2, 3–5, 6–19, ≥ 20).
    pub key_cos_by_distance: [f64; 5],
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
        answer_step: answer_step(rows),
        key_cos_by_distance: last.key_cos_by_distance,
        wall_s,
    }
}

/// The held-out pair's answer: whichever of the two answers reaches [`LEARNED`] accuracy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `key − 10`: the shifts composed (the rule, reasoning).
    Inferential,
    /// `key − 6`: the mirror pair's label (memorized).
    Symmetric,
    /// Neither answer at ≥ [`LEARNED`].
    Neither,
}

impl Answer {
    /// The answer of one evaluation, from its inferential and symmetric accuracies. The two can
    /// never both reach 0.5 and differ from each other (the answers are distinct tokens), so the
    /// rule is unambiguous.
    pub fn of(inferential: f64, symmetric: f64) -> Answer {
        if inferential >= LEARNED {
            Answer::Inferential
        } else if symmetric >= LEARNED {
            Answer::Symmetric
        } else {
            Answer::Neither
        }
    }

    /// `"inferential"`, `"symmetric"` or `"neither"`.
    pub fn name(self) -> &'static str {
        match self {
            Answer::Inferential => "inferential",
            Answer::Symmetric => "symmetric",
            Answer::Neither => "neither",
        }
    }
}

/// The held-out pair's answer at the end of a run ([`Answer::of`] of the final accuracies).
pub fn heldout_answer(s: &AnchorSummary) -> Answer {
    Answer::of(s.final_acc[2], s.final_acc[3])
}

/// Which subset is learned first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstLearned {
    /// Memory reached [`LEARNED`] at an earlier evaluation (or reasoning never did).
    Memory,
    /// Reasoning first (or memory never did, or the task has no memory subset).
    Reasoning,
    /// Both at the same evaluation.
    SameStep,
    /// Neither within the run.
    Neither,
}

impl FirstLearned {
    /// `"memory"`, `"reasoning"`, `"same step"` or `"neither"`.
    pub fn name(self) -> &'static str {
        match self {
            FirstLearned::Memory => "memory",
            FirstLearned::Reasoning => "reasoning",
            FirstLearned::SameStep => "same step",
            FirstLearned::Neither => "neither",
        }
    }
}

/// Which subset is learned first.
pub fn first_learned(s: &AnchorSummary) -> FirstLearned {
    match (s.memory_step, s.reasoning_step) {
        (Some(m), Some(r)) if m < r => FirstLearned::Memory,
        (Some(m), Some(r)) if r < m => FirstLearned::Reasoning,
        (Some(_), Some(_)) => FirstLearned::SameStep,
        (Some(_), None) => FirstLearned::Memory,
        (None, Some(_)) => FirstLearned::Reasoning,
        (None, None) => FirstLearned::Neither,
    }
}

/// The first evaluated step from which the held-out answer stays what it is at the end, when the
/// run ends inferential or symmetric (`None` when it ends with neither). This is when the run
/// "decides" the held-out pair.
pub fn answer_step(rows: &[AnchorRow]) -> Option<usize> {
    let last = rows.last()?;
    let fin = Answer::of(last.acc_inferential, last.acc_symmetric);
    if fin == Answer::Neither {
        return None;
    }
    let mut at = last.step;
    for r in rows.iter().rev() {
        if Answer::of(r.acc_inferential, r.acc_symmetric) != fin {
            break;
        }
        at = r.step;
    }
    Some(at)
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
            heldout_answer(s).name(),
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
        let inf = count(&|s| heldout_answer(s) == Answer::Inferential);
        let sym = count(&|s| heldout_answer(s) == Answer::Symmetric);
        let mem_first = count(&|s| first_learned(s) == FirstLearned::Memory);
        let rea_first = count(&|s| first_learned(s) == FirstLearned::Reasoning);
        let corr = rs.iter().map(|s| s.min_key_corr).sum::<f64>() / rs.len() as f64;
        let has_memory = rs.iter().any(|s| s.final_acc[0].is_finite());
        let first = if has_memory {
            format!(" memory learned first in {mem_first}, reasoning first in {rea_first};")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "- γ = {g}: held-out pair answered inferentially in {inf} of {n} runs, symmetrically in {sym};{first} \
             mean most-negative key order correlation {corr:.2}.\n",
            n = rs.len()
        ));
        per.push((g, inf, sym, rea_first, rs.len(), corr, has_memory));
    }
    out.push_str("\nAgainst the paper (each verdict is computed from the lines above):\n\n");
    if let (Some(lo), Some(hi)) = (per.first(), per.last()) {
        let verdict = |ok: bool| if ok { "matches" } else { "differs" };
        out.push_str(&format!(
            "- *Small init (largest γ = {}) answers the held-out pair inferentially; large init (γ = {}) does not.* \
             Here: {} of {} inferential at γ = {}, {} of {} at γ = {} — {}.\n",
            hi.0,
            lo.0,
            hi.1,
            hi.4,
            hi.0,
            lo.1,
            lo.4,
            lo.0,
            verdict(2 * hi.1 > hi.4 && lo.1 == 0)
        ));
        out.push_str(&format!(
            "- *Large init memorizes: it answers with the mirror pair's label (symmetric).* Here at γ = {}: {} of {} \
             symmetric — {}.\n",
            lo.0,
            lo.2,
            lo.4,
            verdict(2 * lo.2 > lo.4)
        ));
        if per.iter().any(|p| p.6) {
            out.push_str(&format!(
                "- *At small init the reasoning subset is learned before the memory subset.* Here at γ = {}: reasoning \
                 first in {} of {} — {}.\n",
                hi.0,
                hi.3,
                hi.4,
                verdict(2 * hi.3 > hi.4)
            ));
        }
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

/// The page's "what the measured runs show" paragraph for chapter 2 (HTML: text, `<strong>`,
/// `<em>`), generated from the same runs as the `REPRODUCTION.md` section, which quotes it: per
/// γ (smallest init first), how many runs answer the held-out pair inferentially, symmetrically or
/// with neither, the median step the answer settled at, the final seen-pair accuracy and the
/// most negative key order correlation.
pub fn anchors_page_paragraph(runs: &[AnchorSummary]) -> String {
    let mut gammas: Vec<f64> = runs.iter().map(|s| s.gamma).collect();
    gammas.sort_by(|a, b| b.total_cmp(a));
    gammas.dedup();
    let mut parts = vec![];
    for &g in &gammas {
        let rs: Vec<&AnchorSummary> = runs.iter().filter(|s| s.gamma == g).collect();
        let n = rs.len();
        let count = |a: Answer| rs.iter().filter(|s| heldout_answer(s) == a).count();
        let mut settled: Vec<usize> = rs.iter().filter_map(|s| s.answer_step).collect();
        settled.sort_unstable();
        let seen_min = rs.iter().map(|s| s.final_acc[1]).fold(f64::INFINITY, f64::min);
        let seen_max = rs.iter().map(|s| s.final_acc[1]).fold(f64::NEG_INFINITY, f64::max);
        let corr = rs.iter().map(|s| s.min_key_corr).sum::<f64>() / n as f64;
        let init = if Some(&g) == gammas.first() {
            "small init"
        } else if Some(&g) == gammas.last() {
            "large init"
        } else {
            "middle"
        };
        parts.push(format!(
            "at γ = {g} ({init}) the held-out pair is answered inferentially in {} of {n} runs, symmetrically in {}, \
             with neither in {}{}; the seen pairs end at accuracy {:.2}–{:.2}{} and the key order correlation reaches {:.2}",
            count(Answer::Inferential),
            count(Answer::Symmetric),
            count(Answer::Neither),
            if settled.is_empty() {
                String::new()
            } else {
                format!(" (the answer settles by step {} at the median)", settled[settled.len() / 2])
            },
            seen_min,
            seen_max,
            if seen_max < LEARNED { " (not yet learned within the run)" } else { "" },
            corr
        ));
    }
    format!("<strong>What the measured runs show</strong> (in REPRODUCTION.md): {}.", parts.join("; "))
}

/// One configuration of the chapter 2 ablation at one γ: its runs, one per seed.
#[derive(Clone, Debug)]
pub struct AblationCell {
    /// Short name of the factor changed.
    pub factor: String,
    /// What differs from the reconstruction, as `key value` pairs.
    pub change: String,
    /// Init scale γ.
    pub gamma: f64,
    /// Steps each run trained.
    pub steps: usize,
    /// One summary per seed.
    pub runs: Vec<AnchorSummary>,
}

/// The ablation table: one line per (configuration, γ), each seed's held-out answer with its
/// final inferential / symmetric accuracies and the step it settled at, which subset each seed
/// learned first, the final seen-pair accuracy, and the mean most-negative key order correlation.
pub fn ablation_table(cells: &[AblationCell]) -> String {
    let mut t = String::from(
        "| factor | change from the reconstruction | γ | steps | held-out (4,3) per seed: answer (inferential / symmetric), settled at | inferential | learned first per seed | seen-pair acc. per seed | mean min key corr. |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for c in cells {
        let answers: Vec<String> = c
            .runs
            .iter()
            .map(|s| {
                format!(
                    "{} ({:.2} / {:.2}){}",
                    heldout_answer(s).name(),
                    s.final_acc[2],
                    s.final_acc[3],
                    s.answer_step.map_or(String::new(), |v| format!(", {v}"))
                )
            })
            .collect();
        let inf = c.runs.iter().filter(|s| heldout_answer(s) == Answer::Inferential).count();
        let first: Vec<&str> = c.runs.iter().map(|s| first_learned(s).name()).collect();
        let seen: Vec<String> = c.runs.iter().map(|s| format!("{:.2}", s.final_acc[1])).collect();
        let corr = c.runs.iter().map(|s| s.min_key_corr).sum::<f64>() / c.runs.len().max(1) as f64;
        t.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} of {} | {} | {} | {:.2} |\n",
            c.factor,
            c.change,
            c.gamma,
            c.steps,
            answers.join("; "),
            inf,
            c.runs.len(),
            first.join(", "),
            seen.join(", "),
            corr
        ));
    }
    t
}

/// What the ablation shows, each sentence chosen by a rule on the cells (rules in brackets):
/// for every configuration, whether it shows the paper's direction [at the largest γ at least
/// half the seeds inferential, at the smallest none], and which configurations learn the memory
/// subset before the reasoning one.
pub fn ablation_findings(cells: &[AblationCell]) -> String {
    let mut factors: Vec<&str> = vec![];
    for c in cells {
        if !factors.contains(&c.factor.as_str()) {
            factors.push(&c.factor);
        }
    }
    let mut out = String::new();
    for f in factors {
        let mut at: Vec<&AblationCell> = cells.iter().filter(|c| c.factor == f).collect();
        at.sort_by(|a, b| a.gamma.total_cmp(&b.gamma));
        let (lo, hi) = (at[0], at[at.len() - 1]);
        let count = |c: &AblationCell, a: Answer| c.runs.iter().filter(|s| heldout_answer(s) == a).count();
        let direction =
            at.len() > 1 && 2 * count(hi, Answer::Inferential) >= hi.runs.len() && count(lo, Answer::Inferential) == 0;
        let mem_first: usize =
            at.iter().map(|c| c.runs.iter().filter(|s| first_learned(s) == FirstLearned::Memory).count()).sum();
        let rea_first: usize =
            at.iter().map(|c| c.runs.iter().filter(|s| first_learned(s) == FirstLearned::Reasoning).count()).sum();
        let has_memory = at.iter().flat_map(|c| &c.runs).any(|s| s.memory_step.is_some() || s.final_acc[0].is_finite());
        let memory_note = if has_memory {
            format!(" Memory learned first in {mem_first} run(s), reasoning first in {rea_first}.")
        } else {
            String::new()
        };
        let tally = |c: &AblationCell| {
            format!(
                "γ = {}: {} of {} inferential, {} symmetric",
                c.gamma,
                count(c, Answer::Inferential),
                c.runs.len(),
                count(c, Answer::Symmetric)
            )
        };
        if at.len() > 1 {
            out.push_str(&format!(
                "- **{f}**: {}; {} — {}.{memory_note}\n",
                tally(hi),
                tally(lo),
                if direction { "the paper's direction" } else { "not the paper's direction" },
            ));
        } else {
            out.push_str(&format!("- **{f}**: {} (no other γ run yet).{memory_note}\n", tally(hi)));
        }
    }
    out
}

/// The key numbers of one chapter 3 run.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxSummary {
    /// Condition name (baseline, suppress, promote, brief suppression, or a search configuration).
    pub condition: String,
    /// λ and its window.
    pub lambda: (f64, usize, usize),
    /// Seed.
    pub seed: u64,
    /// Evaluation cadence of the run (the coincidence rule counts two evaluations).
    pub eval_every: usize,
    /// The plateau of `verb_loss` that ends in its drop ([`crate::metrics::syntax::plateau_end`]):
    /// first and last step.
    pub verb_plateau: Option<(usize, usize)>,
    /// The loss drop: `verb_loss` leaves its plateau ([`chapter3::Onsets::drop`]).
    pub loss_drop: Option<usize>,
    /// Structure onset: the non-adjacent UAS leaves its plateau ([`chapter3::Onsets::structure`]).
    pub structure_onset: Option<usize>,
    /// The same plateau rule on the overall held-out loss.
    pub heldout_drop: Option<usize>,
    /// The same plateau rule on the all-arc UAS.
    pub uas_onset: Option<usize>,
    /// The same plateau rule on `verb_number_loss` (the verb's number part only).
    pub number_drop: Option<usize>,
    /// First evaluated step at which the non-adjacent UAS is more than 0.05 above its best
    /// fixed-offset guess (a syntactic head by [`SyntaxSummary::syntactic`]'s rule).
    pub syntactic_step: Option<usize>,
    /// Noise σ̂ of the `verb_loss` curve ([`crate::metrics::syntax::jitter`]).
    pub verb_noise: f64,
    /// Largest all-arc UAS over the run.
    pub max_uas: f64,
    /// Best offset baseline at the end (all arcs).
    pub offset_uas: f64,
    /// Largest non-adjacent UAS over the run.
    pub max_uas_nonadjacent: f64,
    /// Its best offset baseline (fixed over the run).
    pub offset_uas_nonadjacent: f64,
    /// `verb_loss` at the start and at the end (mean of the last 5 evaluations).
    pub verb_loss: (f64, f64),
    /// Held-out MLM loss at the end (mean of the last 5 evaluations, to smooth batch noise).
    pub final_loss: f64,
    /// Agreement accuracy at the end (mean of the last 5 evaluations).
    pub final_agreement: f64,
    /// First step with agreement accuracy ≥ 0.9.
    pub agreement_step: Option<usize>,
    /// Wall seconds.
    pub wall_s: f64,
}

impl SyntaxSummary {
    /// Whether a loss drop — of `verb_loss` or of the overall held-out loss (issue #18: "the loss
    /// (overall or `verb_loss`)") — and the structure onset are both found and lie within two
    /// evaluations of each other.
    pub fn coincide(&self) -> bool {
        let near = |d: Option<usize>| matches!((self.structure_onset, d), (Some(a), Some(b)) if a.abs_diff(b) <= 2 * self.eval_every);
        near(self.loss_drop) || near(self.heldout_drop)
    }
    /// Whether a syntactic head appears: the largest non-adjacent UAS beats its best offset guess
    /// by more than 0.05.
    pub fn syntactic(&self) -> bool {
        self.max_uas_nonadjacent > self.offset_uas_nonadjacent + 0.05
    }
}

/// Summarizes a chapter 3 run.
pub fn summarize_syntax(
    rows: &[SyntaxRow],
    condition: &str,
    lambda: (f64, usize, usize),
    seed: u64,
    wall_s: f64,
) -> SyntaxSummary {
    use crate::metrics::syntax as m;
    let last = rows.last().expect("a run records at least one row");
    let tail = &rows[rows.len().saturating_sub(5)..];
    let mean = |f: fn(&SyntaxRow) -> f64| tail.iter().map(f).sum::<f64>() / tail.len() as f64;
    let o = chapter3::onsets(rows);
    let steps: Vec<usize> = rows.iter().map(|r| r.step).collect();
    let verb: Vec<f64> = rows.iter().map(|r| r.verb_loss).collect();
    let plateau = m::plateau_end(&steps, &verb, false, m::PLATEAU_RULE);
    let max = |f: fn(&SyntaxRow) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    SyntaxSummary {
        condition: condition.to_string(),
        lambda,
        seed,
        eval_every: rows.get(1).map_or(1, |r| r.step.saturating_sub(rows[0].step).max(1)),
        verb_plateau: plateau.map(|p| (p.start, p.end)),
        loss_drop: o.drop,
        structure_onset: o.structure,
        heldout_drop: o.heldout_drop,
        uas_onset: o.uas_onset,
        number_drop: o.number_drop,
        syntactic_step: rows.iter().find(|r| r.uas_nonadjacent > r.offset_uas_nonadjacent + 0.05).map(|r| r.step),
        verb_noise: m::jitter(&verb),
        max_uas: max(|r| r.uas),
        offset_uas: last.offset_uas,
        max_uas_nonadjacent: max(|r| r.uas_nonadjacent),
        offset_uas_nonadjacent: last.offset_uas_nonadjacent,
        verb_loss: (rows[0].verb_loss, mean(|r| r.verb_loss)),
        final_loss: mean(|r| r.heldout_loss),
        final_agreement: mean(|r| r.agreement_acc),
        agreement_step: rows.iter().find(|r| r.agreement_acc >= 0.9).map(|r| r.step),
        wall_s,
    }
}

fn span(p: Option<(usize, usize)>) -> String {
    p.map_or("—".to_string(), |(a, b)| format!("{a}–{b}"))
}

/// The per-run table of chapter 3.
pub fn syntax_table(runs: &[SyntaxSummary]) -> String {
    let mut t = String::from(
        "| condition | λ [from, until) | seed | verb-loss plateau | loss drop | structure onset | coincide | held-out loss drop | number-part drop | non-adj. UAS > offset + 0.05 from | max non-adj. UAS (offset) | max UAS (offset) | agreement ≥ 0.9 at | verb loss start → end | final held-out loss | final agreement | wall s |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for s in runs {
        t.push_str(&format!(
            "| {} | {} [{}, {}) | {} | {} | {} | {} | {} | {} | {} | {} | {:.3} ({:.3}) | {:.3} ({:.3}) | {} | {:.3} → {:.3} | {:.3} | {:.3} | {:.0} |\n",
            s.condition,
            s.lambda.0,
            s.lambda.1,
            s.lambda.2,
            s.seed,
            span(s.verb_plateau),
            step(s.loss_drop),
            step(s.structure_onset),
            if s.coincide() { "yes" } else { "no" },
            step(s.heldout_drop),
            step(s.number_drop),
            step(s.syntactic_step),
            s.max_uas_nonadjacent,
            s.offset_uas_nonadjacent,
            s.max_uas,
            s.offset_uas,
            step(s.agreement_step),
            s.verb_loss.0,
            s.verb_loss.1,
            s.final_loss,
            s.final_agreement,
            s.wall_s
        ));
    }
    t
}

/// One configuration of the chapter 3 search: its runs over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchCell {
    /// Short name.
    pub name: String,
    /// What it changes from the interactive default, as flags.
    pub change: String,
    /// Steps of each run.
    pub steps: usize,
    /// Its finished runs.
    pub runs: Vec<SyntaxSummary>,
}

/// The search table: one line per configuration, each seed's events in it.
pub fn search_table(cells: &[SearchCell]) -> String {
    let mut t = String::from(
        "| configuration | change | steps | per seed: verb-loss plateau → drop; held-out loss drop; number-part drop; structure onset (all-arc UAS onset); coincide | verb loss drops | coincide | max non-adj. UAS − offset per seed | verb-loss noise σ̂ | final agreement per seed |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for c in cells {
        let per: Vec<String> = c
            .runs
            .iter()
            .map(|s| {
                format!(
                    "{} → {}; {}; {}; {} ({}); {}",
                    span(s.verb_plateau),
                    step(s.loss_drop),
                    step(s.heldout_drop),
                    step(s.number_drop),
                    step(s.structure_onset),
                    step(s.uas_onset),
                    if s.coincide() { "yes" } else { "no" }
                )
            })
            .collect();
        let n = c.runs.len();
        let dropped = c.runs.iter().filter(|s| s.loss_drop.is_some()).count();
        let together = c.runs.iter().filter(|s| s.coincide()).count();
        let join = |f: &dyn Fn(&SyntaxSummary) -> String| c.runs.iter().map(f).collect::<Vec<_>>().join(", ");
        t.push_str(&format!(
            "| {} | {} | {} | {} | {dropped} of {n} | {together} of {n} | {} | {} | {} |\n",
            c.name,
            c.change,
            c.steps,
            per.join("; "),
            join(&|s| format!("{:+.3}", s.max_uas_nonadjacent - s.offset_uas_nonadjacent)),
            join(&|s| format!("{:.4}", s.verb_noise)),
            join(&|s| format!("{:.2}", s.final_agreement)),
        ));
    }
    t
}

/// What the search found, one line per configuration, by the rule of issue #18: a configuration
/// shows the paper's event when its `verb_loss` plateaus and drops with the structure onset
/// (within two evaluations) in every seed run, with at least 3 seeds.
pub fn search_findings(cells: &[SearchCell]) -> String {
    let mut out = String::new();
    for c in cells {
        let n = c.runs.len();
        let together = c.runs.iter().filter(|s| s.coincide()).count();
        let dropped = c.runs.iter().filter(|s| s.loss_drop.is_some()).count();
        let verdict = if n >= 3 && together == n {
            "shows a plateau whose drop coincides with the structure onset in every seed"
        } else if together > 0 {
            "coincides in some seeds only"
        } else if dropped > 0 {
            "has a plateau and a drop, but not with the structure onset"
        } else {
            "has no plateau that ends in a drop"
        };
        out.push_str(&format!("- **{}**: {verdict} ({together} of {n} coincide, {dropped} of {n} drop).\n", c.name));
    }
    out
}

/// Chapter 3's "what the measured runs show" paragraph for the page, every number and every
/// comparison word computed from the runs (the page quotes it; a test holds the page and
/// `REPRODUCTION.md` equal).
pub fn syntax_page_paragraph(runs: &[SyntaxSummary]) -> String {
    let by = |c: &str| runs.iter().filter(|s| s.condition == c).collect::<Vec<_>>();
    let median = |mut v: Vec<usize>| -> Option<usize> {
        v.sort_unstable();
        (!v.is_empty()).then(|| v[v.len() / 2])
    };
    let mean = |rs: &[&SyntaxSummary], f: &dyn Fn(&SyntaxSummary) -> f64| {
        rs.iter().map(|s| f(s)).sum::<f64>() / rs.len().max(1) as f64
    };
    let mut parts = vec![];
    let base = by("baseline");
    if !base.is_empty() {
        let n = base.len();
        let dropped = base.iter().filter(|s| s.loss_drop.is_some()).count();
        let together = base.iter().filter(|s| s.coincide()).count();
        let held = base.iter().filter(|s| s.heldout_drop.is_some()).count();
        let drop_med = median(base.iter().filter_map(|s| s.loss_drop).collect());
        let number = base.iter().filter(|s| s.number_drop.is_some()).count();
        let number_med = median(base.iter().filter_map(|s| s.number_drop).collect());
        parts.push(format!(
            "without the regularizer the loss on verbs whose subject is far away plateaus and then drops in {dropped} of {n} runs{}, \
             and the structure onset (the UAS over non-adjacent arcs leaving its own plateau) falls within two evaluations of \
             that drop in {together} of {n}; its number part alone (the right verb form against the wrong one) sits at chance \
             and then drops in {number} of {n}{}; the best head's non-adjacent UAS reaches {:.2} against {:.2} for the best \
             fixed-offset guess, and agreement ends at {:.2}; the overall held-out loss shows such a drop in {held} of {n}",
            drop_med.map_or(String::new(), |d| format!(" (at step {d}, the median)")),
            number_med.map_or(String::new(), |d| format!(" (at step {d}, the median)")),
            mean(&base, &|s| s.max_uas_nonadjacent),
            mean(&base, &|s| s.offset_uas_nonadjacent),
            mean(&base, &|s| s.final_agreement),
        ));
    }
    for (c, what) in [("suppress", "suppression"), ("promote", "promotion")] {
        let rs = by(c);
        if rs.is_empty() {
            continue;
        }
        let lambda = rs[0].lambda.0;
        parts.push(format!(
            "{what} (λ = {lambda}) gives the drop in {} of {} runs, a non-adjacent UAS of {:.2} and a final verb loss of {:.2} (baseline {:.2})",
            rs.iter().filter(|s| s.loss_drop.is_some()).count(),
            rs.len(),
            mean(&rs, &|s| s.max_uas_nonadjacent),
            mean(&rs, &|s| s.verb_loss.1),
            mean(&base, &|s| s.verb_loss.1),
        ));
    }
    let brief = by("brief suppression");
    if !brief.is_empty() && !base.is_empty() {
        let (b, n) = (mean(&brief, &|s| s.final_loss), mean(&base, &|s| s.final_loss));
        parts.push(format!(
            "a brief early suppression (λ = {} until step {}) ends with a held-out loss of {b:.3}, {} no suppression ({n:.3})",
            brief[0].lambda.0,
            brief[0].lambda.2,
            if b < n { "below" } else if b > n { "above" } else { "equal to" }
        ));
    }
    format!("<strong>What the measured runs show</strong> (in REPRODUCTION.md): {}.", parts.join("; "))
}

/// The page's summary of the search (quoted in `REPRODUCTION.md`'s search section): what the
/// runs of every configuration show, counted over runs, every number computed.
pub fn search_page_paragraph(cells: &[SearchCell]) -> String {
    let runs: Vec<&SyntaxSummary> = cells.iter().flat_map(|c| c.runs.iter()).collect();
    let n = runs.len();
    let count = |f: &dyn Fn(&SyntaxSummary) -> bool| runs.iter().filter(|s| f(s)).count();
    let mut number: Vec<usize> = runs.iter().filter_map(|s| s.number_drop).collect();
    number.sort_unstable();
    let shows: Vec<&str> = cells
        .iter()
        .filter(|c| c.runs.len() >= 3 && c.runs.iter().all(|s| s.coincide()))
        .map(|c| c.name.as_str())
        .collect();
    format!(
        "<strong>What the search found</strong> (in REPRODUCTION.md): over {} configurations and {n} runs, the overall \
         held-out loss left a plateau with a sustained drop in {} runs and the loss on far-subject verbs in {}; a drop \
         coincided with the structure onset in {}, and the best head's UAS over non-adjacent arcs rose more than 0.05 above \
         its best fixed-offset guess in {}. {} What the toy does show is the capability onset: the number part of the verb's \
         loss sits at chance (ln 2) and then drops, in {} of {n} runs{}.",
        cells.len(),
        count(&|s| s.heldout_drop.is_some()),
        count(&|s| s.loss_drop.is_some()),
        count(&|s| s.coincide()),
        count(&|s| s.syntactic()),
        if shows.is_empty() {
            "No configuration showed a drop together with the structure onset in every seed.".to_string()
        } else {
            format!("In every seed, a drop came with the structure onset in: {}.", shows.join(", "))
        },
        number.len(),
        if number.is_empty() { String::new() } else { format!(" (at step {} at the median)", number[number.len() / 2]) },
    )
}

/// Per condition means, then the paper's questions answered from the numbers.
pub fn syntax_comparison(runs: &[SyntaxSummary]) -> String {
    let by = |c: &str| runs.iter().filter(|s| s.condition == c).collect::<Vec<_>>();
    let opt = |v: Option<usize>| v.map_or(f64::NAN, |v| v as f64);
    // Means of event steps over the runs that have the event (NaN when none has).
    let mean = |rs: &[&SyntaxSummary], f: &dyn Fn(&SyntaxSummary) -> f64| {
        let v: Vec<f64> = rs.iter().map(|s| f(s)).filter(|v| !v.is_nan()).collect();
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let mut out = String::new();
    for c in ["baseline", "suppress", "promote", "brief suppression"] {
        let rs = by(c);
        if rs.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "- {c}: mean max non-adjacent UAS {:.3} (offset guess {:.3}), mean final held-out loss {:.3}, mean final verb loss {:.3}, mean final agreement {:.3}.\n",
            mean(&rs, &|s| s.max_uas_nonadjacent),
            mean(&rs, &|s| s.offset_uas_nonadjacent),
            mean(&rs, &|s| s.final_loss),
            mean(&rs, &|s| s.verb_loss.1),
            mean(&rs, &|s| s.final_agreement)
        ));
    }
    let base = by("baseline");
    let sup = by("suppress");
    let pro = by("promote");
    let brief = by("brief suppression");
    let eval_every = base.first().map_or(1, |s| s.eval_every);
    out.push_str("\nThe questions, answered from the runs above (rules in brackets):\n\n");
    let count = |rs: &[&SyntaxSummary], f: &dyn Fn(&SyntaxSummary) -> bool| rs.iter().filter(|s| f(s)).count();
    out.push_str(&format!(
        "- Does the loss plateau and drop? [`verb_loss` leaves a plateau of ≥ 5 flat evaluations by a sustained fall of 6σ̂] \
         baseline {} of {}.\n",
        count(&base, &|s| s.loss_drop.is_some()),
        base.len()
    ));
    out.push_str(&format!(
        "- Does the drop coincide with the structure onset? [both found, within two evaluations, {} steps] \
         baseline {} of {}.\n",
        2 * eval_every,
        count(&base, &|s| s.coincide()),
        base.len()
    ));
    out.push_str(&format!(
        "- Does a syntactic head appear at all? [max non-adjacent UAS more than 0.05 above its best offset guess] baseline {} of {}, \
         suppressed {} of {}, promoted {} of {}.\n",
        count(&base, &|s| s.syntactic()),
        base.len(),
        count(&sup, &|s| s.syntactic()),
        sup.len(),
        count(&pro, &|s| s.syntactic()),
        pro.len()
    ));
    out.push_str(&format!(
        "- Does suppression delay or remove the drop? [runs with a drop of the verb loss, of its number part; mean number-part drop step] \
         suppressed {} and {} of {} ({:.0}) vs baseline {} and {} of {} ({:.0}); mean max non-adjacent UAS {:.3} vs {:.3}.\n",
        count(&sup, &|s| s.loss_drop.is_some()),
        count(&sup, &|s| s.number_drop.is_some()),
        sup.len(),
        mean(&sup, &|s| opt(s.number_drop)),
        count(&base, &|s| s.loss_drop.is_some()),
        count(&base, &|s| s.number_drop.is_some()),
        base.len(),
        mean(&base, &|s| opt(s.number_drop)),
        mean(&sup, &|s| s.max_uas_nonadjacent),
        mean(&base, &|s| s.max_uas_nonadjacent)
    ));
    let agree = |rs: &[&SyntaxSummary]| mean(rs, &|s| opt(s.agreement_step));
    out.push_str(&format!(
        "- Does promotion bring structure earlier? [mean first step with the non-adjacent UAS more than 0.05 above its offset guess \
         (runs that get there); mean step at which agreement first reaches 0.9] promoted {:.0} ({} of {}) / {:.0} vs baseline {:.0} ({} of {}) / {:.0}.\n",
        mean(&pro, &|s| opt(s.syntactic_step)),
        count(&pro, &|s| s.syntactic_step.is_some()),
        pro.len(),
        agree(&pro),
        mean(&base, &|s| opt(s.syntactic_step)),
        count(&base, &|s| s.syntactic_step.is_some()),
        base.len(),
        agree(&base)
    ));
    out.push_str(&format!(
        "- Does a brief early suppression end as well or better? [mean final held-out loss; mean final verb loss] \
         brief {:.3} / {:.3} vs baseline {:.3} / {:.3}.\n",
        mean(&brief, &|s| s.final_loss),
        mean(&brief, &|s| s.verb_loss.1),
        mean(&base, &|s| s.final_loss),
        mean(&base, &|s| s.verb_loss.1)
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
            key_cos_by_distance: [f64::NAN; 5],
        }
    }

    #[test]
    fn anchor_summary_reads_first_steps_answers_and_extremes() {
        let rows =
            [row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(10, 0.6, 0.1, 0.1, 0.3, -0.4), row(20, 1.0, 0.7, 0.2, 0.8, -0.2)];
        let s = summarize_anchors(&rows, 0.8, 1, 2.0);
        assert_eq!((s.memory_step, s.reasoning_step), (Some(10), Some(20)));
        assert_eq!(first_learned(&s), FirstLearned::Memory);
        assert_eq!(heldout_answer(&s), Answer::Symmetric);
        assert_eq!(s.min_key_corr, -0.4);
        assert_eq!(s.final_key_corr, -0.2);
        assert_eq!(s.peak_heldout, [0.2, 0.8]);
        let c = anchors_comparison(&[s.clone(), AnchorSummary { gamma: 0.3, min_key_corr: 0.0, ..s }]);
        assert!(c.contains("γ = 0.8: held-out pair answered inferentially in 0 of 1 runs, symmetrically in 1"), "{c}");
        assert!(c.contains("-0.40 at γ = 0.8 and 0.00 at γ = 0.3 — matches"), "{c}");
        assert!(c.contains("reasoning first in 0 of 1 — differs"), "{c}");
    }

    #[test]
    fn answer_step_is_where_the_final_answer_starts_to_hold() {
        // inferential at 20, symmetric at 30, inferential from 40 on → settles at 40.
        let rows = [
            row(0, 0.0, 0.0, 0.0, 0.0, 0.0),
            row(10, 0.0, 0.3, 0.4, 0.1, 0.0),
            row(20, 0.0, 0.6, 0.6, 0.1, 0.0),
            row(30, 0.0, 0.9, 0.2, 0.7, 0.0),
            row(40, 0.0, 1.0, 0.5, 0.4, 0.0),
            row(50, 0.0, 1.0, 0.8, 0.1, 0.0),
        ];
        assert_eq!(answer_step(&rows), Some(40));
        assert_eq!(answer_step(&rows[..4]), Some(30), "symmetric from 30");
        assert_eq!(answer_step(&rows[..2]), None, "neither at the end");
        assert_eq!(answer_step(&[]), None);
        assert_eq!(Answer::of(0.5, 0.0), Answer::Inferential, "0.5 counts");
        assert_eq!(Answer::of(0.49, 0.5), Answer::Symmetric);
        assert_eq!(Answer::of(f64::NAN, f64::NAN), Answer::Neither);
    }

    #[test]
    fn ablation_table_and_findings_count_answers_per_configuration() {
        let inf = summarize_anchors(&[row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(25, 0.0, 1.0, 0.7, 0.2, -0.5)], 0.8, 0, 1.0);
        let sym = summarize_anchors(&[row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(25, 0.0, 1.0, 0.1, 0.9, -0.1)], 0.3, 0, 1.0);
        let cell = |factor: &str, gamma: f64, runs: Vec<AnchorSummary>| AblationCell {
            factor: factor.into(),
            change: "`batch 512`".into(),
            gamma,
            steps: 25,
            runs,
        };
        let cells = [
            cell("batch 512", 0.3, vec![sym.clone(), sym.clone()]),
            cell("batch 512", 0.8, vec![inf.clone(), sym.clone()]),
            cell("base", 0.3, vec![sym.clone()]),
            cell("base", 0.8, vec![sym.clone()]),
        ];
        let t = ablation_table(&cells);
        assert!(t.contains("| batch 512 | `batch 512` | 0.8 | 25 | inferential (0.70 / 0.20), 25; symmetric (0.10 / 0.90), 25 | 1 of 2 |"), "{t}");
        let f = ablation_findings(&cells);
        assert!(f.contains("**batch 512**: γ = 0.8: 1 of 2 inferential, 1 symmetric; γ = 0.3: 0 of 2 inferential, 2 symmetric — the paper's direction."), "{f}");
        assert!(f.contains("**base**: γ = 0.8: 0 of 1 inferential, 1 symmetric; γ = 0.3: 0 of 1 inferential, 1 symmetric — not the paper's direction."), "{f}");
        let p = anchors_page_paragraph(&[inf.clone(), sym.clone()]);
        assert!(p.starts_with("<strong>What the measured runs show</strong> (in REPRODUCTION.md): at γ = 0.8"), "{p}");
        assert!(p.contains("at γ = 0.8 (small init) the held-out pair is answered inferentially in 1 of 1 runs, symmetrically in 0, with neither in 0 (the answer settles by step 25 at the median)"), "{p}");
        assert!(p.contains("at γ = 0.3 (large init) the held-out pair is answered inferentially in 0 of 1 runs, symmetrically in 1"), "{p}");
    }

    fn srow(step: usize, verb: f64, uas: f64, agree: f64) -> SyntaxRow {
        SyntaxRow {
            step,
            loss: verb,
            heldout_loss: verb,
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
            verb_loss: verb,
            uas_nonadjacent: uas,
            offset_uas_nonadjacent: 0.2,
            agreement_logodds: 0.0,
            verb_number_loss: verb / 3.0,
        }
    }

    /// 8 flat evaluations, then the verb loss falls and UAS rises at step 80, then flat.
    fn plateau_rows(drop_at: usize, onset_at: usize) -> Vec<SyntaxRow> {
        (0..16)
            .map(|k| {
                let s = k * 10;
                let wobble = if k % 2 == 0 { 0.001 } else { -0.001 };
                srow(
                    s,
                    if s < drop_at { 2.0 + wobble } else { 1.0 + wobble },
                    if s < onset_at { 0.1 + wobble } else { 0.6 + wobble },
                    if s < drop_at { 0.5 } else { 0.95 },
                )
            })
            .collect()
    }

    #[test]
    fn syntax_summary_finds_plateau_events_and_the_comparison_counts_coincidences() {
        let rows = plateau_rows(80, 90);
        let s = summarize_syntax(&rows, "baseline", (0.0, 0, 100), 0, 1.0);
        assert_eq!((s.loss_drop, s.structure_onset), (Some(80), Some(90)));
        assert_eq!(s.verb_plateau, Some((0, 70)));
        assert_eq!(s.eval_every, 10);
        assert!(s.coincide(), "10 steps apart, within two evaluations");
        assert!(s.syntactic());
        assert_eq!(s.agreement_step, Some(80));
        assert!((s.max_uas_nonadjacent - 0.601).abs() < 1e-12);
        let far = summarize_syntax(&plateau_rows(80, 120), "baseline", (0.0, 0, 100), 1, 1.0);
        assert!(!far.coincide(), "40 steps apart");
        let c = syntax_comparison(&[s.clone(), far.clone()]);
        assert!(c.contains("baseline 2 of 2.\n- Does the drop coincide"), "{c}");
        assert!(c.contains("[both found, within two evaluations, 20 steps] baseline 1 of 2."), "{c}");
        let cells =
            [SearchCell { name: "default".into(), change: "—".into(), steps: 150, runs: vec![s.clone(), far] }];
        let t = search_table(&cells);
        assert!(t.contains("| default | — | 150 | 0–70 → 80; 80; 80; 90 (90); yes; 0–70 → 80; 80; 80; 120 (120); no | 2 of 2 | 1 of 2 |"), "{t}");
        let f = search_findings(&cells);
        assert!(f.contains("**default**: coincides in some seeds only (1 of 2 coincide, 2 of 2 drop)"), "{f}");
        let p = search_page_paragraph(&cells);
        assert!(p.contains("over 1 configurations and 2 runs, the overall held-out loss left a plateau with a sustained drop in 2 runs and the loss on far-subject verbs in 2; a drop coincided with the structure onset in 1"), "{p}");
        assert!(p.contains("No configuration showed"), "{p}");
        assert!(p.contains("in 2 of 2 runs (at step 80 at the median)"), "{p}");
        let three = [SearchCell { runs: vec![s.clone(), s.clone(), s], ..cells[0].clone() }];
        assert!(search_findings(&three).contains("in every seed"));
        assert!(
            search_page_paragraph(&three).contains("In every seed, a drop came with the structure onset in: default.")
        );
        // a smooth curve has no events
        let smooth: Vec<SyntaxRow> = (0..16)
            .map(|k| srow(k * 10, 1.0 + (-(k as f64) / 4.0).exp(), 0.5 - 0.3 * (-(k as f64) / 4.0).exp(), 0.5))
            .collect();
        let n = summarize_syntax(&smooth, "baseline", (0.0, 0, 100), 0, 1.0);
        assert_eq!((n.loss_drop, n.structure_onset, n.verb_plateau), (None, None, None));
    }
}
