//! Chapter 3's summaries and generated `REPRODUCTION.md` sections.
//!
//! Every number comes from recorded rows; every sentence that compares with the paper is chosen by
//! a rule on those numbers (stated next to it), never typed in for the result.

use super::rows::SyntaxRow;
use crate::report::{span, step};

// The copy-agreement runs (issue 52).
mod copy;
pub use copy::*;

// The sections of REPRODUCTION.md: written by the command line, never by the page.
#[cfg(feature = "engine")]
mod section;
#[cfg(feature = "engine")]
pub use section::*;

/// Chapter 3's line: the verb loss's drop and the onsets, the minimal pairs' accuracy and the
/// subject → verb UAS.
pub fn headline_syntax(rows: &[SyntaxRow]) -> Option<String> {
    let last = rows.last()?;
    let o = super::onsets(rows);
    Some(format!(
        "verb-loss drop {}, subject→verb onset {}, non-adjacent onset {}; minimal pairs {:.2}, subject→verb UAS {:.2} at step {}",
        step(o.drop),
        step(o.subject_onset),
        step(o.structure),
        last.agreement_acc,
        last.uas_subject,
        last.step
    ))
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
    /// The plateau of `verb_loss` that ends in its drop ([`crate::chapters::syntax::metrics::plateau_end`]):
    /// first and last step.
    pub verb_plateau: Option<(usize, usize)>,
    /// The loss drop: `verb_loss` leaves its plateau ([`chapter3::Onsets::drop`]).
    pub loss_drop: Option<usize>,
    /// The steps at which `verb_loss` has made 10 % and 90 % of its fall from that plateau to its
    /// floor ([`crate::chapters::syntax::metrics::fall_width`]).
    pub verb_fall: Option<(usize, usize)>,
    /// Whether that fall is sudden: its 10–90 % width at most a quarter of the plateau's length
    /// ([`crate::chapters::syntax::metrics::is_sudden`]).
    pub sudden: bool,
    /// The plateau rule rising on the UAS of the subject → verb arcs (`uas_subject`): the onset
    /// on the arcs that carry `verb_loss`.
    pub subject_onset: Option<usize>,
    /// The subject → verb UAS on the `verb_loss` plateau (the mean over its evaluations; `None`
    /// without a plateau) and at the end (the mean of the last 5 evaluations).
    pub subject_uas: (Option<f64>, f64),
    /// The best fixed-offset guess on the subject → verb arcs (fixed over the run).
    pub offset_uas_subject: f64,
    /// `verb_loss` on its plateau ([`crate::chapters::syntax::metrics::PlateauEnd::level`]).
    pub verb_level: Option<f64>,
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
    /// Noise σ̂ of the `verb_loss` curve ([`crate::chapters::syntax::metrics::jitter`]).
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
    /// Whether the subject → verb arcs' onset ([`SyntaxSummary::subject_onset`]) lies within two
    /// evaluations of the drop of `verb_loss`.
    pub fn subject_with_drop(&self) -> bool {
        matches!((self.subject_onset, self.loss_drop), (Some(a), Some(b)) if a.abs_diff(b) <= 2 * self.eval_every)
    }
    /// Whether `verb_loss` leaves a plateau with a drop and a structure onset — on the subject →
    /// verb arcs or on all non-adjacent arcs — lies within two evaluations of it, sudden or not.
    pub fn drop_with_onset(&self) -> bool {
        let near = |o: Option<usize>| matches!((o, self.loss_drop), (Some(a), Some(b)) if a.abs_diff(b) <= 2 * self.eval_every);
        near(self.subject_onset) || near(self.structure_onset)
    }
    /// The paper's event by issue #35's rule: `verb_loss` leaves a plateau by a sudden fall
    /// ([`SyntaxSummary::sudden`]), and a structure onset — on the subject → verb arcs or on all
    /// non-adjacent arcs — lies within two evaluations of that drop.
    pub fn sudden_with_onset(&self) -> bool {
        self.sudden && self.drop_with_onset()
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
    use crate::chapters::syntax::metrics as m;
    let last = rows.last().expect("a run records at least one row");
    let tail = &rows[rows.len().saturating_sub(5)..];
    let mean = |f: fn(&SyntaxRow) -> f64| tail.iter().map(f).sum::<f64>() / tail.len() as f64;
    let o = super::onsets(rows);
    let steps: Vec<usize> = rows.iter().map(|r| r.step).collect();
    let verb: Vec<f64> = rows.iter().map(|r| r.verb_loss).collect();
    let plateau = m::plateau_end(&steps, &verb, false, m::PLATEAU_RULE);
    let fall = plateau.as_ref().and_then(|p| m::fall_width(&steps, &verb, false, p));
    let on_plateau: Vec<f64> = plateau.map_or(vec![], |p| {
        rows.iter().filter(|r| (p.start..=p.end).contains(&r.step)).map(|r| r.uas_subject).collect()
    });
    let max = |f: fn(&SyntaxRow) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    SyntaxSummary {
        condition: condition.to_string(),
        lambda,
        seed,
        eval_every: rows.get(1).map_or(1, |r| r.step.saturating_sub(rows[0].step).max(1)),
        verb_plateau: plateau.map(|p| (p.start, p.end)),
        loss_drop: o.drop,
        verb_fall: fall.map(|f| (f.from, f.to)),
        sudden: matches!((&plateau, &fall), (Some(p), Some(f)) if m::is_sudden(p, f)),
        subject_onset: o.subject_onset,
        subject_uas: (
            (!on_plateau.is_empty()).then(|| on_plateau.iter().sum::<f64>() / on_plateau.len() as f64),
            mean(|r| r.uas_subject),
        ),
        offset_uas_subject: last.offset_uas_subject,
        verb_level: plateau.map(|p| p.level),
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

/// The per-run table of chapter 3; `g` names the minimal-pair columns
/// ([`super::language::pair_words`]).
pub fn syntax_table(runs: &[SyntaxSummary], g: super::language::Grammar) -> String {
    let (part, _, accuracy) = super::language::pair_words(g);
    let mut t = format!(
        "| condition | λ [from, until) | seed | verb-loss plateau | loss drop | structure onset | coincide | held-out loss drop | {} drop | non-adj. UAS > offset + 0.05 from | max non-adj. UAS (offset) | max UAS (offset) | {accuracy} ≥ 0.9 at | verb loss start → end | final held-out loss | final {accuracy} | wall s |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        part.replace(' ', "-"),
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

/// The design-search table (issue #35): one line per language design, each seed's events: the
/// `verb_loss` plateau and its drop, the fall's 10 % and 90 % steps and its width, the structure
/// onsets on the subject → verb arcs and on all non-adjacent arcs, and whether the drop is sudden
/// with an onset ([`SyntaxSummary::sudden_with_onset`]).
pub fn design_table(cells: &[SearchCell]) -> String {
    let mut t = String::from(
        "| design | change from the interactive default | steps | per seed: verb-loss plateau → drop; fall 10 %–90 % (width); onset subject → verb arcs; onset non-adjacent arcs; sudden, with onset | drop | sudden | sudden with onset | max non-adj. UAS − offset per seed | verb loss start → end per seed | final held-out loss per seed |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in cells {
        let per: Vec<String> = c
            .runs
            .iter()
            .map(|s| {
                format!(
                    "{} → {}; {}; {}; {}; {}",
                    span(s.verb_plateau),
                    step(s.loss_drop),
                    s.verb_fall.map_or("—".to_string(), |(a, b)| format!("{a}–{b} ({})", b - a)),
                    step(s.subject_onset),
                    step(s.structure_onset),
                    match (s.sudden, s.sudden_with_onset()) {
                        (_, true) => "yes, yes",
                        (true, false) => "yes, no",
                        (false, _) => "no, no",
                    }
                )
            })
            .collect();
        let n = c.runs.len();
        let count = |f: &dyn Fn(&SyntaxSummary) -> bool| c.runs.iter().filter(|s| f(s)).count();
        let join = |f: &dyn Fn(&SyntaxSummary) -> String| c.runs.iter().map(f).collect::<Vec<_>>().join(", ");
        t.push_str(&format!(
            "| {} | {} | {} | {} | {} of {n} | {} of {n} | {} of {n} | {} | {} | {} |\n",
            c.name,
            c.change,
            c.steps,
            per.join("; "),
            count(&|s| s.loss_drop.is_some()),
            count(&|s| s.sudden),
            count(&|s| s.sudden_with_onset()),
            join(&|s| format!("{:+.3}", s.max_uas_nonadjacent - s.offset_uas_nonadjacent)),
            join(&|s| format!("{:.2} → {:.2}", s.verb_loss.0, s.verb_loss.1)),
            join(&|s| format!("{:.3}", s.final_loss)),
        ));
    }
    t
}

/// What the design search found, one line per design, by issue #35's rule: a design shows the
/// paper when, in at least 3 seeds and in every one, `verb_loss` leaves a plateau by a fall whose
/// 10–90 % width is at most a quarter of the plateau's length and a structure onset lies within
/// two evaluations of the drop.
pub fn design_findings(cells: &[SearchCell]) -> String {
    let mut out = String::new();
    for c in cells {
        let n = c.runs.len();
        let count = |f: &dyn Fn(&SyntaxSummary) -> bool| c.runs.iter().filter(|s| f(s)).count();
        let (dropped, sudden, both) =
            (count(&|s| s.loss_drop.is_some()), count(&|s| s.sudden), count(&|s| s.sudden_with_onset()));
        let syntactic = count(&|s| s.syntactic());
        let verdict = if n >= 3 && both == n {
            "shows the paper's event: a sudden drop with the structure onset in every seed"
        } else if both > 0 {
            "shows a sudden drop with the structure onset in some seeds only"
        } else if sudden > 0 {
            "has a sudden drop, but no structure onset with it"
        } else if dropped > 0 {
            "has a plateau that ends in a drop, but not a sudden one (a ramp)"
        } else {
            "has no plateau that ends in a drop"
        };
        out.push_str(&format!(
            "- **{}**: {verdict} ({dropped} of {n} drop, {sudden} sudden, {both} sudden with an onset; a syntactic head in {syntactic} of {n}).\n",
            c.name
        ));
    }
    out
}

/// The upper median of `v` (its middle value, the upper one of an even count; NaN when empty):
/// the findings tables' medians.
fn upper_median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `v` with `d` decimals, "—" when not finite.
fn fixed(v: f64, d: usize) -> String {
    if v.is_finite() {
        format!("{v:.d$}")
    } else {
        "—".to_string()
    }
}

/// The page's paragraph on the design search (quoted in `REPRODUCTION.md`'s design section):
/// the design with the most runs whose `verb_loss` leaves a plateau with a drop (the first such in
/// the list on a tie; none: a sentence that says so), its plateau level, drop step and fall width
/// (medians over those runs), the subject → verb UAS on the plateau and at the end (means), how
/// many drops come with a structure onset and how many are sudden; then the designs whose runs
/// show no such drop. Every number computed from the runs.
pub fn design_page_paragraph(cells: &[SearchCell]) -> String {
    let (median, num) = (upper_median, fixed);
    let rows: Vec<Vec<String>> = cells
        .iter()
        .map(|c| {
            let d: Vec<&SyntaxSummary> = c.runs.iter().filter(|s| s.loss_drop.is_some()).collect();
            let n = c.runs.len();
            let on: Vec<f64> = d.iter().filter_map(|s| s.subject_uas.0).collect();
            let end = d.iter().map(|s| s.subject_uas.1).sum::<f64>() / d.len().max(1) as f64;
            vec![
                format!("{} ({} steps)", c.name, c.steps),
                format!("{} of {n}", d.len()),
                num(median(d.iter().filter_map(|s| s.verb_level).collect()), 2),
                num(median(d.iter().filter_map(|s| s.verb_plateau).map(|(a, b)| (b - a) as f64).collect()), 0),
                num(median(d.iter().filter_map(|s| s.verb_fall).map(|(a, b)| (b - a) as f64).collect()), 0),
                format!("{} of {n}", d.iter().filter(|s| s.sudden).count()),
                format!("{} of {n}", d.iter().filter(|s| s.drop_with_onset()).count()),
                if d.is_empty() {
                    "—".to_string()
                } else {
                    format!("{} → {:.2}", num(on.iter().sum::<f64>() / on.len().max(1) as f64, 2), end)
                },
            ]
        })
        .collect();
    let table = crate::report::findings_table(
        &[
            "language",
            "plateau, then a drop",
            "plateau level (nats)",
            "plateau (steps)",
            "fall 10–90 % (steps)",
            "sudden (fall ≤ ¼ plateau)",
            "with a structure onset",
            "subject → verb UAS, plateau → end",
        ],
        &rows,
    );
    format!(
        "<strong>Which language gives the drop</strong> (in REPRODUCTION.md, the design search; the loss on the masked verb, \
         medians and means over the runs with a drop): {table}"
    )
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
/// `REPRODUCTION.md` equal). `g` names the minimal-pair measures ([`super::language::pair_words`]).
pub fn syntax_page_paragraph(runs: &[SyntaxSummary], g: super::language::Grammar) -> String {
    let (part, pair, accuracy) = super::language::pair_words(g);
    let by = |c: &str| runs.iter().filter(|s| s.condition == c).collect::<Vec<_>>();
    let median = |mut v: Vec<usize>| -> Option<usize> {
        v.sort_unstable();
        (!v.is_empty()).then(|| v[v.len() / 2])
    };
    let mean = |rs: &[&SyntaxSummary], f: &dyn Fn(&SyntaxSummary) -> f64| {
        rs.iter().map(|s| f(s)).sum::<f64>() / rs.len().max(1) as f64
    };
    let step = |v: Option<usize>| v.map_or("—".to_string(), |s| s.to_string());
    let mut rows = vec![];
    for (c, what) in [
        ("baseline", "none"),
        ("suppress", "suppress"),
        ("promote", "promote"),
        ("brief suppression", "suppress briefly"),
    ] {
        let rs = by(c);
        if rs.is_empty() {
            continue;
        }
        let n = rs.len();
        let (lambda, _, until) = rs[0].lambda;
        let label = match c {
            "baseline" => "none (λ = 0)".to_string(),
            "brief suppression" => format!("{what} (λ = {lambda} until step {until})"),
            _ => format!("{what} (λ = {lambda})"),
        };
        let width = median(rs.iter().filter_map(|s| s.verb_fall.map(|(a, b)| b - a)).collect());
        let plateau = median(rs.iter().filter_map(|s| s.verb_plateau.map(|(a, b)| b - a)).collect());
        rows.push(vec![
            label,
            format!("{} of {n}", rs.iter().filter(|s| s.loss_drop.is_some()).count()),
            step(median(rs.iter().filter_map(|s| s.loss_drop).collect())),
            format!("{} / {}", step(width), step(plateau)),
            format!("{} of {n}", rs.iter().filter(|s| s.sudden).count()),
            format!("{:.2} ({:.2})", mean(&rs, &|s| s.subject_uas.1), mean(&rs, &|s| s.offset_uas_subject)),
            format!("{} of {n}", rs.iter().filter(|s| s.subject_with_drop()).count()),
            format!("{:.2}", mean(&rs, &|s| s.verb_loss.1)),
            format!("{:.3}", mean(&rs, &|s| s.final_loss)),
        ]);
    }
    let table = crate::report::findings_table(
        &[
            "regularizer",
            "far-subject verb loss: plateau, then a drop",
            "drop at step (median)",
            "fall 10–90 % / plateau (steps, medians)",
            "sudden (fall ≤ ¼ plateau)",
            "subject → verb UAS at the end (offset guess)",
            "head onset with the drop",
            "final verb loss",
            "final held-out loss",
        ],
        &rows,
    );
    let base = by("baseline");
    let tail = if base.is_empty() {
        String::new()
    } else {
        let number = base.iter().filter(|s| s.number_drop.is_some()).count();
        format!(
            " Without the regularizer, its {part} alone ({pair}) leaves chance in {number} of {}{}; the best head's \
             non-adjacent UAS reaches {:.2} (offset guess {:.2}); {accuracy} ends at {:.2}.",
            base.len(),
            median(base.iter().filter_map(|s| s.number_drop).collect())
                .map_or(String::new(), |d| format!(" (at step {d}, the median)")),
            mean(&base, &|s| s.max_uas_nonadjacent),
            mean(&base, &|s| s.offset_uas_nonadjacent),
            mean(&base, &|s| s.final_agreement),
        )
    };
    format!("<strong>What the measured runs show</strong> (in REPRODUCTION.md): {table}{tail}")
}

/// The page's summary of the search (quoted in `REPRODUCTION.md`'s search section): what the
/// runs of every configuration show, counted over runs, every number computed.
pub fn search_page_paragraph(cells: &[SearchCell]) -> String {
    let runs: Vec<&SyntaxSummary> = cells.iter().flat_map(|c| c.runs.iter()).collect();
    let n = runs.len();
    let count = |f: &dyn Fn(&SyntaxSummary) -> bool| format!("{} of {n}", runs.iter().filter(|s| f(s)).count());
    let mut number: Vec<usize> = runs.iter().filter_map(|s| s.number_drop).collect();
    number.sort_unstable();
    let shows: Vec<&str> = cells
        .iter()
        .filter(|c| c.runs.len() >= 3 && c.runs.iter().all(|s| s.coincide()))
        .map(|c| c.name.as_str())
        .collect();
    let table = crate::report::findings_table(
        &["what happened", "runs"],
        &[
            vec![
                "the overall held-out loss left a plateau with a sustained drop".into(),
                count(&|s| s.heldout_drop.is_some()),
            ],
            vec!["the loss on far-subject verbs did".into(), count(&|s| s.loss_drop.is_some())],
            vec!["a drop coincided with the structure onset".into(), count(&|s| s.coincide())],
            vec![
                "the best head's non-adjacent UAS rose > 0.05 above its fixed-offset guess".into(),
                count(&|s| s.syntactic()),
            ],
            vec![
                format!(
                    "the number part of the verb's loss left chance (ln 2){}",
                    if number.is_empty() {
                        String::new()
                    } else {
                        format!(", at step {} (median)", number[number.len() / 2])
                    }
                ),
                count(&|s| s.number_drop.is_some()),
            ],
        ],
    );
    format!(
        "<strong>What the search found</strong> (in REPRODUCTION.md; {} configurations): {table} {}",
        cells.len(),
        if shows.is_empty() {
            "No configuration showed a drop together with the structure onset in every seed.".to_string()
        } else {
            format!("In every seed, a drop came with the structure onset in: {}.", shows.join(", "))
        },
    )
}

/// Per condition means, then the paper's questions answered from the numbers; `g` names the
/// minimal-pair measures ([`super::language::pair_words`]).
pub fn syntax_comparison(runs: &[SyntaxSummary], g: super::language::Grammar) -> String {
    let (part, _, accuracy) = super::language::pair_words(g);
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
            "- {c}: mean max non-adjacent UAS {:.3} (offset guess {:.3}), mean final held-out loss {:.3}, mean final verb loss {:.3}, mean final {accuracy} {:.3}.\n",
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
        "- Does suppression delay or remove the drop? [runs with a drop of the verb loss, of its {part}; mean {part} drop step] \
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
         (runs that get there); mean step at which {accuracy} first reaches 0.9] promoted {:.0} ({} of {}) / {:.0} vs baseline {:.0} ({} of {}) / {:.0}.\n",
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
mod tests;
