//! Unit tests of `summary`.

use super::*;

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
        slots: None,
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
    let c = syntax_comparison(&[s.clone(), far.clone()], crate::config::Grammar::Agreement);
    assert!(c.contains("baseline 2 of 2.\n- Does the drop coincide"), "{c}");
    assert!(c.contains("[both found, within two evaluations, 20 steps] baseline 1 of 2."), "{c}");
    assert!(c.contains("of its number part; mean number part drop step]"), "{c}");
    // The nested language's pairs are a selection, not number agreement: the text says so.
    let n = syntax_comparison(std::slice::from_ref(&s), crate::config::Grammar::Nested);
    assert!(n.contains("mean final selection accuracy 0.950") && !n.contains("agreement"), "{n}");
    let p = syntax_page_paragraph(std::slice::from_ref(&s), crate::config::Grammar::Nested);
    assert!(p.contains("its selection part alone (the verb its subject selects against another noun's)"), "{p}");
    assert!(!p.contains("agreement") && !p.contains("number part"), "{p}");
    // One row per condition: drops, their step, the fall's width against the plateau, sudden,
    // the subject → verb UAS at the end (offset guess), onsets with the drop, the final losses.
    assert!(
        p.contains("<tr><td>none (λ = 0)</td><td>1 of 1</td><td>80</td><td>0 / 70</td><td>1 of 1</td><td>0.60 (0.20)</td><td>1 of 1</td>"),
        "{p}"
    );
    assert!(s.subject_with_drop() && !far.subject_with_drop(), "onsets 10 and 40 steps after the drop");
    let cells = [SearchCell { name: "default".into(), change: "—".into(), steps: 150, runs: vec![s.clone(), far] }];
    let t = search_table(&cells);
    assert!(t.contains("| default | — | 150 | 0–70 → 80; 80; 80; 90 (90); yes; 0–70 → 80; 80; 80; 120 (120); no | 2 of 2 | 1 of 2 |"), "{t}");
    let f = search_findings(&cells);
    assert!(f.contains("**default**: coincides in some seeds only (1 of 2 coincide, 2 of 2 drop)"), "{f}");
    let p = search_page_paragraph(&cells);
    assert!(p.contains("(in REPRODUCTION.md; 1 configurations)"), "{p}");
    assert!(
        p.contains("<td>the overall held-out loss left a plateau with a sustained drop</td><td>2 of 2</td>"),
        "{p}"
    );
    assert!(p.contains("<td>the loss on far-subject verbs did</td><td>2 of 2</td>"), "{p}");
    assert!(p.contains("<td>a drop coincided with the structure onset</td><td>1 of 2</td>"), "{p}");
    assert!(p.contains("No configuration showed"), "{p}");
    assert!(p.contains("left chance (ln 2), at step 80 (median)</td><td>2 of 2</td>"), "{p}");
    let three = [SearchCell { runs: vec![s.clone(), s.clone(), s], ..cells[0].clone() }];
    assert!(search_findings(&three).contains("in every seed"));
    assert!(search_page_paragraph(&three).contains("In every seed, a drop came with the structure onset in: default."));
    // the design search's columns: a cliff 10 steps before the onset is sudden, with an onset
    let t = design_table(&cells);
    assert!(t.contains("| default | — | 150 | 0–70 → 80; 80–80 (0); 90; 90; yes, yes; 0–70 → 80; 80–80 (0); 120; 120; yes, no | 2 of 2 | 2 of 2 | 1 of 2 |"), "{t}");
    assert!(design_findings(&three).contains("**default**: shows the paper's event"), "{}", design_findings(&three));
    // a ramp: 8 flat evaluations, the verb loss falls by 1/8 per evaluation for 8, then flat
    let ramp: Vec<SyntaxRow> = (0..24)
        .map(|k| {
            let wobble = if k % 2 == 0 { 0.001 } else { -0.001 };
            let v = if k < 8 { 2.0 } else { (2.0 - (k - 7) as f64 / 8.0).max(1.0) };
            srow(k * 10, v + wobble, if k < 9 { 0.1 + wobble } else { 0.6 + wobble }, 0.5)
        })
        .collect();
    let r = summarize_syntax(&ramp, "baseline", (0.0, 0, 100), 0, 1.0);
    assert_eq!((r.verb_plateau, r.loss_drop), (Some((0, 70)), Some(80)));
    // 10 %: 2 − 1/8 ≤ 1.9 at step 80; 90 %: 2 − 8/8 ≤ 1.1 at step 150; 70 > 70/4
    assert_eq!(r.verb_fall, Some((80, 150)));
    assert!(!r.sudden && !r.sudden_with_onset());
    let ramps = [SearchCell { runs: vec![r.clone(), r.clone(), r], ..cells[0].clone() }];
    assert!(
        design_findings(&ramps).contains(
            "not a sudden one (a ramp) (3 of 3 drop, 0 sudden, 0 sudden with an onset; a syntactic head in 3 of 3)"
        ),
        "{}",
        design_findings(&ramps)
    );
    let p = design_page_paragraph(&ramps);
    // the subject-arc UAS is 0.1 ± 0.001 on the plateau (8 evaluations, the wobble cancels) and
    // 0.6 ± 0.001 at the end; the fall takes 70 steps against a plateau of 70: not sudden
    assert!(
        p.contains("<tr><td>default (150 steps)</td><td>3 of 3</td><td>2.00</td><td>70</td><td>70</td><td>0 of 3</td><td>3 of 3</td><td>0.10 → 0.60</td></tr>"),
        "{p}"
    );
    // a smooth curve has no events
    let smooth: Vec<SyntaxRow> = (0..16)
        .map(|k| srow(k * 10, 1.0 + (-(k as f64) / 4.0).exp(), 0.5 - 0.3 * (-(k as f64) / 4.0).exp(), 0.5))
        .collect();
    let n = summarize_syntax(&smooth, "baseline", (0.0, 0, 100), 0, 1.0);
    assert_eq!((n.loss_drop, n.structure_onset, n.verb_plateau), (None, None, None));
    let flat = [SearchCell { runs: vec![n.clone()], name: "flat".into(), ..cells[0].clone() }];
    assert!(
        design_page_paragraph(&flat).contains("<tr><td>flat (150 steps)</td><td>0 of 1</td><td>—</td><td>—</td><td>—</td><td>0 of 1</td><td>0 of 1</td><td>—</td></tr>"),
        "{}",
        design_page_paragraph(&flat)
    );
    // every design is a row, in the search's order
    let ramp = SearchCell { name: "ramp".into(), ..ramps[0].clone() };
    let cliff = SearchCell { name: "cliff".into(), ..three[0].clone() };
    let p = design_page_paragraph(&[ramp, cliff, flat[0].clone()]);
    let (a, b, c) = (p.find("<td>ramp (").unwrap(), p.find("<td>cliff (").unwrap(), p.find("<td>flat (").unwrap());
    assert!(a < b && b < c, "{p}");
    assert!(p.contains("<td>cliff (150 steps)</td><td>3 of 3</td>"), "{p}");
}

