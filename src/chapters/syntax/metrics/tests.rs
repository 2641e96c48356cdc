//! Unit tests of `metrics`.

use super::*;

/// "the dog near the cats runs ." with UD heads: the→dog, dog→runs, near→cats, the→cats,
/// cats→dog, runs = root, .→runs.
fn tree() -> Vec<Option<usize>> {
    vec![Some(1), Some(5), Some(4), Some(4), Some(1), None, Some(5)]
}

/// A `[t, t]` map with weight 1 on (dependent, head) of `gold`, or on (head, dependent) when
/// `transpose`; the root row is uniform.
fn tree_map(gold: &[Option<usize>], t: usize, transpose: bool) -> Vec<f32> {
    let mut a = vec![0.0f32; t * t];
    for (i, h) in gold.iter().enumerate() {
        match *h {
            Some(h) if transpose => a[h * t + i] = 1.0,
            Some(h) => a[i * t + h] = 1.0,
            None if !transpose => (0..gold.len()).for_each(|j| a[i * t + j] = 0.1),
            None => {}
        }
    }
    a
}

fn find(s: &[HeadUas], layer: usize, head: usize, d: Direction) -> f64 {
    s.iter().find(|x| x.layer == layer && x.head == head && x.direction == d).unwrap().uas
}

#[test]
fn a_map_following_the_tree_scores_one_in_its_direction() {
    let g = vec![tree()];
    let t = 7;
    let s = uas_per_head(&tree_map(&g[0], t, false), 1, 1, 1, t, &g, &[7]);
    assert_eq!(s.len(), 2);
    assert_eq!(find(&s, 0, 0, Direction::DependentToHead), 1.0);
    // read transposed, it predicts for word i the word attending most to i: its first
    // dependent, or the root (whose row is uniform) for a word without dependents; that is
    // right only for the period (→ runs): 1 of 6
    let b = find(&s, 0, 0, Direction::HeadToDependent);
    assert!((b - 1.0 / 6.0).abs() < 1e-12, "{b}");
    // the transposed map scores 1 read transposed
    let s = uas_per_head(&tree_map(&g[0], t, true), 1, 1, 1, t, &g, &[7]);
    assert_eq!(find(&s, 0, 0, Direction::HeadToDependent), 1.0);
    assert!(find(&s, 0, 0, Direction::DependentToHead) < 1.0);
    assert_eq!(best_head(&s).direction, Direction::HeadToDependent);
}

#[test]
fn uniform_map_picks_the_lowest_other_position() {
    // every word predicts position 0 except word 0 which predicts 1: only the→dog is right
    let g = vec![tree()];
    let a = vec![1.0 / 7.0; 49];
    let s = uas_per_head(&a, 1, 1, 1, 7, &g, &[7]);
    assert!((s[0].uas - 1.0 / 6.0).abs() < 1e-12);
    assert!((s[1].uas - 1.0 / 6.0).abs() < 1e-12);
}

#[test]
fn padding_and_diagonal_are_ignored() {
    let g = vec![tree()];
    let t = 9;
    let mut a = tree_map(&g[0], t, false);
    for i in 0..t {
        a[i * t + 7] = 5.0; // padding columns
        a[i * t + 8] = 5.0;
        a[i * t + i] = 9.0; // diagonal
    }
    let s = uas_per_head(&a, 1, 1, 1, t, &g, &[7]);
    assert_eq!(s[0].uas, 1.0);
    // a gold list longer than the length: the words past it are not scored
    let s = uas_per_head(&a, 1, 1, 1, t, &g, &[5]);
    // words 0..5 with heads < 5: the(1), near(4), the(4), cats(1) → all right
    assert_eq!(s[0].uas, 1.0);
}

