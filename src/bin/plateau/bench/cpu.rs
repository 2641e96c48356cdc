//! `plateau bench --suite cpu` (issue 50 item 5): burn's Flex CPU backend against NdArray, the
//! one the CLI and the page train on, on every bench case, in one run: natively with every
//! thread and with one thread (the browser runs one), and in headless Chromium (`bench/builds.mjs`:
//! the page's CPU engine, `www/pkg-cpu`, against the same engine built with the `flex` feature,
//! `www/pkg-flex`); then a V8 profile of the case where Flex is furthest behind NdArray in the
//! browser, on each engine, summed by kind of work ([`KINDS`]). It forms the `cpu-backends`
//! section of `BENCHMARKS.md` (kept when the full bench rewrites the rest), with the decision it
//! implies, worked out from the figures.

use super::{by_kind, BrowserProfile, Case, NativeTiming, KINDS};

/// The section's name in `BENCHMARKS.md`.
pub const CPU_SECTION: &str = "cpu-backends";

/// The two engines, in table order: (name in the tables, `www/pkg-NAME` of the timing, of the
/// profile (function names kept), backend name the engine takes).
pub const CPU_ENGINES: [(&str, &str, &str, &str); 2] =
    [("NdArray", "cpu", "names", "ndarray"), ("Flex", "flex", "flex", "flex")];

/// What `bench/builds.mjs` printed (the `cpu` and `fusion` suites).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct BuildsBrowser {
    /// Browser version string.
    #[serde(default)]
    pub browser: String,
    /// The WebGPU adapter, where an engine trained on WebGPU.
    #[serde(default)]
    pub webgpu_adapter: Option<String>,
    /// Per case and engine: ms per step, or why not.
    #[serde(default)]
    pub steps: Vec<BuildStep>,
    /// The profiles, one per engine.
    #[serde(default)]
    pub profiles: Vec<EngineProfile>,
}

/// One case on one engine in the browser.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct BuildStep {
    /// The case.
    pub name: String,
    /// The engine ([`CPU_ENGINES`]' first field).
    pub engine: String,
    /// Milliseconds per step.
    #[serde(default)]
    pub ms: Option<f64>,
    /// WebGPU compute dispatches per step (where counted).
    #[serde(default)]
    pub dispatches: Option<f64>,
    /// WebGPU queue submissions per step (where counted).
    #[serde(default)]
    pub submits: Option<f64>,
    /// WebGPU buffer maps (host reads) per step (where counted).
    #[serde(default)]
    pub maps: Option<f64>,
    /// Why there is no figure.
    #[serde(default)]
    pub error: Option<String>,
}

/// One engine's profile.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct EngineProfile {
    /// The engine.
    pub engine: String,
    /// Its profile, or why there is none.
    pub profile: BrowserProfile,
}

/// One case natively: `all` with every thread, `one` with one thread, each per engine in
/// [`CPU_ENGINES`] order.
#[derive(Clone, Debug)]
pub struct CpuNative {
    /// The case.
    pub case: String,
    /// Every thread.
    pub all: [Result<f64, String>; 2],
    /// One thread.
    pub one: [Result<f64, String>; 2],
}

impl CpuNative {
    /// From the native timings of one case: every thread (one per engine, in order) and one thread
    /// (rows named by `BackendKind::name`, or why none).
    pub fn of(case: &str, all: [Result<f64, String>; 2], one: Result<Vec<NativeTiming>, String>) -> CpuNative {
        let pick = |name: &str| match &one {
            Ok(rows) => {
                rows.iter().find(|(b, _)| b == name).map_or_else(|| Err(format!("no {name} row")), |(_, m)| m.clone())
            }
            Err(e) => Err(e.clone()),
        };
        CpuNative { case: case.into(), all, one: [pick("cpu (ndarray)"), pick("cpu (flex)")] }
    }
}

/// The timing spec of `bench/builds.mjs`: every case on both engines, no profile.
pub fn cpu_spec(cases: &[Case]) -> serde_json::Value {
    let cases: Vec<_> = cases
        .iter()
        .map(|c| serde_json::json!({"name": c.name, "query": c.query, "steps": c.steps, "warmup": super::WARMUP}))
        .collect();
    let engines: Vec<_> =
        CPU_ENGINES.iter().map(|(n, pkg, _, b)| serde_json::json!({"name": n, "pkg": pkg, "backend": b})).collect();
    serde_json::json!({"cases": cases, "engines": engines, "profile": null})
}

