//! `plateau bench`: training-step speed of this engine natively, of the same model in PyTorch,
//! and of this engine in headless Chromium, measured side by side in one run, plus the page's
//! time to the drop, its longest main-thread task, the wasm size and memory over a long run.
//!
//! The PyTorch reference is `bench/torch_bench.py`; the browser side is `bench/browser.mjs`
//! (which opens `www/bench.html` and the page itself). This module runs both as child processes,
//! reads the one JSON line each prints, and writes the figures and their ratios as a table
//! ([`report`]); `scripts/bench.sh` installs what they need and writes `BENCHMARKS.md`.
//!
//! A *training step* is what a trainer's `advance` does between evaluations: a fresh batch, the
//! forward pass, the loss read back to the host (the divergence check), the backward pass and one
//! optimizer update. Evaluation is switched off while timing (`eval-every` 100 000), because its
//! cost depends on the evaluation settings, not on the engine.

use plateau::backend::{self, BackendKind};
use plateau::config::{Attention, ModelKind, Preset, RunConfig, Task};
use plateau::run::Run;
use plateau::tensor::block_on;
use std::process::Command;
use std::time::Instant;

/// One configuration to time.
#[derive(Clone, Debug)]
pub struct Case {
    /// Short name used in the tables.
    pub name: &'static str,
    /// The config as a page query (`plateau` and the browser both build the run from it).
    pub query: &'static str,
    /// Timed steps (after [`WARMUP`] untimed ones).
    pub steps: usize,
}

/// Untimed steps before timing (allocations, kernel selection, caches).
pub const WARMUP: usize = 3;

/// The benchmark's configurations: chapter 1's paper and interactive presets and chapters 2 and
/// 3 interactive defaults. `full` times more steps.
pub fn cases(full: bool) -> Vec<Case> {
    let k = if full { 4 } else { 1 };
    vec![
        Case { name: "ch1 paper", query: "preset=paper", steps: 2 * k },
        Case { name: "ch1 interactive", query: "", steps: 10 * k },
        Case { name: "ch2 interactive", query: "experiment=anchors", steps: 10 * k },
        Case { name: "ch3 interactive", query: "experiment=syntax", steps: 10 * k },
    ]
}

/// The config a case trains, with evaluation and snapshots switched off.
pub fn case_config(case: &Case) -> RunConfig {
    let mut cfg = plateau::config::from_query(case.query).0;
    cfg.steps = 1_000_000;
    cfg.eval_every = 100_000;
    cfg.snapshot_every = 100_000;
    cfg
}

/// The tensor shapes of one training step, as the PyTorch reference takes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Vocabulary size.
    pub vocab: usize,
    /// Input positions per sequence.
    pub seq: usize,
    /// Transformer layers.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Residual width.
    pub d_model: usize,
    /// MLP hidden width.
    pub d_ff: usize,
    /// Sequences per step.
    pub batch: usize,
    /// Softmax (`true`) or the paper's linear attention.
    pub softmax: bool,
    /// Decoder (`true`) or encoder.
    pub causal: bool,
    /// `all` (every position), `last` (last position), `mlm` (masked positions).
    pub loss: &'static str,
}

/// The shapes of a transformer config's training step.
pub fn shape(cfg: &RunConfig) -> Shape {
    let (vocab, seq, causal, loss) = match cfg.experiment {
        Task::Mws | Task::PrefixSum => (plateau::chapters::plateau::data::VOCAB, 2 * cfg.n, true, "all"),
        Task::Anchors => (plateau::chapters::anchors::data::VOCAB, cfg.seq_len, true, "last"),
        Task::Syntax => {
            (plateau::chapters::syntax::data::vocab_size(), plateau::chapters::syntax::data::MAX_LEN, false, "mlm")
        }
    };
    Shape {
        vocab,
        seq,
        layers: cfg.layers,
        heads: cfg.heads,
        d_model: cfg.d_model,
        d_ff: cfg.d_ff,
        batch: cfg.batch,
        softmax: cfg.attention == Attention::Softmax,
        causal,
        loss,
    }
}

/// Floating-point operations of one training step, counted on the matrix products only.
///
/// With `T = batch·seq` tokens, one layer's forward pass multiplies
/// `2·T·d·d` for each of Q, K, V and the output projection, `2·batch·seq²·d` for the scores and
/// again for `A·V`, and `2·T·d·d_ff` for each of the two MLP matrices; the head adds
/// `2·T·d·vocab`. The backward pass costs twice the forward products (gradients with respect to
/// inputs and to weights), so a step is `3 ×` the forward count. Embedding lookups, LayerNorm,
/// GELU, softmax, the loss and the optimizer are not counted (they are memory-bound and small
/// beside the products).
pub fn train_step_flops(s: &Shape) -> f64 {
    let (b, t, d, f, v) = (s.batch as f64, s.seq as f64, s.d_model as f64, s.d_ff as f64, s.vocab as f64);
    let tokens = b * t;
    let per_layer = 4.0 * 2.0 * tokens * d * d + 2.0 * 2.0 * b * t * t * d + 2.0 * 2.0 * tokens * d * f;
    let forward = s.layers as f64 * per_layer + 2.0 * tokens * d * v;
    3.0 * forward
}

/// Milliseconds per training step of `case` on `kind`, natively.
pub fn time_native(case: &Case, kind: BackendKind) -> Result<f64, String> {
    let cfg = case_config(case);
    let steps = case.steps;
    let run = move || -> Result<f64, String> {
        let mut run = Run::new(cfg, &backend::device(kind)).map_err(|e| e.to_string())?;
        for _ in 0..WARMUP {
            block_on(run.advance());
        }
        let t0 = Instant::now();
        for _ in 0..steps {
            block_on(run.advance());
        }
        Ok(t0.elapsed().as_secs_f64() * 1000.0 / steps as f64)
    };
    // burn panics when wgpu finds no adapter; report that as "unavailable" instead.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|p| {
        let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(format!("failed: {}", msg.unwrap_or_else(|| "panic".into()).lines().next().unwrap_or("")))
    })
}

