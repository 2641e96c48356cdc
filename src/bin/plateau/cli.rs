//! The native command-line front end of the engine (`main.rs` calls [`main`]).
//!
//! ```text
//! plateau run --experiment mws [--preset paper|interactive] [--seed S] [--steps N] [--c C]
//!             [--c-from STEP] [--attention linear|softmax] [--lr LR] [--eval-every K]
//!             [--backend flex|ndarray|wgpu] --out FILE.csv
//! plateau run --experiment anchors [--model transformer|emb-mlp] [--gamma G] [--seed S]
//!             [--memory F] [--seq-len L] [--warmup W] [--steps N] --out FILE.csv [--embeddings FILE.csv]
//! plateau run --experiment syntax [--lambda L] [--lambda-from A] [--lambda-until B] [--seed S]
//!             [--steps N] --out FILE.csv
//! plateau reproduce [--preset paper|interactive] [--seeds 0,1,2] [--cs 0.5,1,2.5,10]
//!             [--resume | --finished-only] [--out REPRODUCTION.md] [--csv-dir results]
//! plateau reproduce --experiment anchors [--gammas 0.3,0.8] [--seeds 0,1,2] [--fresh-seeds 3,4,5]
//! plateau reproduce --experiment anchors --ablation [--factors a,b] [--finished-only]
//! plateau reproduce --experiment syntax [--strength 0.1] [--brief-until 200] [--seeds 0,1,2] [--finished-only]
//! plateau reproduce --experiment syntax --search [--configs a,b] [--seeds 0,1,2] [--finished-only]
//! plateau bench [--suite quick|full] [--backends ndarray,flex,wgpu] [--torch CMD|none]
//!             [--browser CMD|none] [--wasm FILE|none] [--memory-steps N] [--only CASE] [--write FILE]
//!             [--one-thread yes|no] [--native-profile PERF_REPORT]
//! plateau params
//! ```
//! Every experiment flag is a key of the config schema (`plateau params` lists them with their
//! ranges); a bad flag or value prints a message naming it and exits with status 2.

use plateau::backend::{self, BackendKind};
use plateau::chapters::plateau::{MetricRow, PlateauTrainer};
use plateau::config::{describe, Preset, RunConfig, PARAMS};
use plateau::history::Row;
use plateau::run::Run;
use plateau::tensor::block_on;
use plateau::train::{Chapter, Status, Trainer};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

/// The signal (SIGINT or SIGTERM) that asked the CLI to stop, 0 while none did.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    STOP_SIGNAL.store(sig, Ordering::SeqCst);
}

/// From now on SIGINT (Ctrl-C) and SIGTERM stop training at the next step instead of killing the
/// process, so that the rows recorded so far are kept; the exit status is then `128 + signal`
/// (130, 143).
fn install_stop_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_stop_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_stop_signal as *const () as libc::sighandler_t);
    }
}

/// The stop signal received so far (0 when none).
fn stop_signal() -> i32 {
    STOP_SIGNAL.load(Ordering::SeqCst)
}

/// A CSV written while the run trains: rows go to `{out}.partial` as they are evaluated (flushed
/// at once), and [`RowSink::finish`] renames it to `out`, so `out` is never a cut file and a run
/// that is stopped or diverges still leaves every row it recorded.
struct RowSink {
    out: String,
    tmp: String,
    file: std::io::BufWriter<std::fs::File>,
    written: usize,
}

impl RowSink {
    /// Creates `{out}.partial` (an error names `out` when its folder is missing or not writable:
    /// checked before anything trains).
    fn create(out: &str) -> Result<RowSink, CliError> {
        let tmp = format!("{out}.partial");
        let file = std::fs::File::create(&tmp).map_err(|e| CliError(format!("cannot write {out}: {e}")))?;
        Ok(RowSink { out: out.to_string(), tmp, file: std::io::BufWriter::new(file), written: 0 })
    }

    /// Appends the rows recorded since the last call (rewrites the file when the history was
    /// thinned, which drops old rows) and flushes.
    fn update(&mut self, run: &Run) -> Result<(), CliError> {
        let n = run.row_count();
        if n == self.written {
            return Ok(());
        }
        let err = |e: std::io::Error| CliError(format!("cannot write {}: {e}", self.tmp));
        if n < self.written {
            self.file.flush().map_err(err)?;
            let f = std::fs::File::create(&self.tmp).map_err(err)?;
            self.file = std::io::BufWriter::new(f);
            self.written = 0;
        }
        // Only the new rows are formatted (the header once): streaming stays linear in the run.
        let mut text = String::new();
        if self.written == 0 {
            text.push_str(run.csv().lines().next().unwrap_or_default());
            text.push('\n');
        }
        text.push_str(&run.csv_rows_from(self.written));
        self.file.write_all(text.as_bytes()).map_err(err)?;
        self.file.flush().map_err(err)?;
        self.written = n;
        Ok(())
    }

    /// Writes what is left, syncs and renames the file to its final name.
    fn finish(mut self, run: &Run) -> Result<(), CliError> {
        self.update(run)?;
        let err = |e: std::io::Error| CliError(format!("cannot write {}: {e}", self.out));
        self.file.flush().map_err(err)?;
        self.file.get_ref().sync_all().map_err(err)?;
        std::fs::rename(&self.tmp, &self.out).map_err(err)
    }
}

const USAGE: &str = "usage:
  plateau run [--experiment mws|prefix-sum] [--preset paper|interactive] [--seed S] [--steps N]
              [--c C] [--c-from STEP] [--attention linear|softmax] [--lr LR] [--eval-every K]
              [--backend flex|ndarray|wgpu] [--max-memory GB] [--quiet] --out FILE.csv
                        (rows are written to FILE.csv.partial as they are evaluated and renamed at the
                         end; Ctrl-C or SIGTERM stops at the next step and keeps them: exit 130/143;
                         a config whose memory estimate is over --max-memory (8 GB) is refused)
  plateau run --experiment anchors [--model transformer|emb-mlp] [--gamma G] [--seed S] [--memory F]
              [--steps N] --out FILE.csv [--embeddings FILE.csv]
  plateau run --experiment syntax [--lambda L] [--lambda-from A] [--lambda-until B] [--seed S]
              [--lexicon K] [--steps N] --out FILE.csv
  plateau reproduce [--preset paper|interactive] [--seeds 0,1,2] [--cs 0.5,1,2.5,10]
              [--steps N] [--resume | --finished-only] [--out REPRODUCTION.md] [--csv-dir DIR]
              [--checkpoint-every K] [--stop-after N]
                        (--resume reuses runs an earlier invocation finished with the same config
                         and continues checkpointed ones, saved every K steps (default 25, 0: never);
                         --stop-after trains at most N steps, then checkpoints and writes the section;
                         --finished-only writes the section from finished runs and trains nothing)
  plateau reproduce --experiment anchors [--gammas 0.3,0.8] [--seeds 0,1,2] [--model M] [--finished-only]
              [--fresh-seeds 3,4,5]
                        (runs finished earlier with the same config are read back from --csv-dir;
                         the interactive default also writes index.html's chapter2-findings)
  plateau reproduce --experiment anchors --ablation [--factors a,b] [--gammas 0.3,0.8] [--finished-only]
                        (one factor at a time from the mixed reconstruction; section chapter2-ablation)
  plateau reproduce --experiment syntax [--strength 0.1] [--brief-until 200] [--seeds 0,1,2] [--finished-only]
                        (runs finished earlier with the same config are read back from --csv-dir;
                         the interactive default also writes index.html's chapter3-findings)
  plateau reproduce --experiment syntax --search [--configs a,b] [--seeds 0,1,2] [--finished-only]
                        (the search for a plateau; section chapter3-search and index.html's
                         chapter3-search-findings)
  plateau bench [--suite quick|full] [--backends ndarray,flex,wgpu] [--torch CMD|none]
              [--browser CMD|none] [--wasm FILE|none] [--memory-steps N] [--only CASE] [--write FILE]
              [--one-thread yes|no] [--native-profile PERF_REPORT]
                        time training steps natively, in PyTorch and in headless Chromium
  plateau params        list every experiment parameter with its range";

/// A command-line error: message and exit status 2.
pub struct CliError(pub String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

/// Flags after the subcommand: experiment keys go into the config (strictly validated), the rest
/// are returned by name.
pub struct Flags {
    /// The experiment config, preset first.
    pub cfg: RunConfig,
    /// Non-config flags (`out`, `backend`, `seeds`, …) and their values (`""` for switches).
    pub extra: Vec<(String, String)>,
}

const SWITCHES: &[&str] = &["quiet", "resume", "json", "finished-only", "ablation", "search"];

/// Parses `--key value` pairs; `allowed_extra` names the non-schema flags this subcommand takes.
pub fn parse_flags(args: &[String], allowed_extra: &[&str]) -> Result<Flags, CliError> {
    let mut pairs: Vec<(String, String)> = vec![];
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let Some(key) = a.strip_prefix("--") else {
            return Err(CliError(format!("unexpected argument '{a}' (flags look like --key value)")));
        };
        let (key, inline) = match key.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (key.to_string(), None),
        };
        if SWITCHES.contains(&key.as_str()) && allowed_extra.contains(&key.as_str()) {
            pairs.push((key, String::new()));
            i += 1;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                args.get(i).cloned().ok_or_else(|| CliError(format!("flag --{key} needs a value")))?
            }
        };
        pairs.push((key, value));
        i += 1;
    }
    let mut cfg = RunConfig::preset(Preset::Interactive);
    // A repeated flag keeps its last value, `--preset` too.
    if let Some((_, p)) = pairs.iter().rev().find(|(k, _)| k == "preset") {
        cfg = RunConfig::preset(Preset::parse(p).ok_or_else(|| {
            CliError(format!(
                "invalid value {p:?} for '--preset': allowed {}",
                describe(plateau::config::spec("preset").unwrap().kind)
            ))
        })?);
    }
    let mut extra = vec![];
    let mut keys = vec![];
    for (k, v) in pairs {
        if k == "preset" {
            continue;
        }
        if plateau::config::spec(&k).is_some() {
            keys.push((k, v));
        } else if allowed_extra.contains(&k.as_str()) {
            extra.push((k, v));
        } else {
            return Err(CliError(format!("unknown flag --{k}; see `plateau params` and `plateau --help`")));
        }
    }
    // Every key is range-checked as it is read; the rules between keys (heads divide d-model)
    // once all are read, so the order of the flags does not matter.
    cfg.set_all(keys.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| CliError(format!("--{} {:?}: allowed {}", e.key, e.value, e.allowed)))?;
    Ok(Flags { cfg, extra })
}

