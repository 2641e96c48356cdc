//! Unit tests of `data`.

use super::*;
use crate::rng::{stream, Stream};

fn task(seed: u64) -> AnchorTask {
    AnchorTask::new(&mut stream(seed, Stream::Init, 7))
}

/// Finds the key position by the structure alone: the unique anchor token (< KEY_MIN) sits
/// right after the key.
fn structure(row: &[i64]) -> (usize, Vec<i64>) {
    let anchors: Vec<usize> = (0..row.len()).filter(|&i| row[i] < KEY_MIN).collect();
    assert!(!anchors.is_empty() && anchors[0] >= 1, "row {row:?}");
    (anchors[0] - 1, anchors.iter().map(|&i| row[i]).collect())
}

#[test]
fn labels_by_hand() {
    assert_eq!(inferential_label(50, 1, 2), 56);
    assert_eq!(rule_label(50, 3, 4), 44);
    assert_eq!(inferential_label(50, 3, 4), 40);
    assert_eq!(inferential_label(50, 4, 3), 40);
    assert_eq!(symmetric_label(50, 4, 3), 44);
    assert_eq!(symmetric_label(50, 1, 2), 56);
    // wrap-around and labels below 20
    assert_eq!(rule_label(99, 1, 1), 9);
    assert_eq!(rule_label(20, 4, 4), 4);
    assert_eq!(inferential_label(20, 4, 3), 10);
    assert_eq!(symmetric_label(20, 4, 3), 14);
    assert_eq!(shift(4), -8);
}

#[test]
fn train_batches_satisfy_the_task() {
    let t = task(1);
    let mut rng = stream(1, Stream::Train, 0);
    for _ in 0..20 {
        let b = t.train_batch(257, &mut rng);
        assert_eq!(b.batch, 257);
        assert_eq!(b.tokens.len(), 257 * SEQ_LEN);
        for v in [&b.labels, &b.keys, &b.inferential, &b.symmetric] {
            assert_eq!(v.len(), 257);
        }
        assert_eq!(b.subset.len(), 257);
        assert_eq!(b.subset.iter().filter(|&&s| s == Subset::Memory).count(), 129);
        for i in 0..b.batch {
            let row = b.row(i);
            assert!(row.iter().all(|&x| (0..VOCAB as i64).contains(&x)));
            let (p, anchors) = structure(row);
            assert_eq!(p, b.key_pos[i]);
            assert!(p <= SEQ_LEN - 3);
            assert_eq!(row[p], b.keys[i]);
            assert!((KEY_MIN..=KEY_MAX).contains(&b.keys[i]));
            // noise: every other token is in the key range
            let mut others = row.to_vec();
            others.drain(p..p + 1 + anchors.len());
            assert!(others.iter().all(|&x| (KEY_MIN..=KEY_MAX).contains(&x)));
            assert_eq!(b.inferential[i], b.labels[i]);
            assert_eq!(b.symmetric[i], b.labels[i]);
            match b.subset[i] {
                Subset::Memory => {
                    assert_eq!(anchors.len(), 1);
                    assert!(MEMORY_ANCHORS.contains(&anchors[0]));
                    assert_eq!(b.labels[i], t.memory().label(anchors[0], b.keys[i]));
                }
                Subset::ReasoningSeen => {
                    assert_eq!(anchors.len(), 2);
                    let (a, c) = (anchors[0], anchors[1]);
                    assert!(SEEN_PAIRS.contains(&(a, c)));
                    assert_ne!((a, c), HELDOUT_PAIR);
                    let want = if (a, c) == (3, 4) {
                        (b.keys[i] - 6).rem_euclid(100)
                    } else {
                        (b.keys[i] + shift(a) + shift(c)).rem_euclid(100)
                    };
                    assert_eq!(b.labels[i], want);
                }
                Subset::ReasoningHeldout => panic!("held-out sample in a training batch"),
            }
        }
    }
}

#[test]
fn heldout_pair_never_in_training() {
    let t = task(2);
    let mut rng = stream(2, Stream::Train, 0);
    let mut seen = std::collections::HashSet::new();
    let mut mem = 0usize;
    let mut total = 0usize;
    for _ in 0..200 {
        let b = t.train_batch(100, &mut rng);
        for i in 0..b.batch {
            let row = b.row(i);
            assert!(row.windows(2).all(|w| (w[0], w[1]) != HELDOUT_PAIR), "row {row:?}");
            let p = b.key_pos[i];
            if b.subset[i] == Subset::ReasoningSeen {
                seen.insert((row[p + 1], row[p + 2]));
            } else {
                mem += 1;
            }
            total += 1;
        }
    }
    assert_eq!(seen.len(), 15, "all seen pairs occur");
    assert_eq!(mem * 2, total);
}

