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
//! forward pass, the backward pass and one optimizer update; the loss is read back to the host
//! (the divergence check) once at the end of the timed steps, as the page's worker reads it once
//! per chunk. Evaluation is switched off while timing ([`plateau::race::timing_config`], as the
//! page's backend race times it), because its cost depends on the evaluation settings, not on the
//! engine.

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
        Case { name: "ch4 interactive", query: "experiment=lm", steps: 10 * k },
    ]
}

/// The config a case trains, with evaluation and snapshots switched off.
pub fn case_config(case: &Case) -> RunConfig {
    plateau::race::timing_config(&plateau::config::from_query(case.query).0)
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
    // The positions and vocabulary are the chapter's model shape (the memory budget's too).
    let plateau::config::Shape { positions: seq, vocab } = plateau::chapters::shape(cfg);
    use plateau::config::chapters::ChapterId;
    let (causal, loss) = match cfg.experiment.chapter() {
        ChapterId::Plateau | ChapterId::Text => (true, "all"),
        ChapterId::Init => (true, "last"),
        ChapterId::Syntax => (false, "mlm"),
    };
    Shape {
        vocab,
        seq,
        layers: cfg.layers,
        heads: cfg.heads,
        d_model: cfg.d_model,
        d_ff: cfg.d_ff,
        batch: cfg.batch,
        softmax: cfg.plateau.attention == Attention::Softmax,
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
        block_on(run.settle());
        let t0 = Instant::now();
        for _ in 0..steps {
            block_on(run.advance());
        }
        // On wgpu the steps were only queued: wait for them (one read, as the page per chunk).
        block_on(run.settle());
        Ok(t0.elapsed().as_secs_f64() * 1000.0 / steps as f64)
    };
    // burn panics when wgpu finds no adapter; report that as "unavailable" instead.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|p| {
        let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
        Err(format!("failed: {}", failure_summary(&msg.unwrap_or_else(|| "panic".into()))))
    })
}

/// A panic message in one line: its first line and, when it has a chain of causes (burn's
/// `Caused by:` blocks), the innermost one, which says what actually went wrong.
pub fn failure_summary(msg: &str) -> String {
    let lines: Vec<&str> = msg.lines().collect();
    let first = lines.first().copied().unwrap_or("").trim();
    let root = lines
        .iter()
        .rposition(|l| l.trim() == "Caused by:")
        .and_then(|i| lines.get(i + 1))
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && *l != first);
    match root {
        Some(r) => format!("{first} ({r})"),
        None => first.to_string(),
    }
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
    let args = json_args(case, backends, full);
    let rows: Vec<JsonTiming> = run_json_env(exe, &args, &ONE_THREAD_ENV)?;
    Ok(rows.into_iter().map(JsonTiming::into_timing).collect())
}

/// The arguments of `plateau bench --json`: the native timings of `case` on `backends` alone, as
/// JSON, with the quick or the `full` suite's steps.
pub fn json_args(case: &Case, backends: &str, full: bool) -> Vec<String> {
    [
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
    .collect()
}

/// The PyTorch reference's result for one case.
#[derive(Clone, Debug)]
pub struct TorchResult {
    /// Milliseconds per step.
    pub ms: f64,
    /// PyTorch version.
    pub version: String,
    /// The BLAS behind its matrix products (`torch_bench.py`'s `blas`).
    pub blas: String,
}

/// Runs the PyTorch reference (`python3 bench/torch_bench.py`, or `cmd`) on `case` with
/// `threads` threads.
pub fn time_torch(cmd: &str, case: &Case, threads: usize) -> Result<TorchResult, String> {
    let cfg = case_config(case);
    if cfg.experiment == Task::Anchors && cfg.anchors.model != ModelKind::Transformer {
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
        blas: v["blas"].as_str().unwrap_or("?").to_string(),
    })
}

fn last_line(bytes: &[u8]) -> &[u8] {
    let s = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    s.rsplit(|&c| c == b'\n').next().unwrap_or(s)
}

mod browser;
pub use browser::*;

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
    cfg.anchors.gamma = gamma;
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

/// What [`native_events`] reads from a run: the step of its last row, the steps of its `N`
/// events (`None` while not shown), and whether it is done.
type Events<const N: usize> = (Option<usize>, [Option<usize>; N], bool);

