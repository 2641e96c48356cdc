//! The bench's report: the tables of step times and ratios, the targets with what stands in the
//! way of each one missed, and the profile section.

use super::*;

mod targets;
use targets::*;

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else {
        format!("{ms:.1}")
    }
}

pub(super) fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// The report as Markdown: the step table with GFLOP/s and ratios, then each target of issue #9
/// with the figure that decides it, then memory.
pub fn report(r: &Results, date: &str) -> String {
    let mut o = header(r, date);
    o.push_str(&step_table(r));
    o.push_str(&gpu_calls_section(r));
    let c = Ctx::of(r);
    let mut t = Targets::default();
    target_native_vs_torch(&c, &mut t);
    if let Some(b) = c.browser {
        target_browser_cpu(&c, b, &mut t);
        target_drop(&c, b, &mut t);
        targets_events(&c, b, &mut t);
        targets_load(b, &mut t);
        target_tasks(&c, b, &mut t);
    }
    target_wasm(r, &mut t);
    o.push_str("\n## Targets\n\n| target | measured | met |\n|---|---|---|\n");
    o.push_str(&t.rows);
    o.push_str(&one_thread_table(&c));
    if !t.blockers.is_empty() {
        o.push_str("\n## What stands in the way\n\n");
        for b in &t.blockers {
            o.push_str(&format!("- {b}\n"));
        }
    }
    o.push_str(&memory_section(r));
    profile_section(&mut o, r, &c.one_thread);
    o
}

/// The report's title and what the run measured with.
fn header(r: &Results, date: &str) -> String {
    let mut o = String::new();
    o.push_str("# Benchmarks\n\n");
    o.push_str(&format!(
        "Written by `{}` on {date}, on {} with {} CPU thread(s) available; every figure below comes from \
         that one run, measured side by side on the same machine (none is edited by hand). A training \
         step is a fresh batch, forward, backward and one optimizer update (evaluation off), the \
         loss read back once at the end of the timed steps. GFLOP/s counts the matrix products only (`bench::train_step_flops`: 3 × the \
         forward products). Native CPU backends, rayon, matrixmultiply and PyTorch all use the same \
         thread count.\n\n",
        r.command, r.cpu, r.threads
    ));
    let first = |v: &[Result<TorchResult, String>]| v.iter().find_map(|t| t.as_ref().ok().cloned());
    let browser = r.browser.as_ref().and_then(|b| b.as_ref().ok());
    if let Some(t) = first(&r.torch) {
        o.push_str(&format!("PyTorch (every ratio's reference): {}, BLAS {}", t.version, t.blas));
        if let Some(d) = first(&r.torch_second) {
            o.push_str(&format!("; second PyTorch row: {}, BLAS {}", d.version, d.blas));
        }
        o.push_str("; the same model in `bench/torch_bench.py`. ");
    }
    if let Some(b) = browser {
        o.push_str(&format!(
            "Browser: {} headless, `bench/browser.mjs`; WebGPU adapter: {}.",
            b.browser,
            b.webgpu_adapter.as_deref().unwrap_or("none")
        ));
        if let Some(v) = &b.tfjs_version {
            o.push_str(&format!(
                " TensorFlow.js {v} (`bench/tfjs/model.js`, the same model; chapter 1's cases) on its wasm backend \
                 (SIMD, one thread) and its WebGPU backend, in the same browser run."
            ));
        }
    }
    if !r.adapters.is_empty() {
        o.push_str(&format!(
            " Native wgpu: {}{}.",
            adapter_list(&r.adapters),
            if r.adapters.iter().any(|a| a.is_gpu()) {
                ""
            } else {
                ", no hardware GPU: the native wgpu rows run on a software rasterizer"
            }
        ));
    }
    o
}