#[test]
fn pairs_keys_and_positions_are_roughly_uniform() {
    let t = task(3);
    let mut rng = stream(3, Stream::Train, 0);
    let b = t.train_batch(30_000, &mut rng);
    let mut pair_counts = std::collections::HashMap::new();
    let mut pos_counts = [0usize; SEQ_LEN - 2];
    for i in 0..b.batch {
        pos_counts[b.key_pos[i]] += 1;
        if b.subset[i] == Subset::ReasoningSeen {
            let p = b.key_pos[i];
            *pair_counts.entry((b.row(i)[p + 1], b.row(i)[p + 2])).or_insert(0usize) += 1;
        }
    }
    for (&pair, &c) in &pair_counts {
        assert!((c as f64 - 1000.0).abs() < 150.0, "{pair:?}: {c}");
    }
    for &c in &pos_counts {
        assert!((c as f64 - 30_000.0 / 7.0).abs() < 300.0, "{pos_counts:?}");
    }
}

#[test]
fn eval_batches_have_equal_blocks() {
    let t = task(4);
    let b = t.eval_batch(64, &mut stream(4, Stream::Eval, 0));
    assert_eq!(b.batch, 192);
    for (k, s) in Subset::ALL.iter().enumerate() {
        assert!(b.subset[k * 64..(k + 1) * 64].iter().all(|x| x == s));
    }
    for i in 128..192 {
        let row = b.row(i);
        let p = b.key_pos[i];
        assert_eq!((row[p + 1], row[p + 2]), (4, 3));
        assert_eq!(b.inferential[i], (b.keys[i] - 10).rem_euclid(100));
        assert_eq!(b.symmetric[i], (b.keys[i] - 6).rem_euclid(100));
        assert_eq!(b.labels[i], b.inferential[i]);
        assert_eq!(structure(row).0, p);
    }
    for i in 0..128 {
        assert_eq!(b.inferential[i], b.labels[i]);
        assert_eq!(b.symmetric[i], b.labels[i]);
    }
}

#[test]
fn memory_table_is_stable_per_seed_and_differs_across_seeds() {
    let a = task(5);
    let b = task(5);
    let c = task(6);
    assert_eq!(a.memory(), b.memory());
    assert_eq!(a.memory().labels().len(), 4 * NUM_KEYS);
    assert!(a.memory().labels().iter().all(|l| (KEY_MIN..=KEY_MAX).contains(l)));
    let differ = a.memory().labels().iter().zip(c.memory().labels()).filter(|(x, y)| x != y).count();
    assert!(differ > 250, "{differ}");
    // drawing batches does not touch the table
    let _ = a.train_batch(100, &mut stream(5, Stream::Train, 0));
    assert_eq!(a.memory(), b.memory());
    // the same (m, key) always gets the same label
    let batch = a.train_batch(2000, &mut stream(5, Stream::Train, 1));
    let mut map = std::collections::HashMap::new();
    for i in 0..batch.batch {
        if batch.subset[i] == Subset::Memory {
            let m = batch.row(i)[batch.key_pos[i] + 1];
            let prev = map.insert((m, batch.keys[i]), batch.labels[i]);
            assert!(prev.is_none() || prev == Some(batch.labels[i]));
        }
    }
}

#[test]
fn deterministic_for_a_fixed_seed() {
    let t = task(7);
    let a = t.train_batch(64, &mut stream(7, Stream::Train, 3));
    let b = t.train_batch(64, &mut stream(7, Stream::Train, 3));
    let c = t.train_batch(64, &mut stream(7, Stream::Train, 4));
    assert_eq!(a, b);
    assert_ne!(a.tokens, c.tokens);
    let e1 = t.eval_batch(10, &mut stream(7, Stream::Eval, 0));
    let e2 = t.eval_batch(10, &mut stream(7, Stream::Eval, 0));
    assert_eq!(e1, e2);
}

#[test]
fn pure_reasoning_task_of_another_length() {
    let t = AnchorTask::with(&mut stream(9, Stream::Table, 0), 0.0, 8);
    assert!(!t.has_memory());
    assert_eq!(t.seq_len(), 8);
    // The table comes from the same stream whatever the mix.
    assert_eq!(t.memory(), AnchorTask::new(&mut stream(9, Stream::Table, 0)).memory());
    let b = t.train_batch(500, &mut stream(9, Stream::Train, 0));
    assert_eq!((b.batch, b.seq_len, b.tokens.len()), (500, 8, 4000));
    assert!(b.subset.iter().all(|&s| s == Subset::ReasoningSeen));
    let mut positions = std::collections::HashSet::new();
    for i in 0..b.batch {
        let (p, anchors) = structure(b.row(i));
        assert_eq!((p, anchors.len()), (b.key_pos[i], 2));
        positions.insert(p);
    }
    assert_eq!(positions, (0..=5).collect(), "key at 0..=L-3");
    let e = t.eval_batch(10, &mut stream(9, Stream::Eval, 0));
    assert_eq!(e.batch, 20);
    assert!(e.subset[..10].iter().all(|&s| s == Subset::ReasoningSeen));
    assert!(e.subset[10..].iter().all(|&s| s == Subset::ReasoningHeldout));
    assert_eq!(t.eval_subsets(), &[Subset::ReasoningSeen, Subset::ReasoningHeldout]);
    // A quarter of memory samples, rounded.
    let q = AnchorTask::with(&mut stream(9, Stream::Table, 0), 0.25, 4);
    let b = q.train_batch(10, &mut stream(9, Stream::Train, 1));
    assert_eq!(b.subset.iter().filter(|&&s| s == Subset::Memory).count(), 3, "round(2.5) = 3");
    assert!(b.key_pos.iter().all(|&p| p <= 1));
}

