//! `plateau bench --suite gpu` (run by `scripts/gpu-check.sh`): the figures only a machine with a
//! hardware GPU can give. Natively, every chapter's presets (the paper presets included) on wgpu
//! on that GPU beside the CPU backend; in headless Chromium on the hardware adapter
//! (`bench/gpu-browser.mjs`), the page's own backend race for each preset. They form the GPU
//! section of `BENCHMARKS.md`, which the full bench keeps when it rewrites the rest. Where wgpu
//! finds no hardware GPU (software rasterizers such as llvmpipe, lavapipe or SwiftShader are not
//! one), it says so and measures nothing. It needs the native wgpu backend (the `wgpu` feature,
//! which `scripts/gpu-check.sh` builds with); without it only this module's tests use the report.
#![cfg_attr(not(feature = "wgpu"), allow(dead_code))]

use super::*;
use plateau::backend::Adapter;

/// The section's name in `BENCHMARKS.md` (`<!-- BEGIN gpu -->` … `<!-- END gpu -->`).
pub const GPU_SECTION: &str = "gpu";

/// Every chapter's two presets, as the GPU check times them.
pub fn gpu_cases() -> Vec<Case> {
    vec![
        Case { name: "ch1 paper", query: "preset=paper", steps: 10 },
        Case { name: "ch1 interactive", query: "", steps: 20 },
        Case { name: "ch2 paper", query: "experiment=anchors&preset=paper", steps: 10 },
        Case { name: "ch2 interactive", query: "experiment=anchors", steps: 20 },
        Case { name: "ch3 paper", query: "experiment=syntax&preset=paper", steps: 10 },
        Case { name: "ch3 interactive", query: "experiment=syntax", steps: 20 },
        Case { name: "ch4 paper", query: "experiment=lm&preset=paper", steps: 10 },
        Case { name: "ch4 interactive", query: "experiment=lm", steps: 20 },
    ]
}

/// The page's backend race for one preset in headless Chromium on the hardware adapter.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct PageRace {
    /// The case name.
    pub name: String,
    /// The backend the page trains on, if it got that far.
    #[serde(default)]
    pub backend: Option<String>,
    /// The race's WebGPU figure (ms/step).
    #[serde(default)]
    pub webgpu_ms: Option<f64>,
    /// The race's CPU figure (ms/step).
    #[serde(default)]
    pub cpu_ms: Option<f64>,
    /// The page's backend line, or what went wrong.
    #[serde(default)]
    pub line: String,
}

/// What `bench/gpu-browser.mjs` prints.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct GpuBrowser {
    /// Browser version string.
    #[serde(default)]
    pub browser: String,
    /// The WebGPU adapter Chromium offered (vendor, architecture), if any.
    #[serde(default)]
    pub adapter: Option<String>,
    /// Whether that adapter is a software fallback.
    #[serde(default)]
    pub fallback: bool,
    /// The Chromium flags used.
    #[serde(default)]
    pub flags: Vec<String>,
    /// One race per preset.
    #[serde(default)]
    pub races: Vec<PageRace>,
}

/// One case of the native measurement: the case, then ms/step on native wgpu and on the native
/// CPU backend (or why it could not be measured).
pub type NativeCase = (Case, Result<f64, String>, Result<f64, String>);

/// Everything the GPU section reports.
#[derive(Debug, Default)]
pub struct GpuResults {
    /// The command as invoked.
    pub command: String,
    /// CPU model and threads, as in the rest of the report.
    pub cpu: String,
    /// Threads available.
    pub threads: usize,
    /// Every adapter wgpu found natively.
    pub adapters: Vec<Adapter>,
    /// Per case: native wgpu and native CPU backend ms/step (or why not).
    pub native: Vec<NativeCase>,
    /// The browser's races (or why not).
    pub browser: Option<Result<GpuBrowser, String>>,
}

/// The adapters in words: `name (api, kind)`, joined.
pub fn adapter_list(adapters: &[Adapter]) -> String {
    if adapters.is_empty() {
        return "no adapter at all".into();
    }
    adapters.iter().map(|a| format!("{} ({}, {})", a.name, a.api, a.kind)).collect::<Vec<_>>().join("; ")
}

/// The section a bench on a machine without a hardware GPU writes when `BENCHMARKS.md` has none
/// yet: what this machine has, and what would fill it.
pub fn no_gpu_section(adapters: &[Adapter]) -> String {
    format!(
        "## GPU\n\nNot measured: no machine with a hardware GPU has run `scripts/gpu-check.sh` yet. \
         On this bench's machine wgpu finds {} — a software rasterizer, which the native wgpu rows \
         above ran on.\n",
        adapter_list(adapters)
    )
}

fn cell(v: &Result<f64, String>) -> String {
    match v {
        Ok(ms) => plateau::race::ms(*ms),
        Err(e) => format!("unavailable: {}", e.lines().next().unwrap_or("")),
    }
}

/// The GPU section as Markdown.
pub fn gpu_section(r: &GpuResults, date: &str) -> String {
    let gpus: Vec<&Adapter> = r.adapters.iter().filter(|a| a.is_gpu()).collect();
    let mut o = format!(
        "## GPU\n\nWritten by `{}` (`scripts/gpu-check.sh`) on {date}, on {} with {} CPU thread(s); \
         wgpu finds: {}. Evaluation off, as above; native wgpu uses the default (high-performance) adapter.\n\n",
        r.command,
        r.cpu,
        r.threads,
        adapter_list(&r.adapters)
    );
    if let Some(g) = gpus.first() {
        o.push_str(&format!("GPU: **{}** ({}, driver {}).\n\n", g.name, g.api, g.driver));
    }
    o.push_str("| config | native wgpu ms/step | native CPU ms/step | wgpu ÷ CPU steps/s |\n|---|---|---|---|\n");
    for (case, gpu, cpu) in &r.native {
        let ratio = match (gpu, cpu) {
            (Ok(g), Ok(c)) if *g > 0.0 => format!("{:.2}×", c / g),
            _ => "—".into(),
        };
        o.push_str(&format!("| {} | {} | {} | {ratio} |\n", case.name, cell(gpu), cell(cpu)));
    }
    match &r.browser {
        None => {}
        Some(Err(e)) => o.push_str(&format!("\nHeadless Chromium: not measured ({e}).\n")),
        Some(Ok(b)) => {
            o.push_str(&format!(
                "\nThe page's backend race in {} headless (flags `{}`), WebGPU adapter: {}{}.\n\n",
                b.browser,
                b.flags.join(" "),
                b.adapter.as_deref().unwrap_or("none"),
                if b.fallback {
                    " (a software fallback: the race is not the one a reader with a GPU gets)"
                } else {
                    ""
                }
            ));
            o.push_str("| page | race: WebGPU ms/step | race: CPU ms/step | trains on |\n|---|---|---|---|\n");
            for p in &b.races {
                let f = |v: Option<f64>| v.map_or("—".to_string(), plateau::race::ms);
                let on = match p.backend.as_deref() {
                    Some("webgpu") => "WebGPU".to_string(),
                    Some("cpu") => "CPU".to_string(),
                    _ => format!("— ({})", p.line),
                };
                o.push_str(&format!("| {} | {} | {} | {on} |\n", p.name, f(p.webgpu_ms), f(p.cpu_ms)));
            }
        }
    }
    o
}

/// `BENCHMARKS.md`'s text `doc` with the GPU section set to `body`.
pub fn with_gpu_section(doc: &str, body: &str) -> String {
    plateau::report::replace_section(doc, GPU_SECTION, body)
}