impl Flags {
    /// A non-config flag's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.extra.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    /// The `--backend` flag (default: the chosen CPU backend).
    pub fn backend(&self) -> Result<BackendKind, CliError> {
        match self.get("backend") {
            None => Ok(backend::CPU),
            Some(b) => BackendKind::parse(b)
                .ok_or_else(|| CliError(format!("--backend {b:?}: allowed flex, ndarray, wgpu, cpu"))),
        }
    }
}

/// Trains one run of any chapter to the end, with a progress bar on stderr unless `quiet`.
/// Returns the run (its history) and the wall time in seconds.
pub fn train_any(cfg: RunConfig, kind: BackendKind, quiet: bool, label: &str) -> Result<(Run, f64), CliError> {
    let mut run = Run::new(cfg, &backend::device(kind))?;
    let secs = drive(&mut run, quiet, label, &mut |_| Ok(true))?;
    Ok((run, secs))
}

/// Advances `run` until it finishes, diverges or `after_step` returns `false` (called after every
/// step that leaves the run running), with a progress bar on stderr unless `quiet`. Returns the
/// wall time in seconds.
fn drive(
    run: &mut Run,
    quiet: bool,
    label: &str,
    after_step: &mut dyn FnMut(&Run) -> Result<bool, CliError>,
) -> Result<f64, CliError> {
    let total = run.config().steps;
    let first = run.step();
    // Fault injection for the end-to-end tests (like the page's `plateauTest('diverge')`): an
    // infinite learning rate from step N on makes the run diverge there.
    let diverge_at: Option<usize> = std::env::var("PLATEAU_TEST_DIVERGE_AT").ok().and_then(|v| v.parse().ok());
    let start = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let mut last_draw = Instant::now();
    let mut last_pct = usize::MAX;
    loop {
        if diverge_at == Some(run.step()) {
            run.force_lr(f64::INFINITY);
        }
        let status = block_on(run.advance());
        let s = run.step();
        if !quiet {
            let pct = s * 100 / total.max(1);
            let due = if tty { last_draw.elapsed().as_millis() > 150 } else { pct / 10 != last_pct / 10 };
            if due || status != Status::Running {
                last_draw = Instant::now();
                last_pct = pct;
                let (loss, metric, value) = run.progress();
                let width = 30;
                let filled = width * s / total.max(1);
                let rate = (s - first) as f64 / start.elapsed().as_secs_f64().max(1e-9);
                let line = format!(
                    "{label} [{}{}] {s}/{total} loss {loss:.3} {metric} {value:.2} ({rate:.1} steps/s)",
                    "#".repeat(filled),
                    ".".repeat(width - filled),
                );
                if tty {
                    eprint!("\r{line}\x1b[K");
                } else {
                    eprintln!("{line}");
                }
            }
        }
        match status {
            Status::Running => {
                if !after_step(run)? {
                    break;
                }
            }
            Status::Finished => break,
            Status::Diverged(msg) => {
                if !quiet && tty {
                    eprintln!();
                }
                eprintln!("{msg}");
                break;
            }
        }
    }
    if !quiet && tty {
        eprintln!();
    }
    Ok(start.elapsed().as_secs_f64())
}

fn cmd_run(args: &[String]) -> Result<ExitCode, CliError> {
    let flags = parse_flags(args, &["out", "backend", "quiet", "embeddings", "max-memory"])?;
    let out = flags.get("out").ok_or_else(|| CliError("run needs --out FILE.csv".into()))?.to_string();
    let embeddings = flags.get("embeddings").map(str::to_string);
    if embeddings.is_some() && flags.cfg.experiment != plateau::config::Task::Anchors {
        return Err(CliError("--embeddings is for --experiment anchors (chapter 2)".into()));
    }
    let kind = flags.backend()?;
    apply_max_memory(&flags)?;
    let mut run = Run::new(flags.cfg.clone(), &backend::device(kind))?;
    let mut sink = RowSink::create(&out)?;
    install_stop_handlers();
    let secs = drive(&mut run, flags.get("quiet").is_some(), "run", &mut |r| {
        sink.update(r)?;
        Ok(stop_signal() == 0)
    })?;
    sink.finish(&run)?;
    if stop_signal() != 0 {
        eprintln!("stopped by signal {} at step {}: {} rows → {out}", stop_signal(), run.step(), run.row_count());
        return Ok(ExitCode::from((128 + stop_signal()) as u8));
    }
    if let (Some(path), Run::Anchors(t)) = (&embeddings, &run) {
        std::fs::write(path, plateau::chapters::anchors::embeddings_csv(&t.history.snapshots))
            .map_err(|e| CliError(format!("cannot write {path}: {e}")))?;
        eprintln!("{} embedding snapshots → {path}", t.history.snapshots.len());
    }
    eprintln!(
        "{} rows → {out} ({:.1} s, {:.2} steps/s, {})",
        run.row_count(),
        secs,
        run.step() as f64 / secs,
        kind.name()
    );
    Ok(match run.status() {
        Status::Diverged(_) => ExitCode::from(3),
        _ => ExitCode::SUCCESS,
    })
}

