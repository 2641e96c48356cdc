//! `plateau bench --suite engines`: what a reader's browser downloads, and how soon it trains
//! (issue 50, item 3). The page's three wasm builds side by side (`scripts/build-web.sh`: the
//! view for the main thread, the CPU engine and the WebGPU engine, of which the training worker
//! fetches the one its backend choice needs), their sizes raw and gzip -9; and first visits of the
//! page in headless Chromium (`bench/engines.mjs`, a fresh context each: nothing cached): the
//! time from navigation to the first trained step, and which wasm files the page's threads
//! fetched. It forms the engines section of `BENCHMARKS.md`, which the full bench keeps.

use serde::Deserialize;

/// The section's name in `BENCHMARKS.md` (`<!-- BEGIN engines -->` … `<!-- END engines -->`).
pub const ENGINES_SECTION: &str = "engines";

/// First visits per page.
pub const LOADS: usize = 3;

/// Target: the CPU engine's gzip -9 size (bytes).
pub const TARGET_CPU_GZIP: u64 = 2_000_000;

/// Target: the first trained step after navigation (ms, median of the loads).
pub const TARGET_FIRST_STEP_MS: f64 = 1500.0;

/// The page's builds: `(folder, who loads it)`.
pub const BUILDS: &[(&str, &str)] = &[
    ("www/pkg-view", "the page's main thread (no engine)"),
    ("www/pkg-cpu", "the training worker without a hardware WebGPU adapter"),
    ("www/pkg", "the training worker where WebGPU may train (a hardware adapter, or backend=webgpu/race)"),
];

/// The pages visited: `(name, query)`. The page's defaults (chapter 1; in headless Chromium the
/// only WebGPU adapter is SwiftShader, a software one, so the page trains on the CPU as a reader
/// without a GPU does), and chapter 2's default compare view.
pub fn pages() -> Vec<(&'static str, &'static str)> {
    vec![("chapter 1 (the page's default)", ""), ("chapter 2 (two runs, compare view)", "experiment=anchors")]
}

/// One wasm file a page's threads fetched.
#[derive(Clone, Debug, Deserialize)]
pub struct Fetched {
    /// Its path from the repository root (`www/pkg-cpu/plateau_bg.wasm`).
    pub path: String,
    /// Its size.
    pub bytes: u64,
}

/// One first visit.
#[derive(Clone, Debug, Deserialize)]
pub struct Visit {
    /// Navigation to the first trained step, ms (`window.plateauFirstStepAt`).
    pub first_step_ms: Option<f64>,
    /// The wasm the page's threads fetched.
    #[serde(default)]
    pub wasm: Vec<Fetched>,
    /// Why the visit has no time.
    #[serde(default)]
    pub error: Option<String>,
}

/// One page's visits.
#[derive(Clone, Debug, Deserialize)]
pub struct PageVisits {
    /// Its name.
    pub name: String,
    /// Its query.
    pub query: String,
    /// Its visits.
    pub loads: Vec<Visit>,
}

/// What `bench/engines.mjs` prints.
#[derive(Clone, Debug, Deserialize)]
pub struct EnginesBrowser {
    /// The browser's version.
    pub browser: String,
    /// Every page's visits.
    pub cases: Vec<PageVisits>,
}

/// The spec `bench/engines.mjs` takes.
pub fn engines_spec() -> serde_json::Value {
    serde_json::json!({
        "loads": LOADS,
        "cases": pages().iter().map(|(n, q)| serde_json::json!({"name": n, "query": q})).collect::<Vec<_>>(),
    })
}

/// A build's size: `(raw bytes, gzip -9 bytes)` of its `plateau_bg.wasm`, or why not.
pub type Size = Result<(u64, u64), String>;

/// The size of `dir`'s wasm, raw and through `gzip -9` (the system's gzip).
pub fn build_size(dir: &str) -> Size {
    let path = format!("{dir}/plateau_bg.wasm");
    let raw = std::fs::metadata(&path).map_err(|e| format!("{path}: {e} (scripts/build-web.sh builds it)"))?.len();
    let out = std::process::Command::new("gzip")
        .args(["-9", "-c", &path])
        .output()
        .map_err(|e| format!("could not run gzip: {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip failed on {path}"));
    }
    Ok((raw, out.stdout.len() as u64))
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

