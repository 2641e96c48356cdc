#![cfg(not(target_arch = "wasm32"))]
//! A 100 000-step native soak on a tiny model: the history stays within its bounds
//! (`MAX_ROWS` rows, `MAX_SNAPSHOTS` snapshots, thinned by halving) and the process's resident
//! memory stays flat between step 10 000 and step 100 000.

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
fn hundred_thousand_steps_keep_history_bounded_and_memory_flat() {
    let mut cfg = RunConfig::preset(Preset::Interactive);
    cfg.steps = 100_000;
    cfg.n = 2;
    cfg.d_model = 8;
    cfg.d_ff = 8;
    cfg.batch = 1;
    cfg.eval_batch = 1;
    cfg.eval_every = 4; // 25 000 rows: more than MAX_ROWS, so rows are thinned too
    cfg.snapshot_every = 20;
    let mut t = Trainer::new(cfg, &cpu_device()).unwrap();
    let mut at_10k = None;
    loop {
        let status = block_on(t.advance());
        if t.step() == 10_000 && at_10k.is_none() {
            at_10k = rss_kib();
        }
        if status != Status::Running {
            assert_eq!(status, Status::Finished);
            break;
        }
    }
    let h = &t.history;
    assert!(h.rows.len() <= MAX_ROWS && h.snapshots.len() <= MAX_SNAPSHOTS);
    assert_eq!((h.rows[0].step, h.rows.last().unwrap().step), (0, 100_000));
    assert!(h.rows.windows(2).all(|w| w[0].step < w[1].step), "rows stay in step order");
    let end = rss_kib();
    eprintln!(
        "soak: {} rows, {} snapshots; RSS at step 10 000: {at_10k:?} KiB, at 100 000: {end:?} KiB",
        h.rows.len(),
        h.snapshots.len()
    );
    if let (Some(a), Some(b)) = (at_10k, end) {
        assert!(b <= a + 16 * 1024, "resident memory grew from {a} KiB to {b} KiB");
    }
}
