//! Backend choice. The engine is written once against burn's backend-erased `Tensor` API and
//! runs on whichever device it is handed.
//!
//! CPU: [`cpu_device`] is the backend chosen for the CPU path in both the CLI and the page, so
//! that the same seed gives the same rows in both. It is NdArray, although burn 0.22 marks it
//! deprecated in favour of Flex: `plateau bench --suite cpu` (`scripts/bench-cpu.sh`) times Flex
//! against it on every bench case, natively and in headless Chromium, in one run, and works out
//! from the figures whether Flex may replace it (at least as fast on every case in both places);
//! BENCHMARKS.md's `cpu-backends` section has the figures, the decision and where the time goes.
//! Flex is compiled only with the `flex` feature: natively (`--backend flex`) and, for that
//! bench, in wasm (`www/pkg-flex`); the page's engines do not carry it.

use burn::tensor::Device;

/// The backends this build can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// burn's pure-Rust Flex CPU backend (builds with the `flex` feature only).
    #[cfg(feature = "flex")]
    Flex,
    /// burn's NdArray CPU backend (deprecated upstream; kept for measurement).
    NdArray,
    /// wgpu: WebGPU in the browser, Vulkan/Metal natively (with the `wgpu` feature).
    #[cfg(feature = "wgpu")]
    Wgpu,
}

impl BackendKind {
    /// Parses `flex` (in builds that have it, [`FLEX_BUILT`]), `ndarray`, `wgpu` (also `webgpu`;
    /// in builds that have it, [`WGPU_BUILT`]), or `cpu` (the chosen CPU backend).
    pub fn parse(s: &str) -> Option<BackendKind> {
        match s {
            #[cfg(feature = "flex")]
            "flex" => Some(BackendKind::Flex),
            "ndarray" => Some(BackendKind::NdArray),
            #[cfg(feature = "wgpu")]
            "wgpu" | "webgpu" | "vulkan" => Some(BackendKind::Wgpu),
            "cpu" => Some(CPU),
            _ => None,
        }
    }
    /// The name [`BackendKind::parse`] takes (`--backend`, `--backends`).
    pub fn flag(self) -> &'static str {
        match self {
            #[cfg(feature = "flex")]
            BackendKind::Flex => "flex",
            BackendKind::NdArray => "ndarray",
            #[cfg(feature = "wgpu")]
            BackendKind::Wgpu => "wgpu",
        }
    }
    /// A short name for status lines and CSV.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "flex")]
            BackendKind::Flex => "cpu (flex)",
            BackendKind::NdArray => "cpu (ndarray)",
            #[cfg(feature = "wgpu")]
            BackendKind::Wgpu => "wgpu",
        }
    }
}

/// Whether this build has the Flex backend (the `flex` feature).
pub const FLEX_BUILT: bool = cfg!(feature = "flex");

/// Whether this build has the wgpu backend (the `wgpu` feature: WebGPU in the page's WebGPU
/// engine, Vulkan/Metal/GL natively).
pub const WGPU_BUILT: bool = cfg!(feature = "wgpu");

/// The CPU backend used by default.
pub const CPU: BackendKind = BackendKind::NdArray;

/// A plain (non-autodiff) device of the chosen CPU backend.
pub fn cpu_device() -> Device {
    device(CPU)
}

/// A plain device of `kind`. Natively, `Wgpu` picks the default (high-performance) adapter: on a
/// machine without a GPU a software rasterizer (on the project's build machines, with no Vulkan
/// driver installed, Mesa's llvmpipe through OpenGL; see [`adapters`]); in the browser use
/// `web::webgpu_device` instead, which is async.
#[allow(deprecated)]
pub fn device(kind: BackendKind) -> Device {
    match kind {
        #[cfg(feature = "flex")]
        BackendKind::Flex => Device::flex(),
        BackendKind::NdArray => Device::ndarray(),
        #[cfg(feature = "wgpu")]
        BackendKind::Wgpu => Device::wgpu(Default::default()),
    }
}

/// A graphics adapter wgpu finds natively (through burn's re-export of wgpu).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug, serde::Serialize)]
pub struct Adapter {
    /// The adapter's name (`NVIDIA H200`, `llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub name: String,
    /// The graphics API wgpu reaches it through (`Vulkan`, `Gl`, `Metal`, `Dx12`).
    pub api: String,
    /// The kind wgpu reports (`DiscreteGpu`, `IntegratedGpu`, `VirtualGpu`, `Cpu`, `Other`).
    pub kind: String,
    /// The driver and its version, as reported.
    pub driver: String,
    /// The adapter's largest buffer and storage-buffer binding (bytes), as it reports them.
    pub max_buffer: u64,
    /// See `max_buffer`.
    pub max_storage_binding: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl Adapter {
    /// Whether it is a GPU (discrete, integrated or virtual), not a software rasterizer on the
    /// CPU (llvmpipe, lavapipe, SwiftShader report `Cpu`; a GL driver that cannot tell reports
    /// `Other`, and a software one names itself `llvmpipe` or `softpipe`).
    pub fn is_gpu(&self) -> bool {
        let soft =
            ["llvmpipe", "lavapipe", "softpipe", "swiftshader"].iter().any(|n| self.name.to_lowercase().contains(n));
        matches!(self.kind.as_str(), "DiscreteGpu" | "IntegratedGpu" | "VirtualGpu") && !soft
    }
}

/// Every adapter wgpu finds natively, over all the graphics APIs this build has; none in a build
/// without the `wgpu` feature.
#[cfg(all(not(feature = "wgpu"), not(target_arch = "wasm32")))]
pub fn adapters() -> Vec<Adapter> {
    vec![]
}

/// Every adapter wgpu finds natively, over all the graphics APIs this build has.
#[cfg(all(feature = "wgpu", not(target_arch = "wasm32")))]
pub fn adapters() -> Vec<Adapter> {
    use burn::tensor::wgpu::wgpu;
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::all(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    });
    crate::tensor::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
        .iter()
        .map(|a| {
            let i = a.get_info();
            let limits = a.limits();
            Adapter {
                max_buffer: limits.max_buffer_size,
                max_storage_binding: limits.max_storage_buffer_binding_size,
                name: i.name.clone(),
                api: format!("{:?}", i.backend),
                kind: format!("{:?}", i.device_type),
                driver: format!("{} {}", i.driver, i.driver_info).trim().to_string(),
            }
        })
        .collect()
}
