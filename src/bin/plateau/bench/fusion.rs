//! `plateau bench --suite fusion` (issue 50 item 4): the page's WebGPU engine, built with burn's
//! kernel fusion (`www/pkg`, the `fusion` feature), against the same engine without it
//! (`www/pkg-unfused`, the `wgpu` feature) on
//! every interactive preset in headless Chromium (`bench/builds.mjs`), with the WebGPU calls of a
//! step counted (compute dispatches, queue submissions, buffer maps: exact on any adapter,
//! SwiftShader's included, since they are the engine's calls, not the GPU's work). It forms the
//! `webgpu-fusion` section of `BENCHMARKS.md` (kept when the full bench rewrites the rest), with
//! the decision the figures imply. Natively the same cases train on wgpu's default adapter (on a
//! machine without a GPU, Mesa's llvmpipe) in `plateau` built without fusion and with it, each a
//! child process ([`time_native_build`]): steps per second side by side.

use super::{BuildStep, BuildsBrowser, Case, JsonTiming};

/// The section's name in `BENCHMARKS.md`.
pub const FUSION_SECTION: &str = "webgpu-fusion";

/// The two engines, in table order: (name in the tables, `www/pkg-NAME`; "" is `www/pkg`).
pub const FUSION_ENGINES: [(&str, &str); 2] = [("unfused", "unfused"), ("fused", "")];

/// Issue 50's target for chapter 1's interactive preset with fusion: dispatches per step.
pub const FUSION_TARGET_DISPATCHES: f64 = 150.0;

/// The interactive preset of every chapter, a few steps each (a software adapter takes seconds
/// per step).
pub fn fusion_cases() -> Vec<Case> {
    super::cases(false).into_iter().filter(|c| c.name != "ch1 paper").map(|c| Case { steps: 3, ..c }).collect()
}

/// The spec of `bench/builds.mjs`: every case on both engines on WebGPU, calls counted.
pub fn fusion_spec(cases: &[Case], timeout_s: u64) -> serde_json::Value {
    let cases: Vec<_> = cases
        .iter()
        .map(|c| serde_json::json!({"name": c.name, "query": c.query, "steps": c.steps, "warmup": 2}))
        .collect();
    let engines: Vec<_> = FUSION_ENGINES
        .iter()
        .map(|(n, pkg)| serde_json::json!({"name": n, "pkg": pkg, "backend": "webgpu", "calls": true}))
        .collect();
    serde_json::json!({"cases": cases, "engines": engines, "profile": null, "timeout_s": timeout_s})
}

/// The native half of the suite: the adapter the builds train on, and per case the ms/step of
/// the build without fusion and of the build with it (in [`FUSION_ENGINES`] order), or why not.
#[derive(Clone, Debug)]
pub struct FusionNative {
    /// The adapters wgpu finds, in words (`name (api, kind)`), as this process finds them.
    pub adapter: String,
    /// Case name and the two builds' ms/step.
    pub rows: Vec<(String, [Result<f64, String>; 2])>,
}

/// Milliseconds per step of `case` natively on wgpu in `exe`, a `plateau` built with the `wgpu`
/// or the `fusion` feature: `exe bench --json --backends wgpu` as a child process, timing the
/// quick suite's steps of the case after its untimed ones.
pub fn time_native_build(exe: &str, case: &Case) -> Result<f64, String> {
    let rows: Vec<JsonTiming> = super::run_json_env(exe, &super::json_args(case, "wgpu", false), &[])?;
    let row = rows.into_iter().next().ok_or_else(|| format!("{exe} printed no timing"))?;
    row.ms.ok_or_else(|| row.error.unwrap_or_else(|| "no figure".into()))
}

fn step<'a>(b: &'a BuildsBrowser, case: &str, engine: &str) -> Option<&'a BuildStep> {
    b.steps.iter().find(|s| s.name == case && s.engine == engine)
}

/// An engine's cells for one case: ms/step, dispatches, submits, maps per step, or why not.
fn cells(s: Option<&BuildStep>) -> String {
    let n = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.0}"));
    match s {
        Some(s @ BuildStep { ms: Some(ms), .. }) => {
            format!("{ms:.0} | {} | {} | {}", n(s.dispatches), n(s.submits), n(s.maps))
        }
        Some(s) => format!("— ({}) | — | — | —", s.error.as_deref().unwrap_or("no figure")),
        None => "— (not run) | — | — | —".into(),
    }
}

/// Fused dispatches ÷ unfused dispatches of a case, where both ran.
fn dispatch_ratio(b: &BuildsBrowser, case: &str) -> Option<f64> {
    let d = |e: &str| step(b, case, e).filter(|s| s.ms.is_some()).and_then(|s| s.dispatches);
    Some(d(FUSION_ENGINES[1].0)? / d(FUSION_ENGINES[0].0)?)
}

