//! Backend choice. The engine is written once against burn's backend-erased `Tensor` API and
//! runs on whichever device it is handed.
//!
//! CPU: [`cpu_device`] is the backend chosen for the CPU path in both the CLI and the page, so
//! that the same seed gives the same rows in both. Measured on the interactive preset (training
//! step, 2-core machine, 2026-11-29): natively Flex 39.3 ms vs NdArray 37.8 ms per step; in
//! headless Chromium (release wasm, SIMD) Flex 239 ms vs NdArray 90 ms. NdArray wins in the
//! browser by 2.7× and ties natively, so it is the CPU backend, although burn 0.22 marks it
//! deprecated in favour of Flex; `plateau bench` and the browser test
//! `cpu_backends_agree_and_report_step_times` re-measure both.

use burn::tensor::Device;

/// The backends this build can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// burn's pure-Rust Flex CPU backend.
    Flex,
    /// burn's NdArray CPU backend (deprecated upstream; kept for measurement).
    NdArray,
    /// wgpu: WebGPU in the browser, Vulkan/Metal natively.
    Wgpu,
}

impl BackendKind {
    /// Parses `flex`, `ndarray`, `wgpu` (also `webgpu`), or `cpu` (the chosen CPU backend).
    pub fn parse(s: &str) -> Option<BackendKind> {
        match s {
            "flex" => Some(BackendKind::Flex),
            "ndarray" => Some(BackendKind::NdArray),
            "wgpu" | "webgpu" | "vulkan" => Some(BackendKind::Wgpu),
            "cpu" => Some(CPU),
            _ => None,
        }
    }
    /// A short name for status lines and CSV.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Flex => "cpu (flex)",
            BackendKind::NdArray => "cpu (ndarray)",
            BackendKind::Wgpu => "wgpu",
        }
    }
}

/// The CPU backend used by default.
pub const CPU: BackendKind = BackendKind::NdArray;

/// A plain (non-autodiff) device of the chosen CPU backend.
pub fn cpu_device() -> Device {
    device(CPU)
}

/// A plain device of `kind`. Natively, `Wgpu` picks the default adapter (Vulkan via lavapipe on
/// a machine without a GPU); in the browser use `web::webgpu_device` instead, which is async.
#[allow(deprecated)]
pub fn device(kind: BackendKind) -> Device {
    match kind {
        BackendKind::Flex => Device::flex(),
        BackendKind::NdArray => Device::ndarray(),
        BackendKind::Wgpu => Device::wgpu(Default::default()),
    }
}