#[test]
fn layout_is_layers_heads_batch() {
    // 2 layers × 2 heads × 2 sentences; only layer 1, head 0 follows the tree, in both sentences
    let (layers, heads, batch, t) = (2, 2, 2, 8);
    let g = vec![tree(), vec![Some(1), None, Some(1)]];
    let lengths = [7, 3];
    let mut attn = vec![0.0f32; layers * heads * batch * t * t];
    for (b, gb) in g.iter().enumerate() {
        let m = tree_map(gb, t, false);
        let lh = heads; // layer 1, head 0
        let off = (lh * batch + b) * t * t;
        attn[off..off + t * t].copy_from_slice(&m);
    }
    let s = uas_per_head(&attn, layers, heads, batch, t, &g, &lengths);
    assert_eq!(s.len(), 8);
    let best = best_head(&s);
    assert_eq!((best.layer, best.head, best.direction, best.uas), (1, 0, Direction::DependentToHead, 1.0));
    // all-zero maps: lowest index → words with gold head 0 (none here; sentence 2 word 0 → 1 ✓,
    // sentence 1 word 0 → 1 ✓): 2 of 8 scored words
    assert!((find(&s, 0, 1, Direction::DependentToHead) - 0.25).abs() < 1e-12);
}

#[test]
fn degenerate_inputs_do_not_panic() {
    assert!(uas_per_head(&[], 0, 0, 0, 0, &[], &[]).is_empty());
    assert!(uas_per_head(&[0.0; 3], 1, 1, 1, 2, &[vec![Some(1), None]], &[2]).is_empty());
    let s = uas_per_head(&[0.0; 4], 1, 1, 1, 2, &[], &[]);
    assert_eq!(s.iter().map(|x| x.uas).collect::<Vec<_>>(), vec![0.0, 0.0]);
    let s = uas_per_head(&[f32::NAN; 4], 1, 1, 1, 2, &[vec![Some(1), None]], &[2]);
    assert_eq!(s[0].uas, 0.0);
    assert_eq!(best_head(&[]).uas, 0.0);
    assert_eq!(best_offset_baseline(&[], &[]), (-3, 0.0));
    assert_eq!(offset_baseline_uas(&[vec![None]], &[1], 1), 0.0);
    assert!(sas_edge_mask(&[], &[], 4).is_empty());
    assert_eq!(sas_reg(&[], 1, 1, 0, 4, &[]), 0.0);
    assert_eq!(sas_reg(&[1.0; 3], 1, 1, 1, 2, &[1.0; 4]), 0.0);
    assert_eq!(structure_onset(&[], &[]), None);
    assert_eq!(structure_onset(&[5], &[0.5]), None);
    assert_eq!(loss_drop_step(&[1, 2], &[f64::NAN, 1.0]), None);
    assert_eq!(steepest_change(&[1, 2], &[0.0, 1.0], 0, true), None);
    assert_eq!(agreement_accuracy(&[], 4, &[]), 0.0);
    // a missing logits row and an out-of-range id count as wrong
    assert_eq!(agreement_accuracy(&[0.0, 1.0], 2, &[(1, 0), (1, 0), (5, 0)]), 1.0 / 3.0);
}

#[test]
fn offset_baselines_by_hand() {
    // h − i over the scored words: +1, +4, +2, +1, −3, −1
    let g = vec![tree()];
    let l = [7];
    let u = |o| offset_baseline_uas(&g, &l, o);
    assert!((u(1) - 2.0 / 6.0).abs() < 1e-12);
    assert!((u(2) - 1.0 / 6.0).abs() < 1e-12);
    assert!((u(-1) - 1.0 / 6.0).abs() < 1e-12);
    assert!((u(-3) - 1.0 / 6.0).abs() < 1e-12);
    assert_eq!(u(-2), 0.0);
    assert_eq!(u(0), 0.0);
    assert_eq!(best_offset_baseline(&g, &l), (1, 2.0 / 6.0));
    // right-edge clamp as in the reference code: both words have the last word as head;
    // +1 gets word 1, +2 gets word 0 and (clamped from 3 to 2) word 1, as does +5
    let g = vec![vec![Some(2), Some(2), None]];
    assert_eq!(offset_baseline_uas(&g, &[3], 1), 0.5);
    assert_eq!(offset_baseline_uas(&g, &[3], 2), 1.0);
    assert_eq!(offset_baseline_uas(&g, &[3], 5), 1.0);
    // pooled over sentences
    let g = vec![tree(), vec![Some(1), None, Some(1)]];
    assert!((offset_baseline_uas(&g, &[7, 3], 1) - 3.0 / 8.0).abs() < 1e-12);
}

