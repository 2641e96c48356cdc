//! Unit tests of `data`.

use super::*;
use rand::SeedableRng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

#[test]
fn vocabulary_layout() {
    assert_eq!(vocab_size(), 65);
    assert_eq!(word(PAD), "<pad>");
    assert_eq!(word(MASK), "<mask>");
    assert_eq!(word(THE), "the");
    assert_eq!(word(THAT), "that");
    assert_eq!(word(PERIOD), ".");
    assert_eq!(word(id(NOUN_SG0)), "dog");
    assert_eq!(word(id(NOUN_PL0)), "dogs");
    assert_eq!(word(id(VI_SG0)), "runs");
    assert_eq!(word(id(VT_PL0 + 4)), "find");
    assert_eq!(word(id(PREP0)), "near");
    assert_eq!(word(ADV_PRE[0]), "often");
    assert_eq!(word(ADV_POST[1]), "again");
    assert_eq!(word(-5), "<unk>");
    assert_eq!(word(vocab_size() as i64), "<unk>");
    // noun and verb pairs line up
    for k in 0..N_NOUN {
        assert_eq!(word(id(NOUN_SG0 + k)).chars().next(), word(id(NOUN_PL0 + k)).chars().next());
        assert_eq!(noun_number(id(NOUN_SG0 + k)), Some(Number::Sg));
        assert_eq!(noun_number(id(NOUN_PL0 + k)), Some(Number::Pl));
    }
    for base in [VI_SG0, VT_SG0] {
        for k in 0..N_VERB {
            let sg = id(base + k);
            let pl = flip_verb_number(sg).unwrap();
            assert_eq!(format!("{}s", word(pl)), word(sg));
            assert_eq!(flip_verb_number(pl), Some(sg));
        }
    }
    assert_eq!(verb_number(THE), None);
    assert_eq!(flip_verb_number(PERIOD), None);
    // no word is spelled twice
    let mut w = WORDS.to_vec();
    w.sort_unstable();
    w.dedup();
    assert_eq!(w.len(), WORDS.len());
}

/// Every sampled sentence is a well-formed tree that obeys the documented conventions.
#[test]
fn sentences_are_trees_with_agreement() {
    let mut r = rng(1);
    for _ in 0..5000 {
        let s = sample(&mut r);
        let l = s.len();
        assert!((3..=MAX_LEN).contains(&l), "{}", s.text());
        assert_eq!(s.heads.len(), l);
        assert_eq!(*s.tokens.last().unwrap(), PERIOD);
        assert_eq!(s.heads[l - 1], Some(s.root));
        assert!(s.tokens.iter().all(|&w| w >= FIRST_WORD && (w as usize) < vocab_size()));
        // exactly one root, the main verb; every head in range and not self
        assert_eq!(s.heads.iter().filter(|h| h.is_none()).count(), 1);
        assert_eq!(s.heads[s.root], None);
        assert!(verb_number(s.tokens[s.root]).is_some());
        for (i, h) in s.heads.iter().enumerate() {
            if let Some(h) = *h {
                assert!(h < l && h != i);
            }
        }
        // acyclic: every word reaches the root
        for i in 0..l {
            let (mut j, mut steps) = (i, 0);
            while let Some(h) = s.heads[j] {
                j = h;
                steps += 1;
                assert!(steps <= l, "cycle in {}", s.text());
            }
            assert_eq!(j, s.root);
        }
        // projective (no crossing arcs)
        let arcs: Vec<(usize, usize)> =
            s.heads.iter().enumerate().filter_map(|(i, h)| h.map(|h| (i.min(h), i.max(h)))).collect();
        for &(a, b) in &arcs {
            for &(c, d) in &arcs {
                assert!(!(a < c && c < b && b < d), "crossing arcs in {}", s.text());
            }
        }
        // agreement of every finite verb with its controller, which depends on it or on the
        // noun it modifies
        assert_eq!(s.verb_positions.len(), s.controllers.len());
        assert!(s.verb_positions.contains(&s.root));
        for (&v, &c) in s.verb_positions.iter().zip(&s.controllers) {
            assert_eq!(verb_number(s.tokens[v]), noun_number(s.tokens[c]), "{}", s.text());
            assert!(s.heads[c] == Some(v) || s.heads[v] == Some(c));
        }
        assert_eq!(s.heads[s.subject], Some(s.root));
        // word-class conventions
        for (i, &w) in s.tokens.iter().enumerate() {
            let k = (w - FIRST_WORD) as usize;
            let head_tok = s.heads[i].map(|h| s.tokens[h]);
            if k < NOUN_SG0 {
                // determiner or adjective → a later noun of the same number
                let h = s.heads[i].unwrap();
                assert!(h > i && noun_number(head_tok.unwrap()).is_some());
                if DET_SG.contains(&w) {
                    assert_eq!(noun_number(head_tok.unwrap()), Some(Number::Sg));
                }
                if DET_PL.contains(&w) {
                    assert_eq!(noun_number(head_tok.unwrap()), Some(Number::Pl));
                }
            } else if (PREP0..PREP0 + N_PREP).contains(&k) || w == THAT {
                assert!(s.heads[i].unwrap() > i);
            }
        }
    }
}

