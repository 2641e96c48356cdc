use super::*;
use crate::chapters::syntax::data::{batch, PAD};
use rand::SeedableRng;

fn text(s: &Sentence) -> String {
    s.tokens.iter().map(|&t| word(t)).collect::<Vec<_>>().join(" ")
}

/// The issue's example, built by hand: `q3 N13 c1 f0 f0 q1 N2 c0 f1 f3 q5 N15 c2 q5 V10 [c2]
/// q1 V19 [c0] q3 V23 [c1] f2`.
fn example() -> Sentence {
    let clauses = [
        Clause { particle: 3, noun: 13, verb: 23, class: 1 },
        Clause { particle: 1, noun: 2, verb: 19, class: 0 },
        Clause { particle: 5, noun: 15, verb: 10, class: 2 },
    ];
    build(&clauses, &[vec![0, 0], vec![1, 3], vec![], vec![], vec![], vec![2]])
}

#[test]
fn vocabulary_layout() {
    assert_eq!(vocab_size(), 65);
    assert_eq!(
        (word(particle(7)), word(noun(23)), word(verb(0)), word(class(2)), word(filler(3))),
        ("q7", "N23", "V0", "c2", "f3")
    );
    assert_eq!(word(MASK), "<mask>");
    assert_eq!(word(vocab_size() as i64), "<unk>");
    assert_eq!((class_of(class(1)), class_of(noun(1))), (Some(1), None));
    assert_eq!(foil(class(2)), Some(class(0)));
    let mut w = WORDS.to_vec();
    w.sort_unstable();
    w.dedup();
    assert_eq!(w.len(), WORDS.len(), "no word spelled twice");
}

/// The example's tree, position by position, as the module doc states it.
#[test]
fn the_issues_example_has_the_documented_tree() {
    let s = example();
    assert_eq!(text(&s), "q3 N13 c1 f0 f0 q1 N2 c0 f1 f3 q5 N15 c2 q5 V10 c2 q1 V19 c0 q3 V23 c1 f2");
    // positions: 0 q3, 1 N13, 2 c1, 3 f0, 4 f0, 5 q1, 6 N2, 7 c0, 8 f1, 9 f3, 10 q5, 11 N15, 12 c2,
    // 13 q5, 14 V10, 15 [c2], 16 q1, 17 V19, 18 [c0], 19 q3, 20 V23, 21 [c1], 22 f2
    let want = [
        Some(1),  // q3 → N13
        Some(20), // N13 → V23 (nsubj)
        Some(1),  // c1 → N13
        Some(20), // f0 inside clause 0 → V23
        Some(20),
        Some(6),  // q1 → N2
        Some(17), // N2 → V19
        Some(6),  // c0 → N2
        Some(17), // f1, f3 inside clause 1 → V19
        Some(17),
        Some(11), // q5 → N15
        Some(14), // N15 → V10
        Some(11), // c2 → N15
        Some(14), // q5 → V10
        Some(6),  // V10 → N2 (acl)
        Some(12), // [c2] → c2: the agreement arc
        Some(17), // q1 → V19
        Some(1),  // V19 → N13 (acl)
        Some(7),  // [c0] → c0
        Some(20), // q3 → V23
        None,     // V23: the root
        Some(2),  // [c1] → c1
        Some(20), // f2 after the last unit → the root
    ];
    assert_eq!(s.heads, want);
    assert_eq!((s.root, s.subject), (20, 1));
    assert_eq!(s.verb_positions, vec![15, 18, 21]);
    assert_eq!(s.controllers, vec![12, 7, 2]);
    let d: Vec<usize> = slots(&s).iter().map(|x| x.depth).collect();
    assert_eq!(d, vec![2, 1, 0]);
    assert_eq!(sas_pairs(&s)[..3], [(15, 12), (15, 11), (15, 10)]);
    assert_eq!(sas_pairs(&s).len(), 9);
    let arcs = slot_arcs(std::slice::from_ref(&s));
    assert_eq!(arcs[0].iter().filter(|h| h.is_some()).count(), 3);
    assert_eq!((arcs[0][15], arcs[0][18], arcs[0][21]), (Some(12), Some(7), Some(2)));
}

