//! `plateau bench`: the flags, the runs and the report (the measurements are in `crate::bench`).

use super::shared::{check_document, int_flag, today, MAX_STEPS};
use super::{output, parse_flags, CliError, Flags};
use plateau::backend;
use plateau::backend::BackendKind;
use std::process::ExitCode;
/// A suite that writes a section of its own: its arguments and flags to its exit code.
type Suite = fn(&[String], &Flags) -> Result<ExitCode, CliError>;

pub(super) fn cmd_bench(args: &[String]) -> Result<ExitCode, CliError> {
    use crate::bench;
    let flags = parse_flags(
        args,
        &[
            "suite",
            "backends",
            "torch",
            "browser",
            "wasm",
            "memory-steps",
            "only",
            "write",
            "json",
            "one-thread",
            "native-profile",
            "probe",
            "torch-second",
            "page",
            "native-unfused",
            "native-fused",
        ],
    )?;
    // `--write FILE` (BENCHMARKS.md: a section is kept, the rest rewritten) is checked before
    // minutes of measuring.
    if let Some(path) = flags.get("write") {
        check_document(path, "write")?;
    }
    // The suites that write a section of their own.
    let suite: Option<Suite> = match flags.get("suite") {
        Some("gpu") => Some(gpu_suite),
        Some("workers") => Some(workers_suite),
        Some("engines") => Some(engines_suite),
        Some("copy") => Some(copy_suite),
        Some("cpu") => Some(cpu_suite),
        Some("fusion") => Some(fusion_suite),
        _ => None,
    };
    if let Some(suite) = suite {
        return suite(args, &flags);
    }
    let full = match flags.get("suite").unwrap_or("quick") {
        "quick" => false,
        "full" => true,
        other => {
            return Err(CliError(format!(
                "--suite {other:?}: allowed quick, full, gpu, workers, engines, copy, cpu, fusion"
            )))
        }
    };
    let kinds = bench_backends(&flags)?;
    let off = |v: &str| v == "none" || v.is_empty();
    let torch = flags.get("torch").unwrap_or("/usr/bin/python3 bench/torch_bench.py").to_string();
    let browser = flags.get("browser").unwrap_or("node bench/browser.mjs").to_string();
    // `--torch-second CMD`: another PyTorch (scripts/bench.sh: Debian's, beside pip's reference).
    let torch_second = flags.get("torch-second").filter(|v| !off(v)).map(str::to_string);
    let wasm = flags.get("wasm").unwrap_or("www/pkg/plateau_bg.wasm").to_string();
    let memory_steps = int_flag(&flags, "memory-steps", if full { 10_000 } else { 0 }, 0, MAX_STEPS)? as usize;
    let one_thread = match flags.get("one-thread").unwrap_or("yes") {
        "yes" => true,
        "no" => false,
        other => return Err(CliError(format!("--one-thread {other:?}: allowed yes, no"))),
    };
    // `--json`: only the native timings, as JSON (the one-thread child of `time_native_one_thread`).
    let json = flags.get("json").is_some();
    let mut cases = bench::cases(full);
    if let Some(only) = flags.get("only") {
        cases.retain(|c| c.name == only);
        if cases.is_empty() {
            let names: Vec<_> = bench::cases(full).iter().map(|c| c.name).collect();
            return Err(CliError(format!("--only {only:?}: allowed one of {}", names.join(", "))));
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut r = bench::Results {
        command: format!("plateau bench {}", args.join(" ")),
        threads,
        cpu: bench::cpu_model(),
        adapters: if backend::WGPU_BUILT && kinds.iter().any(|k| k.flag() == "wgpu") {
            backend::adapters()
        } else {
            vec![]
        },
        ..Default::default()
    };
    // Memory first: this process's peak would otherwise be the paper preset's.
    if memory_steps > 0 && !json {
        eprintln!("bench: native memory over {memory_steps} interactive steps");
        r.memory = bench::native_memory(memory_steps);
    }
    for case in &cases {
        let mut natives = vec![];
        for &kind in &kinds {
            eprintln!("bench: {} — native {}", case.name, kind.name());
            let m = bench::time_native(case, kind);
            eprintln!("        {}", m.as_ref().map_or_else(|e| e.clone(), |ms| format!("{ms:.1} ms/step")));
            natives.push((kind.name().to_string(), m));
        }
        r.native.push((case.clone(), natives));
        if json {
            continue;
        }
        if !off(&torch) {
            eprintln!("bench: {} — PyTorch", case.name);
            let t = bench::time_torch(&torch, case, threads);
            eprintln!("        {}", t.as_ref().map_or_else(|e| e.clone(), |t| format!("{:.1} ms/step", t.ms)));
            r.torch.push(t);
        } else {
            r.torch.push(Err("not run (--torch none)".into()));
        }
        if let Some(second) = torch_second.as_deref() {
            eprintln!("bench: {} — the second PyTorch", case.name);
            let t = bench::time_torch(second, case, threads);
            eprintln!("        {}", t.as_ref().map_or_else(|e| e.clone(), |t| format!("{:.1} ms/step", t.ms)));
            r.torch_second.push(t);
        }
    }
    if json {
        let rows: Vec<bench::JsonTiming> =
            r.native.iter().flat_map(|(_, n)| n.iter().map(bench::JsonTiming::from_timing)).collect();
        println!("{}", serde_json::to_string(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    if one_thread && threads > 1 {
        one_thread_runs(&mut r, &cases, &kinds, &torch, !off(&browser), full);
    }
    if !off(&browser) {
        browser_runs(&mut r, &browser, &cases, memory_steps, full);
    }
    if !off(&wasm) {
        r.wasm = Some(bench::wasm_size(&wasm));
    }
    // `--native-profile FILE`: `perf report` of the paper step on one thread (scripts/bench.sh).
    if let Some(path) = flags.get("native-profile") {
        r.native_profile = Some(match std::fs::read_to_string(path) {
            Ok(text) => Some(bench::parse_perf_report(&text))
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("no perf samples in {path}")),
            Err(e) => Err(format!("cannot read {path}: {e}")),
        });
    }
    let text = bench::report(&r, &today());
    let text = match flags.get("write") {
        Some(path) => write_report(path, text)?,
        None => text,
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `--backends` (default: every backend this build has), each refused with how to build it.
fn bench_backends(flags: &Flags) -> Result<Vec<BackendKind>, CliError> {
    flags
        .get("backends")
        .unwrap_or(match (plateau::backend::FLEX_BUILT, plateau::backend::WGPU_BUILT) {
            (true, true) => "ndarray,flex,wgpu",
            (true, false) => "ndarray,flex",
            (false, true) => "ndarray,wgpu",
            (false, false) => "ndarray",
        })
        .split(',')
        .map(|b| {
            BackendKind::parse(b.trim()).ok_or_else(|| {
                CliError(match b.trim() {
                    // Built without it: say how to build it.
                    n @ ("flex" | "wgpu" | "webgpu" | "vulkan") => {
                        super::backend_refusal(n).replacen("--backend", "--backends", 1)
                    }
                    n => format!("--backends: unknown backend {n:?}"),
                })
            })
        })
        .collect()
}

/// The paper preset once more with one thread, natively and in PyTorch (the browser runs one);
/// with the browser measured, the other cases with one thread on the page's CPU backend beside
/// its figures.
fn one_thread_runs(
    r: &mut crate::bench::Results,
    cases: &[crate::bench::Case],
    kinds: &[BackendKind],
    torch: &str,
    browser: bool,
    full: bool,
) {
    use crate::bench;
    let off = |v: &str| v == "none" || v.is_empty();
    if let Some(paper) = cases.iter().find(|c| c.name == "ch1 paper") {
        let cpu_kinds: Vec<&str> = kinds.iter().filter(|k| k.name().starts_with("cpu")).map(|k| k.flag()).collect();
        if !cpu_kinds.is_empty() {
            eprintln!("bench: {} — native, one thread ({})", paper.name, cpu_kinds.join(", "));
            let t = bench::time_native_one_thread(paper, &cpu_kinds.join(","), full);
            eprintln!("        {t:?}");
            r.one_thread = Some(t);
            if !off(torch) {
                eprintln!("bench: {} — PyTorch, one thread", paper.name);
                r.torch_one_thread = Some(bench::time_torch(torch, paper, 1));
            }
        }
    }
    // The other cases with one thread on the page's CPU backend, beside the browser's figures.
    if browser && kinds.contains(&backend::CPU) {
        for case in cases.iter().filter(|c| c.name != "ch1 paper") {
            eprintln!("bench: {} — native, one thread ({})", case.name, backend::CPU.flag());
            let t = bench::time_native_one_thread(case, backend::CPU.flag(), full)
                .and_then(|v| v.into_iter().next().ok_or_else(|| "no timing".to_string()))
                .and_then(|(_, m)| m);
            eprintln!("        {t:?}");
            r.one_thread_cpu.push((case.name.to_string(), t));
        }
    }
}

/// The browser's side (`bench/browser.mjs`) and the native runs its events are compared with.
fn browser_runs(
    r: &mut crate::bench::Results,
    browser: &str,
    cases: &[crate::bench::Case],
    memory_steps: usize,
    full: bool,
) {
    use crate::bench;
    eprintln!("bench: the page's default run natively, to the drop");
    r.native_drop = bench::native_drop();
    eprintln!("        {:?}", r.native_drop);
    eprintln!("bench: browser (headless Chromium)");
    r.browser = Some(bench::run_browser(browser, cases, memory_steps, full));
    if let Some(Err(e)) = &r.browser {
        eprintln!("        {e}");
    }
    // Chapter 2's time to verdict natively, beside the browser's (minutes of training: only
    // when the browser measured its own).
    if matches!(&r.browser, Some(Ok(b)) if !b.verdicts.is_empty()) {
        for gamma in [0.7, 0.4] {
            eprintln!("bench: chapter 2's default natively at γ = {gamma}, to its verdict");
            if let Some(v) = bench::native_verdict(gamma) {
                eprintln!("        {v:?}");
                r.native_verdicts.push(v);
            }
        }
    }
    if matches!(&r.browser, Some(Ok(b)) if b.lm.is_some()) {
        eprintln!("bench: chapter 4's default natively, to its recovery");
        r.native_lm = bench::native_lm();
        eprintln!("        {:?}", r.native_lm);
    }
    if matches!(&r.browser, Some(Ok(b)) if b.syntax.is_some()) {
        eprintln!("bench: chapter 3's default natively, to its verb-loss drop");
        r.native_syntax = bench::native_syntax();
        eprintln!("        {:?}", r.native_syntax);
    }
}

/// Writes the report to `path` with the sections other suites wrote kept; returns what was written.
fn write_report(path: &str, text: String) -> Result<String, CliError> {
    use crate::bench;
    let mut text = text;
    // The GPU section comes from another machine (scripts/gpu-check.sh): kept as it is.
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let gpu = match plateau::report::section(&old, bench::GPU_SECTION) {
        Some(kept) => kept.to_string(),
        None => bench::no_gpu_section(&backend::adapters()),
    };
    text = bench::with_gpu_section(&text, &gpu);
    // So is the workers section (`--suite workers`, scripts/bench-workers.sh), and the
    // engines section (`--suite engines`).
    if let Some(kept) = plateau::report::section(&old, bench::WORKERS_SECTION) {
        text = bench::with_workers_section(&text, kept);
    }
    if let Some(kept) = plateau::report::section(&old, bench::ENGINES_SECTION) {
        text = bench::with_engines_section(&text, kept);
    }
    // And chapter 3's copy configuration in the browser (`--suite copy`), the CPU backends
    // (`--suite cpu`) and WebGPU's fusion (`--suite fusion`).
    for name in [bench::COPY_SECTION, bench::CPU_SECTION, bench::FUSION_SECTION] {
        if let Some(kept) = plateau::report::section(&old, name) {
            text = plateau::report::replace_section(&text, name, kept);
        }
    }
    output::write_file(path, text.as_bytes())?;
    eprintln!("bench: wrote {path}");
    Ok(text)
}

/// With `--write FILE`, replaces the section `name` of FILE (`<!-- BEGIN name -->` …) by `body`,
/// the rest of FILE kept.
fn write_suite_section(flags: &Flags, name: &str, body: &str) -> Result<ExitCode, CliError> {
    if let Some(path) = flags.get("write") {
        let old = std::fs::read_to_string(path).unwrap_or_default();
        output::write_file(path, plateau::report::replace_section(&old, name, body).as_bytes())?;
        eprintln!("bench: wrote the {name} section of {path}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `plateau bench --suite gpu [--browser CMD|none] [--write FILE] [--probe yes]` (see
/// `bench::gpu`): exits 0 having measured nothing where wgpu finds no hardware GPU. `--probe`
/// only looks: exit 0 with a GPU, 3 without.
fn gpu_suite(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    #[cfg(not(feature = "wgpu"))]
    {
        let _ = (args, flags);
        Err(CliError(
            "--suite gpu: this build has no native wgpu backend; build with `cargo build --release --features wgpu` \
             (scripts/gpu-check.sh does)"
                .into(),
        ))
    }
    #[cfg(feature = "wgpu")]
    gpu_suite_wgpu(args, flags)
}

#[cfg(feature = "wgpu")]
fn gpu_suite_wgpu(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    use crate::bench;
    let adapters = backend::adapters();
    for a in &adapters {
        eprintln!("gpu-check: wgpu finds {} ({}, {}, driver {})", a.name, a.api, a.kind, a.driver);
    }
    if !adapters.iter().any(|a| a.is_gpu()) {
        eprintln!(
            "gpu-check: no hardware GPU on this machine (wgpu finds {}): nothing measured, nothing written.",
            bench::adapter_list(&adapters)
        );
        return Ok(ExitCode::from(if flags.get("probe").is_some() { 3 } else { 0 }));
    }
    if flags.get("probe").is_some() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut r = bench::GpuResults {
        command: format!("plateau bench {}", args.join(" ")),
        cpu: bench::cpu_model(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        adapters,
        ..Default::default()
    };
    let cases = bench::gpu_cases();
    for case in &cases {
        eprintln!("gpu-check: {} — native wgpu, native {}", case.name, backend::CPU.name());
        let gpu = bench::time_native(case, BackendKind::Wgpu);
        let cpu = bench::time_native(case, backend::CPU);
        eprintln!("        {gpu:?} / {cpu:?}");
        r.native.push((case.clone(), gpu, cpu));
    }
    let browser = flags.get("browser").unwrap_or("node bench/gpu-browser.mjs");
    if browser == "none" {
        r.browser = Some(Err("not run: --browser none".into()));
    } else {
        let spec: Vec<serde_json::Value> =
            cases.iter().map(|c| serde_json::json!({"name": c.name, "query": c.query})).collect();
        eprintln!("gpu-check: the page's backend race in headless Chromium on the hardware adapter");
        r.browser = Some(bench::run_json(browser, &[serde_json::json!({ "cases": spec }).to_string()]));
    }
    let body = bench::gpu_section(&r, &today());
    print!("{body}");
    write_suite_section(flags, bench::GPU_SECTION, &body)
}

/// `plateau bench --suite workers [--browser CMD|none] [--only rates|phenomena] [--write FILE]`
/// (see `bench::workers`): the page's steps per second with one and more workers, side by side,
/// and each chapter's time to its phenomenon with one and more workers (`--only` keeps one part;
/// the GPU check runs the rates).
fn workers_suite(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    use crate::bench;
    let (rates, phenomena) = match flags.get("only") {
        None => (true, true),
        Some("rates") => (true, false),
        Some("phenomena") => (false, true),
        Some(other) => {
            return Err(CliError(format!("--only {other:?} with --suite workers: allowed rates, phenomena")))
        }
    };
    let browser = flags.get("browser").unwrap_or("node bench/workers.mjs");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let r = if browser == "none" {
        Err("not run: --browser none".to_string())
    } else {
        eprintln!("bench: the page's workers in headless Chromium (a few minutes per preset)");
        bench::run_json::<bench::WorkersBrowser>(browser, &[bench::workers_spec(cores, rates, phenomena).to_string()])
    };
    let body = bench::workers_section(&format!("plateau bench {}", args.join(" ")), &bench::cpu_model(), &r, &today());
    print!("{body}");
    write_suite_section(flags, bench::WORKERS_SECTION, &body)
}

/// `plateau bench --suite engines [--browser CMD|none] [--write FILE]`: the page's wasm builds'
/// sizes side by side and first visits in headless Chromium (`bench/engines.mjs`; see
/// `bench::engines`), as the engines section of FILE.
fn engines_suite(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    use crate::bench;
    let sizes: Vec<bench::Size> = bench::BUILDS.iter().map(|(dir, _)| bench::build_size(dir)).collect();
    let browser = flags.get("browser").unwrap_or("node bench/engines.mjs");
    let visits = if browser == "none" {
        Err("not run: --browser none".to_string())
    } else {
        eprintln!("bench: first visits of the page in headless Chromium ({} per page)", bench::LOADS);
        bench::run_json::<bench::EnginesBrowser>(browser, &[bench::engines_spec().to_string()])
    };
    let body = bench::engines_section(
        &format!("plateau bench {}", args.join(" ")),
        &bench::cpu_model(),
        &today(),
        &sizes,
        &visits,
    );
    print!("{body}");
    write_suite_section(flags, bench::ENGINES_SECTION, &body)
}

/// `plateau bench --suite copy [--browser CMD|none] [--write FILE] [--page FILE]` (see
/// `bench::copy`): the copy-agreement configuration the page offers and chapter 3's default, each
/// trained on the page in headless Chromium until its drop, in one run; the section of FILE and,
/// with `--page` (index.html by default when `--write` is given), the page's sentence that offers
/// the configuration with its time.
fn copy_suite(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    use crate::bench;
    let (name, cfg) = super::reproduce_syntax::page_copy_config()?;
    let query = plateau::config::to_query(&cfg);
    let browser = flags.get("browser").unwrap_or("node bench/workers.mjs");
    let r = if browser == "none" {
        Err("not run: --browser none".to_string())
    } else {
        eprintln!("bench: chapter 3's default and its copy configuration on the page, each until its drop (minutes)");
        bench::run_json::<bench::WorkersBrowser>(browser, &[bench::copy_spec(&query).to_string()])
    };
    let body = bench::copy_section(
        &format!("plateau bench {}", args.join(" ")),
        &bench::cpu_model(),
        &today(),
        &name,
        &query,
        &r,
    );
    print!("{body}");
    if flags.get("write").is_some() {
        super::shared::write_page_block(flags, bench::COPY_PAGE_BLOCK, &bench::copy_page_sentence(&name, &query, &r))?;
    }
    write_suite_section(flags, bench::COPY_SECTION, &body)
}

/// `plateau bench --suite cpu [--browser CMD|none] [--write FILE]` (see `bench::cpu`): Flex
/// against NdArray on every bench case natively (every thread, one thread) and in headless
/// Chromium, in one run, with a profile of each engine in the browser. Needs a build with the
/// `flex` feature (scripts/bench-cpu.sh builds it and the browser's engines).
fn cpu_suite(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    use crate::bench;
    if !backend::FLEX_BUILT {
        return Err(CliError(
            "--suite cpu: this build has no flex backend; build with `cargo build --release --features flex` \
             (scripts/bench-cpu.sh does)"
                .into(),
        ));
    }
    let cases = bench::cases(true);
    let mut native = vec![];
    for case in &cases {
        let all = [BackendKind::NdArray, BackendKind::parse("flex").expect("flex is built")].map(|kind| {
            eprintln!("bench: {} — native {}", case.name, kind.name());
            bench::time_native(case, kind)
        });
        eprintln!("bench: {} — native, one thread", case.name);
        let one = bench::time_native_one_thread(case, "ndarray,flex", true);
        let row = bench::CpuNative::of(case.name, all, one);
        eprintln!("        {:?} {:?}", row.all, row.one);
        native.push(row);
    }
    let browser = flags.get("browser").unwrap_or("node bench/builds.mjs");
    let r = if browser == "none" {
        Err("not run: --browser none".to_string())
    } else {
        eprintln!("bench: every case on both engines in the browser");
        bench::run_json::<bench::BuildsBrowser>(browser, &[bench::cpu_spec(&cases).to_string()]).map(|mut b| {
            if let Some(case) = bench::furthest_behind(&b, &cases).and_then(|(n, _)| cases.iter().find(|c| c.name == n))
            {
                eprintln!("bench: a profile of {} on both engines in the browser", case.name);
                match bench::run_json::<bench::BuildsBrowser>(browser, &[bench::cpu_profile_spec(case).to_string()]) {
                    Ok(p) => b.profiles = p.profiles,
                    Err(e) => eprintln!("bench: no profile: {e}"),
                }
            }
            b
        })
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let body = bench::cpu_section(
        &format!("plateau bench {}", args.join(" ")),
        &bench::cpu_model(),
        &today(),
        threads,
        &native,
        &r,
    );
    print!("{body}");
    write_suite_section(flags, bench::CPU_SECTION, &body)
}

/// `plateau bench --suite fusion [--browser CMD|none] [--native-unfused EXE --native-fused EXE]
/// [--write FILE]` (see `bench::fusion`): the page's WebGPU engine against the same engine without
/// kernel fusion, every interactive preset in headless Chromium, WebGPU calls counted, and natively
/// on wgpu the same cases in a `plateau` built without fusion and one built with it
/// (scripts/bench-fusion.sh builds `www/pkg-unfused` and both native builds).
fn fusion_suite(args: &[String], flags: &Flags) -> Result<ExitCode, CliError> {
    use crate::bench;
    let cases = bench::fusion_cases();
    let browser = flags.get("browser").unwrap_or("node bench/builds.mjs");
    let r = if browser == "none" {
        Err("not run: --browser none".to_string())
    } else {
        eprintln!("bench: every interactive preset on WebGPU with and without fusion in the browser");
        bench::run_json::<bench::BuildsBrowser>(browser, &[bench::fusion_spec(&cases, 300).to_string()])
    };
    let exes = [flags.get("native-unfused").unwrap_or("none"), flags.get("native-fused").unwrap_or("none")];
    let native = if exes.contains(&"none") {
        Err("not run: --native-unfused and --native-fused name the two builds".to_string())
    } else {
        let rows = cases
            .iter()
            .map(|c| {
                let t = exes.map(|exe| {
                    eprintln!("bench: {} — natively on wgpu in {exe}", c.name);
                    bench::time_native_build(exe, c)
                });
                (c.name.to_string(), t)
            })
            .collect();
        let adapter = if backend::WGPU_BUILT {
            bench::adapter_list(&backend::adapters())
        } else {
            "the default one (this build has no wgpu to name it)".into()
        };
        Ok(bench::FusionNative { adapter, rows })
    };
    let body = bench::fusion_section(&format!("plateau bench {}", args.join(" ")), &today(), &cases, &r, &native);
    print!("{body}");
    write_suite_section(flags, bench::FUSION_SECTION, &body)
}
