//! The WebGPU adapter probe and the backend choice, in the page's view as well as in the engines:
//! the training worker asks first, then fetches the engine the choice needs (`engine`: the WebGPU
//! engine, `www/pkg`, only where WebGPU may train; the CPU engine, `www/pkg-cpu`, otherwise).

use super::to_js;
use js_sys::{Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

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
    /// The engine to fetch: `"webgpu"` when WebGPU may train (chosen or raced), else `"cpu"`.
    pub engine: String,
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
    let engine = if backend == "webgpu" || race { "webgpu" } else { "cpu" };
    BackendChoice { backend: backend.to_string(), reason, adapter: info, race, engine: engine.to_string() }
}

/// Probes the adapter and returns the [`BackendChoice`] as a JS object.
#[wasm_bindgen(js_name = chooseBackend)]
pub async fn choose_backend(override_: String) -> JsValue {
    to_js(&choose(probe_adapter().await, &override_))
}