/// Over many sentences: the slot copies its own subject's class, particles are distinct and
/// matched, the subject classes are a permutation (each of the 6 about equally often), the
/// fillers after a unit are 0, 1 or 2 about equally often, and every sentence is a tree.
#[test]
fn generator_distributions() {
    let mut r = ChaCha8Rng::seed_from_u64(52);
    let n = 6000;
    let mut perms = std::collections::HashMap::new();
    let mut fill = [0usize; MAX_FILLERS + 1];
    for _ in 0..n {
        let s = sample(&mut r);
        assert!(s.len() <= MAX_LEN);
        assert_eq!(s.heads.iter().filter(|h| h.is_none()).count(), 1, "one root: {}", s.text());
        for i in 0..s.len() {
            let (mut j, mut hops) = (i, 0);
            while let Some(h) = s.heads[j] {
                j = h;
                hops += 1;
                assert!(hops <= s.len(), "cycle in {}", s.text());
            }
            assert_eq!(j, s.root);
        }
        let sl = slots(&s);
        assert_eq!(sl.len(), CLAUSES);
        let mut classes = vec![];
        for x in &sl {
            assert_eq!(s.tokens[x.pos], s.tokens[x.class_pos], "the slot copies its subject's class");
            assert_eq!(s.tokens[x.pos - 2], s.tokens[x.class_pos - 2], "matched particles");
            classes.push(class_of(s.tokens[x.class_pos]).unwrap());
        }
        let mut sorted = classes.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2], "a permutation: {}", s.text());
        *perms.entry(classes).or_insert(0usize) += 1;
        let mut q: Vec<i64> = sl.iter().map(|x| s.tokens[x.pos - 2]).collect();
        q.dedup();
        q.sort_unstable();
        q.dedup();
        assert_eq!(q.len(), CLAUSES, "distinct particles");
        // fillers after each unit: a unit is 3 words, then its run of fillers
        let is_filler = |t: i64| (filler(0)..=filler(FILLERS - 1)).contains(&t);
        let mut i = 0;
        for _ in 0..2 * CLAUSES {
            assert!(s.tokens[i..i + 3].iter().all(|&t| !is_filler(t)), "{}", s.text());
            i += 3;
            let run = s.tokens[i..].iter().take_while(|&&t| is_filler(t)).count();
            fill[run] += 1;
            i += run;
        }
        assert_eq!(i, s.len());
    }
    assert_eq!(perms.len(), 6);
    for (p, c) in &perms {
        assert!((c * 6).abs_diff(n) < n / 10, "permutation {p:?}: {c} of {n}");
    }
    let units = 6 * n;
    for (k, &c) in fill.iter().enumerate() {
        assert!((c * 3).abs_diff(units) < units / 20, "{k} fillers after {c} of {units} units");
    }
}

/// No fixed offset finds a slot's subject class token: over 6000 sentences the offsets from slot
/// to class spread over 3..25, no single offset holds more than 1/8 of the arcs, and the best
/// guess of the probe's fixed offsets (−3..+2) scores 1/9 (the innermost slot with no filler).
#[test]
fn no_fixed_offset_from_slot_to_subject() {
    let mut r = ChaCha8Rng::seed_from_u64(53);
    let sentences: Vec<Sentence> = (0..6000).map(|_| sample(&mut r)).collect();
    let mut hist = std::collections::BTreeMap::new();
    for s in &sentences {
        for x in slots(s) {
            *hist.entry(x.pos - x.class_pos).or_insert(0usize) += 1;
        }
    }
    let total: usize = hist.values().sum();
    assert_eq!(total, 3 * 6000);
    let (&lo, &hi) = (hist.keys().next().unwrap(), hist.keys().last().unwrap());
    assert_eq!((lo, hi), (3, 25));
    let top = *hist.values().max().unwrap() as f64 / total as f64;
    assert!(top < 0.125, "the most common offset holds {top}");
    let arcs = slot_arcs(&sentences);
    let lengths: Vec<usize> = sentences.iter().map(|s| s.len()).collect();
    let (offset, uas) = crate::chapters::syntax::metrics::best_offset_baseline(&arcs, &lengths);
    assert_eq!(offset, -3);
    assert!((uas - 1.0 / 9.0).abs() < 0.01, "{uas}");
}

