//! Chapter 4's summaries: the course of the collapse in one run ([`Course`]), the headline line
//! the page and the CLI print, and the comparison with the paper's LLM figures.

use super::rows::LmRow;

// The sections of REPRODUCTION.md: written by the command line, never by the page.
#[cfg(feature = "engine")]
mod section;
#[cfg(feature = "engine")]
pub use section::*;

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
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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

/// The recovery of [`Course::recovered`]: the first step after the `peak` (value, step) at which
/// the hidden cosine of `evals` `(step, hidden_cos)` is back by half of its rise from `init`
/// (`None` when it never rose or never fell back that far).
pub fn recovery(init: f64, peak: (f64, usize), evals: impl Iterator<Item = (usize, f64)>) -> Option<usize> {
    let rise = peak.0 - init;
    if rise.is_nan() || rise <= 0.0 {
        return None;
    }
    let level = peak.0 - rise / 2.0;
    evals.filter(|&(step, cos)| step > peak.1 && cos <= level).map(|(step, _)| step).next()
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
    let recovered = recovery(first.hidden_cos, peak, rows.iter().map(|r| (r.step, r.hidden_cos)));
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

/// One run of the reproduction: its seed, course and wall time.
#[derive(Clone, Debug, PartialEq)]
pub struct LmSummary {
    /// Seed.
    pub seed: u64,
    /// The course of the run.
    pub course: Course,
    /// Wall seconds of the run.
    pub wall_s: f64,
}

fn opt_step(s: Option<usize>) -> String {
    s.map_or("—".to_string(), |s| s.to_string())
}

/// The Markdown table of the runs, one line per seed.
pub fn lm_table(runs: &[LmSummary]) -> String {
    let mut t = String::from(
        "| seed | hidden cos at step 0 | peak (step) | first step ≥ 0.9 | recovered by | final hidden cos (step) | repetition: step 0 → peak (step) → final | final held-out loss | wall |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for r in runs {
        let c = &r.course;
        t.push_str(&format!(
            "| {} | {:.2} | {:.3} ({}) | {} | {} | {:.2} ({}) | {:.2} → {:.2} ({}) → {:.2} | {:.3} | {:.0} s |\n",
            r.seed,
            c.init,
            c.peak.0,
            c.peak.1,
            opt_step(c.collapsed),
            opt_step(c.recovered),
            c.last.0,
            c.last.1,
            c.repetition.0,
            c.peak_repetition.0,
            c.peak_repetition.1,
            c.repetition.1,
            c.heldout_loss,
            r.wall_s
        ));
    }
    t
}

fn med(xs: &[f64]) -> f64 {
    crate::seeds::median(xs).unwrap_or(f64::NAN)
}

/// The comparison with the paper's figures, one claim per bullet, each with a verdict computed
/// from the runs.
pub fn lm_comparison(runs: &[LmSummary]) -> String {
    let n = runs.len();
    let inits: Vec<f64> = runs.iter().map(|r| r.course.init).collect();
    let collapsed: Vec<f64> = runs.iter().filter_map(|r| r.course.collapsed).map(|s| s as f64).collect();
    let recovered: Vec<f64> = runs.iter().filter_map(|r| r.course.recovered).map(|s| s as f64).collect();
    let finals: Vec<f64> = runs.iter().map(|r| r.course.last.0).collect();
    let peak_rep: Vec<f64> = runs.iter().map(|r| r.course.peak_repetition.0).collect();
    let final_rep: Vec<f64> = runs.iter().map(|r| r.course.repetition.1).collect();
    let in_range = inits.iter().filter(|v| (PYTHIA_INIT.0..=PYTHIA_INIT.1).contains(*v)).count();
    let lo = |xs: &[f64]| xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = |xs: &[f64]| xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out = String::new();
    out.push_str(&format!(
        "- **At initialization** (Pythia: {}–{}): {:.2} (median; range {:.2}–{:.2}), inside the paper's range in {in_range} of {n} seeds — {}.\n",
        PYTHIA_INIT.0,
        PYTHIA_INIT.1,
        med(&inits),
        lo(&inits),
        hi(&inits),
        if in_range == n { "matches" } else { "differs: this model starts with less similar hidden states than Pythia's" }
    ));
    out.push_str(&format!(
        "- **Above 0.9 within a few steps** (every Pythia size): in {} of {n} seeds, at step {} (median{}) — {}.\n",
        collapsed.len(),
        if collapsed.is_empty() { "—".to_string() } else { format!("{:.0}", med(&collapsed)) },
        if collapsed.is_empty() {
            String::new()
        } else {
            format!("; range {:.0}–{:.0}", lo(&collapsed), hi(&collapsed))
        },
        if collapsed.len() == n {
            "matches"
        } else if collapsed.is_empty() {
            "does not match"
        } else {
            "matches in some seeds only"
        }
    ));
    let (olmo_hi, olmo_lo) = (OLMO2[0], OLMO2[1]);
    out.push_str(&format!(
        "- **Then falls again** (OLMo-2 7B: {} at step {}, {} at step {}): recovered (fallen back by half its rise) in {} of {n} seeds, by step {} (median{}); final value {:.2} (median; range {:.2}–{:.2}) — {}.\n",
        olmo_hi.1,
        olmo_hi.0,
        olmo_lo.1,
        olmo_lo.0,
        recovered.len(),
        if recovered.is_empty() { "—".to_string() } else { format!("{:.0}", med(&recovered)) },
        if recovered.is_empty() { String::new() } else { format!("; range {:.0}–{:.0}", lo(&recovered), hi(&recovered)) },
        med(&finals),
        lo(&finals),
        hi(&finals),
        if recovered.len() == n { "matches" } else if recovered.is_empty() { "does not match" } else { "matches in some seeds only" }
    ));
    out.push_str(&format!(
        "- **Repetitive generations while collapsed**: the repetition frequency of the 8-token generations peaks at {:.2} (median; range {:.2}–{:.2}) and ends at {:.2} (median; range {:.2}–{:.2}) — {}.\n",
        med(&peak_rep),
        lo(&peak_rep),
        hi(&peak_rep),
        med(&final_rep),
        lo(&final_rep),
        hi(&final_rep),
        if med(&peak_rep) >= 0.5 && med(&final_rep) < med(&peak_rep) / 2.0 {
            "matches (the paper reports repetitive generations in the collapsed checkpoints)"
        } else {
            "does not match"
        }
    ));
    out
}

/// The block chapter 4's text quotes (the medians over the seeds): a short sentence, a table of
/// the course of the hidden cosine beside the paper's language models, and what sets its value
/// at initialization (`init`, [`init_finding`]).
pub fn lm_page_paragraph(runs: &[LmSummary], init: &str) -> String {
    let n = runs.len();
    let inits: Vec<f64> = runs.iter().map(|r| r.course.init).collect();
    let peaks: Vec<f64> = runs.iter().map(|r| r.course.peak.0).collect();
    let peak_steps: Vec<f64> = runs.iter().map(|r| r.course.peak.1 as f64).collect();
    let collapsed = runs.iter().filter(|r| r.course.collapsed.is_some()).count();
    let recovered: Vec<f64> = runs.iter().filter_map(|r| r.course.recovered).map(|s| s as f64).collect();
    let finals: Vec<f64> = runs.iter().map(|r| r.course.last.0).collect();
    let steps = runs.first().map_or(0, |r| r.course.last.1);
    let table = crate::report::findings_table(
        &["mean pairwise cosine", "this model (median)", "the paper"],
        &[
            vec![
                "at initialization".into(),
                format!("{:.2}", med(&inits)),
                format!("Pythia {}–{}", PYTHIA_INIT.0, PYTHIA_INIT.1),
            ],
            vec![
                "above 0.9 (collapse)".into(),
                format!("in {collapsed} of {n} seeds"),
                "Pythia, after a few steps".into(),
            ],
            vec![
                "peak".into(),
                format!("{:.2} at step {:.0}", med(&peaks), med(&peak_steps)),
                format!("OLMo-2 {} at step {}", OLMO2[0].1, OLMO2[0].0),
            ],
            vec![
                "fallen back by half its rise".into(),
                if recovered.is_empty() { "—".to_string() } else { format!("by step {:.0}", med(&recovered)) },
                format!("OLMo-2 {} at step {}", OLMO2[1].1, OLMO2[1].0),
            ],
            vec![format!("after {steps} steps"), format!("{:.2}", med(&finals)), String::new()],
        ],
    );
    format!("<strong>What the measured runs show</strong> (in REPRODUCTION.md; {n} seeds of this chapter's default): {table} {init}")
}

/// One cell of the initialization ablation: the hidden cosine and repetition at step 0 of a
/// model shape, over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct InitCell {
    /// Layers.
    pub layers: usize,
    /// Width (`d_ff` is four times it).
    pub d_model: usize,
    /// `hidden_cos` at step 0, one per seed.
    pub cos: Vec<f64>,
    /// `repetition` at step 0, one per seed.
    pub repetition: Vec<f64>,
}