#[test]
fn sas_mask_and_reg_by_hand() {
    // "dogs run ." (heads 1, root, 1) padded to t = 4, and "the dog near the cats runs ."
    let g = vec![vec![Some(1), None, Some(1)], tree()];
    let t = 7;
    let e = sas_edge_mask(&g, &[3, 7], t);
    assert_eq!(e.len(), 2 * t * t);
    let ones: Vec<(usize, usize, usize)> =
        (0..2 * t * t).filter(|&k| e[k] == 1.0).map(|k| (k / (t * t), k / t % t, k % t)).collect();
    assert_eq!(ones[..4], [(0, 0, 1), (0, 1, 0), (0, 1, 2), (0, 2, 1)]);
    assert_eq!(ones.len(), 4 + 12);
    assert!(e.iter().all(|&v| v == 0.0 || v == 1.0));
    // one layer, two heads. head 0: uniform 1/7 → R_b = (#edges)/7; head 1: weight 0.5 on
    // (0,1) and 0.25 on (1,2), (3,3) in sentence 0, nothing in sentence 1
    let (layers, heads, batch) = (1, 2, 2);
    let mut a = vec![1.0f32 / 7.0; layers * heads * batch * t * t];
    let h1 = batch * t * t;
    a[h1..].iter_mut().for_each(|v| *v = 0.0);
    a[h1 + 1] = 0.5;
    a[h1 + t + 2] = 0.25;
    a[h1 + 3 * t + 3] = 0.25; // not an edge
    let r = sas_reg(&a, layers, heads, batch, t, &e);
    let expect = (4.0 / 7.0 + 0.75 + 12.0 / 7.0) / 2.0;
    assert!((r - expect).abs() < 1e-6, "{r} vs {expect}");
}

#[test]
fn steepest_change_on_constructed_curves() {
    let steps: Vec<usize> = (0..11).map(|k| k * 100).collect();
    let uas = [0.1, 0.1, 0.11, 0.12, 0.13, 0.6, 0.7, 0.75, 0.78, 0.8, 0.8];
    assert_eq!(steepest_change(&steps, &uas, 1, true), Some(450));
    let loss: Vec<f64> = uas.iter().map(|u| 3.0 - 2.0 * u).collect();
    assert_eq!(steepest_change(&steps, &loss, 1, false), Some(450));
    assert_eq!(steepest_change(&steps, &loss, 1, true), None, "a falling curve never rises");
    // uneven spacing: 0.3 over 100 steps is steeper than 0.5 over 1000
    let s2 = [0, 1000, 1100, 1200];
    assert_eq!(steepest_change(&s2, &[0.0, 0.5, 0.8, 0.85], 1, true), Some(1050));
    let noisy = [0.1, 0.15, 0.1, 0.15, 0.1, 0.5, 0.55, 0.6, 0.6, 0.62, 0.6];
    assert_eq!(steepest_change(&steps, &noisy, 1, true), Some(450));
    assert_eq!(steepest_change(&steps, &noisy, 3, true), Some(550));
    assert_eq!(steepest_change(&steps, &[0.3; 11], 1, true), None);
    assert_eq!(steepest_change(&[0, 0, 10], &[0.0, 1.0, 1.5], 1, true), Some(5));
}

/// A seeded standard normal (Box–Muller on a ChaCha stream), for the noisy synthetic curves.
fn normals(seed: u64, n: usize) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let (u, v): (f64, f64) = (r.random::<f64>().max(1e-300), r.random());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        })
        .collect()
}

#[test]
fn jitter_by_hand_and_on_gaussian_noise() {
    // |Δ| = 1, 3, 1 → median 1 → 1.4826/√2
    assert!((jitter(&[0.0, 1.0, 4.0, 3.0]) - 1.4826 / 2f64.sqrt()).abs() < 1e-12);
    assert_eq!(jitter(&[1.0]), 0.0);
    assert_eq!(jitter(&[1.0, f64::NAN, 2.0]), 0.0, "no finite pair");
    let z = normals(7, 4000);
    let s = jitter(&z.iter().map(|v| 0.05 * v).collect::<Vec<_>>());
    assert!((s - 0.05).abs() < 0.004, "σ̂ {s} for σ 0.05");
}