/// A copy-agreement run by hand: the slot loss flat at ln 3 for steps 0–70, a cliff at 80, the
/// slot → subject UAS rising at 90 (within two evaluations) to 0.6 against an offset guess of 0.2.
#[test]
fn copy_summary_reads_the_slot_loss_plateau_and_its_cliff() {
    use crate::chapters::syntax::metrics::SlotMetrics;
    let rows: Vec<SyntaxRow> = plateau_rows(80, 90)
        .into_iter()
        .enumerate()
        .map(|(k, mut r)| {
            let wobble = if k % 2 == 0 { 0.001 } else { -0.001 };
            let loss = if r.step < 80 { 3f64.ln() + wobble } else { 0.05 + wobble };
            let acc = if r.step < 80 { 0.33 } else { 0.98 };
            r.slots = Some(SlotMetrics { loss, by_depth: [loss; 3], acc, unit_uas: f64::NAN, unit_offset: f64::NAN });
            r
        })
        .collect();
    let c = summarize_copy(&rows, 4, 12.0);
    let p = c.plateau.expect("a plateau");
    assert_eq!((p.start, p.end, p.event), (0, 70, 80));
    assert!((p.level - 3f64.ln()).abs() < 0.01);
    let f = c.fall.expect("a fall");
    assert_eq!((f.from, f.to, f.width()), (80, 80, 0));
    assert!(c.sudden && c.onset_with_drop() && c.syntactic());
    assert_eq!(c.onset, Some(90));
    assert!((c.slot_acc - 0.98).abs() < 1e-12 && (c.uas.0 - 0.6).abs() < 0.01 && c.offset_uas == 0.2);
    let cell = CopyCell { name: "reference".into(), change: "—".into(), steps: 150, runs: vec![c] };
    let t = copy_table(std::slice::from_ref(&cell));
    assert!(t.contains("| reference | — | 4 | 0–70 (70) | 1.098 | 80 | 80–80 (0, 0.00) | yes | 90 (yes) |"), "{t}");
    let f = copy_findings(&[cell]);
    assert!(f.contains("1 of 1 drop, 1 sudden, 1 sudden with the onset"), "{f}");
    assert!(f.contains("in some seeds"), "fewer than 3 seeds never give the verdict: {f}");
}
