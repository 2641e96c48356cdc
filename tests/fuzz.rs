#![cfg(not(target_arch = "wasm32"))]
//! Generated bad input against every parser of the config schema: URL queries, JSON configs
//! loaded back (the page's *Load config JSON*), and `set` on every key — 12 000 inputs from a
//! seeded generator; none may panic, and whatever is accepted must validate against the schema —
//! and 320 generated flag sets run as `plateau run` processes, each held to what the library
//! says of the same flags.

use plateau::config::{from_query, RunConfig, Task, PARAMS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const NASTY: &[&str] = &[
    "",
    " ",
    "-",
    "+",
    ".",
    "e",
    "1e309",
    "-1e309",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "0x10",
    "1_000",
    "9999999999999999999999",
    "-9223372036854775809",
    "18446744073709551616",
    "4294967296",
    "-0",
    "0.0000001",
    "1e-320",
    "½",
    "١٢",
    "%",
    "%%",
    "%2",
    "%zz",
    "%00",
    "%FF%FE",
    "&",
    "=",
    "==",
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "../../etc/passwd",
    "\u{202e}",
    "\u{0}",
    "🙂",
    "transformer",
    "emb-mlp",
    "mws",
    "anchors",
    "syntax",
    "paper",
    "interactive",
    "linear",
    "softmax",
];

/// 2⁶³ + 1 (past `i64`) and 2⁶⁴ (past `u64`).
const PAST_I64: &str = "9223372036854775809";
const PAST_U64: &str = "18446744073709551616";

fn token(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..4u32) {
        0 => NASTY[rng.random_range(0..NASTY.len())].to_string(),
        1 => format!(
            "{}",
            rng.random::<f64>() * 10f64.powi(rng.random_range(-8..12i32)) * if rng.random() { 1.0 } else { -1.0 }
        ),
        2 => rng.random_range(-5_000_000_000i64..5_000_000_000).to_string(),
        _ => (0..rng.random_range(0..12u32)).map(|_| char::from(rng.random_range(32u8..127))).collect(),
    }
}

fn key(rng: &mut ChaCha8Rng) -> String {
    if rng.random_range(0..5u32) == 0 {
        token(rng)
    } else {
        PARAMS[rng.random_range(0..PARAMS.len())].key.to_string()
    }
}

#[test]
fn twelve_thousand_generated_inputs_never_panic_and_never_leave_an_invalid_config() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut notices = 0usize;
    for _ in 0..4_000 {
        // 1. a URL query
        let n = rng.random_range(0..8u32);
        let query: String =
            (0..n).map(|_| format!("{}={}", key(&mut rng), token(&mut rng))).collect::<Vec<_>>().join("&");
        let (cfg, notes) = from_query(&query);
        cfg.validate().unwrap_or_else(|e| panic!("query {query:?} left an invalid config: {e}"));
        for note in &notes {
            assert!(PARAMS.iter().any(|p| p.key == note.key), "notice for an unknown key: {note}");
            assert!(note.to_string().contains(&note.key));
        }
        notices += notes.len();

        // 2. strict set on one key: either accepted and valid, or refused and unchanged
        let mut strict = RunConfig::defaults(
            [Task::MWS, Task::Anchors, Task::Syntax][rng.random_range(0..3usize)],
            plateau::config::Preset::Interactive,
        );
        let before = strict.clone();
        let (k, v) = (key(&mut rng), token(&mut rng));
        match strict.set(&k, &v) {
            Ok(()) => strict.validate().unwrap_or_else(|e| panic!("set({k:?}, {v:?}) accepted an invalid value: {e}")),
            Err(_) => assert_eq!(strict, before, "a refused set({k:?}, {v:?}) must leave the config unchanged"),
        }

        // 3. a JSON config with one field replaced by junk: parsed or refused, never a panic,
        //    and a parsed one is checked by validate (as the page's Session::create does)
        let mut json: serde_json::Value = serde_json::to_value(&before).unwrap();
        let field = PARAMS[rng.random_range(0..PARAMS.len())].key;
        json[field] = match rng.random_range(0..3u32) {
            0 => serde_json::Value::String(token(&mut rng)),
            1 => serde_json::json!(rng.random::<f64>() * 1e12 - 5e11),
            _ => serde_json::json!(rng.random_range(-10_000_000_000i64..10_000_000_000)),
        };
        let text = json.to_string();
        let junk = match &json[field] {
            serde_json::Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        match plateau::config::from_json(&text) {
            // The page's *Load config JSON*: the junk is taken only where it is a valid value
            // (the config says so), otherwise a notice names the field; the result validates.
            Ok((cfg, notes)) => {
                cfg.validate().unwrap_or_else(|e| panic!("from_json({text}) left an invalid config: {e}"));
                let mut probe = before.clone();
                if probe.set(field, &junk).is_err() {
                    assert!(
                        notes.iter().any(|n| n.contains(field)),
                        "from_json took {field}={junk:?} without a notice: {notes:?}"
                    );
                }
            }
            Err(e) => assert!(!e.is_empty(), "an empty error for {text}"),
        }
    }
    assert!(notices > 1_000, "the generator should produce plenty of rejected values ({notices})");
}