#[test]
fn a_plateau_then_a_cliff_is_found_at_the_cliff() {
    // 40 evaluations every 25 steps: flat at 2.0 (noise 0.01) until step 500, then a cliff
    // to 1.2 over 3 evaluations, then flat again.
    let steps: Vec<usize> = (0..40).map(|k| k * 25).collect();
    let z = normals(1, 40);
    let y: Vec<f64> = (0..40)
        .map(|k| {
            let base = match k {
                0..=20 => 2.0,
                21 => 1.8,
                22 => 1.5,
                _ => 1.2,
            };
            base + 0.01 * z[k]
        })
        .collect();
    let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
    assert_eq!(p.event, 525, "{p:?}");
    assert_eq!(p.end, 500);
    assert_eq!(p.start, 0, "the plateau reaches back to the start");
    assert!((p.level - 2.0).abs() < 0.02);
    assert_eq!(loss_drop_step(&steps, &y), Some(525));
    // the same curve mirrored is a structure onset at the same step
    let up: Vec<f64> = y.iter().map(|v| 3.0 - v).collect();
    assert_eq!(structure_onset(&steps, &up), Some(525));
    assert_eq!(loss_drop_step(&steps, &up), None, "a rising curve has no drop");
    // an exactly flat synthetic plateau and a one-step cliff
    let exact: Vec<f64> = (0..12).map(|k| if k < 8 { 1.0 } else { 0.5 }).collect();
    let s12: Vec<usize> = (0..12).collect();
    assert_eq!(loss_drop_step(&s12, &exact), Some(8));
}

#[test]
fn an_initial_descent_then_a_plateau_then_a_drop_finds_the_second_drop() {
    // what a loss curve looks like: a fast first fall, a shoulder, then the drop
    let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
    let z = normals(3, 60);
    let y: Vec<f64> = (0..60)
        .map(|k| {
            let k = k as f64;
            let first = 2.0 * (-k / 2.0).exp();
            let second = 0.6 / (1.0 + ((k - 35.0) / 1.5).exp());
            1.0 + first + second + 0.005 * z[k as usize]
        })
        .collect();
    let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
    assert!((31 * 25..=35 * 25).contains(&p.event), "{p:?}");
}

#[test]
fn a_smooth_decay_has_no_drop() {
    let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
    for tau in [1.0, 3.0, 8.0, 20.0, 60.0] {
        let y: Vec<f64> = (0..60).map(|k| 1.0 + 3.0 * (-(k as f64) / tau).exp()).collect();
        assert_eq!(loss_drop_step(&steps, &y), None, "exp decay τ = {tau}");
        let z = normals(tau as u64, 60);
        let noisy: Vec<f64> = y.iter().zip(&z).map(|(v, z)| v + 0.01 * z).collect();
        assert_eq!(loss_drop_step(&steps, &noisy), None, "noisy exp decay τ = {tau}");
        // a power law too
        let pl: Vec<f64> = (0..60).map(|k| 1.0 + 3.0 / (1.0 + k as f64 / tau)).collect();
        assert_eq!(loss_drop_step(&steps, &pl), None, "power law τ = {tau}");
    }
    // nor does a straight line (the convex limit)
    let line: Vec<f64> = (0..60).map(|k| 3.0 - 0.01 * k as f64).collect();
    assert_eq!(loss_drop_step(&steps, &line), None, "linear decline");
    // and a smooth rise has no onset
    let rise: Vec<f64> = (0..60).map(|k| 0.5 - 0.4 * (-(k as f64) / 10.0).exp()).collect();
    assert_eq!(structure_onset(&steps, &rise), None);
}

#[test]
fn noise_alone_has_no_drop() {
    let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
    let mut hits = 0;
    for seed in 0..200 {
        let y: Vec<f64> = normals(100 + seed, 60).iter().map(|z| 2.0 + 0.05 * z).collect();
        hits += usize::from(loss_drop_step(&steps, &y).is_some());
        hits += usize::from(structure_onset(&steps, &y).is_some());
    }
    assert_eq!(hits, 0, "false events on pure noise");
}