/// One native timing as `plateau bench --json` prints it (the one-thread child of
/// [`time_native_one_thread`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct JsonTiming {
    /// Backend name (`BackendKind::name`).
    pub backend: String,
    /// Milliseconds per step.
    pub ms: Option<f64>,
    /// Why there is no figure.
    pub error: Option<String>,
}

impl JsonTiming {
    /// From a native timing.
    pub fn from_timing((backend, m): &NativeTiming) -> Self {
        JsonTiming { backend: backend.clone(), ms: m.as_ref().ok().copied(), error: m.as_ref().err().cloned() }
    }
    fn into_timing(self) -> NativeTiming {
        (self.backend, self.ms.ok_or_else(|| self.error.unwrap_or_else(|| "no figure".into())))
    }
}

/// Environment that makes every CPU kernel of a child process single-threaded: rayon's pool
/// (burn's CPU backends, Flex's GEMM) and matrixmultiply's own threads (NdArray's GEMM).
pub const ONE_THREAD_ENV: [(&str, &str); 2] = [("RAYON_NUM_THREADS", "1"), ("MATMUL_NUM_THREADS", "1")];

/// Milliseconds per step of `case` natively with one thread, per backend in `backends` (names
/// as `--backends` takes them): this executable again, as a child process with
/// [`ONE_THREAD_ENV`] (the thread pools are fixed when a process first uses them). The browser
/// runs one thread, so this is the figure to compare it with.
pub fn time_native_one_thread(case: &Case, backends: &str, full: bool) -> Result<Vec<NativeTiming>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("no path to this executable: {e}"))?;
    let exe = exe.to_str().ok_or("executable path is not UTF-8")?;
    if exe.contains(char::is_whitespace) {
        return Err(format!("executable path {exe:?} contains whitespace"));
    }
    let args: Vec<String> = [
        "bench",
        "--suite",
        if full { "full" } else { "quick" },
        "--only",
        case.name,
        "--backends",
        backends,
        "--torch",
        "none",
        "--browser",
        "none",
        "--wasm",
        "none",
        "--memory-steps",
        "0",
        "--json",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let rows: Vec<JsonTiming> = run_json_env(exe, &args, &ONE_THREAD_ENV)?;
    Ok(rows.into_iter().map(JsonTiming::into_timing).collect())
}

/// The PyTorch reference's result for one case.
#[derive(Clone, Debug)]
pub struct TorchResult {
    /// Milliseconds per step.
    pub ms: f64,
    /// PyTorch version.
    pub version: String,
}

/// Runs the PyTorch reference (`python3 bench/torch_bench.py`, or `cmd`) on `case` with
/// `threads` threads.
pub fn time_torch(cmd: &str, case: &Case, threads: usize) -> Result<TorchResult, String> {
    let cfg = case_config(case);
    if cfg.experiment == Task::Anchors && cfg.model != ModelKind::Transformer {
        return Err("the PyTorch reference implements the transformer only".into());
    }
    let s = shape(&cfg);
    let args: Vec<String> = [
        ("--vocab", s.vocab.to_string()),
        ("--seq", s.seq.to_string()),
        ("--layers", s.layers.to_string()),
        ("--heads", s.heads.to_string()),
        ("--d-model", s.d_model.to_string()),
        ("--d-ff", s.d_ff.to_string()),
        ("--batch", s.batch.to_string()),
        ("--attention", (if s.softmax { "softmax" } else { "linear" }).to_string()),
        ("--causal", (if s.causal { "yes" } else { "no" }).to_string()),
        ("--loss", s.loss.to_string()),
        ("--lr", cfg.lr.to_string()),
        ("--weight-decay", cfg.weight_decay.to_string()),
        ("--steps", case.steps.to_string()),
        ("--threads", threads.to_string()),
    ]
    .into_iter()
    .flat_map(|(k, v)| [k.to_string(), v])
    .collect();
    let v: serde_json::Value = run_json(cmd, &args)?;
    Ok(TorchResult {
        ms: v["ms_per_step"].as_f64().ok_or("no ms_per_step in the PyTorch output")?,
        version: v["torch"].as_str().unwrap_or("?").to_string(),
    })
}

fn last_line(bytes: &[u8]) -> &[u8] {
    let s = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    s.rsplit(|&c| c == b'\n').next().unwrap_or(s)
}

/// What the browser side measured (`bench/browser.mjs` prints it as one JSON line).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct BrowserResult {
    /// Browser version string.
    #[serde(default)]
    pub browser: String,
    /// The WebGPU adapter, if one was found.
    #[serde(default)]
    pub webgpu_adapter: Option<String>,
    /// Per case and backend: milliseconds per step, or an error.
    #[serde(default)]
    pub steps: Vec<BrowserStep>,
    /// The page with no URL parameters: training seconds and step at which test accuracy first
    /// reached 0.5.
    #[serde(default)]
    pub drop_seconds: Option<f64>,
    /// Step of the drop on the page.
    #[serde(default)]
    pub drop_step: Option<u64>,
    /// Longest main-thread task (ms) between the first training step and the drop.
    #[serde(default)]
    pub longest_task_ms: Option<f64>,
    /// The page's own longest chart-drawing job (script time, ms) over the same stretch.
    #[serde(default)]
    pub longest_draw_ms: Option<f64>,
    /// The main-thread tasks over 50 ms in that stretch, longest first (at most 20),
    /// each with the CPU time every kind of thread used during it.
    #[serde(default)]
    pub long_tasks: Vec<LongTask>,
    /// The same CPU split over the whole stretch from the first training step to the drop.
    #[serde(default)]
    pub stretch: Option<CpuSplit>,
    /// Size of the wasm linear memory (bytes) at chosen steps of a long interactive run.
    #[serde(default)]
    pub memory: Vec<(u64, f64)>,
    /// Chapter 2's page at γ = 0.8 and 0.3: the held-out answer and its time to verdict.
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// A CPU profile of the paper preset's timed steps (the build with function names).
    #[serde(default)]
    pub profile: Option<BrowserProfile>,
}

