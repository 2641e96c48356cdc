//! The report's targets: each one's row in the table and, where it is missed, what stands in the
//! way, from figures of the same run.

use super::*;

/// "yes" or a bold "no".
pub(super) fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "**no**"
    }
}

/// Case `i`'s native milliseconds per step on `backend`.
pub(super) fn native_of(r: &Results, i: usize, backend: &str) -> Option<f64> {
    r.native[i].1.iter().find(|(n, _)| n == backend).and_then(|(_, m)| m.as_ref().ok().copied())
}

/// The fastest native CPU backend of case `i` (the CLI runs either, `--backend`).
pub(super) fn fastest_cpu(r: &Results, i: usize) -> Option<(String, f64)> {
    r.native[i]
        .1
        .iter()
        .filter(|(n, _)| n.starts_with("cpu"))
        .filter_map(|(n, m)| m.as_ref().ok().map(|ms| (n.clone(), *ms)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// The figures of a run the targets read more than once.
pub(super) struct Ctx<'a> {
    pub(super) r: &'a Results,
    pub(super) browser: Option<&'a BrowserResult>,
    /// The paper preset's case.
    pub(super) paper: Option<usize>,
    /// The one-thread native timings of the paper preset (backend, ms).
    pub(super) one_thread: Vec<(String, f64)>,
    pub(super) fastest_one_thread: Option<(String, f64)>,
    /// PyTorch's one-thread ms per step.
    pub(super) torch_one: Option<f64>,
}

impl<'a> Ctx<'a> {
    pub(super) fn of(r: &'a Results) -> Self {
        let one_thread: Vec<(String, f64)> = match &r.one_thread {
            Some(Ok(v)) => v.iter().filter_map(|(n, m)| m.as_ref().ok().map(|ms| (n.clone(), *ms))).collect(),
            _ => vec![],
        };
        Ctx {
            r,
            browser: r.browser.as_ref().and_then(|b| b.as_ref().ok()),
            paper: r.native.iter().position(|(c, _)| c.name == "ch1 paper"),
            fastest_one_thread: one_thread.iter().cloned().min_by(|a, b| a.1.total_cmp(&b.1)),
            one_thread,
            torch_one: r.torch_one_thread.as_ref().and_then(|t| t.as_ref().ok()).map(|t| t.ms),
        }
    }
}

/// The targets table's rows and, per target missed, what stands in the way (from figures of
/// the same run).
#[derive(Default)]
pub(super) struct Targets {
    pub(super) rows: String,
    pub(super) blockers: Vec<String>,
}

/// Native against PyTorch at the paper preset, same threads.
pub(super) fn target_native_vs_torch(c: &Ctx, t: &mut Targets) {
    let Targets { rows: o, blockers } = t;
    let (r, paper, fastest_one_thread, torch_one) = (c.r, c.paper, &c.fastest_one_thread, c.torch_one);
    if let Some((i, (name, native))) = paper.and_then(|i| fastest_cpu(r, i).map(|f| (i, f))) {
        match r.torch.get(i) {
            Some(Ok(t)) => {
                let ratio = t.ms / native;
                o.push_str(&format!(
                    "| native ≥ 1.5× PyTorch steps/s at the paper preset, same threads | {ratio:.2}× ({} ms/step on {name} vs {} ms/step) | {} |\n",
                    fmt_ms(native),
                    fmt_ms(t.ms),
                    yes(ratio >= 1.5)
                ));
                if ratio < 1.5 {
                    let flops = train_step_flops(&shape(&case_config(&r.native[i].0)));
                    let mut text = format!(
                        "**Native vs PyTorch, paper preset.** With {} threads this engine reaches {:.1} GFLOP/s ({name}) against PyTorch's {:.1}.",
                        r.threads,
                        flops / native / 1e6,
                        flops / t.ms / 1e6
                    );
                    if let (Some((n1, e1)), Some(t1)) = (&fastest_one_thread, torch_one) {
                        text.push_str(&format!(
                            " With one thread each: {} ms/step ({n1}) against {} ms/step, {:.2}× PyTorch; going from one thread to {} speeds this engine up {:.2}× and PyTorch {:.2}×.",
                            fmt_ms(*e1),
                            fmt_ms(t1),
                            t1 / e1,
                            r.threads,
                            e1 / native,
                            t1 / t.ms
                        ));
                    }
                    text.push_str(
                        " The profile at the end of this file shows where a step goes: the matrix products run on \
                         every thread, but burn's CPU backends run each elementwise op, copy and reduction on one \
                         thread, one full pass over memory per op (no fusion on the CPU).",
                    );
                    blockers.push(text);
                }
            }
            other => o.push_str(&format!(
                "| native ≥ 1.5× PyTorch steps/s at the paper preset | PyTorch unavailable: {} | – |\n",
                other.map_or("not run".into(), |e| e.clone().err().unwrap_or_default())
            )),
        }
    }
}

/// The browser's CPU engine against native, per case.
pub(super) fn target_browser_cpu(c: &Ctx, b: &BrowserResult, t: &mut Targets) {
    let Targets { rows: o, blockers } = t;
    let (r, paper, one_thread) = (c.r, c.paper, &c.one_thread);
    for (i, (case, _)) in r.native.iter().enumerate() {
        let Some(native) = native_of(r, i, backend::CPU.name()) else { continue };
        if let Some(ms) = b.steps.iter().find(|s| s.name == case.name && s.backend == "cpu").and_then(|s| s.ms) {
            let ratio = native / ms;
            o.push_str(&format!(
                "| browser CPU ≥ 0.5× native, {} | {ratio:.2}× ({} vs {} ms/step) | {} |\n",
                case.name,
                fmt_ms(ms),
                fmt_ms(native),
                yes(ratio >= 0.5)
            ));
            if ratio < 0.5 {
                let mut text = format!(
                    "**Browser vs native, {}.** The page's engine runs on one thread (WebAssembly threads need a \
                     cross-origin-isolated page, which an iframe in someone else's blog cannot guarantee); \
                     natively it used {}.",
                    case.name, r.threads
                );
                let same = if paper == Some(i) {
                    one_thread.iter().find(|(n, _)| n == backend::CPU.name()).cloned()
                } else {
                    r.one_thread_cpu
                        .iter()
                        .find(|(c, _)| c == case.name)
                        .and_then(|(_, m)| m.as_ref().ok())
                        .map(|ms| (backend::CPU.name().to_string(), *ms))
                };
                if let Some((n1, e1)) = &same {
                    text.push_str(&format!(
                        " Against the same engine natively on one thread ({n1}, {} ms/step) the browser is {:.2}×.",
                        fmt_ms(*e1),
                        e1 / ms
                    ));
                    if let Some((n, b)) = kind_split(r, *e1).filter(|_| paper == Some(i)) {
                        let mut order: Vec<usize> = (0..KINDS.len()).filter(|&k| b[k] > n[k]).collect();
                        order.sort_by(|&x, &y| (b[y] - n[y]).total_cmp(&(b[x] - n[x])));
                        let parts: Vec<String> = order
                            .iter()
                            .map(|&k| {
                                format!(
                                    "{} +{} ({} → {} ms/step)",
                                    KINDS[k],
                                    fmt_ms(b[k] - n[k]),
                                    fmt_ms(n[k]),
                                    fmt_ms(b[k])
                                )
                            })
                            .collect();
                        if !parts.is_empty() {
                            text.push_str(&format!(
                                " By kind of work (the profiles at the end of this file), the browser spends more \
                                 on: {}.",
                                parts.join("; ")
                            ));
                        }
                    }
                }
                blockers.push(text);
            }
        }
    }
}

/// Chapter 1's time to the drop in the page.
pub(super) fn target_drop(c: &Ctx, b: &BrowserResult, t: &mut Targets) {
    let Targets { rows: o, blockers } = t;
    let r = c.r;
    match (b.drop_seconds, b.drop_step) {
        (Some(s), Some(step)) => {
            let native = r.native_drop.map_or(String::new(), |(ns, nstep)| {
                format!("; natively {ns:.1} s (step {nstep}, {}, {} threads)", backend::CPU.name(), r.threads)
            });
            o.push_str(&format!(
                "| interactive preset's drop (test accuracy ≥ 0.5) within 15 s in headless Chromium | {s:.1} s of training (step {step}){native} | {} |\n",
                yes(s <= 15.0)
            ));
            if s > 15.0 {
                let cfg = RunConfig::preset(Preset::Interactive);
                let mut text = format!(
                    "**Time to the drop.** The page, with no URL parameters, reached test accuracy 0.5 at step \
                     {step} after {s:.1} s of training."
                );
                if let Some((ns, nstep)) = r.native_drop {
                    text.push_str(&format!(
                        " The same run natively (seed 0, same evaluation and snapshots, {}, {} threads) got there \
                         at step {nstep} after {ns:.1} s, so the page took {:.2}× as long.",
                        backend::CPU.name(),
                        r.threads,
                        s / ns
                    ));
                }
                let timed = b.steps.iter().find(|st| st.name == "ch1 interactive" && st.backend == "cpu");
                if let Some(ms) = timed.and_then(|st| st.ms) {
                    let train = step as f64 * ms / 1000.0;
                    text.push_str(&format!(
                        " At the browser's timed {} ms/step (above), the {step} training steps alone take {train:.1} s; \
                         the other {:.1} s are what the step timing leaves out: evaluation every {} steps (the \
                         held-out loss and greedy decoding of {} sequences, {} forward passes each), snapshots \
                         every {} steps, and the page's drawing, which shares the {} cores with the worker.",
                        fmt_ms(ms),
                        (s - train).max(0.0),
                        cfg.eval_every,
                        cfg.eval_batch,
                        cfg.plateau.n,
                        cfg.snapshot_every,
                        r.threads
                    ));
                }
                if let Some(st) = &b.stretch {
                    let parts: Vec<String> = st.cpu.iter().map(|(k, ms)| format!("{k} {:.1} s", ms / 1000.0)).collect();
                    text.push_str(&format!(
                        " From the first step to the drop ({:.1} s of wall time, so {:.1} s of CPU time on {} \
                         cores) this machine's CPU time went to: {}.",
                        st.window_ms / 1000.0,
                        st.window_ms / 1000.0 * r.threads as f64,
                        r.threads,
                        parts.join(", ")
                    ));
                }
                blockers.push(text);
            }
        }
        _ => o.push_str("| interactive preset's drop within 15 s in headless Chromium | no drop measured | **no** |\n"),
    }
}

/// Chapters 2 to 4: the time to each event in the page.
pub(super) fn targets_events(c: &Ctx, b: &BrowserResult, t: &mut Targets) {
    let o = &mut t.rows;
    let r = c.r;
    for v in &b.verdicts {
        let native = r.native_verdicts.iter().find(|n| n.gamma == v.gamma).map_or(String::new(), |n| {
            format!(
                "; natively {} at step {} after {} ({}, {} threads)",
                n.answer,
                n.step.map_or("—".into(), |s| s.to_string()),
                n.seconds.map_or("—".into(), |s| format!("{s:.1} s")),
                backend::CPU.name(),
                r.threads
            )
        });
        let (text, ok) = match (v.step, v.seconds) {
            (Some(step), Some(sec)) => (format!("{} from step {step}, {sec:.1} s of training", v.answer), sec <= 60.0),
            _ => (format!("{} at the end of the run (no answer settles)", v.answer), false),
        };
        o.push_str(&format!(
            "| chapter 2 (γ = {}) decides the held-out answer within 60 s in headless Chromium | {text}{native} | {} |\n",
            v.gamma,
            yes(ok)
        ));
    }
    if let Some(c) = &b.compare {
        let (text, ok) = compare_row(c);
        o.push_str(&format!(
            "| chapter 2's default compare view settles both held-out answers within 90 s in headless Chromium (two workers) | {text} | {} |\n",
            yes(ok)
        ));
    }
    // "; natively step … after … s (backend, threads)" for an event the native run reached.
    let natively = |a: Option<AtSeconds>| {
        a.map_or(String::new(), |a| {
            format!(
                "; natively step {} after {:.1} s ({}, {} threads)",
                a.step,
                a.seconds,
                backend::CPU.name(),
                r.threads
            )
        })
    };
    if let Some(lm) = &b.lm {
        let native = |f: fn(&LmTiming) -> Option<AtSeconds>| natively(r.native_lm.as_ref().and_then(f));
        for (what, limit, at, nat) in [
            ("collapse (hidden cosine ≥ 0.9)", 10.0, lm.collapsed, native(|t| t.collapsed)),
            ("recovery (fallen back by half its rise)", 90.0, lm.recovered, native(|t| t.recovered)),
        ] {
            let (text, ok) = match at {
                Some(a) => (format!("step {} after {:.1} s of training", a.step, a.seconds), a.seconds <= limit),
                None => ("not reached".to_string(), false),
            };
            o.push_str(&format!(
                "| chapter 4's {what} within {limit:.0} s in headless Chromium | {text}{nat} | {} |\n",
                yes(ok)
            ));
        }
    }
    if let Some(sx) = &b.syntax {
        let native = |f: fn(&SyntaxTiming) -> Option<AtSeconds>| natively(r.native_syntax.as_ref().and_then(f));
        for (what, at, nat) in [
            ("verb-loss drop", sx.drop, native(|t| t.drop)),
            ("subject → verb onset", sx.subject, native(|t| t.subject)),
        ] {
            let (text, ok) = match at {
                Some(a) => (format!("step {} after {:.1} s of training", a.step, a.seconds), a.seconds <= 60.0),
                None => ("not reached".to_string(), false),
            };
            o.push_str(&format!(
                "| chapter 3's {what} within 60 s in headless Chromium (the page's default) | {text}{nat} | {} |\n",
                yes(ok)
            ));
        }
    }
}

/// The page's load: the first training step and the measured hero.
pub(super) fn targets_load(b: &BrowserResult, t: &mut Targets) {
    let o = &mut t.rows;
    if let Some(l) = &b.load {
        if let Some(f) = l.first_step_ms {
            o.push_str(&format!(
                "| first training step within 3 s of navigation (the page, no URL parameters) | {:.2} s; on the way the main thread fetched and compiled {} of wasm and {} of JavaScript, its longest task {:.0} ms | {} |\n",
                f / 1000.0,
                mb(l.main_wasm_bytes),
                mb(l.main_js_bytes),
                l.longest_load_task_ms,
                yes(f <= 3000.0)
            ));
        }
        if let Some(h) = l.measured_hero_ms {
            o.push_str(&format!(
                "| the hero figure with the measured runs within 2 s of navigation (the page, no URL parameters) | {:.2} s | {} |\n",
                h / 1000.0,
                yes(h <= 2000.0)
            ));
        }
    }
}

/// Main-thread tasks while training.
pub(super) fn target_tasks(c: &Ctx, b: &BrowserResult, t: &mut Targets) {
    let Targets { rows: o, blockers } = t;
    let r = c.r;
    if let Some(t) = b.longest_task_ms {
        o.push_str(&format!(
            "| no main-thread task over 50 ms while training | longest {t:.0} ms | {} |\n",
            yes(t <= 50.0)
        ));
        if t > 50.0 {
            let mut text = format!(
                "**Main-thread tasks.** Training runs in a worker; the main thread only draws, one chart per \
                 animation frame. The longest task was {t:.0} ms"
            );
            if let Some(d) = b.longest_draw_ms {
                text.push_str(&format!(
                    "; the page's own longest drawing job in that stretch took {d:.0} ms of script"
                ));
            }
            text.push_str(&format!(". This machine has {} cores and the worker keeps one busy.", r.threads));
            if !b.long_tasks.is_empty() {
                text.push_str(
                    " Who had the CPU during each task over 50 ms (each Chromium thread's CPU time from \
                     `/proc/<pid>/task/*/stat`, the rest of the machine from `/proc/stat`: other processes, \
                     time the hypervisor gave this virtual machine's CPUs to someone else, idle; sampled every \
                     20 ms in 10 ms ticks, over the samples that enclose the task):\n\n\
                     | task | at step | sampled window | CPU time by thread |\n|---|---|---|---|\n",
                );
                for lt in &b.long_tasks {
                    let cpu: Vec<String> = lt.cpu.iter().map(|(k, ms)| format!("{k} {ms:.0} ms")).collect();
                    text.push_str(&format!(
                        "| {:.0} ms | {} | {} | {} |\n",
                        lt.ms,
                        lt.step,
                        lt.window_ms.map_or("–".into(), |w| format!("{w:.0} ms")),
                        if cpu.is_empty() { "not measured".into() } else { cpu.join(", ") }
                    ));
                }
                let main_of = |lt: &LongTask| lt.cpu.iter().find(|(k, _)| k == "page main thread").map_or(0.0, |c| c.1);
                let measured: Vec<&LongTask> = b.long_tasks.iter().filter(|lt| lt.window_ms.is_some()).collect();
                if let Some(worst) = measured.iter().map(|lt| lt.ms - main_of(lt)).reduce(f64::min) {
                    let first = b.long_tasks.iter().map(|lt| lt.step).max().unwrap_or(0);
                    text.push_str(&format!(
                        "\nIn every one of them the main thread itself ran at most {:.0} ms of CPU; for at least \
                         {worst:.0} ms of each it was not running; the table shows where the rest of the \
                         {} cores' time went.",
                        measured.iter().map(|lt| main_of(lt)).fold(0.0, f64::max),
                        r.threads
                    ));
                    if first <= 5 && b.long_tasks.len() < 20 {
                        text.push_str(&format!(
                            " All of them came by step {first}, as training starts; after that no task passed \
                             50 ms. At that moment the worker starts training, the main thread draws the first \
                             charts, and the renderer's thread pool (where V8 compiles hot wasm functions with \
                             its optimizing tier, and collects garbage) is busy too."
                        ));
                    }
                }
            }
            blockers.push(text);
        }
    }
}

/// The page's wasm size.
pub(super) fn target_wasm(r: &Results, t: &mut Targets) {
    let Targets { rows: o, blockers } = t;
    match &r.wasm {
        Some(Ok(w)) => {
            o.push_str(&format!(
                "| the page's wasm ≤ 3 MB gzip-compressed | {} raw, {} gzip -9 | {} |\n",
                mb(w.raw as f64),
                mb(w.gzip as f64),
                yes(w.gzip <= 3_000_000)
            ));
            if w.gzip > 3_000_000 {
                let parts: Vec<String> = w
                    .sections
                    .iter()
                    .map(|(n, raw, gz)| format!("the {n} section {} raw, {} gzip -9", mb(*raw as f64), mb(*gz as f64)))
                    .collect();
                blockers.push(format!(
                    "**Wasm size.** Of the file, {}. The code is burn's autodiff and tensor layers, the NdArray \
                     CPU backend and the WebGPU stack (burn's cubecl backend, cubecl's kernel builders and \
                     compiler, wgpu), each op compiled for every element type; both backends ship because the \
                     page picks one at run time.",
                    parts.join("; ")
                ));
            }
        }
        Some(Err(e)) => o.push_str(&format!("| the page's wasm ≤ 3 MB gzip-compressed | unavailable: {e} | – |\n")),
        None => {}
    }
}

/// Everything on one thread at the paper preset.
pub(super) fn one_thread_table(c: &Ctx) -> String {
    let mut o = String::new();
    let (r, browser, one_thread, torch_one) = (c.r, c.browser, &c.one_thread, c.torch_one);
    if !one_thread.is_empty() || torch_one.is_some() {
        o.push_str("\n### One thread each, paper preset\n\nThe browser runs one thread; here is everything on one.\n\n| engine | ms/step | ÷ PyTorch steps/s |\n|---|---|---|\n");
        let base = torch_one;
        let ratio = |ms: f64| base.map_or("–".into(), |b| format!("{:.2}×", b / ms));
        for (n, ms) in one_thread {
            o.push_str(&format!("| native {n}, 1 thread | {} | {} |\n", fmt_ms(*ms), ratio(*ms)));
        }
        if let Some(t) = torch_one {
            o.push_str(&format!("| PyTorch, 1 thread | {} | 1× |\n", fmt_ms(t)));
        }
        if let Some(ms) = browser
            .and_then(|b| b.steps.iter().find(|s| s.name == "ch1 paper" && s.backend == "cpu"))
            .and_then(|s| s.ms)
        {
            o.push_str(&format!("| browser CPU (wasm) | {} | {} |\n", fmt_ms(ms), ratio(ms)));
        }
        for (what, e) in [
            ("native, 1 thread", r.one_thread.as_ref().and_then(|x| x.as_ref().err())),
            ("PyTorch, 1 thread", r.torch_one_thread.as_ref().and_then(|x| x.as_ref().err())),
        ] {
            if let Some(e) = e {
                o.push_str(&format!("| {what} | unavailable: {e} | |\n"));
            }
        }
    }
    o
}
