#![cfg(not(target_arch = "wasm32"))]
//! The page's *Save model* / *Load model* file (`Run::save_file`, `Run::from_file`): a run saved
//! at step k and loaded continues with exactly the rows of a straight run, in every chapter; a
//! finished run loads finished; a damaged file, a cut one, another version's or not a model file
//! at all is refused with a message that says which.

use plateau::backend;
use plateau::run::Run;
use plateau::tensor::block_on;
use plateau::train::Status;

use crate::common;

fn advance_to(run: &mut Run, step: usize) {
    while run.step() < step && block_on(run.advance()) == Status::Running {}
}

fn to_end(run: &mut Run) {
    while block_on(run.advance()) == Status::Running {}
}

#[test]
fn a_run_saved_at_step_k_and_loaded_gives_the_straight_runs_rows_in_every_chapter() {
    let device = backend::cpu_device();
    for (name, cfg) in common::golden_runs() {
        let mut straight = Run::new(cfg.clone(), &device).unwrap();
        to_end(&mut straight);
        // Saved between two evaluations (k = 5 is not on the cadence) and loaded on a new device
        // handle: everything the run needs is in the file.
        let mut first = Run::new(cfg.clone(), &device).unwrap();
        advance_to(&mut first, 5);
        let bytes = block_on(first.save_file()).unwrap();
        drop(first);
        let mut loaded = Run::from_file(&bytes, &backend::cpu_device()).unwrap();
        assert_eq!(loaded.step(), 5, "{name}");
        assert_eq!(loaded.config(), straight.config(), "{name}");
        to_end(&mut loaded);
        assert_eq!(loaded.csv(), straight.csv(), "{name}: the loaded run's rows are the straight run's, bit for bit");
        // And against the committed golden rows, at the golden tolerance (the optimizer is the
        // project's own since the model file: the same burn update, so the same numbers).
        let golden = std::fs::read_to_string(format!("tests/golden/{name}")).unwrap();
        let (worst, _) = common::csv_difference(&golden, &loaded.csv()).unwrap();
        assert!(worst <= common::TOLERANCE, "{name}: {worst} from the golden rows");
    }
}

#[test]
fn a_finished_run_loads_finished_and_continues_when_steps_grow() {
    let device = backend::cpu_device();
    let (_, mut cfg) = common::golden_runs().remove(0);
    cfg.steps = 8;
    let mut run = Run::new(cfg.clone(), &device).unwrap();
    to_end(&mut run);
    assert_eq!(*run.status(), Status::Finished);
    let mut loaded = Run::from_file(&block_on(run.save_file()).unwrap(), &device).unwrap();
    assert_eq!(*loaded.status(), Status::Finished);
    assert_eq!(loaded.csv(), run.csv());
    // The same live change on both: they go on identically.
    run.set_live(plateau::config::LiveChange::Steps(12));
    loaded.set_live(plateau::config::LiveChange::Steps(12));
    to_end(&mut run);
    to_end(&mut loaded);
    assert_eq!(loaded.csv(), run.csv());
}

/// Rewrites a model file's header (and its checksum), as another version would have written it.
fn with_header(bytes: &[u8], edit: impl Fn(&mut serde_json::Value)) -> Vec<u8> {
    let body = &bytes[..bytes.len() - 8];
    let mut at = 20;
    let mut parts = vec![];
    for _ in 0..4 {
        let n = u64::from_le_bytes(body[at..at + 8].try_into().unwrap()) as usize;
        parts.push(body[at + 8..at + 8 + n].to_vec());
        at += 8 + n;
    }
    let mut header: serde_json::Value = serde_json::from_slice(&parts[0]).unwrap();
    edit(&mut header);
    parts[0] = serde_json::to_vec(&header).unwrap();
    let mut out = body[..20].to_vec();
    for p in &parts {
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
        out.extend_from_slice(p);
    }
    let hash = out.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

#[test]
fn damaged_foreign_and_cut_files_are_refused_with_the_reason() {
    let device = backend::cpu_device();
    let (_, cfg) = common::golden_runs().remove(1);
    let mut run = Run::new(cfg, &device).unwrap();
    advance_to(&mut run, 3);
    let bytes = block_on(run.save_file()).unwrap();
    assert!(Run::from_file(&bytes, &device).is_ok());
    // The header unchanged through the rewrite: loads (the test's writer is the format).
    assert!(Run::from_file(&with_header(&bytes, |_| {}), &device).is_ok());

    let refuse = |b: &[u8]| Run::from_file(b, &device).err().expect("refused");
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    assert!(refuse(&flipped).contains("damaged (its checksum"), "{}", refuse(&flipped));
    assert!(refuse(&bytes[..bytes.len() - 100]).contains("damaged"), "{}", refuse(&bytes[..bytes.len() - 100]));
    assert!(refuse(&bytes[..10]).contains("not a Plateau model file"));
    assert!(refuse(b"step,loss\n0,2.9\n").contains("not a Plateau model file"));
    let other = with_header(&bytes, |h| h["engine"] = "0.0.1".into());
    assert!(refuse(&other).contains("written by Plateau 0.0.1"), "{}", refuse(&other));
    let unknown = with_header(&bytes, |h| h["experiment"] = "chess".into());
    assert!(refuse(&unknown).contains("unknown experiment \"chess\""), "{}", refuse(&unknown));
    let mut version = bytes.clone();
    version[16] = 9;
    assert!(refuse(&version).contains("damaged"), "a changed version byte fails the checksum first");
}