/// V8's sampling profile of `steps` timed training steps in the browser, or why there is none.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct BrowserProfile {
    /// Timed steps in the profile.
    #[serde(default)]
    pub steps: usize,
    /// ms/step of the same build, not profiled.
    #[serde(default)]
    pub ms: f64,
    /// ms/step while profiled.
    #[serde(default)]
    pub profiled_ms: f64,
    /// Self time (ms over all `steps`) per function, most first.
    #[serde(default)]
    pub functions: Vec<(String, f64)>,
    /// Why there is no profile.
    #[serde(default)]
    pub error: Option<String>,
}

/// The kinds of work a profile is summed into, in table order.
pub const KINDS: [&str; 5] = [
    "matrix products (GEMM kernels, packing)",
    "elementwise, reductions, layout ops",
    "exp / log",
    "memory (copies, zeroing, allocation, page faults, kernel)",
    "other (JavaScript glue, V8 runtime and GC, the rest)",
];

/// The kind of work (an entry of [`KINDS`]) a profiled function does, from its name: a symbol of
/// `perf report` natively (`[.] name` in user space, `[k] name` in the kernel) or a function of
/// the wasm name section in the browser. Matrix products are matched first (their kernels are
/// SIMD elementwise code too), then exp/log, memory, and the tensor crates' other ops.
pub fn kind_of(symbol: &str) -> &'static str {
    let s = symbol.to_ascii_lowercase();
    let any = |keys: &[&str]| keys.iter().any(|k| s.contains(k));
    if any(&["gemm", "matrixmultiply"]) {
        KINDS[0]
    } else if any(&["expf", "logf", "powf", "libm", "tanh"]) {
        KINDS[2]
    } else if any(&["memmove", "memcpy", "memset", "clear_page", "page_fault", "[k]", "malloc", "free", "alloc"]) {
        KINDS[3]
    } else if any(&["macerator", "zip", "binary", "unary", "scalar", "mask", "reduce", "sum", "ndarray", "burn_flex"]) {
        KINDS[1]
    } else {
        KINDS[4]
    }
}

/// `perf report --stdio --no-children -g none --sort pid,symbol` lines (comments and blank lines
/// removed) as (share of samples in %, symbol).
pub fn parse_perf_report(text: &str) -> Vec<(f64, String)> {
    text.lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let pct: f64 = parts.next()?.strip_suffix('%')?.parse().ok()?;
            let _thread = parts.next()?;
            Some((pct, parts.collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

/// Sums (weight, function) pairs by [`kind_of`], in [`KINDS`] order.
pub fn by_kind(entries: &[(f64, String)]) -> [f64; 5] {
    let mut out = [0.0; 5];
    for (w, name) in entries {
        let k = KINDS.iter().position(|k| *k == kind_of(name)).expect("kind_of returns one of KINDS");
        out[k] += w;
    }
    out
}

/// One long main-thread task on the page, and who had the CPU during it.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct LongTask {
    /// Wall time of the task (Long Tasks API), ms.
    pub ms: f64,
    /// The page's step counter when the task was reported.
    pub step: u64,
    /// Length of the thread-CPU sampling window that covers the task, ms (`None` where the
    /// browser side cannot read per-thread CPU times).
    #[serde(default)]
    pub window_ms: Option<f64>,
    /// `[kind of thread, CPU ms]` over that window, most first (Linux `/proc`, 10 ms ticks), with
    /// the rest of the machine: `other processes`, `stolen by the hypervisor`, `idle`.
    #[serde(default)]
    pub cpu: Vec<(String, f64)>,
}

/// Where a stretch of wall time went on this machine's CPUs (see [`LongTask::cpu`]).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct CpuSplit {
    /// Length of the sampled window, ms.
    pub window_ms: f64,
    /// `[kind of thread, CPU ms]`, most first.
    pub cpu: Vec<(String, f64)>,
}

/// One browser timing.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct BrowserStep {
    /// Case name.
    pub name: String,
    /// `cpu` or `webgpu`.
    pub backend: String,
    /// Milliseconds per step.
    pub ms: Option<f64>,
    /// Why there is no figure.
    pub error: Option<String>,
}

/// Runs the browser side (`node bench/browser.mjs`, or `cmd`) with the cases as JSON.
/// With `profile`, the paper case is also profiled (in the build with function names).
pub fn run_browser(cmd: &str, cases: &[Case], memory_steps: usize, profile: bool) -> Result<BrowserResult, String> {
    let spec_of = |c: &Case| serde_json::json!({"name": c.name, "query": c.query, "steps": c.steps, "warmup": WARMUP});
    let spec: Vec<serde_json::Value> = cases.iter().map(spec_of).collect();
    let mut all = serde_json::json!({"cases": spec, "memory_steps": memory_steps});
    if let Some(paper) = cases.iter().find(|c| c.name == "ch1 paper").filter(|_| profile) {
        all["profile"] = spec_of(paper);
    }
    run_json(cmd, &[all.to_string()])
}

/// Runs `cmd` (a program and its arguments, split on whitespace) with `args` appended and parses
/// the last line of its standard output as JSON; the error names the program and its last
/// line of standard error.
fn run_json<T: serde::de::DeserializeOwned>(cmd: &str, args: &[String]) -> Result<T, String> {
    run_json_env(cmd, args, &[])
}

/// [`run_json`] with extra environment variables for the child.
fn run_json_env<T: serde::de::DeserializeOwned>(cmd: &str, args: &[String], env: &[(&str, &str)]) -> Result<T, String> {
    let mut parts = cmd.split_whitespace();
    let prog = parts.next().ok_or("empty command")?;
    let out = Command::new(prog)
        .args(parts)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("could not start {prog}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{prog} failed: {}", err.lines().last().unwrap_or("no message")));
    }
    serde_json::from_slice(last_line(&out.stdout)).map_err(|e| format!("unreadable output from {prog}: {e}"))
}

