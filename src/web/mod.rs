//! The only JavaScript-facing surface (wasm only): a training [`Session`] for the worker, the
//! WebGPU adapter probe and backend choice, and the chart drawing entry points for the page.
//!
//! The engine never touches the DOM; this module only converts between JS values and the
//! engine's types, and draws what the page hands it.

pub mod charts;

use crate::config::{ParamSpec, RunConfig, PARAMS};
use crate::run::Run;
use crate::train::Status;
use burn::tensor::wgpu::WgpuBackend;
use burn::tensor::Device;
use js_sys::{Promise, Reflect};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

#[cfg(target_family = "wasm")]
unsafe extern "C" {
    /// The linker's constructor runner (static registrations of the `inventory` crate, used by
    /// cubecl). Calling it once here keeps the linker from calling it again at the top of every
    /// exported function, which cost about 1 ms per call from JavaScript.
    fn __wasm_call_ctors();
}

/// Runs the static constructors exactly once per instance. The start function calls it; so does
/// everything that needs the registrations (the WebGPU setup), because a host that does not run
/// the start function (the wasm-bindgen test runner) would otherwise find them missing.
pub fn ensure_constructors() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: guarded to run once per instance; the constructors are the static
        // registrations of the `inventory` crate and touch no other state.
        #[cfg(target_family = "wasm")]
        unsafe {
            __wasm_call_ctors();
        }
    });
}

/// Runs the static constructors and installs the panic hook so that a Rust panic reaches the
/// console (and the page's error handler) as a readable message.
#[wasm_bindgen(start)]
pub fn start() {
    ensure_constructors();
    console_error_panic_hook::set_once();
}

fn js_err(msg: impl std::fmt::Display) -> JsValue {
    JsValue::from(js_sys::Error::new(&msg.to_string()))
}

fn to_js<T: Serialize>(v: &T) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

/// What the WebGPU probe found.
#[derive(Serialize, Clone, Debug)]
pub struct AdapterInfo {
    /// `navigator.gpu` exists.
    pub api: bool,
    /// `requestAdapter()` returned an adapter.
    pub adapter: bool,
    /// The adapter is a software fallback (SwiftShader).
    pub fallback: bool,
    /// `adapter.info.architecture` (e.g. "swiftshader").
    pub architecture: String,
    /// `adapter.info.vendor`.
    pub vendor: String,
}

