#![cfg(not(target_arch = "wasm32"))]
//! A 22 000-step native soak on a tiny model: the history stays within its bounds
//! (`MAX_ROWS` rows, `MAX_SNAPSHOTS` snapshots, thinned by halving) and the process's resident
//! memory stays flat between step 4 000 and step 22 000. Both bounds are crossed
//! and thinned (a row every step, a snapshot every 20), and a leak of 1 KB per step would show as
//! 18 MB, over the 16 MB allowed.

use plateau::backend::cpu_device;
use plateau::chapters::plateau::PlateauTrainer as Trainer;
use plateau::config::{Preset, RunConfig};
use plateau::history::{MAX_ROWS, MAX_SNAPSHOTS};
use plateau::tensor::block_on;
use plateau::train::Status;

/// Resident set size in KiB, from /proc (Linux).
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn twenty_two_thousand_steps_keep_history_bounded_and_memory_flat() {
    let mut cfg = RunConfig::preset(Preset::Interactive);
    cfg.steps = 22_000;
    cfg.plateau.n = 2;
    cfg.d_model = 8;
    cfg.d_ff = 8;
    cfg.batch = 1;
    cfg.eval_batch = 1;
    cfg.eval_every = 1; // 22 001 rows: more than MAX_ROWS, so rows are thinned too
    cfg.snapshot_every = 20; // 1 100 snapshots: more than MAX_SNAPSHOTS
    let mut t = Trainer::new(cfg, &cpu_device()).unwrap();
    let mut at_4k = None;
    loop {
        let status = block_on(t.advance());
        if t.step() == 4_000 && at_4k.is_none() {
            at_4k = rss_kib();
        }
        if status != Status::Running {
            assert_eq!(status, Status::Finished);
            break;
        }
    }
    let h = &t.history;
    assert!(h.rows.len() <= MAX_ROWS && h.snapshots.len() <= MAX_SNAPSHOTS);
    assert_eq!((h.rows[0].step, h.rows.last().unwrap().step), (0, 22_000));
    assert!(h.rows.windows(2).all(|w| w[0].step < w[1].step), "rows stay in step order");
    let end = rss_kib();
    eprintln!(
        "soak: {} rows, {} snapshots; RSS at step 4 000: {at_4k:?} KiB, at 22 000: {end:?} KiB",
        h.rows.len(),
        h.snapshots.len()
    );
    if let (Some(a), Some(b)) = (at_4k, end) {
        assert!(b <= a + 16 * 1024, "resident memory grew from {a} KiB to {b} KiB");
    }
}