/// Resident and peak memory of this process (`VmRSS`, `VmHWM` from `/proc/self/status`), bytes.
pub fn memory_now() -> Option<(f64, f64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024.0)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Trains the interactive chapter 1 preset for `steps` steps with its default evaluation and
/// snapshot settings and returns `(step, resident bytes, peak bytes)` at 10 %, 50 % and 100 %.
pub fn native_memory(steps: usize) -> Vec<(usize, f64, f64)> {
    let mut cfg = RunConfig::preset(Preset::Interactive);
    cfg.steps = steps;
    let Ok(mut run) = Run::new(cfg, &backend::cpu_device()) else { return vec![] };
    let marks = [steps / 10, steps / 2, steps];
    let mut out = vec![];
    while run.step() < steps {
        block_on(run.advance());
        if marks.contains(&run.step()) && out.last().map(|(s, _, _)| *s) != Some(run.step()) {
            if let Some((rss, hwm)) = memory_now() {
                out.push((run.step(), rss, hwm));
            }
        }
    }
    out
}

/// The page's default run natively: the interactive chapter 1 preset (seed 0, its default
/// evaluation and snapshots) on the default CPU backend, trained until test accuracy first
/// reaches [`plateau::chapters::plateau::summary::DROP_ACC`]. Returns `(wall seconds, step)`, or `None` when the run
/// ends without a drop.
pub fn native_drop() -> Option<(f64, usize)> {
    let cfg = RunConfig::preset(Preset::Interactive);
    let steps = cfg.steps;
    let t0 = std::time::Instant::now();
    let mut run = Run::new(cfg, &backend::cpu_device()).ok()?;
    while run.step() < steps {
        let status = block_on(run.advance()).clone();
        if let Run::Plateau(t) = &run {
            if let Some(step) = plateau::chapters::plateau::summary::first_step(&t.history.rows, |r| {
                r.test_acc >= plateau::chapters::plateau::summary::DROP_ACC
            }) {
                return Some((t0.elapsed().as_secs_f64(), step));
            }
        }
        if !matches!(status, plateau::train::Status::Running) {
            return None;
        }
    }
    None
}

/// Chapter 2's time to verdict: the page's default anchors run at init scale `gamma`, natively on
/// the page's CPU backend, to the end; returns the held-out answer at the end and, when it is
/// inferential or symmetric, the step since which it held ([`plateau::chapters::anchors::summary::answer_step`]) with
/// the wall seconds at which that step's row was recorded.
pub fn native_verdict(gamma: f64) -> Option<Verdict> {
    let mut cfg = RunConfig::defaults(plateau::config::Task::Anchors, Preset::Interactive);
    cfg.gamma = gamma;
    let t0 = std::time::Instant::now();
    let mut run = Run::new(cfg, &backend::cpu_device()).ok()?;
    let mut seconds: Vec<(usize, f64)> = vec![];
    loop {
        let status = block_on(run.advance()).clone();
        if let Run::Anchors(t) = &run {
            if let Some(r) = t.history.rows.last() {
                if seconds.last().is_none_or(|&(s, _)| s < r.step) {
                    seconds.push((r.step, t0.elapsed().as_secs_f64()));
                }
            }
        }
        if !matches!(status, plateau::train::Status::Running) {
            break;
        }
    }
    let Run::Anchors(t) = &run else { return None };
    let last = t.history.rows.last()?;
    let step = plateau::chapters::anchors::summary::answer_step(&t.history.rows);
    Some(Verdict {
        gamma,
        answer: plateau::chapters::anchors::summary::Answer::of(last.acc_inferential, last.acc_symmetric)
            .name()
            .to_string(),
        step,
        seconds: step.and_then(|st| seconds.iter().find(|(s, _)| *s == st).map(|p| p.1)),
    })
}

/// A chapter 2 run's held-out answer and when it settled ([`native_verdict`]; the browser's
/// `window.plateauVerdict`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Verdict {
    /// Init scale γ of the run.
    #[serde(default)]
    pub gamma: f64,
    /// `inferential`, `symmetric` or `neither` at the end of the run.
    pub answer: String,
    /// The step since which that answer held (none for `neither`).
    pub step: Option<usize>,
    /// Training seconds until that step's row.
    pub seconds: Option<f64>,
}

/// Size in bytes of the wasm at `path`, raw and gzip-compressed (`gzip -9`, as a static host
/// would serve it), with its code and data sections measured the same way.
pub fn wasm_size(path: &str) -> Result<WasmSize, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let sections = wasm_sections(&bytes)?
        .into_iter()
        .filter(|(name, range)| matches!(name.as_str(), "code" | "data") && !range.is_empty())
        .map(|(name, range)| Ok((name, range.len() as u64, gzip_len(&bytes[range])?)))
        .collect::<Result<_, String>>()?;
    Ok(WasmSize { raw: bytes.len() as u64, gzip: gzip_len(&bytes)?, sections })
}

/// The page's wasm: whole-file sizes and the two big sections.
#[derive(Clone, Debug, Default)]
pub struct WasmSize {
    /// Bytes on disk.
    pub raw: u64,
    /// Bytes after `gzip -9`.
    pub gzip: u64,
    /// `(section, raw bytes, gzip -9 bytes)` for the code and data sections.
    pub sections: Vec<(String, u64, u64)>,
}