fn cmd_params() -> Result<ExitCode, CliError> {
    let paper = RunConfig::preset(Preset::Paper);
    let inter = RunConfig::preset(Preset::Interactive);
    println!("{:<16} {:<12} {:<12} {:<5} allowed — what it does", "flag", "paper", "interactive", "live");
    for p in PARAMS {
        println!(
            "--{:<14} {:<12} {:<12} {:<5} {} — {}",
            p.key,
            paper.get(p.key).unwrap(),
            inter.get(p.key).unwrap(),
            if p.live { "yes" } else { "reset" },
            describe(p.kind),
            p.doc
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_bench(args: &[String]) -> Result<ExitCode, CliError> {
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
        ],
    )?;
    let full = match flags.get("suite").unwrap_or("quick") {
        "quick" => false,
        "full" => true,
        other => return Err(CliError(format!("--suite {other:?}: allowed quick, full"))),
    };
    let kinds: Vec<BackendKind> = flags
        .get("backends")
        .unwrap_or("ndarray,flex,wgpu")
        .split(',')
        .map(|b| BackendKind::parse(b.trim()).ok_or_else(|| CliError(format!("--backends: unknown backend {b:?}"))))
        .collect::<Result<_, _>>()?;
    let off = |v: &str| v == "none" || v.is_empty();
    let torch = flags.get("torch").unwrap_or("/usr/bin/python3 bench/torch_bench.py").to_string();
    let browser = flags.get("browser").unwrap_or("node bench/browser.mjs").to_string();
    let wasm = flags.get("wasm").unwrap_or("www/pkg/plateau_bg.wasm").to_string();
    let memory_steps: usize = match flags.get("memory-steps") {
        Some(v) => v.parse().map_err(|_| CliError(format!("--memory-steps {v:?}: allowed an integer ≥ 0")))?,
        None if full => 10_000,
        None => 0,
    };
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
    }
    if json {
        let rows: Vec<bench::JsonTiming> =
            r.native.iter().flat_map(|(_, n)| n.iter().map(bench::JsonTiming::from_timing)).collect();
        println!("{}", serde_json::to_string(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    // The paper preset once more with one thread, natively and in PyTorch: the browser runs one.
    if let Some(paper) = cases.iter().find(|c| c.name == "ch1 paper") {
        let cpu_kinds: Vec<&str> = kinds.iter().filter(|k| k.name().starts_with("cpu")).map(|k| k.flag()).collect();
        if one_thread && !cpu_kinds.is_empty() && threads > 1 {
            eprintln!("bench: {} — native, one thread ({})", paper.name, cpu_kinds.join(", "));
            let t = bench::time_native_one_thread(paper, &cpu_kinds.join(","), full);
            eprintln!("        {t:?}");
            r.one_thread = Some(t);
            if !off(&torch) {
                eprintln!("bench: {} — PyTorch, one thread", paper.name);
                r.torch_one_thread = Some(bench::time_torch(&torch, paper, 1));
            }
        }
    }
    // The other cases with one thread on the page's CPU backend, beside the browser's figures.
    if one_thread && threads > 1 && !off(&browser) && kinds.contains(&backend::CPU) {
        for case in cases.iter().filter(|c| c.name != "ch1 paper") {
            eprintln!("bench: {} — native, one thread ({})", case.name, backend::CPU.flag());
            let t = bench::time_native_one_thread(case, backend::CPU.flag(), full)
                .and_then(|v| v.into_iter().next().ok_or_else(|| "no timing".to_string()))
                .and_then(|(_, m)| m);
            eprintln!("        {t:?}");
            r.one_thread_cpu.push((case.name.to_string(), t));
        }
    }
    if !off(&browser) {
        eprintln!("bench: the page's default run natively, to the drop");
        r.native_drop = bench::native_drop();
        eprintln!("        {:?}", r.native_drop);
        eprintln!("bench: browser (headless Chromium)");
        r.browser = Some(bench::run_browser(&browser, &cases, memory_steps, full));
        if let Some(Err(e)) = &r.browser {
            eprintln!("        {e}");
        }
        // Chapter 2's time to verdict natively, beside the browser's (minutes of training: only
        // when the browser measured its own).
        if matches!(&r.browser, Some(Ok(b)) if !b.verdicts.is_empty()) {
            for gamma in [0.8, 0.3] {
                eprintln!("bench: chapter 2's default natively at γ = {gamma}, to its verdict");
                if let Some(v) = bench::native_verdict(gamma) {
                    eprintln!("        {v:?}");
                    r.native_verdicts.push(v);
                }
            }
        }
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
    print!("{text}");
    if let Some(path) = flags.get("write") {
        std::fs::write(path, &text).map_err(|e| CliError(format!("--write {path}: {e}")))?;
        eprintln!("bench: wrote {path}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Tells glibc's allocator to keep freed memory for reuse instead of returning it to the OS.
///
/// A paper-preset step allocates and frees buffers of up to 35 MB (the 8448 × 1024 MLP
/// activations). glibc serves blocks above its mmap threshold (at most 32 MB) with a fresh
/// `mmap` each time, and every page of it is faulted in and zeroed by the kernel again: measured
/// 2.42 s per paper step with 8.5 s of 29 s spent in the kernel, against 1.83 s with this
/// setting (2-core machine, 2026-11-30). Peak memory is unchanged: the heap stays at its
/// high-water mark, which is the peak the run reaches anyway.
fn keep_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning parameters; called before any threads start.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
    }
}

/// Runs the CLI on the process arguments.
pub fn main() -> ExitCode {
    keep_freed_buffers();
    // `std::env::args` panics on an argument that is not UTF-8: read them raw and refuse such an
    // argument with a message instead.
    let mut args: Vec<String> = vec![];
    for (i, a) in std::env::args_os().skip(1).enumerate() {
        match a.into_string() {
            Ok(a) => args.push(a),
            Err(raw) => {
                eprintln!("error: argument {} is not valid UTF-8 ({:?})", i + 1, raw);
                return ExitCode::from(2);
            }
        }
    }
    let wants_help = args.iter().skip(1).any(|a| a == "--help" || a == "-h");
    let result = match args.first().map(String::as_str) {
        // `plateau run --help` and the like: the usage, not "flag --help needs a value".
        Some("run" | "reproduce" | "bench" | "params") if wants_help => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some("run") => cmd_run(&args[1..]),
        Some("reproduce") => cmd_reproduce(&args[1..]),
        Some("bench") => cmd_bench(&args[1..]),
        Some("params") if args.len() > 1 => {
            Err(CliError(format!("params takes no arguments (got {:?}); see `plateau --help`", &args[1..])))
        }
        Some("params") => cmd_params(),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => Err(CliError(format!("unknown command '{other}'\n{USAGE}"))),
        None => Err(CliError(USAGE.to_string())),
    };
    match result {
        Ok(code) => code,
        Err(CliError(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// `plateau reproduce`: the paper's c sweep over seeds; writes one CSV per run and rewrites this
/// preset's section of `REPRODUCTION.md` from the recorded numbers.
fn cmd_reproduce(args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::plateau::summary as report;
    let flags = parse_flags(
        args,
        &[
            "seeds",
            "cs",
            "out",
            "csv-dir",
            "backend",
            "quiet",
            "resume",
            "finished-only",
            "long-factor",
            "checkpoint-every",
            "stop-after",
            "gammas",
            "strength",
            "brief-until",
            "ablation",
            "factors",
            "page",
            "fresh-seeds",
            "search",
            "configs",
            "max-memory",
        ],
    )?;
    apply_max_memory(&flags)?;
    if matches!(flags.cfg.experiment, plateau::config::Task::Anchors | plateau::config::Task::Syntax) {
        // Chapters 2 and 3 always keep finished runs (same config and backend) and train the
        // missing ones whole; the chapter 1 sweep's checkpoint flags would be silently ignored.
        if let Some(f) =
            ["stop-after", "checkpoint-every", "long-factor", "cs"].into_iter().find(|f| flags.get(f).is_some())
        {
            return Err(CliError(format!(
                "--{f} is for the chapter 1 sweep; chapters 2 and 3 read back the runs they finished and train the missing ones"
            )));
        }
    }
    match flags.cfg.experiment {
        plateau::config::Task::Anchors => return reproduce_anchors(&flags, args),
        plateau::config::Task::Syntax => return reproduce_syntax(&flags, args),
        _ => {}
    }
    let seeds = seed_list(&flags, "0,1,2")?;
    let cs = list_flag(&flags, "cs", "0.5,1,2.5,10")?;
    let long: usize = match flags.get("long-factor").unwrap_or("5").parse::<usize>() {
        Ok(k) if k >= 1 => k,
        _ => {
            return Err(CliError(format!(
                "--long-factor {:?}: a whole number ≥ 1 (runs with c < 1 train that many times --steps)",
                flags.get("long-factor").unwrap_or_default()
            )))
        }
    };
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let csv_dir = flags.get("csv-dir").unwrap_or("results").to_string();
    let kind = flags.backend()?;
    std::fs::create_dir_all(&csv_dir)?;
    let base = flags.cfg.clone();
    let mut summaries = vec![];
    let mut resumed = 0;
    // `--finished-only`: write the section from the runs finished so far, train nothing.
    let finished_only = flags.get("finished-only").is_some();
    // `--checkpoint-every K`: save each run's state every K steps (0: never), so `--resume`
    // continues an interrupted run; `--stop-after N`: train at most N steps in this invocation.
    let every = count_flag(&flags, "checkpoint-every", 25)?;
    let mut budget = flags.get("stop-after").map(|_| count_flag(&flags, "stop-after", 0)).transpose()?;
    if budget == Some(0) {
        return Err(CliError("--stop-after: at least 1 step".into()));
    }
    if std::env::var_os("BURN_DEVICE").is_none() {
        // burn loads a checkpoint's optimizer state on its default device: make that the run's
        // backend (no thread has started yet; see `Trainer::from_checkpoint`).
        std::env::set_var("BURN_DEVICE", kind.flag());
    }
    let mut missing: Vec<String> = vec![];
    let mut diverged = 0;
    for &c in &cs {
        for &seed in &seeds {
            let mut cfg = base.clone();
            cfg.set("c", &c.to_string())?;
            cfg.set("seed", &seed.to_string())?;
            if c < 1.0 {
                // The paper trains 2000 steps (5× 400) for c < 1.
                cfg.steps = base.steps * long;
            }
            let path = format!("{csv_dir}/{}-{}-c{c}-seed{seed}.csv", cfg.preset.name(), cfg.experiment.name());
            let meta_path = format!("{}.json", path.trim_end_matches(".csv"));
            if flags.get("resume").is_some() || finished_only {
                if let Some(summary) = finished_run(&meta_path, &cfg, kind) {
                    eprintln!("c={c} seed={seed}: reusing the finished run in {meta_path} (--resume)");
                    summaries.push(summary);
                    resumed += 1;
                    continue;
                }
            }
            if finished_only {
                missing.push(format!("c = {c} seed {seed}"));
                continue;
            }
            if budget == Some(0) {
                missing.push(format!("c = {c} seed {seed}"));
                continue;
            }
            let ckpt_dir = format!("{}.ckpt", path.trim_end_matches(".csv"));
            let label = format!("c={c} seed={seed}");
            let resumed_from =
                if flags.get("resume").is_some() { load_checkpoint(&ckpt_dir, &cfg, kind) } else { None };
            let (trainer, wall_before) = match resumed_from {
                Some((t, wall)) => {
                    eprintln!("{label}: continuing from the checkpoint in {ckpt_dir} at step {} (--resume)", t.step());
                    (t, wall)
                }
                None => (PlateauTrainer::new(cfg.clone(), &backend::device(kind))?, 0.0),
            };
            let mut run = Run::Plateau(Box::new(trainer));
            let run_start = Instant::now();
            let mut stopped = false;
            let mut after_step = |run: &Run| -> Result<bool, CliError> {
                let Run::Plateau(t) = run else { unreachable!("reproduce trains chapter 1 runs") };
                let out_of_budget = budget.as_mut().is_some_and(|b| {
                    *b -= 1;
                    *b == 0
                });
                if out_of_budget || (every > 0 && t.step() % every == 0) {
                    save_checkpoint(&ckpt_dir, t, kind, wall_before + run_start.elapsed().as_secs_f64())?;
                }
                stopped = out_of_budget;
                Ok(!out_of_budget)
            };
            let secs = wall_before + drive(&mut run, flags.get("quiet").is_some(), &label, &mut after_step)?;
            let Run::Plateau(run) = run else { unreachable!("reproduce trains chapter 1 runs") };
            if stopped {
                eprintln!("{label}: stopped at step {} (--stop-after); checkpoint in {ckpt_dir}", run.step());
                missing.push(format!("c = {c} seed {seed} (checkpointed at step {} of {})", run.step(), cfg.steps));
                continue;
            }
            std::fs::write(&path, plateau::history::to_csv(&MetricRow::columns(&cfg), &run.history.rows))?;
            if let Status::Diverged(msg) = run.status() {
                // Kept for inspection, recorded as diverged: never reused as finished (`finished_run`
                // skips it, so `--resume` trains it again) and reported below, exit status 3.
                let meta =
                    serde_json::json!({ "config": cfg, "backend": kind.name(), "date": today(), "diverged": msg });
                std::fs::write(&meta_path, serde_json::to_string_pretty(&meta)?)?;
                missing.push(format!("c = {c} seed {seed} (diverged at step {})", run.step()));
                diverged += 1;
                continue;
            }
            let summary = report::summarize(&run.history, cfg.seed, c, secs);
            let meta =
                serde_json::json!({ "config": cfg, "backend": kind.name(), "date": today(), "summary": summary });
            std::fs::write(&meta_path, serde_json::to_string_pretty(&meta)?)?;
            summaries.push(summary);
            if std::path::Path::new(&ckpt_dir).exists() {
                std::fs::remove_dir_all(&ckpt_dir)?;
            }
        }
    }
    let name = format!("chapter1-{}-{}", base.preset.name(), base.experiment.name());
    let cmd = format!("cargo run --release --bin plateau -- reproduce {}", args.join(" "));
    let cfgline: Vec<String> = base.non_default_pairs().into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    let body = format!(
        "## Chapter 1 — {} preset, {} (generated)\n\n\
         Written by `{}` on {} ({} backend, {} threads available). Model: {} layer(s), {} head(s), d {}, d_ff {}, {} attention, \
         n {}, batch {}, lr {}, {} steps ({}× for c < 1), evaluation every {} steps on a fresh held-out batch of {}. \
         Non-default settings: {}. Per-run CSVs: `{csv_dir}/`. *Wall s* is each run's wall-clock time, including any \
         time this machine gave to other work meanwhile (step timings measured side by side are in `BENCHMARKS.md`).{}\n\n{}\n\
         ### Against the paper\n\n{}",
        base.preset.name(),
        base.experiment.name(),
        cmd.trim(),
        today(),
        kind.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        base.layers,
        base.heads,
        base.d_model,
        base.d_ff,
        base.attention.name(),
        base.n,
        base.batch,
        base.lr,
        base.steps,
        long,
        base.eval_every,
        base.eval_batch,
        if cfgline.is_empty() { "none".to_string() } else { cfgline.join(", ") },
        if finished_only {
            format!(
                " `--finished-only`: the runs below were finished by earlier invocations (same config and backend; \
                 the date of each is in its `{csv_dir}/*.json`); this one trained nothing."
            )
        } else if resumed > 0 {
            format!(
                " {resumed} of the {} runs were finished by earlier invocations with `--resume` (same config and \
                 backend; the date of each is in its `{csv_dir}/*.json`), the rest by this one.",
                summaries.len()
            )
        } else {
            String::new()
        },
        report::table(&summaries),
        report::comparison(&summaries, base.preset == Preset::Paper && base.experiment == plateau::config::Task::Mws),
    );
    let body = if missing.is_empty() {
        body
    } else {
        format!(
            "{body}\n**Unfinished sweep:** {} of the {} runs are finished; not finished: {}. The same command with \
             `--resume` (instead of `--finished-only` or `--stop-after`) trains the missing runs, continues the \
             checkpointed ones and keeps the finished ones.\n",
            summaries.len(),
            summaries.len() + missing.len(),
            missing.join(", ")
        )
    };
    write_section(&out, &name, &body)?;
    if diverged > 0 {
        eprintln!("{diverged} run(s) diverged; the section lists them as not finished");
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary of a finished run recorded in `meta_path` (written after each run of
/// `reproduce`), if it was made with exactly `cfg` on `kind`.
fn finished_run(
    meta_path: &str,
    cfg: &RunConfig,
    kind: BackendKind,
) -> Option<plateau::chapters::plateau::summary::RunSummary> {
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(meta_path).ok()?).ok()?;
    let same_cfg = serde_json::from_value::<RunConfig>(meta["config"].clone()).ok()? == *cfg;
    let same_backend = meta["backend"].as_str()? == kind.name();
    if !(same_cfg && same_backend) || meta.get("diverged").is_some() {
        return None;
    }
    serde_json::from_value(meta["summary"].clone()).ok()
}

/// A non-negative integer flag.
fn count_flag(flags: &Flags, key: &str, default: usize) -> Result<usize, CliError> {
    match flags.get(key) {
        None => Ok(default),
        Some(v) => v.trim().parse().map_err(|_| CliError(format!("--{key}: {v:?} is not a whole number of steps"))),
    }
}

/// Writes `t`'s [`Checkpoint`](plateau::train::checkpoint::Checkpoint) to the directory `dir` (`model.bpk`,
/// `optimizer.bpk`, `state.cbor`, and `run.json` with the backend and the wall seconds so far),
/// replacing the previous one only once the new one is complete.
fn save_checkpoint<C: Chapter>(dir: &str, t: &Trainer<C>, kind: BackendKind, wall_s: f64) -> Result<(), CliError> {
    let cp = t.checkpoint().map_err(CliError)?;
    let tmp = format!("{dir}.tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    std::fs::write(format!("{tmp}/model.bpk"), &cp.model)?;
    std::fs::write(format!("{tmp}/optimizer.bpk"), &cp.optimizer)?;
    std::fs::write(format!("{tmp}/state.cbor"), cp.state.to_bytes())?;
    let meta = serde_json::json!({ "backend": kind.name(), "step": t.step(), "wall_s": wall_s, "date": today() });
    std::fs::write(format!("{tmp}/run.json"), serde_json::to_string_pretty(&meta)?)?;
    if std::path::Path::new(dir).exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::rename(&tmp, dir)?;
    Ok(())
}

/// The run checkpointed in `dir` and its wall seconds so far, if there is one made with exactly
/// `cfg` on `kind`; otherwise (none, another config, unreadable) `None`, with a message unless
/// there is none.
fn load_checkpoint<C: Chapter>(dir: &str, cfg: &RunConfig, kind: BackendKind) -> Option<(Trainer<C>, f64)> {
    use plateau::train::checkpoint::{Checkpoint, CheckpointState};
    if !std::path::Path::new(dir).exists() {
        return None;
    }
    let read = || -> Result<(Trainer<C>, f64), String> {
        let file = |name: &str| std::fs::read(format!("{dir}/{name}")).map_err(|e| format!("{name}: {e}"));
        let meta: serde_json::Value =
            serde_json::from_slice(&file("run.json")?).map_err(|e| format!("run.json: {e}"))?;
        if meta["backend"].as_str() != Some(kind.name()) {
            return Err(format!("it was trained on {}, this run uses {}", meta["backend"], kind.name()));
        }
        let state = CheckpointState::from_bytes(&file("state.cbor")?)?;
        // Live changes (none in reproduce) aside, the config must be the one asked for.
        if state.config != *cfg {
            return Err("it was made with another config".into());
        }
        let cp = Checkpoint { model: file("model.bpk")?, optimizer: file("optimizer.bpk")?, state };
        let wall = meta["wall_s"].as_f64().unwrap_or(0.0);
        Ok((Trainer::from_checkpoint(cp, &backend::device(kind))?, wall))
    };
    match read() {
        Ok(found) => Some(found),
        Err(why) => {
            eprintln!("ignoring the checkpoint in {dir} ({why}); starting the run afresh");
            None
        }
    }
}

fn list_flag(flags: &Flags, key: &str, default: &str) -> Result<Vec<f64>, CliError> {
    flags
        .get(key)
        .unwrap_or(default)
        .split(',')
        .map(|v| v.trim().parse::<f64>().map_err(|_| CliError(format!("--{key}: {v:?} is not a number"))))
        .collect()
}

fn write_section(out: &str, name: &str, body: &str) -> Result<(), CliError> {
    let doc = std::fs::read_to_string(out).unwrap_or_else(|_| {
        "# Reproduction\n\nEvery section below is generated by a command from real runs; none is edited by hand. \
         Where the project differs from a paper, the section says so.\n"
            .to_string()
    });
    std::fs::write(out, plateau::report::replace_section(&doc, name, body))?;
    eprintln!("wrote section {name} of {out}");
    Ok(())
}

/// Chapter 2's task in words: the mix and the sequence length.
fn anchors_task_line(cfg: &RunConfig) -> String {
    format!(
        "{}, sequences of {} tokens, {}",
        if cfg.memory > 0.0 {
            format!("reasoning and memory anchors ({} memory samples)", cfg.memory)
        } else {
            "reasoning anchors only (no memory anchors)".to_string()
        },
        cfg.seq_len,
        if cfg.warmup > 0 { format!("{}-step linear warm-up", cfg.warmup) } else { "no warm-up".to_string() }
    )
}

fn model_line(cfg: &RunConfig) -> String {
    format!(
        "{} layer(s), {} head(s), d {}, d_ff {}, batch {}, lr {}, weight decay {}, {} steps, evaluation every {} steps on {} fresh samples{}",
        cfg.layers,
        cfg.heads,
        cfg.d_model,
        cfg.d_ff,
        cfg.batch,
        cfg.lr,
        cfg.weight_decay,
        cfg.steps,
        cfg.eval_every,
        cfg.eval_batch,
        if cfg.experiment == plateau::config::Task::Anchors { " per subset" } else { "" }
    )
}

/// The chapter 2 ablation: each configuration changes one factor of the mixed reconstruction
/// (the engine's chapter 2 task before issue 17) toward the predecessor's pure reasoning task, and
/// the last ones combine them. `(slug, factor, changes)`.
const ABLATION: &[(&str, &str, &[(&str, &str)])] = &[
    ("reconstruction", "the mixed reconstruction", &[]),
    ("no-memory", "no memory anchors", &[("memory", "0")]),
    ("seq8", "sequence length 8", &[("seq-len", "8")]),
    ("warmup200", "200-step warm-up", &[("warmup", "200")]),
    ("batch512", "batch 512", &[("batch", "512")]),
    ("lr2.5e-4", "learning rate 2.5e-4", &[("lr", "0.00025")]),
    ("d32", "width 32", &[("d-model", "32"), ("d-ff", "128")]),
    ("nomem-batch512", "no memory, batch 512", &[("memory", "0"), ("batch", "512")]),
    (
        "reference",
        "the pure reasoning task (all four)",
        &[("memory", "0"), ("seq-len", "8"), ("warmup", "200"), ("batch", "512")],
    ),
    (
        "default",
        "the interactive default (800 steps)",
        &[
            ("memory", "0"),
            ("seq-len", "8"),
            ("warmup", "200"),
            ("batch", "512"),
            ("steps", "800"),
            ("eval-batch", "128"),
            ("snapshot-every", "50"),
        ],
    ),
    (
        "reference-d32",
        "the pure reasoning task at width 32",
        &[("memory", "0"), ("seq-len", "8"), ("warmup", "200"), ("batch", "512"), ("d-model", "32"), ("d-ff", "128")],
    ),
];

/// The mixed reconstruction the ablation starts from: 2 layers, 1 head, d 64, d_ff 256, batch 128,
/// lr 1e-3, weight decay 0.01, half memory samples, sequence length 9, no warm-up, 1500 steps.
fn ablation_base() -> RunConfig {
    let mut cfg = RunConfig::defaults(plateau::config::Task::Anchors, Preset::Interactive);
    for (k, v) in [
        ("layers", "2"),
        ("heads", "1"),
        ("d-model", "64"),
        ("d-ff", "256"),
        ("batch", "128"),
        ("lr", "0.001"),
        ("weight-decay", "0.01"),
        ("memory", "0.5"),
        ("seq-len", "9"),
        ("warmup", "0"),
        ("steps", "1500"),
        ("eval-every", "25"),
        ("eval-batch", "64"),
        ("snapshot-every", "500"),
    ] {
        cfg.set(k, v).expect("valid ablation base");
    }
    cfg
}

/// How a reproduction keeps the runs of one chapter (2 or 3): its rows, how to read them back
/// from its CSV, and how to take them from a finished [`Run`].
struct Kept<R> {
    parse: fn(&str) -> Result<Vec<R>, String>,
    step: fn(&R) -> usize,
    rows: fn(&Run) -> Vec<R>,
}

const ANCHOR_RUNS: Kept<plateau::chapters::anchors::AnchorRow> = Kept {
    parse: plateau::chapters::anchors::from_csv,
    step: |r| r.step,
    rows: |run| match run {
        Run::Anchors(t) => t.history.rows.clone(),
        _ => unreachable!("experiment is anchors"),
    },
};

const SYNTAX_RUNS: Kept<plateau::chapters::syntax::SyntaxRow> = Kept {
    parse: plateau::chapters::syntax::from_csv,
    step: |r| r.step,
    rows: |run| match run {
        Run::Syntax(t) => t.history.rows.clone(),
        _ => unreachable!("experiment is syntax"),
    },
};

/// A finished run read back from its CSV and meta file, when both exist, the meta's config and
/// backend are this run's, and the CSV reaches the last step.
fn finished_kept_run<R>(
    kept: &Kept<R>,
    csv: &str,
    meta: &str,
    cfg: &RunConfig,
    kind: BackendKind,
) -> Option<(Vec<R>, f64)> {
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(meta).ok()?).ok()?;
    if serde_json::from_value::<RunConfig>(m["config"].clone()).ok()? != *cfg || m["backend"].as_str()? != kind.name() {
        return None;
    }
    let rows = (kept.parse)(&std::fs::read_to_string(csv).ok()?).ok()?;
    ((kept.step)(rows.last()?) == cfg.steps).then_some((rows, m["wall_s"].as_f64()?))
}

/// One run of a reproduction, kept as `{stem}.csv` (its rows) and `{stem}.json` (config, backend,
/// wall seconds): read back when finished with the same config and backend, else trained when
/// `train` (an error if it diverges), else `None`.
fn kept_run<R>(
    kept: &Kept<R>,
    cfg: &RunConfig,
    stem: &str,
    kind: BackendKind,
    train: bool,
    quiet: bool,
    label: &str,
) -> Result<Option<(Vec<R>, f64)>, CliError> {
    let (csv, meta) = (format!("{stem}.csv"), format!("{stem}.json"));
    if let Some(done) = finished_kept_run(kept, &csv, &meta, cfg, kind) {
        return Ok(Some(done));
    }
    if !train {
        return Ok(None);
    }
    let (run, secs) = train_any(cfg.clone(), kind, quiet, label)?;
    if let Status::Diverged(msg) = run.status() {
        return Err(CliError(format!("{label}: {msg}")));
    }
    std::fs::write(&csv, run.csv())?;
    let m = serde_json::json!({"config": cfg, "backend": kind.name(), "wall_s": secs});
    std::fs::write(&meta, serde_json::to_string_pretty(&m).expect("plain JSON"))?;
    Ok(Some(((kept.rows)(&run), secs)))
}

/// `plateau reproduce --experiment anchors --ablation [--factors a,b] [--finished-only]`: every
/// configuration of [`ABLATION`] × γ × seeds; runs already finished (same config and backend) are
/// read back, not trained again; writes the `chapter2-ablation` section.
fn reproduce_ablation(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::anchors::summary as r;
    let seeds = seed_list(flags, "0,1,2")?;
    let gammas = list_flag(flags, "gammas", "0.3,0.8")?;
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let dir = format!("{}/ablation", flags.get("csv-dir").unwrap_or("results"));
    let kind = flags.backend()?;
    let finished_only = flags.get("finished-only").is_some();
    let only = subset_flag(flags, "factors", "factor", &ABLATION.iter().map(|a| a.0).collect::<Vec<_>>())?;
    std::fs::create_dir_all(&dir)?;
    let mut cells = vec![];
    let mut missing = 0;
    for (slug, factor, changes) in ABLATION {
        let train_this = only.as_ref().is_none_or(|o| o.contains(slug)) && !finished_only;
        for &g in &gammas {
            let mut cell = r::AblationCell {
                factor: factor.to_string(),
                change: change_text(changes),
                gamma: g,
                steps: 0,
                runs: vec![],
            };
            for &seed in &seeds {
                let mut cfg = ablation_base();
                for (k, v) in *changes {
                    cfg.set(k, v)?;
                }
                cfg.set("gamma", &g.to_string())?;
                cfg.set("seed", &seed.to_string())?;
                cell.steps = cfg.steps;
                let stem = format!("{dir}/{slug}-g{g}-seed{}", cfg.seed);
                let label = format!("{slug} γ={g} seed={}", cfg.seed);
                // A run of the same config that `reproduce --experiment anchors` already made
                // (the default's) is read from there (its config is checked like any other).
                let main_stem = format!(
                    "{}/{}-anchors-{}-g{g}-seed{}",
                    flags.get("csv-dir").unwrap_or("results"),
                    cfg.preset.name(),
                    cfg.model.name(),
                    cfg.seed
                );
                let found = finished_kept_run(
                    &ANCHOR_RUNS,
                    &format!("{main_stem}.csv"),
                    &format!("{main_stem}.json"),
                    &cfg,
                    kind,
                );
                let run = match found {
                    Some(done) => Some(done),
                    None => {
                        kept_run(&ANCHOR_RUNS, &cfg, &stem, kind, train_this, flags.get("quiet").is_some(), &label)?
                    }
                };
                let Some((rows, secs)) = run else {
                    missing += 1;
                    continue;
                };
                cell.runs.push(r::summarize_anchors(&rows, g, cfg.seed, secs));
            }
            if !cell.runs.is_empty() {
                cells.push(cell);
            }
        }
    }
    if missing > 0 {
        eprintln!("{missing} run(s) not finished yet: the section lists the finished ones");
    }
    let base = ablation_base();
    let body = format!(
        "## Chapter 2 — what decides the held-out answer: an ablation (generated)\n\n\
         Written by `cargo run --release --bin plateau -- reproduce {}` on {} ({} backend), from the runs in `{dir}/`. \
         Each configuration changes one factor of the mixed reconstruction ({}, {} memory samples, sequence length {}, \
         no warm-up) toward the pure reasoning task of the predecessor's code, which an independent PyTorch \
         implementation found inferential at γ = 0.8; the last rows combine factors. Keys and noise share the range \
         20–99 in every row, as in that code. Every finished run of this command is listed; a configuration \
         whose seeds have not all finished shows the ones that have.\n\n{}\n### What it shows\n\n{}",
        args.join(" "),
        today(),
        kind.name(),
        model_line(&base),
        base.memory,
        base.seq_len,
        r::ablation_table(&cells),
        r::ablation_findings(&cells),
    );
    write_section(&out, "chapter2-ablation", &body)?;
    Ok(ExitCode::SUCCESS)
}

/// `plateau reproduce --experiment anchors`: γ × seeds; one CSV per run; the chapter 2 section.
fn reproduce_anchors(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::anchors::summary as r;
    if flags.get("ablation").is_some() {
        return reproduce_ablation(flags, args);
    }
    let seeds = seed_list(flags, "0,1,2")?;
    let gammas = list_flag(flags, "gammas", "0.3,0.8")?;
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let csv_dir = flags.get("csv-dir").unwrap_or("results").to_string();
    let kind = flags.backend()?;
    std::fs::create_dir_all(&csv_dir)?;
    let base = flags.cfg.clone();
    let finished_only = flags.get("finished-only").is_some();
    let mut runs = vec![];
    let mut missing = 0;
    for &g in &gammas {
        for &seed in &seeds {
            let mut cfg = base.clone();
            cfg.set("gamma", &g.to_string())?;
            cfg.set("seed", &seed.to_string())?;
            let stem = format!("{csv_dir}/{}-anchors-{}-g{g}-seed{}", cfg.preset.name(), cfg.model.name(), cfg.seed);
            let label = format!("γ={g} seed={}", cfg.seed);
            match kept_run(&ANCHOR_RUNS, &cfg, &stem, kind, !finished_only, flags.get("quiet").is_some(), &label)? {
                Some((rows, secs)) => runs.push(r::summarize_anchors(&rows, g, cfg.seed, secs)),
                None => missing += 1,
            }
        }
    }
    if missing > 0 {
        eprintln!("{missing} run(s) not finished yet: the section lists the finished ones");
    }
    if runs.is_empty() {
        return Err(CliError("no finished runs to write a section from".into()));
    }
    let name = format!("chapter2-{}-anchors-{}", base.preset.name(), base.model.name());
    // The page's default (interactive transformer, its default task): its paragraph goes into the
    // page, and the section quotes it, so a test can hold the two equal.
    let defaults = RunConfig::defaults(plateau::config::Task::Anchors, Preset::Interactive);
    let page_default = base.preset == Preset::Interactive
        && base.model == plateau::config::ModelKind::Transformer
        && RunConfig { gamma: defaults.gamma, seed: defaults.seed, ..base.clone() } == defaults;
    let paragraph = r::anchors_page_paragraph(&runs);
    // `--fresh-seeds`: the seeds the preset was not chosen with, counted on their own.
    let fresh_line = match flags.get("fresh-seeds") {
        Some(_) => {
            let fresh = list_flag(flags, "fresh-seeds", "")?;
            let only: Vec<_> = runs.iter().filter(|s| fresh.contains(&(s.seed as f64))).cloned().collect();
            format!(
                "\nOn the seeds the preset was not chosen with ({}), counted alone:\n\n{}",
                fresh.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", "),
                r::anchors_comparison(&only).split("\nAgainst the paper").next().unwrap_or_default()
            )
        }
        None => String::new(),
    };
    let page_paragraph = if page_default {
        format!("\n### On the page\n\nChapter 2's text quotes this paragraph (`index.html`, section `chapter2-findings`):\n\n> {paragraph}\n")
    } else {
        String::new()
    };
    let body = format!(
        "## Chapter 2 — {} preset, anchors, {} (generated)\n\n\
         Written by `cargo run --release --bin plateau -- reproduce {}` on {} ({} backend). Task: {}. Model: {} ({}), γ-init, AdamW. \
         Per-run CSVs: `{csv_dir}/`. The task is a reconstruction (PAPERS.md §B; the paper publishes no code): see \
         `src/chapters/anchors/data.rs` for what follows the predecessor's code and what does not.\n\n{}\n### Against the paper\n\n{}{}{}",
        base.preset.name(),
        base.model.name(),
        args.join(" "),
        today(),
        kind.name(),
        anchors_task_line(&base),
        base.model.name(),
        model_line(&base),
        r::anchors_table(&runs),
        r::anchors_comparison(&runs),
        fresh_line,
        page_paragraph,
    );
    write_section(&out, &name, &body)?;
    if page_default {
        let page = flags.get("page").unwrap_or("index.html");
        let html = std::fs::read_to_string(page)?;
        std::fs::write(page, plateau::report::replace_section(&html, "chapter2-findings", &paragraph))?;
        eprintln!("wrote section chapter2-findings of {page}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The chapter 3 search for a plateau (issue #18): each configuration changes what plausibly
/// creates one, starting from the interactive default. `(slug, name, changes)`.
const SYNTAX_SEARCH: &[(&str, &str, &[(&str, &str)])] = &[
    ("default", "the interactive default", &[]),
    ("lr3e-4", "learning rate 3·10⁻⁴", &[("lr", "0.0003")]),
    ("lr3e-3", "learning rate 3·10⁻³", &[("lr", "0.003")]),
    ("warmup", "200-step warm-up", &[("warmup", "200")]),
    ("batch256", "batch 256", &[("batch", "256")]),
    ("layers4", "4 layers", &[("layers", "4")]),
    ("layers1", "1 layer", &[("layers", "1")]),
    ("heads1", "1 head per layer", &[("heads", "1")]),
    ("wide", "width 128", &[("d-model", "128"), ("d-ff", "512")]),
    ("nowd", "no weight decay", &[("weight-decay", "0")]),
    ("lexicon3", "3 words per open class", &[("lexicon", "3")]),
    ("lexicon1", "1 word per open class", &[("lexicon", "1")]),
    ("heads8", "8 heads per layer", &[("heads", "8")]),
    ("lex1-slow", "1 word per open class, learning rate 3·10⁻⁴", &[("lexicon", "1"), ("lr", "0.0003")]),
    (
        "big-slow",
        "4 layers × 8 heads, width 128, learning rate 3·10⁻⁴, 3000 steps",
        &[("layers", "4"), ("heads", "8"), ("d-model", "128"), ("d-ff", "512"), ("lr", "0.0003"), ("steps", "3000")],
    ),
];

/// `plateau reproduce --experiment syntax --search [--configs a,b] [--finished-only]`: every
/// configuration of [`SYNTAX_SEARCH`] × seeds (finished runs are read back); writes the
/// `chapter3-search` section.
fn reproduce_syntax_search(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::syntax::summary as r;
    let seeds = seed_list(flags, "0,1,2")?;
    let dir = format!("{}/syntax-search", flags.get("csv-dir").unwrap_or("results"));
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let kind = flags.backend()?;
    let finished_only = flags.get("finished-only").is_some();
    let only = subset_flag(flags, "configs", "configuration", &SYNTAX_SEARCH.iter().map(|a| a.0).collect::<Vec<_>>())?;
    std::fs::create_dir_all(&dir)?;
    let base = RunConfig::defaults(plateau::config::Task::Syntax, Preset::Interactive);
    let mut cells = vec![];
    let mut missing = 0;
    for (slug, name, changes) in SYNTAX_SEARCH {
        let train_this = only.as_ref().is_none_or(|o| o.contains(slug)) && !finished_only;
        let mut cell =
            r::SearchCell { name: name.to_string(), change: change_text(changes), steps: base.steps, runs: vec![] };
        for &seed in &seeds {
            let mut cfg = base.clone();
            for (k, v) in *changes {
                cfg.set(k, v)?;
            }
            cfg.seed = seed;
            cell.steps = cfg.steps;
            let stem = format!("{dir}/{slug}-seed{seed}");
            let label = format!("{slug} seed={seed}");
            match kept_run(&SYNTAX_RUNS, &cfg, &stem, kind, train_this, flags.get("quiet").is_some(), &label)? {
                Some((rows, secs)) => cell.runs.push(r::summarize_syntax(&rows, slug, (0.0, 0, 0), seed, secs)),
                None => missing += 1,
            }
        }
        if !cell.runs.is_empty() {
            cells.push(cell);
        }
    }
    if missing > 0 {
        eprintln!("{missing} run(s) not finished yet: the section lists the finished ones");
    }
    let paragraph = r::search_page_paragraph(&cells);
    let body = format!(
        "## Chapter 3 — the search for a plateau (generated)\n\n\
         Written by `cargo run --release --bin plateau -- reproduce {}` on {} ({} backend), from the runs in `{dir}/`. \
         Each configuration changes one factor of the interactive default ({}) that plausibly creates a plateau. \
         For every run: the plateau of `verb_loss` (the masked main verb's loss on {} fixed held-out sentences whose \
         subject stands ≥ {} words before it) that ends in its drop, by the rule of `metrics::syntax::plateau_end` \
         (≥ 5 evaluations within a band of 4σ̂, then a fall of 6σ̂ below the band within 5 evaluations that holds for 2; \
         σ̂ the curve's own evaluation-to-evaluation noise); the structure onset, the same rule rising on the UAS over \
         non-adjacent arcs of {} fixed held-out sentences; whether the two lie within two evaluations; and how far the \
         best non-adjacent UAS rises above its best fixed-offset guess. A plateau that ends where a warm-up ends is the \
         learning rate's ramp, not the model's. Every finished run of this command is listed.\n\n\
         {}\n### What it shows\n\n{}\n### On the page\n\nChapter 3's text quotes this paragraph (`index.html`, section \
         `chapter3-search-findings`):\n\n> {paragraph}\n",
        args.join(" "),
        today(),
        kind.name(),
        model_line(&base),
        plateau::chapters::syntax::VERB_ITEMS,
        plateau::chapters::syntax::VERB_MIN_DISTANCE,
        plateau::chapters::syntax::PROBE_SENTENCES,
        r::search_table(&cells),
        r::search_findings(&cells),
    );
    write_section(&out, "chapter3-search", &body)?;
    let page = flags.get("page").unwrap_or("index.html");
    let html = std::fs::read_to_string(page)?;
    std::fs::write(page, plateau::report::replace_section(&html, "chapter3-search-findings", &paragraph))?;
    eprintln!("wrote section chapter3-search-findings of {page}");
    Ok(ExitCode::SUCCESS)
}

/// A `--KEY a,b` flag that picks some of `known` (a configuration table's slugs): `None` when
/// absent; an error names the first unknown entry and lists the known ones.
fn subset_flag<'a>(flags: &'a Flags, key: &str, what: &str, known: &[&str]) -> Result<Option<Vec<&'a str>>, CliError> {
    let Some(list) = flags.get(key) else { return Ok(None) };
    let picked: Vec<&str> = list.split(',').map(str::trim).collect();
    if let Some(bad) = picked.iter().find(|f| !known.contains(f)) {
        return Err(CliError(format!("--{key}: unknown {what} {bad:?}; known: {}", known.join(", "))));
    }
    Ok(Some(picked))
}

/// A configuration's changes as the tables write them: `` `key value` ``, comma-separated, or
/// "—" for none.
fn change_text(changes: &[(&str, &str)]) -> String {
    if changes.is_empty() {
        "—".into()
    } else {
        changes.iter().map(|(k, v)| format!("`{k} {v}`")).collect::<Vec<_>>().join(", ")
    }
}

/// `--max-memory GB`: the memory budget every config is checked against before anything is
/// allocated (`config::memory_limit`, 8 GB natively by default).
fn apply_max_memory(flags: &Flags) -> Result<(), CliError> {
    if let Some(v) = flags.get("max-memory") {
        match v.parse::<f64>() {
            Ok(gb) if gb.is_finite() && gb > 0.0 => plateau::config::set_memory_limit(gb * 1e9),
            _ => return Err(CliError(format!("--max-memory {v:?}: a positive number of gigabytes"))),
        }
    }
    Ok(())
}

/// `--seeds` as non-negative integers (an error names a value that is not one).
fn seed_list(flags: &Flags, default: &str) -> Result<Vec<u64>, CliError> {
    flags
        .get("seeds")
        .unwrap_or(default)
        .split(',')
        .map(|v| v.trim().parse::<u64>().map_err(|_| CliError(format!("--seeds: {v:?} is not a non-negative integer"))))
        .collect()
}

/// `plateau reproduce --experiment syntax`: baseline, suppress, promote and brief suppression
/// over seeds; one CSV per run (finished runs of the same config and backend are read back, not
/// trained again); the chapter 3 section.
fn reproduce_syntax(flags: &Flags, args: &[String]) -> Result<ExitCode, CliError> {
    use plateau::chapters::syntax::summary as r;
    if flags.get("search").is_some() {
        return reproduce_syntax_search(flags, args);
    }
    let seeds = seed_list(flags, "0,1,2")?;
    let strength = list_flag(flags, "strength", "0.1")?[0];
    let brief = list_flag(flags, "brief-until", "200")?[0];
    if !(brief.is_finite() && brief >= 1.0 && brief.fract() == 0.0) {
        return Err(CliError(format!("--brief-until: {brief} is not a positive whole step")));
    }
    let brief = brief as usize;
    let out = flags.get("out").unwrap_or("REPRODUCTION.md").to_string();
    let csv_dir = flags.get("csv-dir").unwrap_or("results").to_string();
    let kind = flags.backend()?;
    let finished_only = flags.get("finished-only").is_some();
    std::fs::create_dir_all(&csv_dir)?;
    let base = flags.cfg.clone();
    let conditions = [
        ("baseline", 0.0, 0, 1_000_000),
        ("suppress", strength, 0, 1_000_000),
        ("promote", -strength, 0, 1_000_000),
        ("brief suppression", strength, 0, brief),
    ];
    let mut runs = vec![];
    let mut missing = 0;
    for (name, lambda, from, until) in conditions {
        for &seed in &seeds {
            let mut cfg = base.clone();
            cfg.set("lambda", &lambda.to_string())?;
            cfg.set("lambda-from", &from.to_string())?;
            cfg.set("lambda-until", &until.to_string())?;
            cfg.seed = seed;
            let stem = format!("{csv_dir}/{}-syntax-{}-seed{seed}", cfg.preset.name(), name.replace(' ', "-"));
            let label = format!("{name} seed={seed}");
            match kept_run(&SYNTAX_RUNS, &cfg, &stem, kind, !finished_only, flags.get("quiet").is_some(), &label)? {
                Some((rows, secs)) => runs.push(r::summarize_syntax(&rows, name, (lambda, from, until), seed, secs)),
                None => missing += 1,
            }
        }
    }
    if missing > 0 {
        eprintln!("{missing} run(s) not finished yet: the section lists the finished ones");
    }
    if runs.is_empty() {
        return Err(CliError("no finished runs to write a section from".into()));
    }
    let name = format!("chapter3-{}-syntax", base.preset.name());
    let page_default = base.preset == Preset::Interactive
        && RunConfig { seed: 0, lambda: 0.0, lambda_from: 0, lambda_until: 1_000_000, ..base.clone() }
            == RunConfig::defaults(plateau::config::Task::Syntax, Preset::Interactive);
    let paragraph = r::syntax_page_paragraph(&runs);
    let page_paragraph = if page_default {
        format!("\n### On the page\n\nChapter 3's text quotes this paragraph (`index.html`, section `chapter3-findings`):\n\n> {paragraph}\n")
    } else {
        String::new()
    };
    let body = format!(
        "## Chapter 3 — {} preset, syntax (generated)\n\n\
         Written by `cargo run --release --bin plateau -- reproduce {}` on {} ({} backend). Encoder: {}; MLM with BERT \
         masking on the synthetic dependency grammar of `src/chapters/syntax/data.rs`; R averaged over sentences (the paper's code \
         sums over the batch). The loss drop is where `verb_loss` (the masked main verb of {} fixed held-out sentences \
         whose subject stands ≥ {} words before it) leaves a plateau, and the structure onset where the UAS over \
         non-adjacent arcs leaves one, both by `metrics::syntax::plateau_end`. Per-run CSVs: `{csv_dir}/`.\n\n{}\n\
         ### The paper's questions\n\n{}{}",
        base.preset.name(),
        args.join(" "),
        today(),
        kind.name(),
        model_line(&base),
        plateau::chapters::syntax::VERB_ITEMS,
        plateau::chapters::syntax::VERB_MIN_DISTANCE,
        r::syntax_table(&runs),
        r::syntax_comparison(&runs),
        page_paragraph,
    );
    write_section(&out, &name, &body)?;
    if page_default {
        let page = flags.get("page").unwrap_or("index.html");
        let html = std::fs::read_to_string(page)?;
        std::fs::write(page, plateau::report::replace_section(&html, "chapter3-findings", &paragraph))?;
        eprintln!("wrote section chapter3-findings of {page}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
fn today() -> String {
    let days =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}")
}
