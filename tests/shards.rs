#![cfg(not(target_arch = "wasm32"))]
//! Sharded steps (`shards` S > 1, `train::shards`): the rows do not depend on how many workers
//! share a step's slices. The page's workers are replicas that each compute some slices, whose
//! payloads are summed in shard order and applied by every replica; here the replicas are
//! trainers in one process, exchanging the same payloads the workers post to each other.

use plateau::backend::cpu_device;
use plateau::chapters::anchors::AnchorTrainer;
use plateau::chapters::lm::LmTrainer;
use plateau::chapters::plateau::PlateauTrainer;
use plateau::config::{Preset, RunConfig, Task};
use plateau::tensor::block_on;
use plateau::train::{shards, Chapter, Status, Trainer};

use crate::common;

/// The golden run of `name` (see `tests/common`) with `shards` slices.
fn golden(name: &str, shards: usize) -> RunConfig {
    let mut cfg = common::golden_runs().into_iter().find(|(n, _)| n.starts_with(name)).unwrap().1;
    cfg.shards = shards;
    cfg
}

/// A run of `cfg` by `n` replicas: slice `j` of every step is computed by replica `j % n`, on
/// its own weights; replica 0 records the rows; every replica applies the same sum.
fn by_workers<C: Chapter>(cfg: &RunConfig, n: usize) -> Trainer<C> {
    let mut replicas: Vec<Trainer<C>> = (0..n).map(|_| Trainer::new(cfg.clone(), &cpu_device()).unwrap()).collect();
    loop {
        let status = block_on(replicas[0].begin_step());
        if status != Status::Running {
            break;
        }
        let payloads: Vec<Vec<f32>> = (0..cfg.shards).map(|j| block_on(replicas[j % n].shard_gradient(j))).collect();
        let refs: Vec<&[f32]> = payloads.iter().map(Vec::as_slice).collect();
        let sum = shards::sum(&refs).unwrap();
        for r in &mut replicas {
            assert_eq!(block_on(r.apply_gradient(&sum)).unwrap(), Status::Running);
        }
    }
    replicas.swap_remove(0)
}

/// Rows as text, bit for bit (`f64`'s `Debug` is its shortest exact form; NaN equals NaN here).
fn text<R: std::fmt::Debug>(rows: &[R]) -> String {
    format!("{rows:?}")
}

fn alone<C: Chapter>(cfg: &RunConfig) -> Trainer<C> {
    let mut t = Trainer::<C>::new(cfg.clone(), &cpu_device()).unwrap();
    while block_on(t.advance()) == Status::Running {}
    t
}

#[test]
fn rows_are_the_same_for_one_two_and_four_workers_in_chapters_1_2_and_4() {
    let ch2 = golden("anchors", 4);
    let reference = alone::<plateau::chapters::anchors::Anchors>(&ch2);
    assert_eq!(reference.status(), &Status::Finished);
    assert_eq!(reference.history.rows.len(), 4);
    for n in [1, 2, 4] {
        let t: AnchorTrainer = by_workers(&ch2, n);
        assert_eq!(text(&t.history.rows), text(&reference.history.rows), "chapter 2, {n} workers");
        assert_eq!(text(&t.history.snapshots), text(&reference.history.snapshots), "chapter 2, {n} workers");
    }
    let ch1 = golden("interactive", 2);
    let reference: PlateauTrainer = alone(&ch1);
    for n in [1, 2] {
        let t: PlateauTrainer = by_workers(&ch1, n);
        assert_eq!(text(&t.history.rows), text(&reference.history.rows), "chapter 1, {n} workers");
    }
    let ch4 = golden("lm", 2);
    let reference: LmTrainer = alone(&ch4);
    let t: LmTrainer = by_workers(&ch4, 2);
    assert_eq!(text(&t.history.rows), text(&reference.history.rows), "chapter 4, 2 workers");
}

#[test]
fn shards_change_the_update_only_by_rounding() {
    // The slices' objectives are their means times 1/S, so the summed gradient is the whole
    // batch's: the first row (before any update) is identical, the later ones within rounding
    // that a few Adam steps amplify, far below what a wrong weighting would move (a factor of S
    // on the gradient changes Adam's first step by nothing, but the sum of unscaled means, or a
    // missing slice, moves the loss at step 4 by more than 1e-3).
    let one: AnchorTrainer = alone(&golden("anchors", 1));
    let four: AnchorTrainer = alone(&golden("anchors", 4));
    let (a, b) = (&one.history.rows, &four.history.rows);
    assert_eq!(text(&a[..1]), text(&b[..1]));
    assert_ne!(text(a), text(b), "four slices add the gradient in another order");
    for (x, y) in a.iter().zip(b) {
        assert!((x.loss - y.loss).abs() < 2e-5, "step {}: {} against {}", x.step, x.loss, y.loss);
    }
}