/// Asks the browser for a WebGPU adapter (works on the main thread and in workers) and reads
/// whether it is a software fallback. Never throws: a missing API or a rejected request is a
/// field of the answer.
pub async fn probe_adapter() -> AdapterInfo {
    let mut info =
        AdapterInfo { api: false, adapter: false, fallback: false, architecture: String::new(), vendor: String::new() };
    let global = js_sys::global();
    let Ok(nav) = Reflect::get(&global, &"navigator".into()) else { return info };
    let Ok(gpu) = Reflect::get(&nav, &"gpu".into()) else { return info };
    if gpu.is_undefined() || gpu.is_null() {
        return info;
    }
    info.api = true;
    let Ok(request) = Reflect::get(&gpu, &"requestAdapter".into()).and_then(|f| f.dyn_into::<js_sys::Function>())
    else {
        return info;
    };
    let Ok(promise) = request.call0(&gpu).and_then(|p| p.dyn_into::<Promise>()) else { return info };
    let Ok(adapter) = JsFuture::from(promise).await else { return info };
    if adapter.is_null() || adapter.is_undefined() {
        return info;
    }
    info.adapter = true;
    let get_str =
        |o: &JsValue, k: &str| Reflect::get(o, &k.into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    let get_bool = |o: &JsValue, k: &str| Reflect::get(o, &k.into()).ok().and_then(|v| v.as_bool()).unwrap_or(false);
    let details = Reflect::get(&adapter, &"info".into()).unwrap_or(JsValue::UNDEFINED);
    if !details.is_undefined() {
        info.architecture = get_str(&details, "architecture");
        info.vendor = get_str(&details, "vendor");
        info.fallback = get_bool(&details, "isFallbackAdapter");
    }
    info.fallback |=
        get_bool(&adapter, "isFallbackAdapter") || info.architecture.to_lowercase().contains("swiftshader");
    info
}

/// The backend decision and the sentence that explains it to the reader.
#[derive(Serialize, Clone, Debug)]
pub struct BackendChoice {
    /// `"webgpu"` or `"cpu"`: the backend to train on, or, when `race` is set, the one to try
    /// first.
    pub backend: String,
    /// Why, in words.
    pub reason: String,
    /// The probe's findings.
    pub adapter: AdapterInfo,
    /// Whether the worker should time both backends and train on the faster
    /// ([`crate::race`]): a hardware adapter without an override, or `backend=race`.
    pub race: bool,
}

/// Chooses the backend: a hardware WebGPU adapter → a race of WebGPU against the CPU on the
/// reader's model ([`crate::race`]); no API, no adapter or a software adapter → the wasm CPU
/// backend. `override_` (`"webgpu"`, `"cpu"`, `"race"` or `""`) wins when it can: `"race"` races
/// on any adapter, software ones included (the end-to-end tests race on SwiftShader).
pub fn choose(info: AdapterInfo, override_: &str) -> BackendChoice {
    let vendor = if info.vendor.is_empty() { "unknown vendor".to_string() } else { info.vendor.clone() };
    let (backend, reason, race) = match override_ {
        "cpu" => ("cpu", "CPU backend requested in the URL (backend=cpu).".to_string(), false),
        "webgpu" if info.adapter => (
            "webgpu",
            format!("WebGPU requested in the URL (backend=webgpu){}.", if info.fallback { "; note: this adapter is a software fallback, slower than the CPU backend" } else { "" }),
            false,
        ),
        "webgpu" => ("cpu", "WebGPU was requested, but this browser offers no WebGPU adapter: using the CPU backend.".to_string(), false),
        "race" if info.adapter => (
            "webgpu",
            format!("Race requested in the URL (backend=race): timing WebGPU ({}) against the CPU on this model.", if info.fallback { "a software adapter" } else { vendor.as_str() }),
            true,
        ),
        "race" => ("cpu", "A race was requested, but this browser offers no WebGPU adapter: using the CPU backend.".to_string(), false),
        _ if !info.api => ("cpu", "This browser has no WebGPU: training runs on the CPU backend (WebAssembly).".to_string(), false),
        _ if !info.adapter => ("cpu", "WebGPU is present but returned no adapter: training runs on the CPU backend.".to_string(), false),
        _ if info.fallback => (
            "cpu",
            format!(
                "Only a software WebGPU adapter ({}) is available, which is far slower than the CPU backend: training runs on the CPU.",
                if info.architecture.is_empty() { "fallback" } else { info.architecture.as_str() }
            ),
            false,
        ),
        _ => ("webgpu", format!("A hardware WebGPU adapter ({vendor}) was found: timing it against the CPU on this model."), true),
    };
    BackendChoice { backend: backend.to_string(), reason, adapter: info, race }
}

/// The race's settings: `{warmup, budgetMs, maxSteps}` ([`crate::race`]).
#[wasm_bindgen(js_name = raceSettings)]
pub fn race_settings() -> JsValue {
    let o = js_sys::Object::new();
    let set = |k: &str, v: f64| Reflect::set(&o, &k.into(), &v.into()).ok();
    set("warmup", crate::race::WARMUP_STEPS as f64);
    set("budgetMs", crate::race::BUDGET_MS);
    set("maxSteps", crate::race::MAX_STEPS as f64);
    o.into()
}

/// The config a race or the bench times ([`crate::race::timing_config`]).
#[wasm_bindgen(js_name = timingConfig)]
pub fn timing_config(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    Ok(to_js(&crate::race::timing_config(&cfg)))
}

/// What sets a step's cost ([`crate::race::cost_key`]): the worker races again when it changes.
#[wasm_bindgen(js_name = costKey)]
pub fn cost_key(config: JsValue) -> Result<String, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    Ok(crate::race::cost_key(&cfg))
}

/// The race's decision ([`crate::race::verdict`]): `webgpu_ms` WebGPU's ms/step, or
/// `webgpu_error` why it could not be timed; `cpu_ms` the CPU's. Returns `{backend, reason,
/// webgpu_ms, cpu_ms}`.
#[wasm_bindgen(js_name = raceVerdict)]
pub fn race_verdict(webgpu_ms: Option<f64>, webgpu_error: Option<String>, cpu_ms: f64) -> JsValue {
    let webgpu = match (webgpu_ms, webgpu_error) {
        (_, Some(e)) => Err(e),
        (Some(w), None) => Ok(w),
        (None, None) => Err("not timed".to_string()),
    };
    to_js(&crate::race::verdict(webgpu, cpu_ms))
}

