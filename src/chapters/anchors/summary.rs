//! Chapter 2's summaries and generated `REPRODUCTION.md` sections.
//!
//! Every number comes from recorded rows; every sentence that compares with a paper is chosen by
//! a rule on those numbers (stated next to it), never typed in for the result.

use super::rows::AnchorRow;
use crate::report::step;
// The sections of REPRODUCTION.md: written by the command line, never by the page.
#[cfg(feature = "engine")]
mod section;
#[cfg(feature = "engine")]
pub use section::*;
pub mod budget;

/// Accuracy at which a subset counts as learned, and at which a held-out answer counts as the
/// model's answer.
pub const LEARNED: f64 = 0.5;

/// Chapter 2's line: the most negative key order correlation, the held-out pair's answer and the
/// subset accuracies (memory only when the task has memory samples: without them its accuracy is
/// NaN, which a reader should not see).
pub fn headline_anchors(rows: &[AnchorRow]) -> Option<String> {
    let last = rows.last()?;
    let s = summarize_anchors(rows, 0.0, 0, 0.0);
    let memory = if s.final_acc[0].is_finite() { format!("memory {:.2}, ", s.final_acc[0]) } else { String::new() };
    Some(format!(
        "key order correlation {:.2} (most negative); (4,3) answered {} at step {}; {memory}reasoning {:.2}",
        s.min_key_corr,
        heldout_answer(&s).name(),
        last.step,
        s.final_acc[1]
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
    settled(rows.iter().map(|r| (r.step, r.acc_inferential, r.acc_symmetric))).map(|(_, at)| at)
}

/// The final answer of evaluations `(step, inferential, symmetric)` in step order and the first
/// step from which it held ([`answer_step`], on columns: the measured runs' rows have no
/// [`AnchorRow`]); `None` without evaluations or when the final answer is neither.
pub fn settled(evals: impl DoubleEndedIterator<Item = (usize, f64, f64)>) -> Option<(Answer, usize)> {
    let mut evals = evals.rev();
    let (last, inf, sym) = evals.next()?;
    let fin = Answer::of(inf, sym);
    if fin == Answer::Neither {
        return None;
    }
    let mut at = last;
    for (step, inf, sym) in evals {
        if Answer::of(inf, sym) != fin {
            break;
        }
        at = step;
    }
    Some((fin, at))
}

/// Where a run stands on the held-out pair: the answer of its last evaluation and the step since
/// which it has held ([`answer_step`]; `None` while the answer is neither).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Verdict {
    /// `"inferential"`, `"symmetric"` or `"neither"` ([`Answer::name`]).
    pub answer: &'static str,
    /// The first evaluated step from which the answer stayed what it is.
    pub step: Option<usize>,
}

/// The [`Verdict`] of recorded rows (`None` without rows).
pub fn verdict(rows: &[AnchorRow]) -> Option<Verdict> {
    let last = rows.last()?;
    Some(Verdict { answer: Answer::of(last.acc_inferential, last.acc_symmetric).name(), step: answer_step(rows) })
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
/// the comparison with Yao et al., each verdict computed from these numbers, and the γ values
/// that show each side of the contrast within the run.
pub fn anchors_comparison(runs: &[AnchorSummary]) -> String {
    let counts = per_gamma(runs);
    let mut out = String::new();
    for c in &counts {
        let first = if c.has_memory {
            format!(" memory learned first in {}, reasoning first in {};", c.memory_first, c.reasoning_first)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "- γ = {}: held-out pair answered inferentially in {} of {n} runs, symmetrically in {}; seen pairs fitted in {} of {n};{first} \
             mean most-negative key order correlation {:.2}.\n",
            c.gamma,
            c.answers[0],
            c.answers[1],
            c.fitted,
            c.key_corr,
            n = c.runs
        ));
    }
    out.push_str("\nAgainst the paper (each verdict is computed from the lines above):\n\n");
    if let (Some(lo), Some(hi)) = (counts.first(), counts.last()) {
        let verdict = |ok: bool| if ok { "matches" } else { "differs" };
        out.push_str(&format!(
            "- *Small init (largest γ = {}) answers the held-out pair inferentially; large init (γ = {}) does not.* \
             Here: {} of {} inferential at γ = {}, {} of {} at γ = {} — {}.\n",
            hi.gamma,
            lo.gamma,
            hi.answers[0],
            hi.runs,
            hi.gamma,
            lo.answers[0],
            lo.runs,
            lo.gamma,
            verdict(hi.mostly_inferential() && lo.answers[0] == 0)
        ));
        out.push_str(&format!(
            "- *Large init memorizes: it answers with the mirror pair's label (symmetric).* Here at γ = {}: {} of {} \
             symmetric — {}.\n",
            lo.gamma,
            lo.answers[1],
            lo.runs,
            verdict(2 * lo.answers[1] > lo.runs)
        ));
        if counts.iter().any(|c| c.has_memory) {
            out.push_str(&format!(
                "- *At small init the reasoning subset is learned before the memory subset.* Here at γ = {}: reasoning \
                 first in {} of {} — {}.\n",
                hi.gamma,
                hi.reasoning_first,
                hi.runs,
                verdict(2 * hi.reasoning_first > hi.runs)
            ));
        }
        out.push_str(&format!(
            "- *Small init gives key embeddings an ordered structure (neighbouring keys similar).* Here the mean most-negative \
             key distance–cosine correlation is {:.2} at γ = {} and {:.2} at γ = {} — {}.\n",
            hi.key_corr,
            hi.gamma,
            lo.key_corr,
            lo.gamma,
            verdict(hi.key_corr < lo.key_corr - 0.1)
        ));
    }
    if counts.len() > 2 {
        out.push_str(&format!(
            "\nWithin the run: most runs answer inferentially at γ = {}; every run fits the seen pairs and most answer \
             symmetrically (large init memorizing) at γ = {}.\n",
            gamma_list(&counts, GammaCount::mostly_inferential),
            gamma_list(&counts, GammaCount::memorizes)
        ));
    }
    out
}

/// The held-out answers of the runs at one γ, counted, with what the page and the comparison
/// report about them.
#[derive(Clone, Debug, PartialEq)]
pub struct GammaCount {
    /// Init scale γ.
    pub gamma: f64,
    /// Runs at this γ.
    pub runs: usize,
    /// Runs whose final answer is inferential, symmetric, neither ([`heldout_answer`]).
    pub answers: [usize; 3],
    /// Runs whose seen pairs end at accuracy ≥ [`LEARNED`] (fitted within the run).
    pub fitted: usize,
    /// Highest final seen-pair accuracy over the runs.
    pub seen_max: f64,
    /// Median of [`answer_step`] over the runs that settled (`None` when none did).
    pub settled: Option<usize>,
    /// Runs whose reasoning subset reached [`LEARNED`] before the memory subset.
    pub reasoning_first: usize,
    /// Runs whose memory subset reached [`LEARNED`] first.
    pub memory_first: usize,
    /// Whether the runs have a memory subset at all.
    pub has_memory: bool,
    /// Mean over the runs of the most negative key order correlation.
    pub key_corr: f64,
}

impl GammaCount {
    /// Whether most runs (more than half) answer inferentially.
    pub fn mostly_inferential(&self) -> bool {
        2 * self.answers[0] > self.runs
    }

    /// Whether every run fitted the seen pairs and most runs answer symmetrically: large init
    /// memorizing within the run.
    pub fn memorizes(&self) -> bool {
        self.fitted == self.runs && 2 * self.answers[1] > self.runs
    }
}

/// The runs counted per γ, in increasing γ (decreasing init scale).
pub fn per_gamma(runs: &[AnchorSummary]) -> Vec<GammaCount> {
    let mut gammas: Vec<f64> = runs.iter().map(|s| s.gamma).collect();
    gammas.sort_by(f64::total_cmp);
    gammas.dedup();
    gammas
        .into_iter()
        .map(|g| {
            let rs: Vec<&AnchorSummary> = runs.iter().filter(|s| s.gamma == g).collect();
            let count = |f: &dyn Fn(&AnchorSummary) -> bool| rs.iter().filter(|s| f(s)).count();
            let mut settled: Vec<usize> = rs.iter().filter_map(|s| s.answer_step).collect();
            settled.sort_unstable();
            GammaCount {
                gamma: g,
                runs: rs.len(),
                answers: [Answer::Inferential, Answer::Symmetric, Answer::Neither]
                    .map(|a| count(&|s| heldout_answer(s) == a)),
                fitted: count(&|s| s.final_acc[1] >= LEARNED),
                seen_max: rs.iter().map(|s| s.final_acc[1]).fold(f64::NEG_INFINITY, f64::max),
                settled: settled.get(settled.len() / 2).copied(),
                reasoning_first: count(&|s| first_learned(s) == FirstLearned::Reasoning),
                memory_first: count(&|s| first_learned(s) == FirstLearned::Memory),
                has_memory: rs.iter().any(|s| s.final_acc[0].is_finite()),
                key_corr: rs.iter().map(|s| s.min_key_corr).sum::<f64>() / rs.len() as f64,
            }
        })
        .collect()
}

/// The γ values of `counts` for which `pick` holds, as "0.6, 0.7" (or "none").
fn gamma_list(counts: &[GammaCount], pick: impl Fn(&GammaCount) -> bool) -> String {
    let gs: Vec<String> = counts.iter().filter(|c| pick(c)).map(|c| c.gamma.to_string()).collect();
    if gs.is_empty() {
        "none".into()
    } else {
        gs.join(", ")
    }
}

/// The page's "what the measured runs show" block for chapter 2 (HTML: a sentence and a table),
/// generated from the same runs as the `REPRODUCTION.md` section, which quotes it. One row per γ,
/// smallest init (largest γ) first: how many runs answered the held-out pair inferentially,
/// symmetrically or with neither, the median step the answer settled at, how many fitted the
/// seen pairs, and the mean most-negative key order correlation. The sentence names the γ values
/// that answer inferentially in most runs and those that memorize ([`GammaCount::memorizes`]).
pub fn anchors_page_paragraph(runs: &[AnchorSummary]) -> String {
    let counts = per_gamma(runs);
    let mut rows = String::new();
    for c in counts.iter().rev() {
        let seen = if c.fitted == 0 {
            format!("0 of {} (accuracy ≤ {:.2})", c.runs, c.seen_max)
        } else {
            format!("{} of {}", c.fitted, c.runs)
        };
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{} / {} / {} of {}</td><td>{}</td><td>{seen}</td><td>{:.2}</td></tr>",
            c.gamma,
            c.answers[0],
            c.answers[1],
            c.answers[2],
            c.runs,
            c.settled.map_or("—".to_string(), |s| s.to_string()),
            c.key_corr
        ));
    }
    format!(
        "<strong>What the measured runs show</strong> (in REPRODUCTION.md): most runs answer the held-out pair \
         inferentially at γ = {}; every run fits the seen pairs and most answer symmetrically (memorize) at γ = {}. \
         <table class=\"findings\"><thead><tr><th scope=\"col\">γ</th><th scope=\"col\">held-out pair: inferential / \
         symmetric / neither</th><th scope=\"col\">answer settled by step (median)</th><th scope=\"col\">seen pairs \
         fitted</th><th scope=\"col\">key order correlation</th></tr></thead><tbody>{rows}</tbody></table>",
        gamma_list(&counts, GammaCount::mostly_inferential),
        gamma_list(&counts, GammaCount::memorizes),
    )
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

