//! `plateau bench --suite fusion` (issue 50 item 4): the page's WebGPU engine, built with burn's
//! kernel fusion (`www/pkg`, the `fusion` feature), against the same engine without it
//! (`www/pkg-unfused`, the `wgpu` feature) on
//! every interactive preset in headless Chromium (`bench/builds.mjs`), with the WebGPU calls of a
//! step counted (compute dispatches, queue submissions, buffer maps: exact on any adapter,
//! SwiftShader's included, since they are the engine's calls, not the GPU's work). It forms the
//! `webgpu-fusion` section of `BENCHMARKS.md` (kept when the full bench rewrites the rest), with
//! the decision the figures imply.

use super::{BuildStep, BuildsBrowser, Case};

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
pub fn fusion_section(command: &str, date: &str, cases: &[Case], r: &Result<BuildsBrowser, String>) -> String {
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
    o
}