/// A curve on 25-step evaluations: `flat` evaluations at 2.0, then a linear fall to 1.0 over
/// `ramp` evaluations (0 = a cliff between two evaluations), then flat at 1.0 to 60 evaluations,
/// plus `noise · N(0, 1)`.
fn plateau_then_fall(flat: usize, ramp: usize, noise: f64, seed: u64) -> (Vec<usize>, Vec<f64>) {
    let z = normals(seed, 60);
    let steps: Vec<usize> = (0..60).map(|k| k * 25).collect();
    let y = (0..60)
        .map(|k| {
            let base = if k < flat {
                2.0
            } else if k >= flat + ramp {
                1.0
            } else {
                2.0 - (k - flat + 1) as f64 / (ramp + 1) as f64
            };
            base + noise * z[k]
        })
        .collect();
    (steps, y)
}

#[test]
fn fall_width_by_hand_on_exact_curves() {
    // a cliff after 20 flat evaluations: 10 % and 90 % are both crossed at evaluation 20
    let (steps, y) = plateau_then_fall(20, 0, 0.0, 0);
    let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
    assert_eq!((p.start, p.end, p.event), (0, 475, 500));
    let w = fall_width(&steps, &y, false, &p).expect("a fall");
    assert_eq!((w.from, w.to, w.width()), (500, 500, 0));
    assert_eq!(w.floor, 1.0);
    assert!(is_sudden(&p, &w));
    // a ramp of 9 evaluations: values 2 − j/10 at evaluations 20 + j − 1 (j = 1..9), then 1.0.
    // 10 % (≤ 1.9) is first held at evaluation 20 (1.9), 90 % (≤ 1.1) at 28 (1.1): width 200
    let (steps, y) = plateau_then_fall(20, 9, 0.0, 0);
    let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
    let w = fall_width(&steps, &y, false, &p).expect("a fall");
    assert_eq!((w.from, w.to), (500, 700), "{p:?} {w:?}");
    // plateau 0..475 (length 475): 200 > 475 / 4, not sudden
    assert!(!is_sudden(&p, &w));
    // the same ramp after a plateau four times as long as needed: 200 ≤ 1000/4 … with 45 flat
    // evaluations the plateau is 0..1100 and the ramp still 200 steps wide
    let (steps, y) = plateau_then_fall(45, 9, 0.0, 0);
    let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
    let w = fall_width(&steps, &y, false, &p).expect("a fall");
    assert_eq!(w.width(), 200);
    assert!(is_sudden(&p, &w), "{p:?} {w:?}");
    // mirrored: a rising curve (UAS) gives the same crossings
    let (steps, y) = plateau_then_fall(20, 9, 0.0, 0);
    let up: Vec<f64> = y.iter().map(|v| 3.0 - v).collect();
    let p = plateau_end(&steps, &up, true, PLATEAU_RULE).expect("an onset");
    let w = fall_width(&steps, &up, true, &p).expect("a rise");
    assert_eq!((w.from, w.to, w.floor), (500, 700, 2.0));
}

#[test]
fn fall_width_on_noisy_cliffs_and_ramps() {
    // noise 0.02 on a fall of 1.0: a two-evaluation cliff stays sudden, a 20-evaluation ramp after
    // a 20-evaluation plateau does not, on every seed
    for seed in 0..20 {
        let (steps, y) = plateau_then_fall(20, 1, 0.02, 10 + seed);
        let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
        let w = fall_width(&steps, &y, false, &p).expect("a fall");
        assert!(w.width() <= 50, "seed {seed}: {w:?}");
        assert!(is_sudden(&p, &w), "seed {seed}: {p:?} {w:?}");
        let (steps, y) = plateau_then_fall(20, 20, 0.02, 50 + seed);
        let p = plateau_end(&steps, &y, false, PLATEAU_RULE).expect("a drop");
        let w = fall_width(&steps, &y, false, &p).expect("a fall");
        // without noise: 10 % held from evaluation 22 (2 − 3/21 ≤ 1.9), 90 % from 38
        // (2 − 19/21 ≤ 1.1): 16 evaluations = 400 steps; the noise moves each end by one or two
        assert!((325..=525).contains(&w.width()), "seed {seed}: {w:?}");
        assert!(!is_sudden(&p, &w), "seed {seed}: {p:?} {w:?}");
    }
}