thread_local! {
    static WEBGPU: RefCell<Option<Device>> = const { RefCell::new(None) };
}

/// Drops the cached WebGPU device (after it failed), so the next WebGPU run sets up a new one.
#[wasm_bindgen(js_name = forgetWebgpu)]
pub fn forget_webgpu() {
    WEBGPU.with(|w| *w.borrow_mut() = None);
}

/// The browser's WebGPU device, set up once per page or worker and cached.
pub async fn webgpu_device() -> Result<Device, String> {
    ensure_constructors();
    if let Some(d) = WEBGPU.with(|w| w.borrow().clone()) {
        return Ok(d);
    }
    let device =
        Device::wgpu_options().graphics_api(WgpuBackend::WebGpu).init_async().await.map_err(|e| format!("{e:?}"))?;
    WEBGPU.with(|w| *w.borrow_mut() = Some(device.clone()));
    Ok(device)
}

/// Probes the adapter and returns the [`BackendChoice`] as a JS object.
#[wasm_bindgen(js_name = chooseBackend)]
pub async fn choose_backend(override_: String) -> JsValue {
    to_js(&choose(probe_adapter().await, &override_))
}

/// The parameter schema the page builds its controls from: `[{key, doc, kind, min, max, log,
/// choices, live, chapters, control}]`, `control` the page's control ([`crate::config::Control`])
/// or null.
#[wasm_bindgen(js_name = paramSchema)]
pub fn param_schema() -> JsValue {
    #[derive(Serialize)]
    struct P {
        key: &'static str,
        doc: &'static str,
        kind: &'static str,
        min: f64,
        max: f64,
        log: bool,
        choices: Vec<&'static str>,
        live: bool,
        chapters: &'static [u8],
        control: Option<crate::config::Control>,
    }
    let rows: Vec<P> = PARAMS
        .iter()
        .map(|p: &ParamSpec| {
            let (kind, min, max, log, choices) = match p.kind {
                crate::config::Kind::Int { min, max } => ("int", min as f64, max as f64, false, vec![]),
                crate::config::Kind::Float { min, max, log } => ("float", min, max, log, vec![]),
                crate::config::Kind::Choice(c) => ("choice", 0.0, 0.0, false, c.to_vec()),
            };
            P {
                key: p.key,
                doc: p.doc,
                kind,
                min,
                max,
                log,
                choices,
                live: p.live,
                chapters: p.chapters,
                control: p.control,
            }
        })
        .collect();
    to_js(&rows)
}

/// Parses a URL query (`a=1&b=2`, leading `?` optional) into a config: `{config, pairs,
/// notices}` where `notices` name every rejected value and the safe value used instead.
#[wasm_bindgen(js_name = parseQuery)]
pub fn parse_query(query: String) -> JsValue {
    let (cfg, mut notices) = config_from_query(&query);
    notices.extend(crate::config::query_notices(&query));
    #[derive(Serialize)]
    struct Out {
        config: RunConfig,
        values: Vec<(String, String)>,
        non_default: Vec<(String, String)>,
        notices: Vec<String>,
    }
    let values = PARAMS.iter().map(|p| (p.key.to_string(), cfg.get(p.key).unwrap())).collect();
    to_js(&Out { non_default: cfg.non_default_pairs(), values, config: cfg, notices })
}

/// A config from a query string ([`crate::config::from_query`]) with the notices as text.
pub fn config_from_query(query: &str) -> (RunConfig, Vec<String>) {
    let (cfg, notices) = crate::config::from_query(query);
    (cfg, notices.into_iter().map(|e| e.to_string()).collect())
}

struct Inner {
    trainer: Run,
    sent_rows: usize,
    sent_snaps: usize,
}

/// A training run driven from JavaScript (normally inside the Web Worker).
#[wasm_bindgen]
pub struct Session {
    inner: Rc<RefCell<Inner>>,
    backend: String,
}

/// What one chunk of training produced (rows and snapshots of the run's chapter).
#[derive(Serialize)]
struct Chunk<'a, R, S> {
    step: usize,
    steps: usize,
    status: &'static str,
    message: String,
    rows: &'a [R],
    snapshots: &'a [S],
}