#[test]
fn a_missing_or_extra_slice_changes_the_rows() {
    // The test above could pass with slices that ignore their part; this one cannot: summing
    // slice 0 twice instead of slices 0 and 1 moves the loss.
    let cfg = golden("anchors", 2);
    let reference: AnchorTrainer = alone(&cfg);
    let mut t = AnchorTrainer::new(cfg, &cpu_device()).unwrap();
    while block_on(t.begin_step()) == Status::Running {
        let p = block_on(t.shard_gradient(0));
        let sum = shards::sum(&[&p, &p]).unwrap();
        block_on(t.apply_gradient(&sum)).unwrap();
    }
    assert_eq!(text(&t.history.rows[..1]), text(&reference.history.rows[..1]));
    let (x, y) = (t.history.rows.last().unwrap(), reference.history.rows.last().unwrap());
    assert!((x.loss - y.loss).abs() > 1e-4, "{} against {}", x.loss, y.loss);
}

#[test]
fn the_sum_adds_in_shard_order_and_refuses_other_layouts() {
    // Header k = 1 kept; presences and values added.
    let a = [1.0, 1.0, 0.5, 1.0, 2.0];
    let b = [1.0, 0.0, 0.25, 3.0, -2.0];
    assert_eq!(shards::sum(&[&a, &b]).unwrap(), vec![1.0, 1.0, 0.75, 4.0, 0.0]);
    // f32 in order: (1e8 + 1) + (-1e8) = 0 but 1e8 + ((-1e8) + 1) would give 1.
    let (x, y, z) = ([0.0, 1e8], [0.0, 1.0], [0.0, -1e8]);
    assert_eq!(shards::sum(&[&x, &y, &z]).unwrap(), vec![0.0, 0.0]);
    assert_eq!(shards::sum(&[&x, &z, &y]).unwrap(), vec![0.0, 1.0]);
    assert!(shards::sum(&[]).is_err());
    assert!(shards::sum(&[&a, &a[..4]]).is_err());
    assert!(shards::sum(&[&a, &[2.0, 1.0, 0.5, 1.0, 2.0]]).is_err());
}

#[test]
fn a_foreign_or_non_finite_sum_is_refused_or_stops_the_run() {
    let cfg = golden("anchors", 2);
    let mut t = AnchorTrainer::new(cfg, &cpu_device()).unwrap();
    assert_eq!(block_on(t.begin_step()), Status::Running);
    let p = block_on(t.shard_gradient(1));
    let err = block_on(t.apply_gradient(&p[..p.len() - 1])).unwrap_err();
    assert!(err.contains("does not fit this model"), "{err}");
    assert_eq!(t.step(), 0);
    let mut bad = p.clone();
    let last = bad.len() - 1;
    bad[last] = f32::NAN;
    let status = block_on(t.apply_gradient(&bad)).unwrap();
    assert!(matches!(status, Status::Diverged(ref m) if m.contains("step 0")), "{status:?}");
    assert_eq!(t.step(), 0);
    assert_eq!(t.history.rows.len(), 1, "the history stays");
}

#[test]
fn shards_must_split_the_batch_evenly_and_chapter_3_trains_as_one() {
    let mut cfg = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    let err = cfg.set_all([("shards", "3")]).unwrap_err();
    assert_eq!(err.key, "shards");
    assert!(err.allowed.contains("divisor of the batch (512)"), "{}", err.allowed);
    assert_eq!(cfg.shards, 4, "unchanged (chapter 2's interactive default)");
    cfg.set_all([("shards", "2")]).unwrap();
    assert_eq!(cfg.shards, 2);
    // Both keys together: the rule is checked once all are read.
    let mut c = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    c.set_all([("shards", "3"), ("batch", "384")]).unwrap();
    // Lenient (URLs): a shards value that does not divide falls back to 1, with the notice.
    let mut lenient = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    let notices = lenient.apply_pairs([("shards", "5")]);
    assert_eq!(lenient.shards, 1);
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].safe.as_deref(), Some("1"));
    let mut syntax = RunConfig::defaults(Task::Syntax, Preset::Interactive);
    let err = syntax.set_all([("shards", "2")]).unwrap_err();
    assert!(err.allowed.contains("chapter 3"), "{}", err.allowed);
    // A loaded config is checked too (model files, JSON).
    let mut raw = RunConfig::defaults(Task::Syntax, Preset::Interactive);
    raw.shards = 2;
    assert!(raw.validate().is_err());
    assert!(plateau::run::Run::new(raw, &cpu_device()).is_err());
}