/// The factors of some cells, each once, in the order they first appear.
fn factor_names(cells: &[AblationCell]) -> Vec<&str> {
    let mut names: Vec<&str> = vec![];
    for c in cells {
        if !names.contains(&c.factor.as_str()) {
            names.push(&c.factor);
        }
    }
    names
}

/// The page's paragraph on longer runs (`index.html`, section `chapter2-long-findings`): how a
/// configuration trained longer (`cell`, one γ) answers the held-out pair, when it fitted the
/// seen pairs (reasoning accuracy ≥ [`LEARNED`], median over the seeds that did) and when the
/// answer settled (median).
pub fn long_runs_paragraph(cell: &AblationCell) -> String {
    let n = cell.runs.len();
    let count = |a: Answer| cell.runs.iter().filter(|s| heldout_answer(s) == a).count();
    let median = |mut v: Vec<usize>| -> Option<usize> {
        v.sort_unstable();
        (!v.is_empty()).then(|| v[v.len() / 2])
    };
    let fitted = median(cell.runs.iter().filter_map(|s| s.reasoning_step).collect());
    let settled = median(cell.runs.iter().filter_map(|s| s.answer_step).collect());
    format!(
        "<strong>Longer runs</strong> (in REPRODUCTION.md, the ablation): trained {} steps instead of 800, γ = {} \
         (large init) fits the seen pairs {} and then answers the held-out pair symmetrically — with the mirror \
         pair's memorized label — in {} of {n} runs, inferentially in {}, neither in {}{}.",
        cell.steps,
        cell.gamma,
        fitted.map_or("in no run".to_string(), |s| format!("late (by step {s} at the median)")),
        count(Answer::Symmetric),
        count(Answer::Inferential),
        count(Answer::Neither),
        settled.map_or(String::new(), |s| format!(" (the answer settles by step {s} at the median)")),
    )
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
    let factors = factor_names(cells);
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

mod order;
pub use order::*;

#[cfg(test)]
mod tests;