/// The rows and snapshots of `h` not sent yet, as a chunk; updates the sent counters.
fn chunk<R: Serialize, S: Serialize>(
    h: &crate::history::History<R, S>,
    sent: (&mut usize, &mut usize),
    head: (usize, usize, &'static str, String),
) -> JsValue {
    // Thinning can shorten the lists; then resend from the start of what is kept.
    let rs = if *sent.0 > h.rows.len() { 0 } else { *sent.0 };
    let ss = if *sent.1 > h.snapshots.len() { 0 } else { *sent.1 };
    let (step, steps, status, message) = head;
    let out = to_js(&Chunk { step, steps, status, message, rows: &h.rows[rs..], snapshots: &h.snapshots[ss..] });
    *sent.0 = h.rows.len();
    *sent.1 = h.snapshots.len();
    out
}

#[wasm_bindgen]
impl Session {
    /// Creates a run from a config (a JS object as produced by `parseQuery(...).config`) on
    /// `backend`: `"webgpu"`, `"cpu"` (the project's CPU backend), or a named CPU backend
    /// (`"flex"`, `"ndarray"`) when this build has it. Rejects an invalid config or an
    /// unavailable device.
    pub async fn create(config: JsValue, backend: String) -> Result<Session, JsValue> {
        let cfg: RunConfig =
            serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
        let device = match backend.as_str() {
            "webgpu" => webgpu_device().await.map_err(|e| js_err(format!("WebGPU device setup failed: {e}")))?,
            // A named CPU backend (the bench compares them); "cpu" is the project's choice.
            "flex" | "ndarray" => {
                crate::backend::device(crate::backend::BackendKind::parse(&backend).unwrap_or(crate::backend::CPU))
            }
            _ => crate::backend::cpu_device(),
        };
        let trainer = Run::new(cfg, &device).map_err(js_err)?;
        Ok(Session { inner: Rc::new(RefCell::new(Inner { trainer, sent_rows: 0, sent_snaps: 0 })), backend })
    }

    /// `"webgpu"` or `"cpu"`.
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.backend.clone()
    }

    /// Parameter count of the model.
    #[wasm_bindgen(js_name = paramCount)]
    pub fn param_count(&self) -> usize {
        self.inner.borrow().trainer.param_count()
    }

    /// Ω of the task, `[[query, key], …]`, for outlining the attention map.
    pub fn omega(&self) -> JsValue {
        let inner = self.inner.borrow();
        let cfg = inner.trainer.config();
        to_js(&crate::chapters::plateau::data::omega(cfg.experiment, cfg.n))
    }

    /// Trains until `budget_ms` of wall time has passed or `max_steps` steps are done, whichever
    /// comes first (at least one step). Resolves to `{step, steps, status, message, rows,
    /// snapshots}` with the rows and snapshots recorded since the last call. Do not call other
    /// methods while the promise is pending.
    #[wasm_bindgen(js_name = runFor)]
    // The borrow is held across awaits on purpose: the worker never calls in while a chunk runs,
    // and the other methods use `try_borrow_mut`, which reports "session is busy" instead of
    // panicking.
    #[allow(clippy::await_holding_refcell_ref)]
    pub fn run_for(&self, budget_ms: f64, max_steps: u32) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into())
                .ok()
                .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
            let now = || perf.as_ref().map_or_else(js_sys::Date::now, |p| p.now());
            let start = now();
            let mut guard = inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?;
            let mut done = 0;
            loop {
                let status = guard.trainer.advance().await;
                done += 1;
                if status != Status::Running || done >= max_steps.max(1) || now() - start >= budget_ms {
                    break;
                }
            }
            // One wait for the steps queued since the last evaluation (on WebGPU they were only
            // enqueued): the chunk's time is the GPU's too, and a divergence shows now.
            guard.trainer.settle().await;
            let i = &mut *guard;
            let (status, message) = match i.trainer.status() {
                Status::Running => ("running", String::new()),
                Status::Finished => ("finished", String::new()),
                Status::Diverged(m) => ("diverged", m.clone()),
            };
            let head = (i.trainer.step(), i.trainer.config().steps, status, message);
            let sent = (&mut i.sent_rows, &mut i.sent_snaps);
            Ok(match &i.trainer {
                Run::Plateau(t) => chunk(&t.history, sent, head),
                Run::Anchors(t) => chunk(&t.history, sent, head),
                Run::Syntax(t) => chunk(&t.history, sent, head),
                Run::Lm(t) => chunk(&t.history, sent, head),
            })
        })
    }

    /// Changes a live parameter (`c`, `c-from`, `lr`, `steps`, `eval-every`,
    /// `snapshot-every`); throws with a message naming the parameter and range otherwise.
    #[wasm_bindgen(js_name = setParam)]
    pub fn set_param(&self, key: String, value: String) -> Result<(), JsValue> {
        self.inner
            .try_borrow_mut()
            .map_err(|_| js_err("session is busy"))?
            .trainer
            .set_live(&key, &value)
            .map_err(js_err)
    }

    /// Fault injection for the end-to-end tests: `"diverge"` sets an infinite learning rate, so
    /// the next update makes the weights non-finite and the step after reports divergence;
    /// `"panic"` panics inside the engine (a wasm trap, after which this instance is unusable).
    #[wasm_bindgen(js_name = testHook)]
    pub fn test_hook(&self, what: String) -> Result<(), JsValue> {
        match what.as_str() {
            "diverge" => {
                self.inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?.trainer.force_lr(f64::INFINITY);
                Ok(())
            }
            // A failure inside the engine (a Rust panic is a wasm trap), for the page's recovery test.
            // It panics with the session borrowed, as a failure mid-step would leave it.
            "panic" => {
                let _held = self.inner.borrow_mut();
                panic!("test hook: a panic inside the engine")
            }
            other => Err(js_err(format!("unknown test hook {other:?}"))),
        }
    }

    /// The metric rows as CSV (the CLI's columns for the run's chapter).
    pub fn csv(&self) -> String {
        self.inner.borrow().trainer.csv()
    }

    /// The config in force, as JSON.
    #[wasm_bindgen(js_name = configJson)]
    pub fn config_json(&self) -> String {
        serde_json::to_string_pretty(self.inner.borrow().trainer.config()).unwrap_or_default()
    }
}