/// The profile spec of `bench/builds.mjs`: `case` on both engines' builds with names.
pub fn cpu_profile_spec(case: &Case) -> serde_json::Value {
    let engines: Vec<_> =
        CPU_ENGINES.iter().map(|(n, _, pkg, b)| serde_json::json!({"name": n, "pkg": pkg, "backend": b})).collect();
    serde_json::json!({
        "cases": [], "engines": [],
        "profile": {"name": case.name, "query": case.query, "steps": case.steps.min(4), "warmup": super::WARMUP},
        "profile_engines": engines,
    })
}

/// The browser's ms/step of `case` on each engine.
fn browser_ms(b: &BuildsBrowser, case: &str) -> [Result<f64, String>; 2] {
    CPU_ENGINES.map(|(engine, ..)| match b.steps.iter().find(|s| s.name == case && s.engine == engine) {
        Some(BuildStep { ms: Some(ms), .. }) => Ok(*ms),
        Some(s) => Err(s.error.clone().unwrap_or_else(|| "no figure".into())),
        None => Err("not timed".into()),
    })
}

/// The case where Flex's time is the largest multiple of NdArray's in the browser (the one to
/// profile), with that multiple.
pub fn furthest_behind(b: &BuildsBrowser, cases: &[Case]) -> Option<(String, f64)> {
    cases
        .iter()
        .filter_map(|c| match browser_ms(b, c.name) {
            [Ok(n), Ok(f)] => Some((c.name.to_string(), f / n)),
            _ => None,
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

fn ms_cell(m: &Result<f64, String>) -> String {
    match m {
        Ok(ms) if *ms >= 100.0 => format!("{ms:.0}"),
        Ok(ms) => format!("{ms:.1}"),
        Err(e) => format!("— ({e})"),
    }
}

/// Flex's time ÷ NdArray's (below 1: Flex is faster).
fn ratio(m: &[Result<f64, String>; 2]) -> Option<f64> {
    match m {
        [Ok(n), Ok(f)] if *n > 0.0 => Some(f / n),
        _ => None,
    }
}

fn ratio_cell(m: &[Result<f64, String>; 2]) -> String {
    ratio(m).map_or("—".into(), |r| format!("**{r:.2}**"))
}

/// How many of the ratios are at most 1 (Flex at least as fast), of how many were measured, and
/// the largest ratio with its case.
fn tally<'a>(rows: impl Iterator<Item = (&'a str, Option<f64>)>) -> (usize, usize, Option<(&'a str, f64)>) {
    let measured: Vec<(&str, f64)> = rows.filter_map(|(c, r)| Some((c, r?))).collect();
    let worst = measured.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
    (measured.iter().filter(|(_, r)| *r <= 1.0).count(), measured.len(), worst)
}

/// The section: the command, the machine, the table of both engines side by side with Flex's
/// time as a multiple of NdArray's, the decision those ratios imply, and the profile by kind.
pub fn cpu_section(
    command: &str,
    cpu: &str,
    date: &str,
    threads: usize,
    native: &[CpuNative],
    browser: &Result<BuildsBrowser, String>,
) -> String {
    let mut o = format!(
        "## CPU backends: Flex against NdArray\n\n\
         Written by `{command}` on {date} ({cpu}, {threads} threads). burn 0.22 deprecates NdArray, the CPU backend \
         the CLI and the page train on; Flex is burn's supported pure-Rust CPU backend. Milliseconds per training \
         step (evaluation off) of every bench case, natively with {threads} threads and with one, and in headless \
         Chromium ({}one thread, wasm simd128: the page's CPU engine `www/pkg-cpu` against the same engine built with \
         the `flex` feature, `www/pkg-flex`), in one run. *Flex ÷ NdArray* is Flex's time as a multiple of \
         NdArray's: below 1, Flex is faster.\n\n",
        browser.as_ref().ok().map(|b| format!("{}, ", b.browser)).unwrap_or_default(),
    );
    o.push_str(&format!(
        "| case | native {threads} threads: NdArray | Flex | Flex ÷ NdArray | native 1 thread: NdArray | Flex | Flex ÷ \
         NdArray | browser: NdArray | Flex | Flex ÷ NdArray |\n|---|---|---|---|---|---|---|---|---|---|\n"
    ));
    let none = || [Err("not measured".to_string()), Err("not measured".to_string())];
    let in_browser: Vec<[Result<f64, String>; 2]> =
        native.iter().map(|n| browser.as_ref().map_or_else(|_| none(), |b| browser_ms(b, &n.case))).collect();
    for (n, b) in native.iter().zip(&in_browser) {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            n.case,
            ms_cell(&n.all[0]),
            ms_cell(&n.all[1]),
            ratio_cell(&n.all),
            ms_cell(&n.one[0]),
            ms_cell(&n.one[1]),
            ratio_cell(&n.one),
            ms_cell(&b[0]),
            ms_cell(&b[1]),
            ratio_cell(b),
        ));
    }
    if let Err(e) = browser {
        o.push_str(&format!("\nThe browser was not measured: {e}\n"));
    }
    o.push_str(&decision(native, &in_browser));
    if let Ok(b) = browser {
        o.push_str(&profile_table(b));
    }
    o
}