/// The median of `v` (sorted in place); `None` when empty.
fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The engines section: `sizes` in [`BUILDS`] order, the visits (or why there are none).
pub fn engines_section(
    command: &str,
    cpu: &str,
    date: &str,
    sizes: &[Size],
    visits: &Result<EnginesBrowser, String>,
) -> String {
    let mut s = format!(
        "## Engines: what a reader downloads\n\nWritten by `{command}` on {date} ({cpu}). The page's three wasm builds \
         (`scripts/build-web.sh`), side by side: the training worker asks the backend choice first (in the view's \
         build) and fetches only the engine it needs. Then first visits of the page in headless Chromium ({}), \
         each in a fresh browser context (nothing cached), {LOADS} per page: the time from navigation to the first \
         trained step (`window.plateauFirstStepAt`) and the wasm files the page's threads fetched.\n\n\
         | build | loaded by | wasm | gzip -9 |\n|---|---|---|---|\n",
        visits.as_ref().map_or("not run", |b| b.browser.as_str())
    );
    for ((dir, who), size) in BUILDS.iter().zip(sizes) {
        match size {
            Ok((raw, gz)) => s += &format!("| `{dir}` | {who} | {} | {} |\n", mb(*raw), mb(*gz)),
            Err(e) => s += &format!("| `{dir}` | {who} | not measured: {e} | — |\n"),
        }
    }
    let gz = |i: usize| sizes.get(i).and_then(|r| r.as_ref().ok()).map(|&(_, g)| g);
    if let (Some(cpu), Some(gpu)) = (gz(1), gz(2)) {
        s += &format!(
            "\nThe CPU engine is {:.2}× the WebGPU engine's gzip size ({} less to download where the page trains on the CPU).\n",
            cpu as f64 / gpu as f64,
            mb(gpu.saturating_sub(cpu))
        );
    }
    let mut first_ms = None;
    match visits {
        Err(e) => s += &format!("\nFirst visits not measured: {e}.\n"),
        Ok(b) => {
            s += "\n| page | first trained step after navigation: median (range) | wasm fetched |\n|---|---|---|\n";
            for (i, c) in b.cases.iter().enumerate() {
                let mut ms: Vec<f64> = c.loads.iter().filter_map(|l| l.first_step_ms).collect();
                let m = median(&mut ms);
                if i == 0 {
                    first_ms = m;
                }
                let time = match m {
                    Some(m) => format!(
                        "{:.0} ms ({:.0}–{:.0})",
                        m,
                        ms.first().copied().unwrap_or(m),
                        ms.last().copied().unwrap_or(m)
                    ),
                    None => format!(
                        "not measured: {}",
                        c.loads.iter().find_map(|l| l.error.clone()).unwrap_or_else(|| "no visit".into())
                    ),
                };
                let mut fetched: Vec<String> = c
                    .loads
                    .first()
                    .map(|l| l.wasm.iter().map(|w| format!("`{}` ({})", w.path, mb(w.bytes))).collect())
                    .unwrap_or_default();
                fetched.sort();
                fetched.dedup();
                let page = if c.query.is_empty() { c.name.clone() } else { format!("{} (`?{}`)", c.name, c.query) };
                s += &format!(
                    "| {page} | {time} | {} |\n",
                    if fetched.is_empty() { "—".into() } else { fetched.join(", ") }
                );
            }
        }
    }
    s += "\n### Targets\n\n";
    s += &match gz(1) {
        Some(g) => format!(
            "- The CPU engine: {} gzip -9 — **{}** (target ≤ {}).\n",
            mb(g),
            if g <= TARGET_CPU_GZIP { "met" } else { "not met" },
            mb(TARGET_CPU_GZIP)
        ),
        None => "- The CPU engine: not measured.\n".into(),
    };
    s += &match first_ms {
        Some(m) => format!(
            "- The first trained step after navigation ({}): {m:.0} ms — **{}** (target ≤ {TARGET_FIRST_STEP_MS:.0} ms).\n",
            pages()[0].0,
            if m <= TARGET_FIRST_STEP_MS { "met" } else { "not met" }
        ),
        None => "- The first trained step after navigation: not measured.\n".into(),
    };
    s
}

/// `doc` with its engines section replaced by `body` (appended when it has none).
pub fn with_engines_section(doc: &str, body: &str) -> String {
    plateau::report::replace_section(doc, ENGINES_SECTION, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engines_section_states_sizes_times_and_targets() {
        let sizes = vec![Ok((3_000_000, 900_000)), Ok((8_000_000, 1_400_000)), Ok((15_500_000, 3_090_000))];
        let visit = |ms: f64, dir: &str| Visit {
            first_step_ms: Some(ms),
            wasm: vec![
                Fetched { path: "www/pkg-view/plateau_bg.wasm".into(), bytes: 3_000_000 },
                Fetched { path: format!("{dir}/plateau_bg.wasm"), bytes: 8_000_000 },
            ],
            error: None,
        };
        let b = EnginesBrowser {
            browser: "HeadlessChrome/1".into(),
            cases: vec![
                PageVisits {
                    name: "chapter 1 (the page's default)".into(),
                    query: String::new(),
                    loads: vec![
                        visit(1400.0, "www/pkg-cpu"),
                        visit(1200.0, "www/pkg-cpu"),
                        visit(1700.0, "www/pkg-cpu"),
                    ],
                },
                PageVisits {
                    name: "chapter 2".into(),
                    query: "experiment=anchors".into(),
                    loads: vec![Visit { first_step_ms: None, wasm: vec![], error: Some("timeout".into()) }],
                },
            ],
        };
        let s = engines_section("plateau bench --suite engines", "Test CPU", "2026-12-06", &sizes, &Ok(b));
        assert!(
            s.contains("| `www/pkg-cpu` | the training worker without a hardware WebGPU adapter | 8.00 MB | 1.40 MB |"),
            "{s}"
        );
        assert!(s.contains("The CPU engine is 0.45× the WebGPU engine's gzip size (1.69 MB less"), "{s}");
        assert!(s.contains("| chapter 1 (the page's default) | 1400 ms (1200–1700) | `www/pkg-cpu/plateau_bg.wasm` (8.00 MB), `www/pkg-view/plateau_bg.wasm` (3.00 MB) |"), "{s}");
        assert!(s.contains("| chapter 2 (`?experiment=anchors`) | not measured: timeout | — |"), "{s}");
        assert!(s.contains("- The CPU engine: 1.40 MB gzip -9 — **met** (target ≤ 2.00 MB)."), "{s}");
        assert!(s.contains("1400 ms — **met** (target ≤ 1500 ms)"), "{s}");
        let failed = engines_section("x", "y", "z", &[Err("missing".into())], &Err("node failed".into()));
        assert!(
            failed.contains("not measured: missing") && failed.contains("First visits not measured: node failed."),
            "{failed}"
        );
        assert!(failed.contains("- The CPU engine: not measured."), "{failed}");
        assert_eq!(median(&mut [3.0, 1.0, 2.0, 10.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }
}
