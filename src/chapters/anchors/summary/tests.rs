//! Unit tests of `summary`.

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
    let rows = [row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(10, 0.6, 0.1, 0.1, 0.3, -0.4), row(20, 1.0, 0.7, 0.2, 0.8, -0.2)];
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
fn the_headline_names_memory_only_when_the_task_has_it() {
    let mixed = [row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(25, 0.25, 0.75, 0.5, 0.125, -0.5)];
    assert_eq!(
        headline_anchors(&mixed).unwrap(),
        "key order correlation -0.50 (most negative); (4,3) answered inferential at step 25; memory 0.25, reasoning 0.75"
    );
    let reasoning_only = [row(0, f64::NAN, 0.0, 0.0, 0.0, 0.0), row(25, f64::NAN, 0.75, 0.0, 0.5, -0.5)];
    assert_eq!(
        headline_anchors(&reasoning_only).unwrap(),
        "key order correlation -0.50 (most negative); (4,3) answered symmetric at step 25; reasoning 0.75"
    );
    assert_eq!(headline_anchors(&[]), None);
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
    // The verdict the page marks and notes: the last row's answer since its settling step, as
    // the JSON the worker sends (`{answer, step}`).
    assert_eq!(verdict(&rows), Some(Verdict { answer: "inferential", step: Some(40) }));
    assert_eq!(verdict(&rows[..4]), Some(Verdict { answer: "symmetric", step: Some(30) }));
    assert_eq!(verdict(&rows[..2]), Some(Verdict { answer: "neither", step: None }));
    assert_eq!(verdict(&[]), None);
    use crate::view::View;
    let json = serde_json::to_string(&AnchorRow::events(&rows)).unwrap();
    assert_eq!(json, r#"{"answer":"inferential","step":40}"#);
    assert_eq!(serde_json::to_string(&AnchorRow::events(&[])).unwrap(), "null");
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
    let neither = summarize_anchors(&[row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(25, 0.0, 0.2, 0.1, 0.1, -0.2)], 0.5, 0, 1.0);
    let p = anchors_page_paragraph(&[inf.clone(), sym.clone(), neither.clone(), neither]);
    assert!(p.starts_with("<strong>What the measured runs show</strong> (in REPRODUCTION.md): most runs answer the held-out pair inferentially at γ = 0.8; every run fits the seen pairs and most answer symmetrically (memorize) at γ = 0.3. <table"), "{p}");
    let rows: Vec<&str> = p.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 3, "one row per γ: {p}");
    assert!(
        rows[0].starts_with("<td>0.8</td><td>1 / 0 / 0 of 1</td><td>25</td><td>1 of 1</td><td>-0.50</td>"),
        "smallest init first: {p}"
    );
    assert!(
        rows[1].starts_with(
            "<td>0.5</td><td>0 / 0 / 2 of 2</td><td>—</td><td>0 of 2 (accuracy ≤ 0.20)</td><td>-0.20</td>"
        ),
        "{p}"
    );
    assert!(rows[2].starts_with("<td>0.3</td><td>0 / 1 / 0 of 1</td><td>25</td><td>1 of 1</td><td>-0.10</td>"), "{p}");
    let c = anchors_comparison(&[inf, sym.clone(), sym]);
    assert!(c.contains("- γ = 0.3: held-out pair answered inferentially in 0 of 2 runs, symmetrically in 2; seen pairs fitted in 2 of 2;"), "{c}");
    assert!(c.contains("Large init memorizes: it answers with the mirror pair's label (symmetric).* Here at γ = 0.3: 2 of 2 symmetric — matches"), "{c}");
}