/// Every slot is always masked (with `MASK`, its class the target); about 15 % of the other words
/// are targets, replaced 80 / 10 / 10 (`MASK`, a random word, kept), or with `mask_only` all
/// `MASK`; padding never is.
#[test]
fn the_slots_are_always_masked() {
    let mut r = ChaCha8Rng::seed_from_u64(54);
    let sentences: Vec<Sentence> = (0..2000).map(|_| sample(&mut r)).collect();
    let (tokens, lengths) = batch(&sentences, MAX_LEN);
    let mut again = r.clone();
    let (inputs, targets) = mask(&sentences, &tokens, &lengths, MAX_LEN, &Options::REFERENCE, &mut r);
    // mask-only: every target MASK, every other word itself, about 15 % of the other words targets.
    let only = Options { mask_only: true, ..Options::REFERENCE };
    let (plain_inputs, plain_targets) = mask(&sentences, &tokens, &lengths, MAX_LEN, &only, &mut again);
    for (k, &target) in plain_targets.iter().enumerate() {
        assert_eq!(plain_inputs[k], if target != IGNORE { MASK } else { tokens[k] });
    }
    let plain_share = plain_targets.iter().filter(|&&x| x != IGNORE).count() as f64
        / targets.iter().filter(|&&x| x != IGNORE).count() as f64;
    assert!((0.95..1.05).contains(&plain_share), "{plain_share}");
    let mut replaced = [0usize; 3]; // BERT, at the words other than the slots: MASK, another word, kept
    let (mut other, mut chosen) = (0usize, 0usize);
    for (b, s) in sentences.iter().enumerate() {
        for i in 0..MAX_LEN {
            let k = b * MAX_LEN + i;
            if i >= s.len() {
                assert_eq!((inputs[k], targets[k]), (PAD, IGNORE));
            } else if s.verb_positions.contains(&i) {
                assert_eq!((inputs[k], targets[k]), (MASK, s.tokens[i]));
                assert!(class_of(targets[k]).is_some());
            } else {
                other += 1;
                chosen += usize::from(targets[k] != IGNORE);
                if targets[k] != IGNORE {
                    let changed = inputs[k] != MASK;
                    replaced[usize::from(changed) + usize::from(changed && inputs[k] == targets[k])] += 1;
                }
                assert!(targets[k] == IGNORE || targets[k] == s.tokens[i]);
                assert!(inputs[k] == s.tokens[i] || targets[k] != IGNORE, "only targets change");
            }
        }
    }
    let share = chosen as f64 / other as f64;
    assert!((0.14..0.16).contains(&share), "{share}");
    // 80 / 10 / 10 (a random word equal to the target counts as kept: 0.1 / 63 more).
    let of = |i: usize| replaced[i] as f64 / chosen as f64;
    assert!(
        (0.77..0.83).contains(&of(0)) && (0.08..0.12).contains(&of(1)) && (0.08..0.12).contains(&of(2)),
        "{replaced:?}"
    );
}

/// The reference options draw exactly what `sample` draws; decoys add that many class tokens
/// outside the units (never a slot's head, attached as fillers), so that in about a third of the
/// sentences with 2 decoys (counted: 0.25–0.45) the class token nearest before the innermost slot
/// is a decoy, not its subject's; with repetition the classes repeat (a sentence holds all three
/// in 6 of 27 draws, 2/9) and each clause's class is uniform.
#[test]
fn decoys_and_repeated_classes() {
    let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(60), ChaCha8Rng::seed_from_u64(60));
    for _ in 0..200 {
        assert_eq!(sample(&mut a), sample_with(&mut b, &Options::REFERENCE));
    }
    let mut r = ChaCha8Rng::seed_from_u64(61);
    let options = Options { decoys: 2, ..Options::REFERENCE };
    let n = 4000;
    let mut nearest_is_decoy = 0usize;
    for _ in 0..n {
        let s = sample_with(&mut r, &options);
        assert!(s.len() <= options.max_len() && options.max_len() == MAX_LEN + 2);
        let classes = s.tokens.iter().filter(|&&t| class_of(t).is_some()).count();
        assert_eq!(classes, 2 * CLAUSES + 2, "3 subjects, 3 slots, 2 decoys: {}", s.text());
        let sl = slots(&s);
        for x in &sl {
            assert_eq!(s.tokens[x.pos], s.tokens[x.class_pos], "{}", s.text());
            assert!(s.tokens[x.class_pos - 1] >= noun(0) && s.tokens[x.class_pos - 1] <= noun(NOUNS - 1));
        }
        let subjects: Vec<usize> = sl.iter().map(|x| x.class_pos).collect();
        let targets: Vec<usize> = sl.iter().map(|x| x.pos).collect();
        for (i, &t) in s.tokens.iter().enumerate() {
            if class_of(t).is_some() && !subjects.contains(&i) && !targets.contains(&i) {
                let h = s.heads[i].expect("a decoy has a head");
                assert!(s.tokens[h] >= verb(0) && s.tokens[h] <= verb(VERBS - 1), "a decoy attaches to a verb");
            }
        }
        let inner = sl.iter().find(|x| x.depth == CLAUSES - 1).unwrap();
        let nearest = (0..inner.pos).rev().find(|&j| class_of(s.tokens[j]).is_some()).unwrap();
        nearest_is_decoy += usize::from(nearest != inner.class_pos);
    }
    let share = nearest_is_decoy as f64 / n as f64;
    assert!((0.25..0.45).contains(&share), "{share}");
    let options = Options { repeat_classes: true, ..Options::REFERENCE };
    let (mut all_three, mut first) = (0usize, [0usize; CLASSES]);
    for _ in 0..n {
        let s = sample_with(&mut r, &options);
        let mut c: Vec<usize> = slots(&s).iter().map(|x| class_of(s.tokens[x.class_pos]).unwrap()).collect();
        first[c[0]] += 1;
        c.sort_unstable();
        c.dedup();
        all_three += usize::from(c.len() == CLASSES);
    }
    let share = all_three as f64 / n as f64;
    assert!((share - 2.0 / 9.0).abs() < 0.03, "{share}");
    assert!(first.iter().all(|&f| (f * 3).abs_diff(n) < n / 10), "{first:?}");
}