#[test]
fn sampling_is_seeded() {
    let a = sample_n(&mut rng(5), 20);
    let b = sample_n(&mut rng(5), 20);
    let c = sample_n(&mut rng(6), 20);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn batch_pads_and_truncates() {
    let s = sample_n(&mut rng(2), 3);
    let (tok, len) = batch(&s, MAX_LEN);
    assert_eq!(tok.len(), 3 * MAX_LEN);
    for b in 0..3 {
        assert_eq!(len[b], s[b].len());
        assert_eq!(&tok[b * MAX_LEN..b * MAX_LEN + len[b]], s[b].tokens.as_slice());
        assert!(tok[b * MAX_LEN + len[b]..(b + 1) * MAX_LEN].iter().all(|&x| x == PAD));
    }
    let (tok, len) = batch(&s, 2);
    assert_eq!(len, vec![2, 2, 2]);
    assert_eq!(&tok[2..4], &s[1].tokens[..2]);
    assert_eq!(batch(&[], 8), (vec![], vec![]));
}

#[test]
fn mlm_mask_rates() {
    let mut r = rng(3);
    let s = sample_n(&mut r, 4000);
    let t = MAX_LEN;
    let (tok, len) = batch(&s, t);
    let (inp, tgt) = mlm_mask(&tok, &len, t, &mut r);
    assert_eq!(inp.len(), tok.len());
    let (mut real, mut sel, mut masked, mut same) = (0usize, 0usize, 0usize, 0usize);
    for (b, &lb) in len.iter().enumerate() {
        let mut row_sel = 0;
        for i in 0..t {
            let k = b * t + i;
            if i >= lb {
                assert_eq!(inp[k], PAD);
                assert_eq!(tgt[k], IGNORE);
                continue;
            }
            real += 1;
            if tgt[k] == IGNORE {
                assert_eq!(inp[k], tok[k]);
            } else {
                assert_eq!(tgt[k], tok[k]);
                sel += 1;
                row_sel += 1;
                masked += usize::from(inp[k] == MASK);
                same += usize::from(inp[k] == tok[k]);
                assert!(inp[k] == MASK || inp[k] >= FIRST_WORD);
            }
        }
        assert!(row_sel >= 1);
    }
    let rate = sel as f64 / real as f64;
    // 0.15 plus the forced picks in sentences that drew none (about 0.85^len of them)
    assert!((0.15..0.19).contains(&rate), "{rate}");
    let m = masked as f64 / sel as f64;
    assert!((m - 0.8).abs() < 0.02, "{m}");
    // unchanged: 10 % plus the random draws that hit the original word (1/63 of 10 %)
    let u = same as f64 / sel as f64;
    assert!((u - 0.1016).abs() < 0.015, "{u}");
    // degenerate input
    assert_eq!(mlm_mask(&[], &[], 0, &mut r), (vec![], vec![]));
    assert_eq!(mlm_mask(&[PAD; 4], &[0, 0], 2, &mut r), (vec![PAD; 4], vec![IGNORE; 4]));
}

#[test]
fn agreement_items_are_minimal_pairs() {
    let items = agreement_items(&mut rng(4), 2000);
    let mut attractors = 0;
    for it in &items {
        assert_eq!(it.tokens[it.verb_pos], MASK);
        assert_eq!(it.tokens.iter().filter(|&&w| w == MASK).count(), 1);
        assert_eq!(verb_number(it.good), noun_number(it.tokens[it.subject_pos]));
        assert_eq!(flip_verb_number(it.good), Some(it.bad));
        assert!(it.subject_pos < it.verb_pos);
        attractors += usize::from(it.attractor);
        if it.attractor {
            assert!(it.verb_pos > it.subject_pos + 2);
        }
    }
    let share = attractors as f64 / items.len() as f64;
    assert!((0.15..0.4).contains(&share), "attractor share {share}");
    // a hand-checked attractor: "the dog near the cats [runs] ."
    let dog = id(NOUN_SG0);
    let cats = id(NOUN_PL0 + 1);
    let toks = [THE, dog, id(PREP0), THE, cats, MASK, PERIOD];
    assert!(toks[2..5].iter().any(|&w| noun_number(w) == Some(Number::Pl)));
}

/// The measured corpus statistics (run with `--nocapture` to see them).
#[test]
fn corpus_statistics() {
    let s = sample_n(&mut rng(0), 10_000);
    let st = corpus_stats(&s);
    println!("sentences {} arcs {} vocab {}", st.sentences, st.arcs, vocab_size());
    println!("mean length {:.2}, adjacent arcs {:.3}", st.mean_len, st.adjacent);
    for (o, u) in &st.offset_uas {
        println!("offset {o:+}: UAS {u:.3}");
    }
    println!("main verb not adjacent to subject: {:.3}", st.long_agreement);
    let mut hist = [0usize; MAX_LEN + 1];
    s.iter().for_each(|x| hist[x.len()] += 1);
    println!("length histogram {hist:?}");
    for x in s.iter().take(12) {
        println!("  {}", x.text());
    }
    let best = st.offset_uas.iter().map(|x| x.1).fold(0.0, f64::max);
    assert!(best < 0.4, "best offset baseline {best}");
    assert!(st.adjacent < 0.6, "adjacent {}", st.adjacent);
    assert!((6.0..12.0).contains(&st.mean_len));
    let total: f64 = st.offset_uas.iter().map(|x| x.1).sum();
    assert!(total <= 1.0 + 1e-12);
    assert_eq!(corpus_stats(&[]).mean_len, 0.0);
}