#[test]
fn learning_order_counts_leads_and_the_rule() {
    // memory at 10, reasoning at 20 (memory first, lead −10); the reverse (lead +10); both at 10.
    let mem_first = |g, seed| {
        summarize_anchors(
            &[row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(10, 0.6, 0.1, 0.0, 0.0, 0.0), row(20, 0.9, 0.7, 0.6, 0.0, 0.0)],
            g,
            seed,
            1.0,
        )
    };
    let rea_first = |g, seed| {
        summarize_anchors(
            &[row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(10, 0.1, 0.6, 0.0, 0.0, 0.0), row(20, 0.7, 0.9, 0.0, 0.8, 0.0)],
            g,
            seed,
            1.0,
        )
    };
    let same = summarize_anchors(&[row(0, 0.0, 0.0, 0.0, 0.0, 0.0), row(10, 0.5, 0.5, 0.0, 0.0, 0.0)], 0.4, 2, 1.0);
    let cell = |factor: &str, gamma: f64, runs: Vec<AnchorSummary>| AblationCell {
        factor: factor.into(),
        change: "`memory 0.25`".into(),
        gamma,
        steps: 20,
        runs,
    };
    let cells = [
        cell("quarter", 0.4, vec![mem_first(0.4, 0), same.clone(), rea_first(0.4, 3)]),
        cell("quarter", 0.8, vec![rea_first(0.8, 0), rea_first(0.8, 2), mem_first(0.8, 3)]),
        cell("base", 0.4, vec![rea_first(0.4, 0)]),
        cell("base", 0.8, vec![rea_first(0.8, 0)]),
    ];
    let t = learning_order_table(&cells, &[3]);
    assert!(
        t.contains("| quarter | `memory 0.25` | 0.4 | s0: 10 / 20; s2: 10 / 10; s3: 20 / 10 | 1 of 3 | 2 of 3 | 1 / 0 of 1 | +0 | 1 / 1 / 1 | 0.70 / 0.70 |"),
        "{t}"
    );
    assert!(t.contains("| quarter | `memory 0.25` | 0.8 | s0: 20 / 10; s2: 20 / 10; s3: 10 / 20 | 2 of 3 | 1 of 3 | 0 / 1 of 1 | +10 |"), "{t}");
    let f = learning_order_findings(&cells, &[3]);
    assert!(
        f.contains("- quarter: at γ = 0.8 (small init) reasoning first in 2 of 3; at γ = 0.4 (large init) memory first or same step in 2 of 3 — the paper's order; on the fresh seeds alone it does not hold."),
        "{f}"
    );
    assert!(f.contains("- base: at γ = 0.8 (small init) reasoning first in 1 of 1; at γ = 0.4 (large init) memory first or same step in 0 of 1 — not the paper's order."), "{f}");
    assert!(f.contains("\nShows the paper's order by this rule: quarter.\n"), "{f}");
    // quarter: 0.4 leads −10, 0, +10 → 0; 0.8: +10, +10, −10 → +10. base: +10 at both.
    assert!(
        f.ends_with("larger at the largest γ than at the smallest in 1 of 2 configurations where both subsets were learned at both (quarter: +0 → +10; base: +10 → +10).\n"),
        "{f}"
    );
    assert_eq!(median_lead(&[]), None);
    assert!(
        learning_order_findings(&cells[2..], &[]).contains("No configuration shows the paper's order by this rule.\n")
    );
}

#[test]
fn the_learning_order_paragraph_names_the_base_and_the_passing_factors() {
    let run = |g: f64, mem: usize, rea: usize| AnchorSummary {
        memory_step: Some(mem),
        reasoning_step: Some(rea),
        ..summarize_anchors(&[row(0, 0.0, 0.0, 0.0, 0.0, 0.0)], g, 0, 1.0)
    };
    let cell = |factor: &str, gamma: f64, runs: Vec<AnchorSummary>| AblationCell {
        factor: factor.into(),
        change: "—".into(),
        gamma,
        steps: 800,
        runs,
    };
    let cells = [
        cell("half memory", 0.4, vec![run(0.4, 400, 700), run(0.4, 450, 700)]),
        cell("half memory", 0.8, vec![run(0.8, 200, 300), run(0.8, 300, 250)]),
        cell("3/8 memory", 0.4, vec![run(0.4, 400, 700)]),
        cell("3/8 memory", 0.8, vec![run(0.8, 300, 250)]),
    ];
    let none = |_: &str, _: f64, _: f64| None;
    let p = learning_order_paragraph(&cells, &[], &none);
    assert_eq!(
        p,
        "<strong>Which is learned first</strong> (in REPRODUCTION.md, the learning-order ablation), with half memory: \
         <table class=\"findings\"><thead><tr><th scope=\"col\">γ</th><th scope=\"col\">reasoning first</th><th scope=\"col\">memory first (or together)</th></tr></thead>\
         <tbody><tr><td>0.8</td><td>1 of 2</td><td>1 of 2</td></tr><tr><td>0.4</td><td>0 of 2</td><td>2 of 2</td></tr></tbody></table> \
         The paper's order (reasoning first at small init, memory first at large init) shows with: 3/8 memory, at γ = 0.8 against γ = 0.4 (by the rule fixed before the runs)."
    );
    // A link to the passing configuration, from the caller (who knows its config).
    let link = |f: &str, small: f64, large: f64| Some(format!("?factor={}&gamma={small}&compare={large}", f.len()));
    assert!(
        learning_order_paragraph(&cells, &[], &link)
            .contains("shows with: <a href=\"?factor=10&amp;gamma=0.8&amp;compare=0.4\">3/8 memory, at γ = 0.8 against γ = 0.4</a> (by the rule"),
        "{}",
        learning_order_paragraph(&cells, &[], &link)
    );
    // Every run here is seed 0: as the fresh seeds, they pass again.
    assert!(
        learning_order_paragraph(&cells, &[0], &none)
            .contains("3/8 memory, at γ = 0.8 against γ = 0.4, also on the fresh seeds alone (by the rule"),
        "{}",
        learning_order_paragraph(&cells, &[0], &none)
    );
    assert!(learning_order_paragraph(&cells[..2], &[], &none).contains("No change of the memory samples' design"));
    assert_eq!(learning_order_paragraph(&[], &[], &none), "");
}