#[test]
fn items_mask_every_slot_and_ask_for_the_outermost() {
    let mut r = ChaCha8Rng::seed_from_u64(55);
    for it in items(&mut r, 200, &Options::REFERENCE) {
        assert_eq!(it.tokens.iter().filter(|&&t| t == MASK).count(), CLAUSES);
        assert_eq!(it.tokens[it.verb_pos], MASK);
        assert_eq!(it.tokens[it.subject_pos], it.good, "the outermost subject's class");
        assert_eq!(it.subject_pos, 2, "the first unit's class token");
        assert_eq!(foil(it.good), Some(it.bad));
    }
}

/// The probe, its offset guess and the regularizer on a tiny hand-built sentence of one clause,
/// `q0 N0 c0 f0 q0 V0 [c0]`: the slot (6) → its class token (2) is 4 words back, where no offset
/// of −3..+2 reaches; a head whose row of the slot puts most on position 2 scores 1; R on a
/// uniform map is 6 entries × 1/7.
#[test]
fn copy_metrics_by_hand_on_a_tiny_sentence() {
    use crate::chapters::syntax::language::{sas_edges, subject_arcs};
    use crate::chapters::syntax::metrics::{
        best_head, best_head_any_of, best_offset_any_of, best_offset_baseline, sas_reg, uas_per_head,
    };
    use crate::config::Grammar;
    let s = build(&[Clause { particle: 0, noun: 0, verb: 0, class: 0 }], &[vec![0], vec![]]);
    assert_eq!(text(&s), "q0 N0 c0 f0 q0 V0 c0");
    let t = s.len();
    let arcs = subject_arcs(Grammar::Copy, std::slice::from_ref(&s));
    assert_eq!(arcs[0], vec![None, None, None, None, None, None, Some(2)]);
    assert_eq!(best_offset_baseline(&arcs, &[t]), (-3, 0.0));
    // one head: uniform rows, except the slot's, which puts 0.5 on its class token
    let mut a = vec![1.0 / t as f32; t * t];
    for j in 0..t {
        a[6 * t + j] = if j == 2 { 0.5 } else { 0.5 / 6.0 };
    }
    let scores = uas_per_head(&a, 1, 1, 1, t, &arcs, &[t]);
    assert_eq!(best_head(&scores).uas, 1.0);
    // the subject unit: class token (2), noun (1), particle (0), one gold array each
    let unit = unit_arcs(std::slice::from_ref(&s));
    assert_eq!((unit[0][0][6], unit[1][0][6], unit[2][0][6]), (Some(2), Some(1), Some(0)));
    assert_eq!(best_head_any_of(&a, (1, 1, 1, t), &unit, &[t]).uas, 1.0);
    // a second head on the particle (0) instead: no hit on the class arc, one on the unit
    let mut b = a.clone();
    for j in 0..t {
        b[6 * t + j] = if j == 0 { 0.5 } else { 0.5 / 6.0 };
    }
    let two: Vec<f32> = a.iter().chain(&b).copied().collect();
    let per_head = uas_per_head(&two, 1, 2, 1, t, &arcs, &[t]);
    assert_eq!(per_head.iter().filter(|h| h.head == 1).map(|h| h.uas).fold(0.0, f64::max), 0.0);
    let best = best_head_any_of(&b, (1, 1, 1, t), &unit, &[t]);
    assert_eq!(best.uas, 1.0, "the particle is the unit's");
    // the offsets −3..+2 from the slot (6) reach 3, 4, 5: none of the unit's 0..2
    assert_eq!(best_offset_any_of(&unit, &[t]), (-3, 0.0));
    // on the tiny sentence `q0 N0 c0 q0 V0 c0` (no filler) −3 reaches the class token: 1 of 1
    let s2 = build(&[Clause { particle: 0, noun: 0, verb: 0, class: 0 }], &[vec![], vec![]]);
    let u2 = unit_arcs(std::slice::from_ref(&s2));
    assert_eq!(best_offset_any_of(&u2, &[s2.len()]), (-3, 1.0));
    // R: pairs slot ↔ class (2), noun (1), particle (0): 6 entries of the uniform map
    let e = sas_edges(Grammar::Copy, std::slice::from_ref(&s), &[t], t);
    assert_eq!(e.iter().sum::<f32>(), 6.0);
    // sas-unit: the verb unit (4, 5, 6) × the subject unit (0, 1, 2), both directions: 18 entries
    assert_eq!(unit_pairs(&s).len(), 9);
    assert!(unit_pairs(&s).iter().all(|&(v, u)| (4..=6).contains(&v) && u <= 2));
    let wide = crate::chapters::syntax::language::sas_edges_of(Grammar::Copy, std::slice::from_ref(&s), &[t], t, true);
    assert_eq!(wide.iter().sum::<f32>(), 18.0);
    let uniform = vec![1.0 / t as f32; t * t];
    assert!((sas_reg(&uniform, 1, 1, 1, t, &e) - 6.0 / 7.0).abs() < 1e-6);
}

