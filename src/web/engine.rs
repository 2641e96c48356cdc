//! What only the training worker needs (the `engine` feature): a training [`Session`], the
//! WebGPU device (with the `wgpu` feature), the race's entry points, chapter 4's corpus.

#[cfg(feature = "wgpu")]
use super::ensure_constructors;
use super::{js_err, to_js};
use crate::config::RunConfig;
use crate::run::Run;
use crate::train::Status;
#[cfg(feature = "wgpu")]
use burn::tensor::wgpu::WgpuBackend;
use burn::tensor::Device;
use js_sys::{Promise, Reflect};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

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

/// Which engine this build is: `"webgpu"` (the `wgpu` feature: WebGPU and the CPU backend) or
/// `"cpu"` (the CPU backend only, the smaller download for readers without a hardware adapter).
#[wasm_bindgen(js_name = engineKind)]
pub fn engine_kind() -> String {
    (if cfg!(feature = "wgpu") { "webgpu" } else { "cpu" }).to_string()
}

/// The browser's WebGPU device: none in the CPU engine (built without the `wgpu` feature).
#[cfg(not(feature = "wgpu"))]
pub async fn webgpu_device() -> Result<Device, String> {
    Err("this engine was built without WebGPU (the CPU engine)".to_string())
}

/// The browser's WebGPU device, set up once per page or worker and cached.
#[cfg(feature = "wgpu")]
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

/// What one chunk of training produced (rows and snapshots of the run's chapter), with the run's
/// events in every row recorded so far ([`crate::view::View::events`]).
#[derive(Serialize)]
struct Chunk<'a, R: crate::view::View, S> {
    step: usize,
    steps: usize,
    status: &'static str,
    message: String,
    rows: &'a [R],
    snapshots: &'a [S],
    events: R::Events,
}