/// The flag sets of the process fuzz: schema keys (or an unknown one) with a valid value drawn
/// from the key's range, a boundary, or junk; sometimes `--key=value`.
fn flag_set(rng: &mut ChaCha8Rng) -> Vec<(String, String, bool)> {
    use plateau::config::Kind;
    (0..rng.random_range(1..6u32))
        .map(|_| {
            let spec = PARAMS[rng.random_range(0..PARAMS.len())];
            let key =
                if rng.random_range(0..25u32) == 0 { token(rng).replace(['=', ' '], "") } else { spec.key.to_string() };
            // One value in eight is junk, one in eight just out of range, the rest valid.
            let value = match (rng.random_range(0..8u32), spec.kind) {
                (0, _) => token(rng),
                (1, Kind::Int { min, max }) => {
                    // Past the range, and past the integer types (i64, u64).
                    let past = [(min - 1).to_string(), (max + 1).to_string(), PAST_I64.into(), PAST_U64.into()];
                    past[rng.random_range(0..4usize)].clone()
                }
                (1, Kind::Float { min, max, .. }) => [min - 1.0, max * 2.0][rng.random_range(0..2usize)].to_string(),
                (_, Kind::Int { min, max }) => {
                    let hi = max.min(min + 64);
                    [min, max, rng.random_range(min..=hi), rng.random_range(min..=hi)][rng.random_range(0..4usize)]
                        .to_string()
                }
                (_, Kind::Float { min, max, .. }) => {
                    [min, max, min + (max - min) * rng.random::<f64>()][rng.random_range(0..3usize)].to_string()
                }
                (_, Kind::Choice(names)) => names[rng.random_range(0..names.len())].to_string(),
            };
            (key, value, rng.random_range(0..5u32) == 0)
        })
        .collect()
}