/// The table of step times: every case on every engine, with GFLOP/s and the ratios to PyTorch
/// and to the native CPU backend.
/// WebGPU calls per training step in the browser, read back every step (before) and once per
/// chunk (now), side by side.
fn gpu_calls_section(r: &Results) -> String {
    let Some(b) = r.browser.as_ref().and_then(|b| b.as_ref().ok()) else { return String::new() };
    if b.gpu_calls.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "\n## WebGPU calls per training step\n\nCounted in the browser by wrapping the WebGPU API (`www/bench.js`): \
         compute dispatches (kernel launches), queue submissions, and buffer maps (host reads, each a wait \
         for the GPU). *Every step*: the loss read back after each step, as the engine did before; \
         *chunk*: read back once per chunk of steps, as the page's worker does now.\n\n\
         | config | loss read back | steps | ms/step | dispatches | submits | maps |\n|---|---|---|---|---|---|---|\n",
    );
    let mut rows = b.gpu_calls.clone();
    rows.sort_by_key(|g| (g.name.clone(), g.mode != "every step"));
    for g in rows {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} | {:.2} | {:.2} |\n",
            g.name,
            g.mode,
            g.steps,
            fmt_ms(g.ms),
            g.dispatches,
            g.submits,
            g.maps
        ));
    }
    o
}

fn step_table(r: &Results) -> String {
    let mut o = String::new();
    o.push_str("\n\n## Training step\n\n");
    o.push_str(
        "| config | GFLOP/step | engine | ms/step | steps/s | GFLOP/s | ÷ PyTorch steps/s | ÷ native CPU steps/s |\n",
    );
    o.push_str("|---|---|---|---|---|---|---|---|\n");
    for (i, (case, natives)) in r.native.iter().enumerate() {
        let flops = train_step_flops(&shape(&case_config(case)));
        let torch = r.torch.get(i).and_then(|t| t.as_ref().ok()).map(|t| t.ms);
        let cpu_native =
            natives.iter().find(|(n, _)| n == backend::CPU.name()).and_then(|(_, m)| m.as_ref().ok().copied());
        let mut rows: Vec<(String, Result<f64, String>)> =
            natives.iter().map(|(n, m)| (format!("native {n}"), m.clone())).collect();
        rows.push(("PyTorch".into(), r.torch.get(i).cloned().unwrap_or(Err("not run".into())).map(|t| t.ms)));
        if let Some(t) = r.torch_second.get(i) {
            let label = t.as_ref().map_or("PyTorch (second)".to_string(), |t| format!("PyTorch {}", t.version));
            rows.push((label, t.clone().map(|t| t.ms)));
        }
        match &r.browser {
            Some(Ok(b)) => {
                for st in b.steps.iter().filter(|s| s.name == case.name) {
                    let label = match st.backend.as_str() {
                        "webgpu" => "browser WebGPU",
                        "tfjs-wasm" => "browser TensorFlow.js wasm (SIMD)",
                        "tfjs-webgpu" => "browser TensorFlow.js WebGPU",
                        _ => "browser CPU (wasm)",
                    };
                    rows.push((label.into(), st.ms.ok_or_else(|| st.error.clone().unwrap_or_default())));
                }
            }
            Some(Err(e)) => rows.push(("browser".into(), Err(e.clone()))),
            None => {}
        }
        for (label, m) in rows {
            match m {
                Ok(ms) => {
                    let ratio = |base: Option<f64>| base.map_or("–".into(), |b| format!("{:.2}×", b / ms));
                    o.push_str(&format!(
                        "| {} | {:.2} | {label} | {} | {:.2} | {:.1} | {} | {} |\n",
                        case.name,
                        flops / 1e9,
                        fmt_ms(ms),
                        1000.0 / ms,
                        flops / ms / 1e6,
                        if label == "PyTorch" { "1×".into() } else { ratio(torch) },
                        ratio(cpu_native),
                    ));
                }
                Err(e) => o.push_str(&format!(
                    "| {} | {:.2} | {label} | unavailable: {e} | | | | |\n",
                    case.name,
                    flops / 1e9
                )),
            }
        }
    }
    o
}

/// Memory over a long run, natively and in the browser.
fn memory_section(r: &Results) -> String {
    let mut o = String::new();
    let browser = r.browser.as_ref().and_then(|b| b.as_ref().ok());
    o.push_str("\n## Memory over a long run\n\n");
    let browser_memory = browser.map_or(&[][..], |b| &b.memory[..]);
    if r.memory.is_empty() && browser_memory.is_empty() {
        o.push_str("Not measured in this run.\n");
    } else {
        o.push_str("Chapter 1 interactive preset with its default evaluation (every 5 steps) and snapshots (every 10; \
                    the history thins itself to a fixed bound).\n\n| where | step | resident | peak |\n|---|---|---|---|\n");
    }
    {
        for (step, rss, hwm) in &r.memory {
            o.push_str(&format!("| native (whole process) | {step} | {} | {} |\n", mb(*rss), mb(*hwm)));
        }
    }
    for (step, bytes) in browser_memory {
        o.push_str(&format!("| browser (wasm linear memory, never shrinks) | {step} | {} | – |\n", mb(*bytes)));
    }
    o
}