/// The rows and snapshots of `h` not sent yet, as a chunk with the run's events in all its rows
/// ([`crate::view::View::events`]); updates the sent counters.
fn chunk<R: crate::view::View, S: Serialize>(
    h: &crate::history::History<R, S>,
    sent: (&mut usize, &mut usize),
    head: (usize, usize, &'static str, String),
) -> JsValue {
    let events = R::events(&h.rows);
    // Thinning can shorten the lists; then resend from the start of what is kept.
    let rs = if *sent.0 > h.rows.len() { 0 } else { *sent.0 };
    let ss = if *sent.1 > h.snapshots.len() { 0 } else { *sent.1 };
    let (step, steps, status, message) = head;
    let out =
        to_js(&Chunk { step, steps, status, message, rows: &h.rows[rs..], snapshots: &h.snapshots[ss..], events });
    *sent.0 = h.rows.len();
    *sent.1 = h.snapshots.len();
    out
}

/// The device of a session on `backend`: `"webgpu"`, `"cpu"` (the project's CPU backend) or a
/// named CPU backend (`"flex"`, `"ndarray"`, which the bench compares) when this build has it.
async fn session_device(backend: &str) -> Result<Device, JsValue> {
    Ok(match backend {
        "webgpu" => webgpu_device().await.map_err(|e| js_err(format!("WebGPU device setup failed: {e}")))?,
        "flex" | "ndarray" => crate::backend::device(
            crate::backend::BackendKind::parse(backend)
                .ok_or_else(|| js_err(format!("this engine has no {backend} backend (a build without its feature)")))?,
        ),
        _ => crate::backend::cpu_device(),
    })
}

/// The chunk of what `i`'s run recorded since the last one (see [`chunk`]).
fn pending_chunk(i: &mut Inner) -> JsValue {
    let (status, message) = match i.trainer.status() {
        Status::Running => ("running", String::new()),
        Status::Finished => ("finished", String::new()),
        Status::Diverged(m) => ("diverged", m.clone()),
    };
    let head = (i.trainer.step(), i.trainer.config().steps, status, message);
    let sent = (&mut i.sent_rows, &mut i.sent_snaps);
    crate::run::each!(&i.trainer, t => chunk(&t.history, sent, head))
}

/// What a model file holds, without loading it: `{experiment, step, steps, config}` (the config
/// as the page's state takes it), or an error saying why the file cannot be loaded.
#[wasm_bindgen(js_name = modelFileInfo)]
pub fn model_file_info(bytes: Vec<u8>) -> Result<JsValue, JsValue> {
    let fail = |e: String| js_err(format!("This model file cannot be loaded: {e}."));
    let (header, [_, _, state]) = crate::train::checkpoint::read_file(&bytes).map_err(fail)?;
    #[derive(serde::Deserialize)]
    struct ConfigOnly {
        config: RunConfig,
    }
    let cfg = ciborium::from_reader::<ConfigOnly, _>(&state[..])
        .map_err(|e| fail(format!("its state is not readable ({e})")))?
        .config;
    cfg.validate().map_err(|e| fail(format!("its config is not valid here ({e})")))?;
    #[derive(Serialize)]
    struct Info {
        experiment: String,
        step: usize,
        steps: usize,
        config: RunConfig,
    }
    Ok(to_js(&Info { experiment: header.experiment, step: header.step, steps: header.steps, config: cfg }))
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
        let device = session_device(&backend).await?;
        let trainer = Run::new(cfg, &device).map_err(js_err)?;
        Ok(Session { inner: Rc::new(RefCell::new(Inner { trainer, sent_rows: 0, sent_snaps: 0 })), backend })
    }

    /// Continues the run saved in `bytes` (a file of [`Session::save_model`], from either backend)
    /// on `backend`; the first [`Session::flush`] or chunk carries its whole history. Rejects a
    /// file of another version or a damaged one with a message that says which.
    pub async fn load(bytes: Vec<u8>, backend: String) -> Result<Session, JsValue> {
        let device = session_device(&backend).await?;
        let trainer =
            Run::from_file(&bytes, &device).map_err(|e| js_err(format!("This model file cannot be loaded: {e}.")))?;
        Ok(Session { inner: Rc::new(RefCell::new(Inner { trainer, sent_rows: 0, sent_snaps: 0 })), backend })
    }

    /// The run as one file (config, step, weights, optimizer state, rows; see
    /// `train::checkpoint`): resolves to a `Uint8Array`. On WebGPU the weights are read back in
    /// one transaction (one wait for the GPU). Do not call other methods while it is pending.
    #[wasm_bindgen(js_name = saveModel)]
    #[allow(clippy::await_holding_refcell_ref)] // as in `run_for`: the worker never calls in meanwhile
    pub fn save_model(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let guard = inner.try_borrow().map_err(|_| js_err("session is busy"))?;
            let bytes = guard.trainer.save_file().await.map_err(js_err)?;
            Ok(js_sys::Uint8Array::from(&bytes[..]).into())
        })
    }

    /// The rows and snapshots not sent yet, as a chunk `{step, steps, status, message, rows,
    /// snapshots, events}` ([`crate::view::View::events`]), without training (a loaded run's history).
    pub fn flush(&self) -> Result<JsValue, JsValue> {
        let mut guard = self.inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?;
        Ok(pending_chunk(&mut guard))
    }

    /// Updates done.
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> usize {
        self.inner.borrow().trainer.step()
    }

    /// The backend the session was created on, as [`Session::create`] was given it: `"webgpu"`,
    /// `"cpu"` or a named CPU backend (`"ndarray"`, which the bench names).
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.backend.clone()
    }

    /// Parameter count of the model.
    #[wasm_bindgen(js_name = paramCount)]
    pub fn param_count(&self) -> usize {
        self.inner.borrow().trainer.param_count()
    }

    /// Ω of chapter 1's task, `[[query, key], …]`, for outlining the attention map (empty for the
    /// other chapters, which have no Ω).
    pub fn omega(&self) -> JsValue {
        use crate::chapters::plateau::data::{omega, SumTask};
        let inner = self.inner.borrow();
        let cfg = inner.trainer.config();
        to_js(&SumTask::try_from(cfg.experiment).map_or(vec![], |task| omega(task, cfg.plateau.n)))
    }

    /// Trains until `budget_ms` of wall time has passed or `max_steps` steps are done, whichever
    /// comes first (at least one step). Resolves to `{step, steps, status, message, rows,
    /// snapshots, events}` with the rows and snapshots recorded since the last call and the run's
    /// events in all its rows so far ([`crate::view::View::events`]). Do not call other
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
            Ok(pending_chunk(&mut guard))
        })
    }

    /// Slices of each step (the config's `shards`). With more than one, the page's workers share
    /// each step: [`Session::begin_step`] here, [`Session::shard_gradient`] for each slice on any
    /// replica, [`sum_gradients`] in slice order, [`Session::apply_gradient`] on every replica
    /// (see `train::shards`: the rows are the same for any number of workers).
    #[wasm_bindgen(getter)]
    pub fn shards(&self) -> usize {
        self.inner.borrow().trainer.config().shards
    }

    /// The first half of a sharded step: records the step's row when it is due (and finishes the
    /// run at its last step). Resolves to `true` when the step's slice gradients are wanted,
    /// `false` when the run stopped (its chunk says why: [`Session::flush`]).
    #[wasm_bindgen(js_name = beginStep)]
    #[allow(clippy::await_holding_refcell_ref)] // as in `run_for`
    pub fn begin_step(&self) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let mut guard = inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?;
            Ok(JsValue::from_bool(guard.trainer.begin_step().await == Status::Running))
        })
    }

    /// The gradient payload of slice `index` of the current step on this replica's weights, as
    /// a `Float32Array` (to post to the worker that sums).
    #[wasm_bindgen(js_name = shardGradient)]
    #[allow(clippy::await_holding_refcell_ref)] // as in `run_for`
    pub fn shard_gradient(&self, index: usize) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let mut guard = inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?;
            if index >= guard.trainer.config().shards {
                return Err(js_err(format!("no slice {index} in {} shards", guard.trainer.config().shards)));
            }
            let payload = guard.trainer.shard_gradient(index).await;
            Ok(js_sys::Float32Array::from(&payload[..]).into())
        })
    }

    /// Applies `sum` ([`sum_gradients`] of the step's payloads): one optimizer update, the step
    /// advances. Resolves to `true` while the run goes on, `false` when a non-finite value
    /// stopped it (diverged: the chunk says so); rejects a sum that does not fit this model.
    #[wasm_bindgen(js_name = applyGradient)]
    #[allow(clippy::await_holding_refcell_ref)] // as in `run_for`
    pub fn apply_gradient(&self, sum: Vec<f32>) -> Promise {
        let inner = self.inner.clone();
        future_to_promise(async move {
            let mut guard = inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?;
            let status = guard.trainer.apply_gradient(&sum).await.map_err(js_err)?;
            Ok(JsValue::from_bool(status == Status::Running))
        })
    }

    /// Changes a parameter the schema marks live (`live: true` in [`crate::config::PARAMS`]:
    /// `steps`, `c`, `c-from`, `lr`, `eval-every`, `snapshot-every`, `lambda`, `lambda-from`,
    /// `lambda-until`, `log-evals`); throws with a message naming the parameter and its range for
    /// a bad value, or naming the live parameters for any other key (the others apply at reset).
    #[wasm_bindgen(js_name = setParam)]
    pub fn set_param(&self, key: String, value: String) -> Result<(), JsValue> {
        let mut inner = self.inner.try_borrow_mut().map_err(|_| js_err("session is busy"))?;
        let change = crate::config::LiveChange::parse(inner.trainer.config(), &key, &value).map_err(js_err)?;
        inner.trainer.set_live(change);
        Ok(())
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

/// The sum of a step's slice payloads (`Float32Array`s, in slice order), as one
/// `Float32Array` ([`crate::train::shards::sum`]: added in that order, so the result does not
/// depend on which worker computed which slice).
#[wasm_bindgen(js_name = sumGradients)]
pub fn sum_gradients(parts: js_sys::Array) -> Result<js_sys::Float32Array, JsValue> {
    let parts: Vec<Vec<f32>> = parts.iter().map(|p| js_sys::Float32Array::from(p).to_vec()).collect();
    let refs: Vec<&[f32]> = parts.iter().map(Vec::as_slice).collect();
    let sum = crate::train::shards::sum(&refs).map_err(js_err)?;
    Ok(js_sys::Float32Array::from(&sum[..]))
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
