//! The browser side of the bench (`bench/browser.mjs` in headless Chromium): its results, the
//! profile's kinds of work, and the child processes that return JSON.

use super::*;

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
    /// TensorFlow.js's version, where it was timed (its rows are in `steps`, backends
    /// `tfjs-wasm` and `tfjs-webgpu`).
    #[serde(default)]
    pub tfjs_version: Option<String>,
    /// The page's load: what the main thread fetched and compiled, and how soon it trained.
    #[serde(default)]
    pub load: Option<PageLoad>,
    /// WebGPU calls per training step, counted in the browser (where WebGPU was timed).
    #[serde(default)]
    pub gpu_calls: Vec<GpuCalls>,
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
    /// Chapter 2's page at γ = 0.7 and 0.4 (small and large init): the held-out answer and its time to verdict.
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// Chapter 2's page at its defaults: the compare view's two runs, each with its verdict.
    #[serde(default)]
    pub compare: Option<CompareVerdicts>,
    /// Chapter 4's page: when the collapse and the recovery showed.
    #[serde(default)]
    pub lm: Option<LmTiming>,
    /// Chapter 3's page: when the verb-loss drop and the subject → verb onset showed.
    #[serde(default)]
    pub syntax: Option<SyntaxTiming>,
    /// A CPU profile of the paper preset's timed steps (the build with function names).
    #[serde(default)]
    pub profile: Option<BrowserProfile>,
}

/// V8's sampling profile of `steps` timed training steps in the browser, or why there is none.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct BrowserProfile {
    /// The case profiled.
    #[serde(default)]
    pub name: String,
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

/// WebGPU calls per training step of one case, counted by wrapping the WebGPU API in the bench
/// page (`www/bench.js`): with the loss read back once per chunk of `steps` steps (`mode`
/// `"chunk"`, the page's worker now) or after every step (`"every step"`, the engine before it
/// stopped reading the loss back at every step).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct GpuCalls {
    /// Case name.
    pub name: String,
    /// `"chunk"` or `"every step"`.
    pub mode: String,
    /// Steps counted.
    pub steps: usize,
    /// Milliseconds per step over them.
    pub ms: f64,
    /// Compute dispatches (kernel launches) per step.
    pub dispatches: f64,
    /// Queue submissions per step.
    pub submits: f64,
    /// Buffer maps (host reads, each a wait for the GPU) per step.
    pub maps: f64,
}

/// The page's load with no URL parameters, from navigation to the first trained step.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct PageLoad {
    /// Milliseconds from navigation until the step counter first showed a trained step.
    #[serde(default)]
    pub first_step_ms: Option<f64>,
    /// Milliseconds from navigation until the hero figure first showed the runs measured by the
    /// command-line tool (`window.plateauMeasuredAt`).
    #[serde(default)]
    pub measured_hero_ms: Option<f64>,
    /// Bytes of wasm the main thread fetched (and compiled), decoded.
    #[serde(default)]
    pub main_wasm_bytes: f64,
    /// Bytes of JavaScript the main thread fetched, decoded.
    #[serde(default)]
    pub main_js_bytes: f64,
    /// The main thread's longest task from navigation to the first step (ms).
    #[serde(default)]
    pub longest_load_task_ms: f64,
}

/// One browser timing.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct BrowserStep {
    /// Case name.
    pub name: String,
    /// `cpu` or `webgpu` (this engine), `tfjs-wasm` or `tfjs-webgpu` (TensorFlow.js).
    pub backend: String,
    /// Milliseconds per step.
    pub ms: Option<f64>,
    /// Why there is no figure.
    pub error: Option<String>,
}

/// Runs the browser side (`node bench/browser.mjs`, or `cmd`) with the cases as JSON.
/// With `profile`, the paper case is also profiled (in the build with function names).
pub fn run_browser(cmd: &str, cases: &[Case], memory_steps: usize, profile: bool) -> Result<BrowserResult, String> {
    let spec_of = |c: &Case| {
        let cfg = case_config(c);
        let s = shape(&cfg);
        // The shape as bench/tfjs/model.js takes it (TensorFlow.js runs chapter 1's cases).
        let shape = serde_json::json!({
            "vocab": s.vocab, "seq": s.seq, "layers": s.layers, "heads": s.heads, "d_model": s.d_model,
            "d_ff": s.d_ff, "batch": s.batch, "softmax": s.softmax, "causal": s.causal, "loss": s.loss, "lr": cfg.lr,
        });
        serde_json::json!({"name": c.name, "query": c.query, "steps": c.steps, "warmup": WARMUP, "shape": shape})
    };
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
pub fn run_json<T: serde::de::DeserializeOwned>(cmd: &str, args: &[String]) -> Result<T, String> {
    run_json_env(cmd, args, &[])
}

/// [`run_json`] with extra environment variables for the child.
pub(super) fn run_json_env<T: serde::de::DeserializeOwned>(
    cmd: &str,
    args: &[String],
    env: &[(&str, &str)],
) -> Result<T, String> {
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

/// Chapter 2's compare view at the page's defaults (`bench/browser.mjs`, `measureCompare`): the
/// run on screen's verdict and the comparison run's, on one training clock, or why not.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct CompareVerdicts {
    /// The run on screen (the default γ).
    #[serde(default)]
    pub main: Option<Verdict>,
    /// The comparison run (the compare default γ).
    #[serde(default)]
    pub other: Option<Verdict>,
    /// Why nothing was measured.
    #[serde(default)]
    pub error: Option<String>,
}