#[test]
fn fall_width_degenerate_inputs() {
    let p = PlateauEnd { start: 0, end: 100, level: 1.0, event: 125, noise: 0.01 };
    // the curve ends above its plateau: no fall
    assert_eq!(fall_width(&[0, 25, 50], &[1.0, 1.0, 1.5], false, &p), None);
    // nothing finite
    assert_eq!(fall_width(&[0, 25], &[f64::NAN, f64::NAN], false, &p), None);
    // the plateau's end lies past the curve
    assert_eq!(fall_width(&[0, 25], &[1.0, 0.5], false, &p), None);
    // a zero-length plateau is never sudden
    let w = FallWidth { from: 10, to: 10, floor: 0.0 };
    assert!(!is_sudden(&PlateauEnd { start: 5, end: 5, level: 1.0, event: 10, noise: 0.1 }, &w));
}

#[test]
fn plateau_end_degenerate_inputs() {
    assert_eq!(loss_drop_step(&[], &[]), None);
    assert_eq!(loss_drop_step(&[0, 1, 2], &[1.0, 1.0, 0.0]), None, "too short for a plateau");
    let steps: Vec<usize> = (0..12).collect();
    assert_eq!(loss_drop_step(&steps, &[1.0; 12]), None, "a plateau that never ends");
    assert_eq!(loss_drop_step(&steps, &[f64::NAN; 12]), None);
    // a drop that does not hold (one low point, then back up) is not a drop
    let mut blip = vec![1.0; 12];
    blip[8] = 0.0;
    assert_eq!(loss_drop_step(&steps, &blip), None);
    // a NaN in the plateau breaks the windows that contain it
    let mut y: Vec<f64> = (0..12).map(|k| if k < 8 { 1.0 } else { 0.5 }).collect();
    y[4] = f64::NAN;
    assert_eq!(loss_drop_step(&steps, &y), None, "no 5 finite flat points before the drop");
}

#[test]
fn nonadjacent_arcs_keep_only_long_arcs() {
    // the→dog (1), dog→runs (4), near→cats (2), the→cats (1), cats→dog (3), root, .→runs (1)
    let g = vec![tree()];
    let na = nonadjacent_arcs(&g);
    assert_eq!(na[0], vec![None, Some(5), Some(4), None, Some(1), None, None]);
    // the best offset on them: −3 gets cats→dog (4−3 = 1), +2 gets near→cats; −2 none
    let (off, u) = best_offset_baseline(&na, &[7]);
    assert_eq!((off, u), (-3, 1.0 / 3.0));
}

#[test]
fn mean_nll_and_logodds_by_hand() {
    // row 0: logits [0, ln 3] → p(1) = 3/4; row 1: uniform over 2 → p = 1/2
    let z = [0.0, 3f32.ln(), 0.0, 0.0];
    let expect = (-(0.75f64).ln() - (0.5f64).ln()) / 2.0;
    assert!((mean_nll(&z, 2, &[1, 0]) - expect).abs() < 1e-6);
    assert_eq!(mean_nll(&z, 2, &[2, 0]), f64::INFINITY, "out-of-range target");
    assert!(mean_nll(&z, 2, &[]).is_nan());
    // log-odds: (ln 3 − 0) and (0 − 0) → ln 3 / 2
    assert!((agreement_logodds(&z, 2, &[(1, 0), (0, 1)]) - 3f64.ln() / 2.0).abs() < 1e-6);
    assert!(agreement_logodds(&z, 2, &[(5, 0)]).is_nan());
    // pair loss: softplus(0 − ln 3) = ln(4/3), softplus(0) = ln 2
    let expect = ((4.0f64 / 3.0).ln() + 2f64.ln()) / 2.0;
    assert!((pair_loss(&z, 2, &[(1, 0), (0, 1)]) - expect).abs() < 1e-6);
    // large margins stay finite and exact
    let big = [0.0, 100.0];
    assert!((pair_loss(&big, 2, &[(0, 1)]) - 100.0).abs() < 1e-9);
    assert!(pair_loss(&big, 2, &[(1, 0)]) < 1e-40);
    assert!(pair_loss(&z, 2, &[]).is_nan());
}

