#![cfg(not(target_arch = "wasm32"))]
//! The `plateau` command line: a run writes the contract CSV; every kind of bad flag gets a clear
//! message and exit status 2.

use crate::common;

use common::cli::{flags_of, plateau, tmp};
use std::process::Command;

#[test]
fn run_writes_the_contract_columns() {
    let out = tmp("run.csv");
    let (code, _, err) = plateau(&[
        "run",
        "--experiment",
        "mws",
        "--steps",
        "6",
        "--eval-every",
        "3",
        "--seed",
        "4",
        "--c",
        "2.5",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with(
            "step,loss,output_loss,train_acc,test_acc,first_token_acc,repetition,data_repetition,apm,hidden_cos"
        ),
        "{header}"
    );
    let steps: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(steps, vec!["0", "3", "6"]);
}

#[test]
fn cli_rows_equal_the_engine_rows() {
    let out = tmp("same.csv");
    let (code, _, err) =
        plateau(&["run", "--steps", "8", "--eval-every", "4", "--quiet", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let cfg = plateau::config::RunConfig { steps: 8, eval_every: 4, ..Default::default() };
    let mut t = plateau::chapters::plateau::PlateauTrainer::new(cfg.clone(), &plateau::backend::cpu_device()).unwrap();
    while plateau::tensor::block_on(t.advance()) == plateau::train::Status::Running {}
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        plateau::history::to_csv(
            &<plateau::chapters::plateau::MetricRow as plateau::history::Row>::columns(&cfg),
            &t.history.rows
        )
    );
}

#[test]
fn chapters_2_to_4_from_the_cli_equal_the_golden_rows() {
    for (name, cfg) in common::golden_runs().into_iter().skip(1) {
        let out = tmp(name);
        let emb = tmp(&format!("emb-{name}"));
        let mut args: Vec<String> = vec!["run".into(), "--quiet".into(), "--out".into(), out.to_str().unwrap().into()];
        args.extend(flags_of(&cfg));
        let anchors = cfg.experiment == plateau::config::Task::Anchors;
        if anchors {
            args.extend(["--embeddings".to_string(), emb.to_str().unwrap().to_string()]);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = plateau(&refs);
        assert_eq!(code, 0, "{args:?}: {err}");
        let golden = std::fs::read_to_string(format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), golden, "{name}: the CLI's rows are the engine's");
        if anchors {
            // 4 snapshots (steps 0, 4, 8, 12) × 88 tokens, 5 + d columns.
            let e = std::fs::read_to_string(&emb).unwrap();
            let lines: Vec<&str> = e.lines().collect();
            assert_eq!(lines.len(), 1 + 4 * 88);
            assert!(lines[0].starts_with("step,token,kind,pc1,pc2,e0,e1"));
            assert_eq!(lines[0].split(',').count(), 5 + cfg.d_model);
            assert!(lines[1].starts_with("0,1,reasoning-anchor,,,"), "{}", lines[1]);
            assert!(lines[9].starts_with("0,20,key,"), "{}", lines[9]);
        }
    }
}

#[test]
fn bad_flags_are_refused_with_a_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--c", "-1", "--out", "x.csv"], "allowed a number in [0.01, 100]"),
        (&["run", "--c", "abc", "--out", "x.csv"], "--c"),
        (&["run", "--steps", "0", "--out", "x.csv"], "--steps"),
        (&["run", "--steps", "1.5", "--out", "x.csv"], "integer"),
        (&["run", "--attention", "quadratic", "--out", "x.csv"], "one of linear, softmax"),
        (&["run", "--experiment", "nope", "--out", "x.csv"], "one of mws, prefix-sum"),
        (&["run", "--preset", "huge", "--out", "x.csv"], "--preset"),
        (&["run", "--frobnicate", "1", "--out", "x.csv"], "unknown flag --frobnicate"),
        (&["run", "--seed"], "--seed needs a value"),
        (&["run", "stray"], "unexpected argument 'stray'"),
        (&["run", "--steps", "3"], "run needs --out"),
        (&["run", "--backend", "tpu", "--out", "x.csv"], "--backend"),
        (&["run", "--heads", "3", "--out", "x.csv"], "heads"),
        (&["run", "--lr", "inf", "--out", "x.csv"], "--lr"),
        (&["run", "--gamma", "5", "--experiment", "anchors", "--out", "x.csv"], "allowed a number in [0.1, 1.5]"),
        (&["run", "--model", "lstm", "--experiment", "anchors", "--out", "x.csv"], "one of transformer, emb-mlp"),
        (&["run", "--lambda", "x", "--experiment", "syntax", "--out", "x.csv"], "--lambda"),
        (&["run", "--lambda-until", "-3", "--experiment", "syntax", "--out", "x.csv"], "--lambda-until"),
        (&["run", "--embeddings", "e.csv", "--out", "x.csv"], "--embeddings is for --experiment anchors"),
        (&["reproduce", "--experiment", "anchors", "--gammas", "0.3,big"], "--gammas"),
        (&["reproduce", "--stop-after", "0"], "--stop-after \"0\": allowed a whole number from 1 to"),
        (&["reproduce", "--checkpoint-every", "-5"], "--checkpoint-every \"-5\": allowed a whole number from 0 to"),
        (&["bench", "--suite", "fast"], "--suite \"fast\": allowed quick, full"),
        (&["bench", "--only", "ch9"], "--only \"ch9\": allowed one of ch1 paper"),
        (&["bench", "--memory-steps", "lots"], "--memory-steps"),
        (&["bench", "--backends", "tpu"], "unknown backend"),
        (&["bench", "--one-thread", "maybe"], "--one-thread \"maybe\": allowed yes, no"),
        (&["reproduce", "--seeds", "-1"], "--seeds: \"-1\" is not a seed (a whole number from 0 to 4294967295)"),
        (&["reproduce", "--seeds", "0.5"], "--seeds: \"0.5\" is not a seed"),
        (&["reproduce", "--experiment", "anchors", "--seeds", "nan"], "--seeds: \"nan\" is not a seed"),
        (&["reproduce", "--experiment", "syntax", "--seeds", "1,x"], "--seeds: \"x\""),
        (
            &["reproduce", "--experiment", "syntax", "--brief-until", "-5"],
            "--brief-until \"-5\": allowed a whole number from 1 to 1000000",
        ),
        (
            &["reproduce", "--experiment", "syntax", "--search", "--configs", "magic"],
            "--configs: unknown configuration \"magic\"",
        ),
        (&["reproduce", "--long-factor", "0"], "--long-factor \"0\": allowed a whole number from 1 to"),
        (&["reproduce", "--after-drop", "5"], "--after-drop is for --against-transcription"),
        (&["reproduce", "--against-transcription"], "compares chapter 1's paper preset: add --preset paper"),
        (
            &["reproduce", "--preset", "paper", "--against-transcription", "--after-drop", "x"],
            "--after-drop \"x\": allowed a whole number from 0 to 1000000",
        ),
        (&["params", "--anything"], "params takes no arguments"),
        (
            &[
                "run",
                "--batch",
                "4096",
                "--n",
                "32",
                "--d-ff",
                "4096",
                "--d-model",
                "1024",
                "--layers",
                "8",
                "--out",
                "x.csv",
            ],
            "this configuration needs about",
        ),
        (
            &["run", "--max-memory", "0.001", "--out", "x.csv"],
            "over the limit of 0.0 GB (--max-memory); reduce batch or d-model",
        ),
        (&["run", "--max-memory", "lots", "--out", "x.csv"], "--max-memory \"lots\": a positive number of gigabytes"),
        (&["reproduce", "--experiment", "syntax", "--cs", "5"], "--cs is for the chapter 1 sweep"),
        (&["reproduce", "--experiment", "lm", "--long-factor", "2"], "--long-factor is for the chapter 1 sweep"),
        (
            &["reproduce", "--experiment", "anchors", "--stop-after", "0"],
            "--stop-after \"0\": allowed a whole number from 1",
        ),
        (&["run", "--heads", "3", "--d-model", "64", "--out", "x.csv"], "heads dividing d-model (3 heads, d-model 64)"),
        (&["reproduce", "--shard", "0/2"], "--shard \"0/2\": allowed i/N, this invocation's part i of N"),
        (&["reproduce", "--shard", "3/2"], "--shard \"3/2\": allowed i/N"),
        (&["reproduce", "--experiment", "syntax", "--shard", "half"], "--shard \"half\": allowed i/N"),
        (&["reproduce", "--shard", "1/2", "--finished-only"], "run the command with --finished-only alone"),
        (&["reproduce", "--preset", "paper", "--against-transcription", "--shard", "1/2"], "--shard is for the sweeps"),
        (&["fly"], "unknown command 'fly'"),
        (&[], "usage"),
    ];
    for (args, needle) in cases {
        let (code, _, err) = plateau(args);
        assert_eq!(code, 2, "{args:?} → {err}");
        assert!(err.contains(needle), "{args:?}: expected {needle:?} in {err:?}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    }
}

/// The bench plumbing end to end without PyTorch or a browser: a stand-in "PyTorch" command that
/// reports a fixed 1000 ms/step, and a missing browser command, which the report must name.
#[test]
fn bench_reports_native_figures_and_ratios_against_the_reference() {
    let fake = tmp("fake_torch.sh");
    std::fs::write(&fake, "#!/bin/sh\necho 'PyTorch noise'\necho '{\"ms_per_step\": 1000, \"torch\": \"stand-in\"}'\n")
        .unwrap();
    let torch = format!("sh {}", fake.display());
    let (code, out, err) = plateau(&[
        "bench",
        "--only",
        "ch1 interactive",
        "--backends",
        "ndarray",
        "--torch",
        &torch,
        "--browser",
        "/nonexistent/node",
        "--wasm",
        "none",
    ]);
    assert_eq!(code, 0, "{err}");
    let row =
        out.lines().find(|l| l.starts_with("| ch1 interactive") && l.contains("native cpu (ndarray)")).expect(&out);
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let ms: f64 = cells[4].parse().unwrap();
    assert!(ms > 0.0 && ms < 1000.0, "{row}");
    // ÷ PyTorch steps/s = 1000 ms / native ms (the table prints ms rounded, so compare to 1 %).
    let ratio: f64 = cells[7].trim_end_matches('×').parse().unwrap();
    assert!((ratio / (1000.0 / ms) - 1.0).abs() < 0.01, "{row}");
    assert!(out.contains("| ch1 interactive | ") && out.contains("| PyTorch | 1000 | 1.00 |"), "{out}");
    assert!(out.contains("| browser | unavailable: could not start /nonexistent/node"), "{out}");
}

/// `bench --json` (what the one-thread child of the bench prints): the native timings only, one
/// JSON array on the last line, with the backend names the report uses.
#[test]
fn bench_json_prints_native_timings_only() {
    let (code, out, err) = plateau(&["bench", "--only", "ch1 interactive", "--backends", "ndarray", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(out.lines().last().expect(&out)).expect(&out);
    let rows = rows.as_array().expect("an array");
    assert_eq!(rows.len(), 1, "{out}");
    assert_eq!(rows[0]["backend"], "cpu (ndarray)");
    let ms = rows[0]["ms"].as_f64().expect("ms");
    assert!(ms > 0.0 && ms < 5000.0, "{ms}");
    assert!(!out.contains("## Targets") && !err.contains("PyTorch"), "{out}\n{err}");
}

/// `--help` after a command prints the usage and succeeds.
#[test]
fn help_after_a_command_prints_usage() {
    for cmd in ["run", "bench", "reproduce"] {
        let (code, out, err) = plateau(&[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(out.contains("plateau bench [--suite quick|full]"), "{cmd}: {out}");
    }
    // The usage lists every key of the schema once, under the chapters it changes.
    let (_, out, _) = plateau(&["--help"]);
    let params = out.split_once("experiment parameters").expect("a parameters section").1;
    let tokens: Vec<&str> = params.split_whitespace().collect();
    for p in plateau::config::PARAMS.iter() {
        let flag = format!("--{}", p.key);
        assert_eq!(tokens.iter().filter(|t| **t == flag).count(), 1, "{flag} once in:\n{params}");
    }
    assert_eq!(tokens.iter().filter(|t| t.starts_with("--")).count(), plateau::config::PARAMS.len(), "{params}");
    assert!(out.contains("chapter 2 (anchors):\n    --gamma --model --memory --seq-len"), "{out}");
}

#[test]
fn params_lists_every_schema_key() {
    let (code, out, _) = plateau(&["params"]);
    assert_eq!(code, 0);
    for p in plateau::config::PARAMS.iter() {
        assert!(out.contains(&format!("--{}", p.key)), "{}", p.key);
    }
}

/// Waits for `child` at most `secs` seconds; kills it and panics past that.
fn wait_within(child: &mut std::process::Child, secs: u64, what: &str) -> std::process::ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed().as_secs() > secs {
            child.kill().ok();
            panic!("{what}: still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn an_unwritable_out_is_refused_before_training() {
    // A million steps would take hours: the refusal must come before the first one.
    let mut child = Command::new(env!("CARGO_BIN_EXE_plateau"))
        .args(["run", "--steps", "1000000", "--quiet", "--out", "/nonexistent-plateau-dir/rows.csv"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_within(&mut child, 120, "run with an unwritable --out");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write /nonexistent-plateau-dir/rows.csv"), "{err}");
}

#[test]
fn sigterm_stops_the_run_and_keeps_every_row() {
    let out = tmp("stopped.csv");
    let partial = std::path::PathBuf::from(format!("{}.partial", out.display()));
    let _ = std::fs::remove_file(&out);
    let mut child = Command::new(env!("CARGO_BIN_EXE_plateau"))
        .args(["run", "--steps", "1000000", "--eval-every", "1", "--quiet", "--out", out.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Rows are on disk while it trains: wait for the header and three rows.
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&partial).map_or(0, |s| s.lines().count()) < 4 {
        assert!(start.elapsed().as_secs() < 120, "no rows streamed to {}", partial.display());
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!out.exists(), "the final file appears only at the end");
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = wait_within(&mut child, 60, "run after SIGTERM");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    assert!(err.contains("stopped by signal 15"), "{err}");
    let csv = std::fs::read_to_string(&out).expect("the rows so far, under the final name");
    assert!(!partial.exists(), "renamed, not copied");
    let steps: Vec<usize> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
    assert!(steps.len() >= 3, "{csv}");
    assert_eq!(steps, (0..steps.len()).collect::<Vec<_>>(), "one row per step, none lost or cut");
    assert!(err.contains(&format!("{} rows", steps.len())), "{err}");
}

#[test]
fn flags_read_in_any_order_give_the_same_run() {
    let run = |args: &[&str], name: &str| {
        let out = tmp(name);
        let mut a = vec!["run", "--steps", "1", "--eval-every", "1", "--quiet", "--out", out.to_str().unwrap()];
        a.extend_from_slice(args);
        let (code, _, err) = plateau(&a);
        assert_eq!(code, 0, "{args:?}: {err}");
        std::fs::read_to_string(&out).unwrap()
    };
    // heads must divide d-model: checked once both are read
    let a = run(&["--heads", "3", "--d-model", "48"], "order-a.csv");
    let b = run(&["--d-model", "48", "--heads", "3"], "order-b.csv");
    assert_eq!(a, b);
    // a repeated --preset keeps its last value, like every other flag: interactive has n = 8
    let p = run(&["--preset", "paper", "--preset", "interactive", "--seed", "1", "--seed", "2"], "preset.csv");
    let header = p.lines().next().unwrap();
    assert!(header.ends_with(",acc_pos_8"), "interactive (n = 8), not paper (n = 16): {header}");
    let q = run(&["--seed", "2"], "preset-ref.csv");
    assert_eq!(p, q, "the last --seed wins too");
}

#[test]
fn a_non_utf8_argument_is_refused_with_a_message() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"--out=\xff\xfe.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_plateau")).args(["run".as_ref(), bad]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("argument 2 is not valid UTF-8"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_diverged_run_keeps_its_rows_exits_3_and_is_never_reused_as_finished() {
    let plateau_diverging = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_plateau"))
            .args(args)
            .env("PLATEAU_TEST_DIVERGE_AT", "3")
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // `run`: the rows up to the divergence, exit 3, a message that says what to change
    let out = tmp("diverged.csv");
    let (code, err) =
        plateau_diverging(&["run", "--steps", "10", "--eval-every", "1", "--quiet", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("diverged") && err.contains("learning rate"), "{err}");
    let steps: Vec<String> =
        std::fs::read_to_string(&out).unwrap().lines().skip(1).map(|l| l.split(',').next().unwrap().into()).collect();
    assert_eq!(steps, ["0", "1", "2", "3"], "every row before the divergence");
    // `reproduce`: recorded as diverged (exit 3), listed as not finished, trained again on --resume
    let dir = tmp("diverged-runs");
    let md = tmp("diverged.md");
    let (d, m) = (dir.to_str().unwrap(), md.to_str().unwrap());
    let args = ["reproduce", "--seeds", "0", "--cs", "10", "--steps", "6", "--quiet", "--csv-dir", d, "--out", m];
    let (code, err) = plateau_diverging(&args);
    assert_eq!(code, 3, "{err}");
    let meta = std::fs::read_to_string(dir.join("interactive-mws-c10-seed0.json")).unwrap();
    assert!(meta.contains("\"diverged\""), "{meta}");
    let doc = std::fs::read_to_string(&md).unwrap();
    assert!(doc.contains("c = 10 seed 0 (diverged at step 4)"), "{doc}");
    let mut resume = args.to_vec();
    resume.push("--resume");
    let (code, _, err) = plateau(&resume);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("reusing"), "a diverged run is trained again, not reused: {err}");
}

#[test]
fn run_seeds_writes_each_seed_as_its_own_run_and_summarize_reads_them() {
    let many = tmp("seeds.csv");
    let common = ["--steps", "8", "--eval-every", "4", "--quiet"];
    let (code, _, err) = plateau(&[&["run", "--seeds", "1..5", "--out", many.to_str().unwrap()][..], &common].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("5 seeds (1, 2, 3, 4, 5)"), "{err}");
    let text = std::fs::read_to_string(&many).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("seed,step,loss,"), "{header}");
    // Each seed's lines are exactly the single-seed run of that seed, with the seed in front.
    let mut summaries = vec![];
    for seed in ["1", "2", "3", "4", "5"] {
        let one = tmp(&format!("seed{seed}.csv"));
        let (code, _, err) = plateau(&[&["run", "--seed", seed, "--out", one.to_str().unwrap()][..], &common].concat());
        assert_eq!(code, 0, "{err}");
        let single = std::fs::read_to_string(&one).unwrap();
        let mine: Vec<String> = text
            .lines()
            .skip(1)
            .filter(|l| l.split(',').next() == Some(seed))
            .map(|l| l[seed.len() + 1..].to_string())
            .collect();
        assert_eq!(mine, single.lines().skip(1).map(str::to_string).collect::<Vec<_>>(), "seed {seed}");
        assert_eq!(mine.len(), 3);
        let rows: Vec<plateau::chapters::plateau::MetricRow> = plateau::history::from_csv(&single).unwrap();
        summaries.push(rows.last().unwrap().test_acc);
    }
    // summarize: the median and range of the final test accuracy, computed by hand here.
    let (code, out, err) = plateau(&["summarize", many.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("chapter 1, 5 seed(s)"), "{out}");
    let mut s = summaries.clone();
    s.sort_by(f64::total_cmp);
    let want = format!("final test accuracy: median {:.2} (range {:.2}–{:.2})", s[2], s[0], s[4]);
    assert!(out.contains(&want), "{out}\nwant {want}");
    assert!(out.contains("drop step: "), "{out}");
    // Refused: both flags, a bad list, a file that is not a metrics CSV.
    let (code, _, err) = plateau(&["run", "--seeds", "0..2", "--seed", "1", "--out", many.to_str().unwrap()]);
    assert_eq!((code, err.contains("--seed and --seeds")), (2, true), "{err}");
    let (code, _, err) = plateau(&["run", "--seeds", "3..1", "--out", many.to_str().unwrap()]);
    assert_eq!((code, err.contains("ends before it starts")), (2, true), "{err}");
    std::fs::write(tmp("not.csv"), "a,b\n1,2\n").unwrap();
    let (code, _, err) = plateau(&["summarize", tmp("not.csv").to_str().unwrap()]);
    assert_eq!((code, err.contains("not a Plateau metrics CSV")), (2, true), "{err}");
}

/// Flex and native wgpu are opt-in backends (`--features flex`, `--features wgpu`): a build
/// without them says how to get them, for `--backend`, `--backends` and `--suite gpu` alike, and
/// trains nothing.
#[cfg(not(any(feature = "flex", feature = "wgpu")))]
#[test]
fn opt_in_backends_in_a_build_without_them_say_how_to_build_them() {
    let out = tmp("noflex.csv");
    for (name, feature) in [("flex", "flex"), ("wgpu", "wgpu"), ("webgpu", "wgpu")] {
        let (code, _, err) = plateau(&["run", "--backend", name, "--steps", "1", "--out", out.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        let want = format!(
            "error: --backend \"{name}\": this build has no {feature} backend; build with `cargo build --release --features {feature}`"
        );
        assert!(err.starts_with(&want), "{err}");
        assert!(err.contains("or use ndarray, cpu"), "{err}");
        assert!(!out.exists());
    }
    let (code, _, err) = plateau(&["bench", "--backends", "ndarray,flex", "--torch", "none", "--browser", "none"]);
    assert_eq!((code, err.contains("--backends \"flex\": this build has no flex backend")), (2, true), "{err}");
    let (code, _, err) = plateau(&["bench", "--suite", "gpu", "--browser", "none"]);
    assert_eq!((code, err.contains("--suite gpu: this build has no native wgpu backend")), (2, true), "{err}");
    let (code, _, err) = plateau(&["run", "--backend", "tpu", "--out", out.to_str().unwrap()]);
    assert_eq!(
        (code, err.contains("--backend \"tpu\": allowed ndarray, cpu (wgpu, flex with `--features wgpu,flex`)")),
        (2, true),
        "{err}"
    );
}

#[cfg(feature = "wgpu")]
#[test]
fn backend_wgpu_without_an_adapter_is_refused_with_a_message() {
    // cubecl's device override asks for a discrete GPU, which this machine (and CI) lacks: the
    // same failure as a machine without any adapter.
    let out = tmp("nowgpu.csv");
    let run = Command::new(env!("CARGO_BIN_EXE_plateau"))
        .args(["run", "--backend", "wgpu", "--steps", "1", "--out", out.to_str().unwrap()])
        .env("CUBECL_WGPU_DEFAULT_DEVICE", "DiscreteGpu(7)")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.starts_with("error: --backend wgpu: no WebGPU (Vulkan/Metal) adapter could be set up"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists());
}