/// The ablation's table: median (range) of the step-0 hidden cosine per shape, widths as columns.
pub fn init_table(cells: &[InitCell]) -> String {
    let mut widths: Vec<usize> = cells.iter().map(|c| c.d_model).collect();
    widths.sort_unstable();
    widths.dedup();
    let mut layers: Vec<usize> = cells.iter().map(|c| c.layers).collect();
    layers.sort_unstable();
    layers.dedup();
    let mut t = format!(
        "| layers | {} |\n|---|{}\n",
        widths.iter().map(|w| format!("d {w}")).collect::<Vec<_>>().join(" | "),
        "---|".repeat(widths.len())
    );
    for l in &layers {
        let row: Vec<String> = widths
            .iter()
            .map(|w| match cells.iter().find(|c| c.layers == *l && c.d_model == *w) {
                Some(c) => {
                    let lo = c.cos.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = c.cos.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    format!("{:.2} ({:.2}–{:.2})", med(&c.cos), lo, hi)
                }
                None => "—".to_string(),
            })
            .collect();
        t.push_str(&format!("| {l} | {} |\n", row.join(" | ")));
    }
    t
}

/// What the ablation shows, computed: the median step-0 hidden cosine at the narrowest and the
/// widest width (at the interactive depth when measured, else the first depth), and at the
/// shallowest and deepest depth (at the widest width).
pub fn init_finding(cells: &[InitCell], depth: usize) -> String {
    let at = |l: usize, w: usize| cells.iter().find(|c| c.layers == l && c.d_model == w).map(|c| med(&c.cos));
    let (Some(wmin), Some(wmax)) = (cells.iter().map(|c| c.d_model).min(), cells.iter().map(|c| c.d_model).max())
    else {
        return String::new();
    };
    let (Some(lmin), Some(lmax)) = (cells.iter().map(|c| c.layers).min(), cells.iter().map(|c| c.layers).max()) else {
        return String::new();
    };
    let depth = if cells.iter().any(|c| c.layers == depth) { depth } else { lmin };
    match (at(depth, wmin), at(depth, wmax), at(lmin, wmax), at(lmax, wmax)) {
        (Some(a), Some(b), Some(c), Some(d)) => format!(
            "At initialization the hidden cosine {} with width: {a:.2} at width {wmin} and {b:.2} at width {wmax} \
             ({depth} layers); with depth it moves from {c:.2} ({lmin} layer{}) to {d:.2} ({lmax} layers) at width {wmax} \
             (medians over the seeds){}.",
            if b > a { "grows" } else { "does not grow" },
            if lmin == 1 { "" } else { "s" },
            match cells
                .iter()
                .filter(|c| c.layers == depth && (PYTHIA_INIT.0..=PYTHIA_INIT.1).contains(&med(&c.cos)))
                .map(|c| c.d_model)
                .min()
            {
                Some(w) => format!("; from width {w} on it is inside Pythia's {}–{}", PYTHIA_INIT.0, PYTHIA_INIT.1),
                None => String::new(),
            }
        ),
        _ => String::new(),
    }
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
        // The fields the page reads from the events the worker sends.
        let json = serde_json::to_value(<LmRow as crate::view::View>::events(&rows)).unwrap();
        assert_eq!((json["collapsed"].as_u64(), json["recovered"].as_u64()), (Some(2), Some(16)));
        assert_eq!(
            (json["init"].as_f64(), json["peak"][0].as_f64(), json["peak"][1].as_u64()),
            (Some(0.3), Some(0.95), Some(4))
        );
        assert_eq!((json["last"][0].as_f64(), json["last"][1].as_u64()), (Some(0.5), Some(32)));
        assert_eq!(
            headline_lm(&rows).unwrap(),
            "hidden cosine 0.30 at step 0 → peak 0.95 at step 4 → 0.50 at step 32 (recovered by step 16); repetition peak 0.90 at step 4, 0.10 at step 32"
        );
        // The comparison's verdicts follow the numbers.
        let runs: Vec<LmSummary> = [0.03, 0.5]
            .iter()
            .enumerate()
            .map(|(seed, &init)| LmSummary { seed: seed as u64, course: Course { init, ..c.clone() }, wall_s: 1.0 })
            .collect();
        let text = lm_comparison(&runs);
        assert!(text.contains("inside the paper's range in 1 of 2 seeds — differs"), "{text}");
        assert!(text.contains("in 2 of 2 seeds, at step 2 (median; range 2–2) — matches"), "{text}");
        assert!(text.contains("recovered (fallen back by half its rise) in 2 of 2 seeds, by step 16"), "{text}");
        // A run that only falls never collapsed nor recovered.
        let c = course(&[row(0, 0.5, 0.0), row(1, 0.4, 0.0)]).unwrap();
        assert_eq!((c.collapsed, c.recovered, c.peak), (None, None, (0.5, 0)));
        assert!(course(&[]).is_none());
    }

    #[test]
    fn the_init_ablation_table_and_finding() {
        let cell = |layers, d_model, cos: &[f64]| InitCell {
            layers,
            d_model,
            cos: cos.to_vec(),
            repetition: vec![0.0; cos.len()],
        };
        let cells = [
            cell(1, 64, &[0.1, 0.2, 0.3]),
            cell(1, 256, &[0.3, 0.4, 0.5]),
            cell(2, 64, &[0.0, 0.1, 0.2]),
            cell(2, 256, &[0.5, 0.6, 0.7]),
        ];
        let t = init_table(&cells);
        assert_eq!(t.lines().nth(2).unwrap(), "| 1 | 0.20 (0.10–0.30) | 0.40 (0.30–0.50) |");
        assert_eq!(t.lines().nth(3).unwrap(), "| 2 | 0.10 (0.00–0.20) | 0.60 (0.50–0.70) |");
        assert_eq!(
            init_finding(&cells, 2),
            "At initialization the hidden cosine grows with width: 0.10 at width 64 and 0.60 at width 256 (2 layers); \
             with depth it moves from 0.40 (1 layer) to 0.60 (2 layers) at width 256 (medians over the seeds); \
             from width 256 on it is inside Pythia's 0.4–0.65."
        );
    }
}