/// The section: the command, the browser and adapter, the table of both engines side by side,
/// the target for chapter 1, and the decision: fusion goes into the page's WebGPU engine only if
/// the fused engine trains every case and cuts the dispatches of every case.
pub fn fusion_section(
    command: &str,
    date: &str,
    cases: &[Case],
    r: &Result<BuildsBrowser, String>,
    native: &Result<FusionNative, String>,
) -> String {
    let mut o = format!(
        "## WebGPU: kernel fusion\n\n\
         Written by `{command}` on {date}. The page's WebGPU engine, built with burn's kernel fusion (`www/pkg`, \
         the `fusion` feature), against the same engine without it (`www/pkg-unfused`) on the interactive preset of every chapter in \
         headless Chromium{}: ms per training step (after 2 untimed steps; evaluation off) and the WebGPU calls per \
         step (compute dispatches, queue submissions, buffer maps), counted by wrapping the WebGPU API. The counts \
         are the engine's calls and so are exact on any adapter; a software adapter's times are not a GPU's.\n\n",
        r.as_ref()
            .ok()
            .map(|b| format!(" ({}, adapter: {})", b.browser, b.webgpu_adapter.as_deref().unwrap_or("none found")))
            .unwrap_or_default(),
    );
    let b = match r {
        Err(e) => {
            o.push_str(&format!("Not measured: {e}\n"));
            o.push_str(&native_table(native));
            return o;
        }
        Ok(b) => b,
    };
    let [(un, _), (fu, _)] = FUSION_ENGINES;
    o.push_str(&format!(
        "| case | {un}: ms/step | dispatches | submits | maps | {fu}: ms/step | dispatches | submits | maps | {fu} ÷ \
         {un} dispatches |\n|---|---|---|---|---|---|---|---|---|---|\n"
    ));
    for c in cases {
        o.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            c.name,
            cells(step(b, c.name, un)),
            cells(step(b, c.name, fu)),
            dispatch_ratio(b, c.name).map_or("—".into(), |r| format!("**{r:.2}**")),
        ));
    }
    let ch1 = step(b, "ch1 interactive", fu).filter(|s| s.ms.is_some()).and_then(|s| s.dispatches);
    o.push_str(&format!(
        "\nTarget: at most {FUSION_TARGET_DISPATCHES:.0} dispatches per step for chapter 1's interactive preset with \
         fusion: {}.\n",
        match ch1 {
            Some(d) if d <= FUSION_TARGET_DISPATCHES => format!("{d:.0}, met"),
            Some(d) => format!("{d:.0}, not met"),
            None => "not measured (the fused engine did not train it)".into(),
        }
    ));
    let failed: Vec<&str> =
        cases.iter().filter(|c| step(b, c.name, fu).is_none_or(|s| s.ms.is_none())).map(|c| c.name).collect();
    let cut = cases.iter().filter(|c| dispatch_ratio(b, c.name).is_some_and(|r| r < 1.0)).count();
    o.push_str(&if !failed.is_empty() {
        format!(
            "\nThe fused engine did not train {} of {} cases ({}), so fusion does not qualify for the page's WebGPU engine (built with it: build it without).\n",
            failed.len(),
            cases.len(),
            failed.join(", ")
        )
    } else if cut < cases.len() {
        format!(
            "\nThe fused engine trained every case but cut the dispatches of only {cut} of {}, so fusion does not \
             qualify for the page's WebGPU engine (built with it: build it without).\n",
            cases.len()
        )
    } else {
        format!(
            "\nThe fused engine trained every case and cut the dispatches of all {}: fusion qualifies for the page's \
             WebGPU engine, which is built with it.\n",
            cases.len()
        )
    });
    o.push_str(&native_table(native));
    o
}

/// The native half: the two builds' ms/step and steps/s per case, and their ratio.
fn native_table(native: &Result<FusionNative, String>) -> String {
    let [(un, _), (fu, _)] = FUSION_ENGINES;
    let n = match native {
        Err(e) => return format!("\nNatively (wgpu): not measured: {e}.\n"),
        Ok(n) => n,
    };
    let mut o = format!(
        "\nNatively on wgpu's default adapter (found: {}): the same cases in `plateau` built without fusion (the `wgpu` \
         feature) and with it (the `fusion` feature), each build a child process timing the quick suite's steps \
         after {} untimed ones (`plateau bench --json --backends wgpu`).\n\n\
         | case | {un}: ms/step | steps/s | {fu}: ms/step | steps/s | {fu} ÷ {un} steps/s |\n|---|---|---|---|---|---|\n",
        n.adapter,
        super::WARMUP
    );
    let cell = |m: &Result<f64, String>| match m {
        Ok(ms) => format!("{ms:.0} | {:.2}", 1000.0 / ms),
        Err(e) => format!("— ({e}) | —"),
    };
    for (case, [u, f]) in &n.rows {
        let ratio = match (u, f) {
            (Ok(u), Ok(f)) => format!("**{:.2}**", u / f),
            _ => "—".into(),
        };
        o.push_str(&format!("| {case} | {} | {} | {ratio} |\n", cell(u), cell(f)));
    }
    o
}
