#![cfg(not(target_arch = "wasm32"))]
//! The CLI's outputs under failure, as processes: a full disk (`/dev/full`), a file-size limit
//! (`ulimit -f`), a stop signal in the middle of a long evaluation, and an unwritable output
//! found before training. None may report success, lose a finished row or destroy a file that was
//! there before.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_plateau");

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-outputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `plateau ARGS` under `bash -c 'ulimit -f BLOCKS; exec …'` (1 KiB blocks), or plainly when
/// `blocks` is `None`: exit code (`None`: killed by a signal) and stderr.
fn plateau_limited(blocks: Option<u64>, args: &[&str]) -> (Option<i32>, String) {
    let out = match blocks {
        Some(b) => Command::new("bash")
            .arg("-c")
            .arg(format!("ulimit -f {b}; exec \"$0\" \"$@\""))
            .arg(BIN)
            .args(args)
            .output()
            .expect("bash"),
        None => Command::new(BIN).args(args).output().expect("plateau"),
    };
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Waits for `child` to exit, polling every 10 ms; fails with `why` after 120 s.
fn wait_exit(child: &mut std::process::Child, why: &str) -> std::process::ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "{why}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn is_char_device(path: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).map(|m| m.file_type().is_char_device()).unwrap_or(false)
}

#[test]
fn a_full_disk_is_an_error_and_the_device_is_left_alone() {
    if !is_char_device("/dev/full") {
        eprintln!("no /dev/full here: nothing to check");
        return;
    }
    // `run --out /dev/full`: every write fails with ENOSPC. It used to train, write to a
    // `/dev/full.partial` beside the device, rename that over the device node and exit 0.
    let (code, err) =
        plateau_limited(None, &["run", "--steps", "4", "--eval-every", "2", "--quiet", "--out", "/dev/full"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot write /dev/full") && err.contains("No space left on device"), "{err}");
    assert!(!err.contains("rows →"), "no success line: {err}");
    assert!(is_char_device("/dev/full"), "the device node must not be replaced");
    assert!(!Path::new("/dev/full.partial").exists());

    // `run --seeds`: the same stream, several runs.
    let (code, err) =
        plateau_limited(None, &["run", "--steps", "2", "--seeds", "0,1", "--quiet", "--out", "/dev/full"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");

    // `--embeddings /dev/full`: opens for writing (checked before training), fails when written.
    let rows = tmp("emb-rows.csv");
    let (code, err) = plateau_limited(
        None,
        &["run", "--experiment", "anchors", "--steps", "2", "--quiet", "--out", s(&rows), "--embeddings", "/dev/full"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot write /dev/full: No space left on device"), "{err}");

    // `parity-dump --out /dev/full`: its one write fails.
    let (code, err) = plateau_limited(None, &["parity-dump", "--steps", "2", "--quiet", "--out", "/dev/full"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");

    // A document that is read and rewritten (`reproduce --out`, `bench --write`) must be a
    // regular file: refused before anything trains or measures (reading /dev/full never ends).
    for args in [
        &["reproduce", "--steps", "2", "--seeds", "0", "--cs", "1", "--out", "/dev/full"][..],
        &["bench", "--torch", "none", "--browser", "none", "--write", "/dev/full"][..],
    ] {
        let t0 = Instant::now();
        let (code, err) = plateau_limited(None, args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("/dev/full: not a regular file"), "{args:?}: {err}");
        assert!(t0.elapsed() < Duration::from_secs(60), "{args:?}: refused at once");
    }
    assert!(is_char_device("/dev/full"));
}

#[test]
fn a_file_size_limit_is_an_error_with_the_rows_kept() {
    // 2 KiB: the header and a dozen rows. SIGXFSZ used to kill the process (exit 153) with no
    // message; now the write fails with EFBIG, which is reported, and the rows stay.
    let out = tmp("limited.csv");
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let _ = std::fs::remove_file(&out);
    let (code, err) =
        plateau_limited(Some(2), &["run", "--steps", "400", "--eval-every", "1", "--quiet", "--out", s(&out)]);
    assert_eq!(code, Some(2), "not killed by SIGXFSZ: {err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(
        err.contains(&format!("cannot write {}: File too large", partial.display()))
            && err.contains("the rows written before the error are kept in it"),
        "{err}"
    );
    assert!(!out.exists(), "an incomplete file never gets the final name");
    let kept = std::fs::read_to_string(&partial).unwrap();
    assert!(kept.len() <= 2048, "{} bytes", kept.len());
    let complete: Vec<&str> = kept.lines().filter(|l| kept.contains(&format!("{l}\n"))).collect();
    assert!(complete.len() >= 3, "the header and whole rows: {kept}");
    let steps: Vec<usize> = complete.iter().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert_eq!(steps, (0..steps.len()).collect::<Vec<_>>(), "the rows before the limit, in order");

    // A whole document rewritten under the limit is left as it was: REPRODUCTION.md is larger
    // than the limit, the run's CSV fits, the new document does not.
    let dir = tmp("limited-reproduce");
    std::fs::create_dir_all(&dir).unwrap();
    let doc = dir.join("R.md");
    let old = format!("# Reproduction\n\n{}\n", "an earlier section, kept. ".repeat(4000));
    std::fs::write(&doc, &old).unwrap();
    let (code, err) = plateau_limited(
        Some(64),
        &[
            "reproduce",
            "--steps",
            "6",
            "--eval-every",
            "2",
            "--seeds",
            "0",
            "--cs",
            "1",
            "--checkpoint-every",
            "0",
            "--quiet",
            "--csv-dir",
            s(&dir),
            "--out",
            s(&doc),
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("cannot write {}: File too large", doc.display())), "{err}");
    assert!(err.contains("the old file is unchanged"), "{err}");
    assert_eq!(std::fs::read_to_string(&doc).unwrap(), old, "the document is unchanged");
    assert!(!PathBuf::from(format!("{}.partial", doc.display())).exists(), "no stray partial document");
}

#[test]
fn sigterm_in_the_middle_of_a_long_evaluation_stops_within_a_second() {
    // n 32 with 4096 held-out sequences: one evaluation (greedy decoding of 33 tokens) takes
    // seconds, far longer than a step. A signal used to wait for it to end.
    let out = tmp("long-eval.csv");
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    let _ = std::fs::remove_file(&out);
    let mut child = Command::new(BIN)
        .args(["run", "--n", "32", "--eval-batch", "4096", "--eval-every", "1", "--steps", "1000", "--quiet"])
        .args(["--out", s(&out)])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first row is on disk: the run is now in step 1's evaluation or about to be.
    let t0 = Instant::now();
    while std::fs::read_to_string(&partial).map_or(0, |s| s.lines().count()) < 2 {
        assert!(t0.elapsed() < Duration::from_secs(300), "no row streamed");
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    let first_row = t0.elapsed();
    // Into the next evaluation (it takes as long as the first, minus a step).
    std::thread::sleep(first_row / 4);
    let rows_before = std::fs::read_to_string(&partial).unwrap().lines().count() - 1;
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let sent = Instant::now();
    let status = wait_exit(&mut child, "still running 120 s after SIGTERM");
    let waited = sent.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    // Not a timing target: the stop must not wait for the evaluation, which took `first_row`.
    assert!(
        waited < first_row / 2 || waited < Duration::from_secs(2),
        "stopped {waited:?} after the signal; one evaluation takes about {first_row:?}"
    );
    let csv = std::fs::read_to_string(&out).expect("the rows so far, under the final name");
    assert!(!partial.exists());
    let steps: Vec<usize> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert!(steps.len() >= rows_before, "every finished row is kept: {steps:?}");
    assert_eq!(steps, (0..steps.len()).collect::<Vec<_>>(), "whole rows, in order");
    assert!(err.contains("stopped by signal 15") && err.contains(&format!("{} rows", steps.len())), "{err}");
}

#[test]
fn every_output_is_checked_before_training() {
    // A million steps would take hours: each refusal must come before the first step, and leave
    // nothing behind.
    let out = tmp("never.csv");
    let cases: &[&[&str]] = &[
        &["run", "--experiment", "anchors", "--embeddings", "/nonexistent-plateau-dir/e.csv"],
        &["run", "--experiment", "anchors", "--embeddings", "/tmp"],
        &["parity-dump", "--out", "/nonexistent-plateau-dir/p.json"],
    ];
    for args in cases {
        let mut child = Command::new(BIN)
            .args(*args)
            .args(["--steps", "1000000", "--quiet"])
            .args(if args[0] == "run" { vec!["--out", s(&out)] } else { vec![] })
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_exit(&mut child, &format!("{args:?}: still training"));
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot write"), "{args:?}: {err}");
        assert!(!out.exists() && !PathBuf::from(format!("{}.partial", out.display())).exists(), "{args:?}");
    }
    // reproduce: the document and the folder of runs.
    let file = tmp("a-file");
    std::fs::write(&file, "x").unwrap();
    for (args, needle) in [
        (
            vec!["reproduce", "--out", "/nonexistent-plateau-dir/R.md"],
            "--out: cannot write /nonexistent-plateau-dir/R.md",
        ),
        (vec!["reproduce", "--csv-dir", s(&file)], "not a folder"),
        (vec!["reproduce", "--experiment", "anchors", "--out", "/tmp"], "not a regular file"),
    ] {
        let (code, err) = plateau_limited(None, &args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