/// The slot columns are appended only in a copy-agreement run, and read back.
#[test]
fn slot_columns_only_for_copy() {
    use crate::chapters::syntax::metrics::SlotMetrics;
    use crate::chapters::syntax::rows::{from_csv, to_csv, SyntaxRow, CSV_COLUMNS, SLOT_COLUMNS};
    use crate::config::{Grammar, Preset, RunConfig};
    use crate::history::Row;
    let mut cfg = RunConfig::syntax_agreement(Preset::Interactive);
    assert_eq!(SyntaxRow::columns(&cfg), CSV_COLUMNS.to_vec());
    cfg.syntax.grammar = Grammar::Copy;
    let cols = SyntaxRow::columns(&cfg);
    assert_eq!(cols[..CSV_COLUMNS.len()], CSV_COLUMNS[..], "appended after the contract");
    assert_eq!(cols[CSV_COLUMNS.len()..], SLOT_COLUMNS[..]);
    let mut row = SyntaxRow {
        step: 25,
        loss: 1.5,
        heldout_loss: 1.25,
        uas: 0.5,
        agreement_acc: 0.75,
        sas_reg: 2.0,
        best_layer: 1,
        best_head: 3,
        best_direction: "dep->head".into(),
        offset_uas: 0.25,
        train_reg: 2.5,
        lambda: 0.0,
        uas_subject: 0.125,
        offset_uas_subject: 0.0625,
        verb_loss: 1.0,
        uas_nonadjacent: 0.5,
        offset_uas_nonadjacent: 0.25,
        agreement_logodds: 0.5,
        verb_number_loss: 0.5,
        slots: Some(SlotMetrics {
            loss: 1.0986,
            by_depth: [1.0, 1.1, f64::NAN],
            acc: 0.375,
            unit_uas: 0.5,
            unit_offset: 0.25,
        }),
    };
    assert_eq!(row.cells().len(), cols.len());
    let csv = to_csv(std::slice::from_ref(&row));
    assert!(csv.starts_with(&cols.join(",")));
    let back = from_csv(&csv).unwrap();
    let got = back[0].slots.unwrap();
    assert_eq!((got.loss, got.by_depth[..2].to_vec(), got.acc), (1.0986, vec![1.0, 1.1], 0.375));
    assert!(got.by_depth[2].is_nan());
    assert_eq!((got.unit_uas, got.unit_offset), (0.5, 0.25));
    // a file written before the unit columns reads them as NaN
    let n = cols.len() - 2;
    let old: String = csv.lines().map(|l| l.split(',').take(n).collect::<Vec<_>>().join(",") + "\n").collect();
    let got = from_csv(&old).unwrap()[0].slots.unwrap();
    assert!(got.acc == 0.375 && got.unit_uas.is_nan() && got.unit_offset.is_nan());
    // and a checkpoint's rows (serde) written before them, too
    let json = r#"{"loss": 1.0, "by_depth": [1.0, 1.0, 1.0], "acc": 0.5}"#;
    let got: SlotMetrics = serde_json::from_str(json).unwrap();
    assert!(got.acc == 0.5 && got.unit_uas.is_nan() && got.unit_offset.is_nan());
    row.slots = None;
    let plain = to_csv(std::slice::from_ref(&row));
    assert!(plain.starts_with(&(CSV_COLUMNS.join(",") + "\n")));
    assert_eq!(from_csv(&plain).unwrap(), vec![row]);
}