#[test]
fn token_lists_and_names() {
    let keys = AnchorTask::key_tokens();
    assert_eq!(keys.len(), 80);
    assert_eq!((keys[0], keys[79]), (20, 99));
    assert!(keys.windows(2).all(|w| w[1] == w[0] + 1));
    assert_eq!(AnchorTask::anchor_tokens(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(Subset::ALL.iter().map(|s| s.name()).collect::<Vec<_>>(), vec!["memory", "reasoning", "heldout"]);
    let empty = task(8).train_batch(0, &mut stream(8, Stream::Train, 0));
    assert_eq!(empty.batch, 0);
    assert!(empty.tokens.is_empty());
}

#[test]
fn default_design_draws_the_same_stream_as_before() {
    let plain = AnchorTask::with(&mut stream(4, Stream::Table, 0), 0.5, 9);
    let designed = AnchorTask::designed(&mut stream(4, Stream::Table, 0), 0.5, 9, MemoryDesign::default());
    assert_eq!(plain, designed);
    assert_eq!(
        plain.train_batch(300, &mut stream(4, Stream::Train, 2)),
        designed.train_batch(300, &mut stream(4, Stream::Train, 2))
    );
}

#[test]
fn permutation_labels_use_every_key_once_per_anchor() {
    let design = MemoryDesign { labels: MemoryLabels::Permutation, ..MemoryDesign::default() };
    let t = AnchorTask::designed(&mut stream(6, Stream::Table, 0), 0.5, 9, design);
    let cell = AnchorTask::with(&mut stream(6, Stream::Table, 0), 0.5, 9);
    for (r, row) in t.memory().labels().chunks(NUM_KEYS).enumerate() {
        let mut sorted = row.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, AnchorTask::key_tokens(), "anchor {}", MEMORY_ANCHORS[r]);
        // a shuffle, not the identity
        assert!(row.iter().zip(KEY_MIN..).filter(|(l, k)| **l == *k).count() < 10);
    }
    // Independent cells repeat some labels within an anchor (80 draws from 80 values: about
    // 80·(1 − 1/e) ≈ 51 distinct), which is the per-token signal the permutation removes.
    let distinct = |row: &[i64]| row.iter().collect::<std::collections::HashSet<_>>().len();
    assert!(cell.memory().labels().chunks(NUM_KEYS).all(|row| distinct(row) < 65));
}

#[test]
fn fewer_facts_and_the_anchor_before_its_key() {
    let design = MemoryDesign { keys: 5, position: MemoryPosition::Before, ..MemoryDesign::default() };
    let t = AnchorTask::designed(&mut stream(2, Stream::Table, 0), 0.5, 8, design);
    assert_eq!(t.design().keys, 5);
    let b = t.train_batch(2000, &mut stream(2, Stream::Train, 0));
    let mut keys = std::collections::HashSet::new();
    for i in 0..b.batch {
        let row = b.row(i);
        let p = b.key_pos[i];
        assert_eq!(row[p], b.keys[i]);
        if b.subset[i] == Subset::Memory {
            // [m, key]: the anchor right before the key, the key one of the first five
            assert!(MEMORY_ANCHORS.contains(&row[p - 1]), "row {row:?} key at {p}");
            assert!((1..=6).contains(&p));
            assert!((KEY_MIN..KEY_MIN + 5).contains(&b.keys[i]));
            assert_eq!(b.labels[i], t.memory().label(row[p - 1], b.keys[i]));
            keys.insert(b.keys[i]);
        } else {
            // reasoning samples keep every key and their layout
            assert!(REASONING_ANCHORS.contains(&row[p + 1]) && REASONING_ANCHORS.contains(&row[p + 2]));
        }
    }
    assert_eq!(keys, (KEY_MIN..KEY_MIN + 5).collect());
    let reasoning_keys: std::collections::HashSet<_> =
        (0..b.batch).filter(|&i| b.subset[i] != Subset::Memory).map(|i| b.keys[i]).collect();
    assert!(reasoning_keys.len() > 70);
    // Out-of-range fact counts are clamped.
    let zero = MemoryDesign { keys: 0, ..MemoryDesign::default() };
    assert_eq!(AnchorTask::designed(&mut stream(2, Stream::Table, 0), 0.5, 8, zero).design().keys, 1);
}