/// The decision the ratios imply: Flex becomes the CPU backend only where it is at least as fast
/// natively and in the browser on every case, because the CLI and the page must train on the
/// same backend (the same seed gives the same rows in both).
fn decision(native: &[CpuNative], in_browser: &[[Result<f64, String>; 2]]) -> String {
    let all = tally(native.iter().map(|n| (n.case.as_str(), ratio(&n.all))));
    let one = tally(native.iter().map(|n| (n.case.as_str(), ratio(&n.one))));
    let web = tally(native.iter().zip(in_browser).map(|(n, b)| (n.case.as_str(), ratio(b))));
    let part = |(fast, of, worst): (usize, usize, Option<(&str, f64)>), place: &str| {
        let worst = worst.filter(|w| w.1 > 1.0).map_or(String::new(), |(c, r)| format!(", at worst {r:.2}× on {c}"));
        format!("{place}: Flex at least as fast on {fast} of {of} cases{worst}")
    };
    let everywhere = [all, one, web].iter().all(|(fast, of, _)| *of == native.len() && fast == of);
    let verdict = if native.is_empty() {
        "Nothing was measured.".to_string()
    } else if everywhere {
        "Flex is at least as fast on every case, natively and in the browser: it qualifies as the CLI's default and \
         the page's CPU engine."
            .to_string()
    } else {
        "So NdArray stays the CLI's default and the page's CPU engine: the CLI and the page train on one CPU backend, \
         so that the same seed gives the same rows in both (a test holds them equal), and Flex is not at least as \
         fast everywhere. Flex stays a measured option natively (`--backend flex`, the `flex` feature)."
            .to_string()
    };
    format!(
        "\n{}; {}; {}. {verdict}\n",
        part(all, "Natively with every thread"),
        part(one, "natively with one thread"),
        part(web, "in the browser")
    )
}

/// Where the time goes: each engine's profiled step by kind of work, in ms per step, beside the
/// profile's heaviest functions.
fn profile_table(b: &BuildsBrowser) -> String {
    if b.profiles.is_empty() {
        return String::new();
    }
    let (steps, case) = b
        .profiles
        .iter()
        .find(|p| p.profile.error.is_none())
        .map_or((0, String::new()), |p| (p.profile.steps, p.profile.name.clone()));
    let mut o = format!(
        "\n### Where the time goes in the browser\n\nA V8 sampling profile of {steps} timed steps of {case}, the case \
         where Flex is furthest behind NdArray in the browser, on each engine (builds with their function names kept, \
         which does not change their code): each function's self time, summed by kind of work, in ms per step.\n\n\
         | kind of work | {} |\n|---|{}\n",
        b.profiles.iter().map(|p| p.engine.as_str()).collect::<Vec<_>>().join(" | "),
        "---|".repeat(b.profiles.len()),
    );
    let kinds: Vec<Option<[f64; 5]>> = b
        .profiles
        .iter()
        .map(|p| {
            let steps = p.profile.steps.max(1) as f64;
            let per_step: Vec<(f64, String)> =
                p.profile.functions.iter().map(|(f, ms)| (ms / steps, f.clone())).collect();
            p.profile.error.is_none().then(|| by_kind(&per_step))
        })
        .collect();
    for (i, kind) in KINDS.iter().enumerate() {
        let cells: Vec<String> = kinds.iter().map(|k| k.map_or("—".into(), |k| format!("{:.0}", k[i]))).collect();
        o.push_str(&format!("| {kind} | {} |\n", cells.join(" | ")));
    }
    let totals: Vec<String> = b
        .profiles
        .iter()
        .map(|p| match &p.profile.error {
            Some(e) => format!("— ({e})"),
            None => format!("{:.0} ({:.0} unprofiled)", p.profile.profiled_ms, p.profile.ms),
        })
        .collect();
    o.push_str(&format!("| **ms per step, profiled** | {} |\n", totals.join(" | ")));
    for p in b.profiles.iter().filter(|p| p.profile.error.is_none()) {
        let steps = p.profile.steps.max(1) as f64;
        let top: Vec<String> =
            p.profile.functions.iter().take(3).map(|(f, ms)| format!("`{}` {:.0} ms", short(f), ms / steps)).collect();
        o.push_str(&format!("\n{}'s heaviest functions per step: {}.\n", p.engine, top.join(", ")));
    }
    o
}

/// A function name cut to at most 80 characters.
fn short(f: &str) -> String {
    let s: String = f.chars().take(80).collect();
    if s.len() < f.len() {
        format!("{s}…")
    } else {
        s
    }
}