#[test]
fn agreement_accuracy_by_hand() {
    // vocab 4; items (good, bad): (2, 3) right, (3, 2) wrong, (1, 0) tie → wrong
    let z = [0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 0.5, 0.3, 0.3, 0.0, 0.0];
    assert!((agreement_accuracy(&z, 4, &[(2, 3), (3, 2), (1, 0)]) - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn plateau_span_follows_a_plateau_while_it_lasts_and_after_it_ends() {
    let steps: Vec<usize> = (0..12).map(|i| i * 25).collect();
    // A fast fall, then a flat stretch from step 50 that is still going on at step 175.
    let lasting = [3.0, 1.5, 1.0, 1.01, 0.99, 1.0, 1.01, 1.0];
    let span = plateau_span(&steps, &lasting, false, PLATEAU_RULE).unwrap();
    assert_eq!(span, PlateauSpan { start: 50, end: 175, event: None });
    // The same curve after a sustained fall: the plateau that ended, with its event.
    let ended = [3.0, 1.5, 1.0, 1.01, 0.99, 1.0, 1.01, 1.0, 0.2, 0.1, 0.1, 0.1];
    let p = plateau_end(&steps, &ended, false, PLATEAU_RULE).unwrap();
    let span = plateau_span(&steps, &ended, false, PLATEAU_RULE).unwrap();
    assert_eq!(span, PlateauSpan { start: p.start, end: p.end, event: Some(200) });
    assert_eq!((span.start, span.end), (50, 175));
    // Falling ever faster (a drop under way): no plateau now; too few evaluations: none either.
    assert_eq!(plateau_span(&steps, &[1.0, 0.99, 0.97, 0.93, 0.85, 0.69], false, PLATEAU_RULE), None);
    assert_eq!(plateau_span(&steps, &[1.0, 1.0], false, PLATEAU_RULE), None);
}

#[test]
fn slot_metrics_by_hand() {
    // vocab 3; slot 0 (depth 0, class 1): uniform → ln 3, argmax 0 (wrong); slot 1 (depth 1,
    // class 2): [0, 0, ln 2] → p = 2/4, ln 2, right; slot 2 (depth 2, class 0): [ln 3, 0, 0] →
    // p = 3/5, ln(5/3), right.
    let (l2, l3) = (2f32.ln(), 3f32.ln());
    let z = [0.0, 0.0, 0.0, 0.0, 0.0, l2, l3, 0.0, 0.0];
    let s = slot_metrics(&z, 3, &[1, 2, 0], &[0, 1, 2]);
    let want = [3f64.ln(), 2f64.ln(), (5.0f64 / 3.0).ln()];
    for (got, want) in s.by_depth.iter().zip(want) {
        assert!((got - want).abs() < 1e-6, "{got} vs {want}");
    }
    assert!((s.loss - 10f64.ln() / 3.0).abs() < 1e-6, "(ln 3 + ln 2 + ln 5/3) / 3 = ln 10 / 3");
    assert!((s.acc - 2.0 / 3.0).abs() < 1e-12);
    // a depth without slots is NaN; no slots at all: NaN everywhere
    let one = slot_metrics(&z[..3], 3, &[1], &[0]);
    assert!(one.by_depth[1].is_nan() && one.by_depth[2].is_nan() && one.acc == 0.0);
    let none = slot_metrics(&[], 3, &[], &[]);
    assert!(none.loss.is_nan() && none.acc.is_nan());
}

#[test]
fn sas_pair_mask_by_hand() {
    // one sentence of length 3 in t = 4: pairs (2, 0) and (1, 1) (the diagonal is skipped) and
    // (3, 0) (padding, skipped)
    let e = sas_pair_mask(&[vec![(2, 0), (1, 1), (3, 0)]], &[3], 4);
    let ones: Vec<usize> = (0..16).filter(|&k| e[k] == 1.0).collect();
    assert_eq!(ones, vec![2, 8], "E[0,2] and E[2,0]");
    assert_eq!(e.iter().sum::<f32>(), 2.0);
}