/// Hands the engine chapter 4's corpus text (the worker fetches `data/moby-dick.txt` once before
/// its first chapter 4 run; see [`crate::chapters::lm::corpus::install`]).
#[wasm_bindgen(js_name = installCorpus)]
pub fn install_corpus(text: String) {
    crate::chapters::lm::corpus::install(text);
}

/// Whether chapter 4's corpus is loaded in this instance.
#[wasm_bindgen(js_name = corpusLoaded)]
pub fn corpus_loaded() -> bool {
    crate::chapters::lm::corpus::available()
}

/// Chapter 4's reference levels for the loss chart and the paper's marks: `{unigram_loss,
/// pythia_init: [lo, hi], olmo2: [[step, cos], …], collapsed}`, or `undefined` before the corpus
/// is loaded.
#[wasm_bindgen(js_name = lmReference)]
pub fn lm_reference() -> JsValue {
    use crate::chapters::lm::{corpus, summary};
    let Ok(c) = corpus::corpus() else { return JsValue::UNDEFINED };
    #[derive(Serialize)]
    struct Reference {
        unigram_loss: f64,
        pythia_init: (f64, f64),
        olmo2: [(usize, f64); 2],
        collapsed: f64,
    }
    to_js(&Reference {
        unigram_loss: c.unigram_loss(),
        pythia_init: summary::PYTHIA_INIT,
        olmo2: summary::OLMO2,
        collapsed: summary::COLLAPSED,
    })
}

/// Chapter 4's course of a run from its rows (see [`crate::chapters::lm::summary::Course`]):
/// `{init, peak: [value, step], collapsed, recovered, last: [value, step], …}` or `undefined`.
#[wasm_bindgen(js_name = lmCourse)]
pub fn lm_course(rows: JsValue) -> JsValue {
    #[derive(Serialize)]
    struct Out {
        init: f64,
        peak: (f64, usize),
        collapsed: Option<usize>,
        recovered: Option<usize>,
        last: (f64, usize),
        peak_repetition: (f64, usize),
    }
    let rows: Vec<crate::chapters::lm::LmRow> = serde_wasm_bindgen::from_value(rows).unwrap_or_default();
    match crate::chapters::lm::summary::course(&rows) {
        Some(c) => to_js(&Out {
            init: c.init,
            peak: c.peak,
            collapsed: c.collapsed,
            recovered: c.recovered,
            last: c.last,
            peak_repetition: c.peak_repetition,
        }),
        None => JsValue::UNDEFINED,
    }
}