/// Trains `cfg` natively on the page's CPU backend, noting the wall seconds at which each row
/// arrived, until `events` says its last event showed or the run ends. `events` reads the run:
/// the step of its last row and the steps of its events (`None` while not shown), and whether
/// it is done; each event comes back with the seconds at which its row arrived.
fn native_events<const N: usize>(
    cfg: RunConfig,
    events: fn(&Run) -> Option<Events<N>>,
) -> Option<[Option<AtSeconds>; N]> {
    let t0 = std::time::Instant::now();
    let mut run = Run::new(cfg, &backend::cpu_device()).ok()?;
    let mut seconds: Vec<(usize, f64)> = vec![];
    loop {
        let status = block_on(run.advance()).clone();
        let (last, steps, done) = events(&run)?;
        if let Some(step) = last {
            if seconds.last().is_none_or(|&(s, _)| s < step) {
                seconds.push((step, t0.elapsed().as_secs_f64()));
            }
        }
        if done || !matches!(status, plateau::train::Status::Running) {
            return Some(steps.map(|step| {
                step.and_then(|st| {
                    seconds.iter().find(|(s, _)| *s == st).map(|&(step, seconds)| AtSeconds { step, seconds })
                })
            }));
        }
    }
}

/// Chapter 4's collapse and recovery: the page's default LM run natively on the page's CPU
/// backend, with the wall seconds at which the rows of the first collapsed step (hidden cosine ≥
/// 0.9) and of the recovery ([`plateau::chapters::lm::summary::course`]) were recorded; it stops
/// once the recovery shows (or at the end of the run).
pub fn native_lm() -> Option<LmTiming> {
    let [collapsed, recovered] =
        native_events(RunConfig::defaults(plateau::config::Task::Lm, Preset::Interactive), |run| {
            let Run::Lm(t) = run else { return None };
            let course = plateau::chapters::lm::summary::course(&t.history.rows)?;
            Some((
                t.history.rows.last().map(|r| r.step),
                [course.collapsed, course.recovered],
                course.recovered.is_some(),
            ))
        })?;
    Some(LmTiming { collapsed, recovered })
}

/// Chapter 3's verb-loss drop and subject → verb onset ([`plateau::chapters::syntax::Onsets`]):
/// the page's default run natively on the page's CPU backend, with the wall seconds at which
/// their rows were recorded; it stops once both show (or at the end of the run).
pub fn native_syntax() -> Option<SyntaxTiming> {
    let [drop, subject] =
        native_events(RunConfig::defaults(plateau::config::Task::Syntax, Preset::Interactive), |run| {
            let Run::Syntax(t) = run else { return None };
            let o = plateau::chapters::syntax::onsets(&t.history.rows);
            Some((
                t.history.rows.last().map(|r| r.step),
                [o.drop, o.subject_onset],
                o.drop.is_some() && o.subject_onset.is_some(),
            ))
        })?;
    Some(SyntaxTiming { drop, subject })
}

/// A step and the training seconds until its row arrived.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AtSeconds {
    /// The step.
    pub step: usize,
    /// Training seconds.
    pub seconds: f64,
}

/// When chapter 4's collapse and recovery showed ([`native_lm`]; the browser's
/// `window.plateauLm`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LmTiming {
    /// The first step with hidden cosine ≥ 0.9.
    #[serde(default)]
    pub collapsed: Option<AtSeconds>,
    /// The recovery step.
    #[serde(default)]
    pub recovered: Option<AtSeconds>,
}

/// When chapter 3's verb-loss drop and subject → verb onset showed ([`native_syntax`]; the
/// browser's `window.plateauSyntax`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SyntaxTiming {
    /// The step at which `verb_loss` leaves its plateau.
    #[serde(default)]
    pub drop: Option<AtSeconds>,
    /// The step at which the subject → verb UAS leaves its plateau.
    #[serde(default)]
    pub subject: Option<AtSeconds>,
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
    /// Per case: the reference PyTorch's ms/step (or why not): the current release from pip
    /// where `scripts/bench.sh` could install it, every ratio's "PyTorch".
    pub torch: Vec<Result<TorchResult, String>>,
    /// Per case: a second PyTorch (Debian's build), a row of its own, no ratio refers to it.
    pub torch_second: Vec<Result<TorchResult, String>>,
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
    /// Chapter 2's default natively at γ = 0.7 and 0.4 ([`native_verdict`]).
    pub native_verdicts: Vec<Verdict>,
    /// Chapter 4's default natively: collapse and recovery ([`native_lm`]).
    pub native_lm: Option<LmTiming>,
    /// Chapter 3's default natively: the verb-loss drop and the subject → verb onset ([`native_syntax`]).
    pub native_syntax: Option<SyntaxTiming>,
    /// `perf report` of the paper step natively on one thread with the page's CPU backend, as
    /// (share %, symbol) ([`parse_perf_report`]), or why there is none.
    pub native_profile: Option<Result<Vec<(f64, String)>, String>>,
    /// The adapters wgpu finds natively (the native wgpu rows run on the default one).
    pub adapters: Vec<plateau::backend::Adapter>,
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

/// The report: tables, targets and the profile.
mod report;
pub use report::report;
mod gpu;
pub use gpu::*;
mod workers;
pub use workers::*;
mod engines;
pub use engines::*;
mod copy;
pub use copy::*;
mod cpu;
pub use cpu::*;
mod fusion;
pub use fusion::*;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_builds;
