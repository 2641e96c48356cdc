#![cfg(not(target_arch = "wasm32"))]
//! Generated bad input against every parser of the config schema: URL queries, JSON configs
//! loaded back, and `set` on every key. 12 000 inputs from a seeded generator; none may panic,
//! and whatever is accepted must validate against the schema.

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
            [Task::Mws, Task::Anchors, Task::Syntax][rng.random_range(0..3usize)],
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
        if let Ok(cfg) = serde_json::from_value::<RunConfig>(json) {
            let _ = cfg.validate();
        }
    }
    assert!(notices > 1_000, "the generator should produce plenty of rejected values ({notices})");
}