/// The live summary sentence of a curve (`points: [[step, value], …]`), see
/// [`crate::report::series_summary`].
#[wasm_bindgen(js_name = seriesSummary)]
pub fn series_summary(label: String, points: JsValue, digits: usize) -> String {
    let points: Vec<(f64, f64)> = serde_wasm_bindgen::from_value(points).unwrap_or_default();
    crate::report::series_summary(&label, &points, digits)
}

/// A curve's band over several seeds ([`crate::seeds::band`]): `runs` holds one
/// `[[step, value], …]` per seed; returns `{median, lo, hi, count}` (each a list in step order).
#[wasm_bindgen(js_name = seedBand)]
pub fn seed_band(runs: JsValue) -> JsValue {
    let runs: Vec<Vec<(f64, f64)>> = serde_wasm_bindgen::from_value(runs).unwrap_or_default();
    to_js(&crate::seeds::band(&runs))
}

/// The seeds' summary of one chapter's runs (`runs`: one row array per seed), one sentence of
/// medians and ranges ([`crate::seeds::summary_sentence`]), or `undefined` for an unknown chapter
/// or rows that do not read.
#[wasm_bindgen(js_name = seedsSummary)]
pub fn seeds_summary(experiment: String, runs: JsValue) -> Option<String> {
    use crate::config::Task;
    let measures: Vec<Vec<crate::seeds::Measure>> = match Task::parse(&experiment)? {
        Task::Mws | Task::PrefixSum => serde_wasm_bindgen::from_value::<Vec<Vec<_>>>(runs)
            .ok()?
            .iter()
            .map(|r: &Vec<_>| crate::seeds::plateau_measures(r))
            .collect(),
        Task::Anchors => serde_wasm_bindgen::from_value::<Vec<Vec<_>>>(runs)
            .ok()?
            .iter()
            .map(|r: &Vec<_>| crate::seeds::anchors_measures(r))
            .collect(),
        Task::Syntax => serde_wasm_bindgen::from_value::<Vec<Vec<_>>>(runs)
            .ok()?
            .iter()
            .map(|r: &Vec<_>| crate::seeds::syntax_measures(r))
            .collect(),
        Task::Lm => serde_wasm_bindgen::from_value::<Vec<Vec<_>>>(runs)
            .ok()?
            .iter()
            .map(|r: &Vec<_>| crate::seeds::lm_measures(r))
            .collect(),
    };
    Some(crate::seeds::summary_sentence(&measures))
}

/// Work on a run's rows that needs their chapter's row type (its columns and how a row reads).
trait WithRows {
    fn with<R: crate::history::Row + serde::de::DeserializeOwned>(self, cfg: &RunConfig) -> Result<String, JsValue>;
}

/// Reads `config` and calls `work` with the row type of its chapter.
fn by_chapter(config: JsValue, work: impl WithRows) -> Result<String, JsValue> {
    use crate::chapters::{anchors::AnchorRow, lm::LmRow, plateau::MetricRow, syntax::SyntaxRow};
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    match cfg.experiment.chapter() {
        2 => work.with::<AnchorRow>(&cfg),
        3 => work.with::<SyntaxRow>(&cfg),
        4 => work.with::<LmRow>(&cfg),
        _ => work.with::<MetricRow>(&cfg),
    }
}

/// One CSV of several seeds' rows of a run of `config` (`runs`: `[{seed, rows}, …]`), the `seed`
/// column first ([`crate::history::to_csv_seeded`]): the text `plateau run --seeds` writes.
#[wasm_bindgen(js_name = seedsCsv)]
pub fn seeds_csv(config: JsValue, runs: JsValue) -> Result<String, JsValue> {
    struct Seeded(JsValue);
    impl WithRows for Seeded {
        fn with<R: crate::history::Row + serde::de::DeserializeOwned>(
            self,
            cfg: &RunConfig,
        ) -> Result<String, JsValue> {
            #[derive(serde::Deserialize)]
            struct Run<R> {
                seed: u64,
                rows: Vec<R>,
            }
            let runs: Vec<Run<R>> =
                serde_wasm_bindgen::from_value(self.0).map_err(|e| js_err(format!("invalid seed rows: {e}")))?;
            let runs: Vec<(u64, &[R])> = runs.iter().map(|r| (r.seed, r.rows.as_slice())).collect();
            Ok(crate::history::to_csv_seeded(&R::columns(cfg), &runs))
        }
    }
    by_chapter(config, Seeded(runs))
}