#[test]
fn three_hundred_and_twenty_cli_flag_sets_run_as_processes_do_what_the_library_says() {
    let dir = std::env::temp_dir().join(format!("plateau-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let cases: Vec<Vec<(String, String, bool)>> = (0..320).map(|_| flag_set(&mut rng)).collect();
    // What every run is given after the generated flags (a repeated flag keeps its last value):
    // one step, a 50 MB budget, so that no case trains for long.
    const BUDGET_GB: f64 = 0.05;
    let tail = ["--steps", "1", "--eval-every", "1", "--snapshot-every", "1", "--max-memory", "0.05", "--quiet"];
    let outcomes = std::sync::Mutex::new([0usize; 3]);
    let check = |i: usize, flags: &[(String, String, bool)]| {
        let out = dir.join(format!("case{i}.csv"));
        let mut args: Vec<String> = vec!["run".into()];
        for (k, v, inline) in flags {
            if *inline {
                args.push(format!("--{k}={v}"));
            } else {
                args.extend([format!("--{k}"), v.clone()]);
            }
        }
        args.extend(tail.iter().map(|s| s.to_string()));
        args.extend(["--out".to_string(), out.to_str().unwrap().to_string()]);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_plateau"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if t0.elapsed().as_secs() > 120 {
                child.kill().ok();
                panic!("case {i} ran over 120 s: {args:?}");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        let code = status.code().unwrap_or_else(|| panic!("case {i} died by a signal: {args:?}\n{err}"));
        assert!(!err.contains("panicked"), "case {i} panicked: {args:?}\n{err}");
        // The library's word on the same flags: the preset (its last value), then every schema
        // key at once; an unknown key is the CLI's to refuse.
        let with_tail: Vec<(String, String)> = flags
            .iter()
            .map(|(k, v, _)| (k.clone(), v.clone()))
            .chain(
                tail.chunks(2)
                    .filter(|c| c.len() == 2 && c[0] != "--max-memory")
                    .map(|c| (c[0][2..].to_string(), c[1].to_string())),
            )
            .collect();
        let unknown = with_tail.iter().find(|(k, _)| plateau::config::spec(k).is_none());
        // As the CLI reads them: the preset (its last value) first, then unknown flags, then every
        // schema key at once, then the memory budget.
        let preset = with_tail.iter().rev().find(|(k, _)| k == "preset").map(|(_, v)| v.as_str());
        let expected: Result<RunConfig, String> = match (preset.map(plateau::config::Preset::parse), unknown) {
            (Some(None), _) => Err("--preset".to_string()),
            (_, Some((k, _))) => Err(format!("unknown flag --{k}")),
            (p, None) => {
                let mut cfg = RunConfig::preset(p.flatten().unwrap_or(plateau::config::Preset::Interactive));
                let keys = with_tail.iter().filter(|(k, _)| k != "preset").map(|(k, v)| (k.as_str(), v.as_str()));
                match cfg.set_all(keys) {
                    Err(e) => Err(format!("--{}", e.key)),
                    Ok(()) => match cfg.check_memory(plateau::chapters::shape(&cfg), BUDGET_GB * 1e9) {
                        Err(_) => Err("memory".to_string()),
                        Ok(()) => Ok(cfg),
                    },
                }
            }
        };
        match expected {
            Err(what) => {
                assert_eq!(code, 2, "case {i} should be refused ({what}): {args:?}\n{err}");
                assert!(
                    err.starts_with("error: ") && err.contains(&what),
                    "case {i}: the message should name {what}: {err}"
                );
                assert!(!out.exists(), "case {i}: a refused run writes nothing");
                outcomes.lock().unwrap()[0] += 1;
            }
            Ok(cfg) => {
                assert!(
                    code == 0 || code == 3,
                    "case {i} should train (exit 0, or 3 if it diverged): exit {code}, {args:?}\n{err}"
                );
                let csv = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("case {i}: no CSV ({e}): {err}"));
                let header = csv.lines().next().unwrap_or_default();
                let columns = plateau::run::columns(&cfg);
                assert_eq!(header, columns.join(","), "case {i}: the run is the library's config: {args:?}");
                assert!(csv.lines().count() >= 2, "case {i}: at least one row: {csv}");
                if code == 3 {
                    assert!(err.contains("diverged"), "case {i}: exit 3 says it diverged: {err}");
                }
                outcomes.lock().unwrap()[if code == 0 { 1 } else { 2 }] += 1;
            }
        }
    };
    // Two processes at a time (the CI machine has two cores).
    std::thread::scope(|sc| {
        for part in 0..2 {
            let (cases, check) = (&cases, &check);
            sc.spawn(move || {
                for (i, flags) in cases.iter().enumerate().filter(|(i, _)| i % 2 == part) {
                    check(i, flags);
                }
            });
        }
    });
    let [refused, trained, diverged] = *outcomes.lock().unwrap();
    eprintln!("{refused} refused, {trained} trained, {diverged} diverged");
    assert_eq!(refused + trained + diverged, 320);
    assert!(refused >= 60 && trained >= 60, "both kinds of case are exercised: {refused} refused, {trained} trained");
}

/// Every whole-number flag of every command that writes files, and every whole-number key of the
/// schema on each of those commands, given values past its range and past the integer types: each
/// is refused with exit 2 and a message naming the flag, before anything trains or is written.
#[test]
fn integers_past_their_range_are_refused_with_the_flag_named_on_every_command() {
    use plateau::config::Kind;
    let dir = std::env::temp_dir().join(format!("plateau-fuzz-int-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, doc, runs) = (dir.join("x.csv"), dir.join("R.md"), dir.join("runs"));
    let (csv, doc, runs) = (csv.to_str().unwrap(), doc.to_str().unwrap(), runs.to_str().unwrap());
    let seed_max = plateau::seeds::MAX_SEED;
    // (the command and what it needs, the flag, its range)
    let reproduce: &[&str] = &["reproduce", "--out", doc, "--csv-dir", runs];
    let against: &[&str] =
        &["reproduce", "--preset", "paper", "--against-transcription", "--out", doc, "--csv-dir", runs];
    let anchors: &[&str] = &["reproduce", "--experiment", "anchors", "--out", doc, "--csv-dir", runs];
    let syntax: &[&str] = &["reproduce", "--experiment", "syntax", "--out", doc, "--csv-dir", runs];
    let run: &[&str] = &["run", "--out", csv];
    let bench: &[&str] = &["bench", "--torch", "none", "--browser", "none"];
    let mut flags: Vec<(&[&str], String, u64, u64)> = vec![
        (run, "seeds".into(), 0, seed_max),
        (reproduce, "seeds".into(), 0, seed_max),
        (reproduce, "long-factor".into(), 1, 1_000_000),
        (reproduce, "checkpoint-every".into(), 0, 1_000_000),
        (reproduce, "stop-after".into(), 1, 1_000_000_000),
        (against, "after-drop".into(), 0, 1_000_000),
        (against, "seeds".into(), 0, seed_max),
        (against, "early-seeds".into(), 0, seed_max),
        (against, "checkpoint-every".into(), 0, 1_000_000),
        (anchors, "fresh-seeds".into(), 0, seed_max),
        (anchors, "seeds".into(), 0, seed_max),
        (anchors, "checkpoint-every".into(), 0, 1_000_000),
        (anchors, "stop-after".into(), 1, 1_000_000_000),
        (syntax, "brief-until".into(), 1, 1_000_000),
        (bench, "memory-steps".into(), 0, 1_000_000),
    ];
    let parity: &[&str] = &["parity-dump", "--out", csv];
    for p in PARAMS.iter() {
        if let Kind::Int { min, max } = p.kind {
            for cmd in [run, reproduce, parity] {
                flags.push((cmd, p.key.to_string(), min.max(0) as u64, max as u64));
            }
        }
    }
    let mut checked = 0;
    for (cmd, flag, min, max) in &flags {
        let mut values = vec![PAST_I64.to_string(), PAST_U64.to_string(), (max + 1).to_string()];
        values.push(if *min == 0 { "-1".into() } else { (min - 1).to_string() });
        for v in values {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_plateau"))
                .args(*cmd)
                // Before the flag under test: a repeated flag keeps its last value.
                .args(["--steps", "2"])
                .args([format!("--{flag}"), v.clone()])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let what = format!("{cmd:?} --{flag} {v}");
            assert_eq!(out.status.code(), Some(2), "{what} must be refused: {err}");
            assert!(err.starts_with("error: ") && err.contains(&format!("--{flag}")), "{what}: names the flag: {err}");
            assert!(!err.contains("panicked"), "{what}: {err}");
            checked += 1;
        }
    }
    assert!(!std::path::Path::new(csv).exists() && !std::path::Path::new(doc).exists(), "nothing written");
    eprintln!("{checked} out-of-range integers refused");
}