fn gzip_len(bytes: &[u8]) -> Result<u64, String> {
    use std::io::Write;
    let mut child = Command::new("gzip")
        .args(["-9", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("gzip: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("gzip: no stdin")?;
    let data = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().map_err(|e| format!("gzip: {e}"))?;
    writer.join().map_err(|_| "gzip: writer panicked")?.map_err(|e| format!("gzip: {e}"))?;
    if !out.status.success() {
        return Err("gzip failed".into());
    }
    Ok(out.stdout.len() as u64)
}

/// The sections of a wasm module: `(name, byte range of the section's contents)`, with the
/// standard names (`type`, `import`, …, `code`, `data`) and custom sections by their own name.
/// Follows the binary format: the 8-byte header, then per section a one-byte id and a LEB128 size.
pub fn wasm_sections(b: &[u8]) -> Result<Vec<(String, std::ops::Range<usize>)>, String> {
    const NAMES: [&str; 14] = [
        "custom",
        "type",
        "import",
        "function",
        "table",
        "memory",
        "global",
        "export",
        "start",
        "element",
        "code",
        "data",
        "datacount",
        "tag",
    ];
    fn leb(b: &[u8], i: &mut usize) -> Result<usize, String> {
        let (mut v, mut shift) = (0usize, 0u32);
        loop {
            let x = *b.get(*i).ok_or("truncated LEB128")?;
            *i += 1;
            if shift > 28 {
                return Err("LEB128 too long".into());
            }
            v |= ((x & 0x7f) as usize) << shift;
            shift += 7;
            if x < 0x80 {
                return Ok(v);
            }
        }
    }
    if b.len() < 8 || &b[..4] != b"\0asm" {
        return Err("not a wasm module".into());
    }
    let mut i = 8;
    let mut out = vec![];
    while i < b.len() {
        let id = b[i] as usize;
        i += 1;
        let len = leb(b, &mut i)?;
        let end = i.checked_add(len).filter(|&e| e <= b.len()).ok_or("section runs past the end")?;
        let mut name = NAMES.get(id).map_or_else(|| format!("section {id}"), |n| n.to_string());
        if id == 0 {
            let mut j = i;
            let n = leb(b, &mut j)?;
            name =
                String::from_utf8_lossy(b.get(j..j + n).ok_or("custom section name runs past the end")?).into_owned();
        }
        out.push((name, i..end));
        i = end;
    }
    Ok(out)
}

/// One native timing: the backend's name and its ms/step, or why there is none.
pub type NativeTiming = (String, Result<f64, String>);

/// The paper step by kind of work ([`KINDS`]), ms/step natively on one thread (each kind's share
/// of the perf samples times `native_ms`, the measured one-thread ms/step) and in the browser
/// (the profile's self time per step), when both profiles are there.
pub fn kind_split(r: &Results, native_ms: f64) -> Option<([f64; 5], [f64; 5])> {
    let native = r.native_profile.as_ref()?.as_ref().ok()?;
    let p = r.browser.as_ref()?.as_ref().ok()?.profile.as_ref().filter(|p| p.error.is_none() && p.steps > 0)?;
    let n = by_kind(native).map(|pct| pct / 100.0 * native_ms);
    let swapped: Vec<(f64, String)> = p.functions.iter().map(|(f, ms)| (*ms, f.clone())).collect();
    let b = by_kind(&swapped).map(|ms| ms / p.steps as f64);
    Some((n, b))
}

/// Everything one bench run measured.
#[derive(Clone, Debug, Default)]
pub struct Results {
    /// `plateau bench …` as invoked, for the report's header.
    pub command: String,
    /// Threads available to this process (rayon, matrixmultiply and PyTorch use this many).
    pub threads: usize,
    /// CPU model from `/proc/cpuinfo`.
    pub cpu: String,
    /// Per case: native ms/step per backend name (or why not).
    pub native: Vec<(Case, Vec<NativeTiming>)>,
    /// Per case: PyTorch ms/step (or why not).
    pub torch: Vec<Result<TorchResult, String>>,
    /// The browser side (or why not).
    pub browser: Option<Result<BrowserResult, String>>,
    /// Page wasm size, raw and gzip (or why not).
    pub wasm: Option<Result<WasmSize, String>>,
    /// The paper preset natively with one thread, per backend (the browser runs one thread).
    pub one_thread: Option<Result<Vec<NativeTiming>, String>>,
    /// The paper preset in PyTorch with one thread.
    pub torch_one_thread: Option<Result<TorchResult, String>>,
    /// The other cases natively with one thread on the page's CPU backend (case name, ms/step),
    /// for the browser comparison.
    pub one_thread_cpu: Vec<(String, Result<f64, String>)>,
    /// Native memory over a long run: `(step, rss, peak)`.
    pub memory: Vec<(usize, f64, f64)>,
    /// The page's default run natively: `(seconds, step)` to the drop ([`native_drop`]).
    pub native_drop: Option<(f64, usize)>,
    /// Chapter 2's default natively at γ = 0.8 and 0.3 ([`native_verdict`]).
    pub native_verdicts: Vec<Verdict>,
    /// `perf report` of the paper step natively on one thread with the page's CPU backend, as
    /// (share %, symbol) ([`parse_perf_report`]), or why there is none.
    pub native_profile: Option<Result<Vec<(f64, String)>, String>>,
}

/// The CPU model name of this machine.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else {
        format!("{ms:.1}")
    }
}

fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// The report as Markdown: the step table with GFLOP/s and ratios, then each target of issue #9
/// with the figure that decides it, then memory.
pub fn report(r: &Results, date: &str) -> String {
    let mut o = String::new();
    o.push_str("# Benchmarks\n\n");
    o.push_str(&format!(
        "Written by `{}` on {date}, on {} with {} CPU thread(s) available; every figure below comes from \
         that one run, measured side by side on the same machine (none is edited by hand). A training \
         step is a fresh batch, forward, the loss read back, backward and one optimizer update \
         (evaluation off). GFLOP/s counts the matrix products only (`bench::train_step_flops`: 3 × the \
         forward products). Native CPU backends, rayon, matrixmultiply and PyTorch all use the same \
         thread count.\n\n",
        r.command, r.cpu, r.threads
    ));
    let torch_version = r.torch.iter().find_map(|t| t.as_ref().ok().map(|t| t.version.clone()));
    let browser = r.browser.as_ref().and_then(|b| b.as_ref().ok());
    if let Some(v) = &torch_version {
        o.push_str(&format!("PyTorch: {v} (Debian's CPU build), `bench/torch_bench.py`. "));
    }
    if let Some(b) = browser {
        o.push_str(&format!(
            "Browser: {} headless, `bench/browser.mjs`; WebGPU adapter: {}.",
            b.browser,
            b.webgpu_adapter.as_deref().unwrap_or("none")
        ));
    }
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
        match &r.browser {
            Some(Ok(b)) => {
                for st in b.steps.iter().filter(|s| s.name == case.name) {
                    let label = if st.backend == "webgpu" { "browser WebGPU" } else { "browser CPU (wasm)" };
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

    o.push_str("\n## Targets\n\n| target | measured | met |\n|---|---|---|\n");
    let yes = |b: bool| if b { "yes" } else { "**no**" };
    // Per target not met, what stands in the way, from figures of this run.
    let mut blockers: Vec<String> = vec![];
    let case_index = |name: &str| r.native.iter().position(|(c, _)| c.name == name);
    let native_of = |i: usize, backend: &str| {
        r.native[i].1.iter().find(|(n, _)| n == backend).and_then(|(_, m)| m.as_ref().ok().copied())
    };
    // The fastest native CPU backend of a case: the CLI runs either (`--backend`).
    let fastest_cpu = |i: usize| {
        r.native[i]
            .1
            .iter()
            .filter(|(n, _)| n.starts_with("cpu"))
            .filter_map(|(n, m)| m.as_ref().ok().map(|ms| (n.clone(), *ms)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let paper = case_index("ch1 paper");
    let one_thread = match &r.one_thread {
        Some(Ok(v)) => v.iter().filter_map(|(n, m)| m.as_ref().ok().map(|ms| (n.clone(), *ms))).collect(),
        _ => vec![],
    };
    let fastest_one_thread = one_thread.iter().cloned().min_by(|a: &(String, f64), b| a.1.total_cmp(&b.1));
    let torch_one = r.torch_one_thread.as_ref().and_then(|t| t.as_ref().ok()).map(|t| t.ms);
    if let Some((i, (name, native))) = paper.and_then(|i| fastest_cpu(i).map(|f| (i, f))) {
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
    if let Some(b) = browser {
        for (i, (case, _)) in r.native.iter().enumerate() {
            let Some(native) = native_of(i, backend::CPU.name()) else { continue };
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
                            cfg.n,
                            cfg.snapshot_every,
                            r.threads
                        ));
                    }
                    if let Some(st) = &b.stretch {
                        let parts: Vec<String> =
                            st.cpu.iter().map(|(k, ms)| format!("{k} {:.1} s", ms / 1000.0)).collect();
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
            _ => o.push_str(
                "| interactive preset's drop within 15 s in headless Chromium | no drop measured | **no** |\n",
            ),
        }
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
                (Some(step), Some(sec)) => {
                    (format!("{} from step {step}, {sec:.1} s of training", v.answer), sec <= 60.0)
                }
                _ => (format!("{} at the end of the run (no answer settles)", v.answer), false),
            };
            o.push_str(&format!(
                "| chapter 2 (γ = {}) decides the held-out answer within 60 s in headless Chromium | {text}{native} | {} |\n",
                v.gamma,
                yes(ok)
            ));
        }
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
                    let main_of =
                        |lt: &LongTask| lt.cpu.iter().find(|(k, _)| k == "page main thread").map_or(0.0, |c| c.1);
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
    if !one_thread.is_empty() || torch_one.is_some() {
        o.push_str("\n### One thread each, paper preset\n\nThe browser runs one thread; here is everything on one.\n\n| engine | ms/step | ÷ PyTorch steps/s |\n|---|---|---|\n");
        let base = torch_one;
        let ratio = |ms: f64| base.map_or("–".into(), |b| format!("{:.2}×", b / ms));
        for (n, ms) in &one_thread {
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
    if !blockers.is_empty() {
        o.push_str("\n## What stands in the way\n\n");
        for b in &blockers {
            o.push_str(&format!("- {b}\n"));
        }
    }

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
    profile_section(&mut o, r, &one_thread);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flops_of_the_paper_step_by_hand() {
        // Paper preset: batch 256, seq 32, d 256, d_ff 1024, vocab 18, 1 layer.
        // T = 8192 tokens. Projections 4·2·8192·256² = 4 294 967 296; scores and A·V
        // 2·2·256·32²·256 = 268 435 456; MLP 2·2·8192·256·1024 = 8 589 934 592; head
        // 2·8192·256·18 = 75 497 472. Forward 13 228 834 816; step ×3 = 39 686 504 448.
        let s = shape(&RunConfig::preset(Preset::Paper));
        assert_eq!((s.batch, s.seq, s.d_model, s.d_ff, s.vocab, s.layers), (256, 32, 256, 1024, 18, 1));
        assert_eq!(train_step_flops(&s), 39_686_504_448.0);
    }

    #[test]
    fn shapes_follow_the_chapters() {
        let s2 = shape(&case_config(&cases(false)[2]));
        // chapter 2's default sequence length (`seq-len`), not a constant
        assert_eq!((s2.seq, s2.vocab, s2.loss, s2.causal, s2.softmax), (8, 100, "last", true, true));
        let s3 = shape(&case_config(&cases(false)[3]));
        assert_eq!((s3.seq, s3.loss, s3.causal, s3.heads), (20, "mlm", false, 4));
    }

    #[test]
    fn profiles_are_parsed_and_sorted_into_kinds() {
        let lines = "    16.57%    13152:plateau  [.] gemm_f32::microkernel::avx512f::f32::x4x6\n\
                     7.10%    13150:plateau  [.] __memmove_evex_unaligned_erms\n\
                     not a sample line\n";
        assert_eq!(
            parse_perf_report(lines),
            vec![
                (16.57, "[.] gemm_f32::microkernel::avx512f::f32::x4x6".to_string()),
                (7.1, "[.] __memmove_evex_unaligned_erms".to_string())
            ]
        );
        for (name, kind) in [
            ("matrixmultiply::kernel::sgemm_kernel", 0),
            ("[.] gemm_common::simd::x86::V4::vectorize", 0),
            ("[.] macerator::backend::x86::v4::V4Impl::run_vectorized", 1),
            ("burn_ndarray::ops::base::NdArrayMathOps::sum_dim", 1),
            ("[.] __expf_fma", 2),
            ("libm::math::logf::logf", 2),
            ("compiler_builtins::math::libm_math::powf::powf", 2),
            ("__rustc::__rdl_alloc_zeroed", 3),
            ("[k] exc_page_fault", 3),
            ("dlmalloc::dlmalloc::Dlmalloc<A>::malloc", 3),
            ("memset", 3),
            ("(program)", 4),
            ("__wbg_call_1234", 4),
        ] {
            assert_eq!(kind_of(name), KINDS[kind], "{name}");
        }
        let kinds = by_kind(&[(2.0, "memcpy".into()), (1.0, "sgemm".into()), (3.0, "matrixmultiply".into())]);
        assert_eq!(kinds, [4.0, 0.0, 0.0, 2.0, 0.0]);
    }

    #[test]
    fn report_ratios_and_targets_by_hand() {
        let paper = cases(false)[0].clone();
        let ch2 = cases(false)[2].clone();
        let r = Results {
            command: "plateau bench".into(),
            threads: 2,
            cpu: "test CPU".into(),
            native: vec![
                (paper.clone(), vec![(backend::CPU.name().to_string(), Ok(100.0))]),
                (ch2.clone(), vec![(backend::CPU.name().to_string(), Ok(20.0))]),
            ],
            torch: vec![Ok(TorchResult { ms: 150.0, version: "1.13".into() }), Err("not run".into())],
            browser: Some(Ok(BrowserResult {
                browser: "Chromium 1".into(),
                steps: vec![
                    BrowserStep { name: paper.name.into(), backend: "cpu".into(), ms: Some(250.0), error: None },
                    BrowserStep { name: ch2.name.into(), backend: "cpu".into(), ms: Some(50.0), error: None },
                ],
                drop_seconds: Some(12.34),
                drop_step: Some(225),
                longest_task_ms: Some(61.0),
                longest_draw_ms: Some(22.0),
                long_tasks: vec![LongTask {
                    ms: 61.0,
                    step: 1,
                    window_ms: Some(80.0),
                    cpu: vec![
                        ("renderer thread pool (V8 compiles, GC)".into(), 90.0),
                        ("training worker".into(), 50.0),
                        ("page main thread".into(), 20.0),
                    ],
                }],
                profile: Some(BrowserProfile {
                    steps: 2,
                    ms: 250.0,
                    profiled_ms: 260.0,
                    functions: vec![
                        ("matrixmultiply::gemm::masked_kernel".into(), 300.0),
                        ("ndarray::zip::Zip<P,D>::for_each".into(), 120.0),
                        ("memcpy".into(), 40.0),
                        ("libm::math::expf::expf".into(), 20.0),
                        ("(garbage collector)".into(), 20.0),
                    ],
                    error: None,
                }),
                ..Default::default()
            })),
            wasm: Some(Ok(WasmSize {
                raw: 9_000_000,
                gzip: 3_100_000,
                sections: vec![("code".into(), 8_000_000, 2_700_000)],
            })),
            one_thread: Some(Ok(vec![(backend::CPU.name().to_string(), Ok(160.0))])),
            torch_one_thread: Some(Ok(TorchResult { ms: 200.0, version: "1.13".into() })),
            one_thread_cpu: vec![("ch2 interactive".into(), Ok(30.0))],
            memory: vec![(1000, 20e6, 21e6)],
            native_drop: Some((8.0, 225)),
            native_verdicts: vec![Verdict {
                gamma: 0.8,
                answer: "inferential".into(),
                step: Some(450),
                seconds: Some(40.0),
            }],
            native_profile: Some(Ok(parse_perf_report(
                "    50.00%    13152:plateau  [.] gemm_f32::microkernel::x4x6\n\
                 30.00%    13150:plateau  [.] burn_ndarray::ops::zip_map\n\
                 10.00%    13150:plateau  [k] clear_page_erms\n\
                  5.00%    13150:plateau  [.] __expf_fma\n\
                  5.00%    13150:plateau  [.] main\n",
            ))),
        };
        let text = report(&r, "2026-11-30");
        // 39.69 GFLOP in 100 ms = 396.9 GFLOP/s; PyTorch 150 ms ÷ 100 ms = 1.50× the steps/s.
        assert!(
            text.contains("| ch1 paper | 39.69 | native cpu (ndarray) | 100 | 10.00 | 396.9 | 1.50× | 1.00× |"),
            "{text}"
        );
        assert!(text.contains("| ch1 paper | 39.69 | PyTorch | 150 | 6.67 | 264.6 | 1× | 0.67× |"), "{text}");
        // Browser 250 ms: 0.60× PyTorch, 0.40× native.
        assert!(text.contains("| browser CPU (wasm) | 250 | 4.00 | 158.7 | 0.60× | 0.40× |"), "{text}");
        assert!(text.contains("same threads | 1.50× (100 ms/step on cpu (ndarray) vs 150 ms/step) | yes |"), "{text}");
        assert!(
            text.contains("browser CPU ≥ 0.5× native, ch1 paper | 0.40× (250 vs 100 ms/step) | **no** |"),
            "{text}"
        );
        assert!(
            text.contains(
                "| 12.3 s of training (step 225); natively 8.0 s (step 225, cpu (ndarray), 2 threads) | yes |"
            ),
            "{text}"
        );
        assert!(text.contains("| longest 61 ms | **no** |"), "{text}");
        assert!(text.contains("| 9.0 MB raw, 3.1 MB gzip -9 | **no** |"), "{text}");
        // One thread each: PyTorch 200 ms ÷ 160 ms = 1.25×; the browser 200 ÷ 250 = 0.80×.
        assert!(text.contains("| native cpu (ndarray), 1 thread | 160 | 1.25× |"), "{text}");
        assert!(text.contains("| PyTorch, 1 thread | 200 | 1× |"), "{text}");
        assert!(text.contains("| browser CPU (wasm) | 250 | 0.80× |"), "{text}");
        // Each target not met has its reason, with this run's figures; the met one has none.
        let why = &text[text.find("## What stands in the way").expect("blockers section")..];
        assert!(!why.contains("Native vs PyTorch"), "{why}");
        assert!(why.contains("on one thread (cpu (ndarray), 160 ms/step) the browser is 0.64×"), "{why}");
        // By kind: native shares × 160 ms (GEMM 50 % → 80, elementwise 30 % → 48, memory 10 % → 16,
        // exp 5 % → 8, other 5 % → 8); the browser's self time ÷ 2 steps (150, 60, 20, 10, 10).
        assert!(
            why.contains(
                "the browser spends more on: matrix products (GEMM kernels, packing) +70.0 (80.0 → 150 ms/step); \
                 elementwise, reductions, layout ops +12.0 (48.0 → 60.0 ms/step); memory"
            ),
            "{why}"
        );
        // ch2: 20 ms natively on 2 threads, 30 on one, 50 in the browser: 0.40×, and 0.60× of one thread.
        assert!(why.contains("**Browser vs native, ch2 interactive.** The page's engine runs on one thread"), "{why}");
        assert!(why.contains("on one thread (cpu (ndarray), 30.0 ms/step) the browser is 0.60×."), "{why}");
        let prof = &text[text.find("## Profile of the paper-preset step: browser vs native").expect("profile")..];
        assert!(prof.contains("over 2 timed steps"), "{prof}");
        assert!(prof.contains("(250 ms/step unprofiled, 260 while profiled"), "{prof}");
        assert!(prof.contains("| matrix products (GEMM kernels, packing) | 80.0 | 150 | 1.88× |"), "{prof}");
        assert!(prof.contains("| exp / log | 8.0 | 10.0 | 1.25× |"), "{prof}");
        assert!(prof.contains("| all | 160 | 250 | 1.56× |"), "{prof}");
        assert!(
            prof.contains("| `matrixmultiply::gemm::masked_kernel` | 150 | matrix products (GEMM kernels, packing) |"),
            "{prof}"
        );
        assert!(prof.contains("| `(garbage collector)` | 10.0 | other (JavaScript glue"), "{prof}");
        assert!(
            why.contains("The longest task was 61 ms; the page's own longest drawing job in that stretch took 22 ms"),
            "{why}"
        );
        assert!(why.contains("the code section 8.0 MB raw, 2.7 MB gzip -9"), "{why}");
        assert!(
            why.contains("| 61 ms | 1 | 80 ms | renderer thread pool (V8 compiles, GC) 90 ms, training worker 50 ms, page main thread 20 ms |"),
            "{why}"
        );
        assert!(
            why.contains(
                "the main thread itself ran at most 20 ms of CPU; for at least 41 ms of each it was not running"
            ),
            "{why}"
        );
        assert!(why.contains("All of them came by step 1, as training starts"), "{why}");
        assert!(!why.contains("Time to the drop"), "{why}");
        assert!(text.contains("| native (whole process) | 1000 | 20.0 MB | 21.0 MB |"), "{text}");

        // A late drop: 18 s in the page against 8 s natively; at a timed 50 ms/step the 225 steps
        // take 11.25 s, which leaves 6.75 s to what the step timing leaves out.
        let mut late = r;
        if let Some(Ok(b)) = &mut late.browser {
            b.drop_seconds = Some(18.0);
            b.steps.push(BrowserStep {
                name: "ch1 interactive".into(),
                backend: "cpu".into(),
                ms: Some(50.0),
                error: None,
            });
            b.stretch = Some(CpuSplit {
                window_ms: 18_500.0,
                cpu: vec![("training worker".into(), 17_000.0), ("stolen by the hypervisor".into(), 4_250.0)],
            });
        }
        let text = report(&late, "2026-11-30");
        assert!(text.contains("| 18.0 s of training (step 225); natively 8.0 s"), "{text}");
        let why = &text[text.find("## What stands in the way").expect("blockers section")..];
        assert!(why.contains("got there at step 225 after 8.0 s, so the page took 2.25× as long"), "{why}");
        assert!(why.contains("the 225 training steps alone take 11.2 s; the other 6.8 s"), "{why}");
        assert!(why.contains("evaluation every 5 steps (the held-out loss and greedy decoding of 32 sequences, 8 forward passes each)"), "{why}");
        assert!(
            why.contains("(18.5 s of wall time, so 37.0 s of CPU time on 2 cores) this machine's CPU time went to: training worker 17.0 s, stolen by the hypervisor 4.2 s."),
            "{why}"
        );
    }

    #[test]
    fn wasm_sections_by_hand() {
        // Header, a type section of 4 bytes, a custom section "name" with 2 bytes after its name,
        // and a code section whose size (130) takes two LEB128 bytes (0x82 0x01).
        let mut w = b"\0asm\x01\0\0\0".to_vec();
        w.extend([1, 4, 1, 0x60, 0, 0]);
        w.extend([0, 7, 4, b'n', b'a', b'm', b'e', 9, 9]);
        w.extend([10, 0x82, 0x01]);
        w.extend(std::iter::repeat_n(0u8, 130));
        let s = wasm_sections(&w).unwrap();
        let names: Vec<(&str, usize, usize)> = s.iter().map(|(n, r)| (n.as_str(), r.start, r.end)).collect();
        assert_eq!(names, vec![("type", 10, 14), ("name", 16, 23), ("code", 26, 156)]);
        assert!(wasm_sections(b"\0asm\x01\0\0\0\x0a\x05\0").unwrap_err().contains("past the end"));
        assert!(wasm_sections(b"GIF89a..").is_err());
    }

    #[test]
    fn last_line_of_child_output() {
        assert_eq!(last_line(b"noise\n{\"a\":1}\n"), b"{\"a\":1}");
        assert_eq!(last_line(b"{\"a\":1}"), b"{\"a\":1}");
    }
}