/// The CSV of a run's rows as the page holds them (`rows`, the rows the worker sent), with the
/// columns of `config`'s chapter: the text the CLI writes for the same rows. The page's *Download
/// CSV* uses it, so the rows on screen stay downloadable even after the worker's engine failed.
#[wasm_bindgen(js_name = rowsCsv)]
pub fn rows_csv(config: JsValue, rows: JsValue) -> Result<String, JsValue> {
    struct Plain(JsValue);
    impl WithRows for Plain {
        fn with<R: crate::history::Row + serde::de::DeserializeOwned>(
            self,
            cfg: &RunConfig,
        ) -> Result<String, JsValue> {
            let rows: Vec<R> =
                serde_wasm_bindgen::from_value(self.0).map_err(|e| js_err(format!("invalid rows: {e}")))?;
            Ok(crate::history::to_csv(&R::columns(cfg), &rows))
        }
    }
    by_chapter(config, Plain(rows))
}

/// The first recorded step with test accuracy ≥ 0.5 (the drop), or `undefined`.
#[wasm_bindgen(js_name = dropStep)]
pub fn drop_step(rows: JsValue) -> Option<usize> {
    let rows: Vec<crate::chapters::plateau::MetricRow> = serde_wasm_bindgen::from_value(rows).ok()?;
    crate::chapters::plateau::summary::first_step(&rows, |r| r.test_acc >= crate::chapters::plateau::summary::DROP_ACC)
}

/// Chapter 3's onsets from its rows: `{structure, drop}`, the steps of the steepest UAS rise and
/// of the steepest held-out loss fall (each `undefined` when there is none), see
/// [`crate::chapters::syntax::metrics::structure_onset`].
#[wasm_bindgen(js_name = syntaxOnsets)]
pub fn syntax_onsets(rows: JsValue) -> JsValue {
    let rows: Vec<crate::chapters::syntax::SyntaxRow> = serde_wasm_bindgen::from_value(rows).unwrap_or_default();
    to_js(&crate::chapters::syntax::onsets(&rows))
}

/// Chapter 2's held-out answer from its rows: `{answer, step}`, the answer of the last row
/// (`"inferential"`, `"symmetric"` or `"neither"`, [`crate::chapters::anchors::summary::Answer::of`]) and the step
/// since which it has held ([`crate::chapters::anchors::summary::answer_step`]; `undefined` for `"neither"`), or
/// `undefined` without rows.
#[wasm_bindgen(js_name = heldoutAnswer)]
pub fn heldout_answer(rows: JsValue) -> JsValue {
    let rows: Vec<crate::chapters::anchors::AnchorRow> = serde_wasm_bindgen::from_value(rows).unwrap_or_default();
    let Some(last) = rows.last() else { return JsValue::UNDEFINED };
    #[derive(serde::Serialize)]
    struct Verdict {
        answer: &'static str,
        step: Option<usize>,
    }
    to_js(&Verdict {
        answer: crate::chapters::anchors::summary::Answer::of(last.acc_inferential, last.acc_symmetric).name(),
        step: crate::chapters::anchors::summary::answer_step(&rows),
    })
}

/// One line with a run's key numbers from its rows (see [`crate::chapters::plateau::summary::headline_plateau`]
/// and its siblings), or `undefined` when there are none.
#[wasm_bindgen(js_name = runHeadline)]
pub fn run_headline(experiment: String, rows: JsValue) -> Option<String> {
    use crate::config::Task;
    match Task::parse(&experiment)? {
        Task::Mws | Task::PrefixSum => {
            crate::chapters::plateau::summary::headline_plateau(&serde_wasm_bindgen::from_value::<Vec<_>>(rows).ok()?)
        }
        Task::Anchors => {
            crate::chapters::anchors::summary::headline_anchors(&serde_wasm_bindgen::from_value::<Vec<_>>(rows).ok()?)
        }
        Task::Syntax => {
            crate::chapters::syntax::summary::headline_syntax(&serde_wasm_bindgen::from_value::<Vec<_>>(rows).ok()?)
        }
        Task::Lm => crate::chapters::lm::summary::headline_lm(&serde_wasm_bindgen::from_value::<Vec<_>>(rows).ok()?),
    }
}

