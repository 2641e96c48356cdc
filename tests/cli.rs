#![cfg(not(target_arch = "wasm32"))]
//! The `plateau` command line: a run writes the contract CSV; every kind of bad flag gets a clear
//! message and exit status 2.

use std::process::Command;

fn plateau(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_plateau")).args(args).output().expect("run plateau");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

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
    let mut t = plateau::train::Trainer::new(cfg.clone(), &plateau::backend::cpu_device()).unwrap();
    while plateau::train::block_on(t.advance()) == plateau::train::Status::Running {}
    assert_eq!(std::fs::read_to_string(&out).unwrap(), t.history.to_csv(cfg.n));
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

#[test]
fn params_lists_every_schema_key() {
    let (code, out, _) = plateau(&["params"]);
    assert_eq!(code, 0);
    for p in plateau::config::PARAMS {
        assert!(out.contains(&format!("--{}", p.key)), "{}", p.key);
    }
}