/// The paper step by kind of work in the browser and natively on one thread, and the browser's
/// top functions: where the browser's extra time goes.
fn profile_section(o: &mut String, r: &Results, one_thread: &[(String, f64)]) {
    let profile = r.browser.as_ref().and_then(|b| b.as_ref().ok()).and_then(|b| b.profile.as_ref());
    if profile.is_none() && r.native_profile.is_none() {
        return;
    }
    o.push_str("\n## Profile of the paper-preset step: browser vs native, one thread\n\n");
    let native_ms = one_thread.iter().find(|(n, _)| n == backend::CPU.name()).map(|(_, ms)| *ms);
    if let Some(Err(e)) = &r.native_profile {
        o.push_str(&format!("No native profile: {e}.\n"));
    }
    match profile {
        Some(BrowserProfile { error: Some(e), .. }) => o.push_str(&format!("No browser profile: {e}.\n")),
        None => o.push_str("No browser profile in this run.\n"),
        Some(_) => {}
    }
    let (Some(p), Some(native_ms)) = (profile.filter(|p| p.error.is_none()), native_ms) else { return };
    let Some((n, b)) = kind_split(r, native_ms) else { return };
    o.push_str(&format!(
        "The browser: V8's sampling profiler (every 0.5 ms, through the DevTools protocol) over {} timed steps of \
         the paper preset on the page's CPU backend, in a build of the page's engine that keeps its function names \
         ({} ms/step unprofiled, {} while profiled; the shipped build, above, strips them). Natively: `perf record` \
         of the same step on one thread with the same backend ({}), each kind's share of the samples times the \
         measured {} ms/step. Functions are sorted into kinds by name (`bench::kind_of`).\n\n\
         | kind of work | native, 1 thread (ms/step) | browser (ms/step) | browser ÷ native |\n|---|---|---|---|\n",
        p.steps,
        fmt_ms(p.ms),
        fmt_ms(p.profiled_ms),
        backend::CPU.name(),
        fmt_ms(native_ms)
    ));
    for (k, kind) in KINDS.iter().enumerate() {
        let ratio = if n[k] > 0.0 { format!("{:.2}×", b[k] / n[k]) } else { "–".into() };
        o.push_str(&format!("| {kind} | {} | {} | {ratio} |\n", fmt_ms(n[k]), fmt_ms(b[k])));
    }
    let (tn, tb) = (n.iter().sum::<f64>(), b.iter().sum::<f64>());
    o.push_str(&format!("| all | {} | {} | {:.2}× |\n", fmt_ms(tn), fmt_ms(tb), tb / tn));
    o.push_str(
        "\nThe browser's 15 functions with the most self time:\n\n| function | ms/step | kind |\n|---|---|---|\n",
    );
    for (f, ms) in p.functions.iter().take(15) {
        let short: String =
            if f.chars().count() > 110 { f.chars().take(109).chain(['…']).collect() } else { f.clone() };
        o.push_str(&format!(
            "| `{}` | {} | {} |\n",
            short.replace('|', "\\|"),
            fmt_ms(ms / p.steps as f64),
            kind_of(f)
        ));
    }
}

/// The compare view's row: each run's answer with its step and training seconds, and the time
/// until both had settled (the later one); `ok` when both settled within 90 s.
pub(crate) fn compare_row(c: &super::browser::CompareVerdicts) -> (String, bool) {
    let one = |v: &Verdict| match (v.step, v.seconds) {
        (Some(step), Some(sec)) => format!("γ = {}: {} from step {step}, {sec:.1} s", v.gamma, v.answer),
        _ => format!("γ = {}: {} at the end (no answer settles)", v.gamma, v.answer),
    };
    match (&c.main, &c.other) {
        (Some(a), Some(b)) => {
            let both = a.seconds.zip(b.seconds).map(|(x, y)| x.max(y));
            let text = format!(
                "{}; {}; {}",
                one(a),
                one(b),
                both.map_or("not both settled".to_string(), |s| format!("both by {s:.1} s of training"))
            );
            (text, both.is_some_and(|s| s <= 90.0))
        }
        _ => (format!("not measured ({})", c.error.as_deref().unwrap_or("no verdict")), false),
    }
}