/// The URL query that reproduces a config (`v=1` and its non-default values).
#[wasm_bindgen(js_name = configQuery)]
pub fn config_query(config: JsValue) -> Result<String, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    Ok(crate::config::to_query(&cfg))
}

/// A config as JSON that [`parse_config_json`] reads back.
#[wasm_bindgen(js_name = configJson)]
pub fn config_json(config: JsValue) -> Result<String, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    Ok(crate::config::to_json(&cfg))
}

/// Reads a config JSON file leniently: `{config, notices}`; throws with a message when the text
/// is not a JSON object.
#[wasm_bindgen(js_name = parseConfigJson)]
pub fn parse_config_json(text: String) -> Result<JsValue, JsValue> {
    let (config, notices) = crate::config::from_json(&text).map_err(js_err)?;
    #[derive(Serialize)]
    struct Out {
        config: RunConfig,
        notices: Vec<String>,
    }
    Ok(to_js(&Out { config, notices }))
}

/// A chart as an SVG document (`kind`: `lines`, `heatmap`, `scatter` or `arcs`; `spec` as for the
/// canvas), `width × height` pixels: the vector export of every chart's *SVG* button.
#[wasm_bindgen(js_name = chartSvg)]
pub fn chart_svg(kind: String, spec: JsValue, width: u32, height: u32) -> Result<String, JsValue> {
    let bad = |e: serde_wasm_bindgen::Error| js_err(format!("{kind} spec: {e}"));
    match kind.as_str() {
        "lines" => charts::lines_svg(&serde_wasm_bindgen::from_value(spec).map_err(bad)?, width, height),
        "heatmap" => charts::heatmap_svg(&serde_wasm_bindgen::from_value(spec).map_err(bad)?, width, height),
        "scatter" => charts::scatter_svg(&serde_wasm_bindgen::from_value(spec).map_err(bad)?, width, height),
        "arcs" => charts::arcs_svg(&serde_wasm_bindgen::from_value(spec).map_err(bad)?, width, height),
        other => return Err(js_err(format!("unknown chart kind {other:?} (lines, heatmap, scatter, arcs)"))),
    }
    .map_err(js_err)
}

/// Draws a line chart (see [`charts::LineSpec`]); throws on a malformed spec.
#[wasm_bindgen(js_name = drawLines)]
pub fn draw_lines(canvas: web_sys::HtmlCanvasElement, spec: JsValue) -> Result<(), JsValue> {
    let spec: charts::LineSpec =
        serde_wasm_bindgen::from_value(spec).map_err(|e| js_err(format!("line chart spec: {e}")))?;
    charts::draw_lines(canvas, &spec).map_err(js_err)
}

/// Draws a heatmap (see [`charts::HeatSpec`]); throws on a malformed spec.
#[wasm_bindgen(js_name = drawHeatmap)]
pub fn draw_heatmap(canvas: web_sys::HtmlCanvasElement, spec: JsValue) -> Result<(), JsValue> {
    let spec: charts::HeatSpec =
        serde_wasm_bindgen::from_value(spec).map_err(|e| js_err(format!("heatmap spec: {e}")))?;
    charts::draw_heatmap(canvas, &spec).map_err(js_err)
}

/// Draws a scatter plot (see [`charts::ScatterSpec`]); throws on a malformed spec.
#[wasm_bindgen(js_name = drawScatter)]
pub fn draw_scatter(canvas: web_sys::HtmlCanvasElement, spec: JsValue) -> Result<(), JsValue> {
    let spec: charts::ScatterSpec =
        serde_wasm_bindgen::from_value(spec).map_err(|e| js_err(format!("scatter spec: {e}")))?;
    charts::draw_scatter(canvas, &spec).map_err(js_err)
}

/// Draws a sentence with its gold arcs and one head's attention arcs (see [`charts::ArcSpec`]).
#[wasm_bindgen(js_name = drawArcs)]
pub fn draw_arcs(canvas: web_sys::HtmlCanvasElement, spec: JsValue) -> Result<(), JsValue> {
    let spec: charts::ArcSpec = serde_wasm_bindgen::from_value(spec).map_err(|e| js_err(format!("arc spec: {e}")))?;
    charts::draw_arcs(canvas, &spec).map_err(js_err)
}
