//! Browser tests (wasm-bindgen-test in headless Chromium): training on the wasm CPU backend,
//! WebGPU (SwiftShader) against CPU, chart pixels, and the chapter 1 rows against the native
//! golden file.
#![cfg(target_arch = "wasm32")]

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::Device;
use plateau::backend::cpu_device;
use plateau::chapters::plateau::data as mws;
use plateau::chapters::plateau::{self as ch1, PlateauTrainer as Trainer};
use plateau::config::{Preset, RunConfig};
use plateau::model::init::Init;
use plateau::rng::{stream, Stream};
use plateau::tensor::{cross_entropy, int_tensor, read_f32};
use plateau::train::Status;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod common;

/// A tiny model for the backend checks.
fn tiny() -> RunConfig {
    let mut cfg = RunConfig::preset(Preset::Interactive);
    cfg.plateau.n = 4;
    cfg.d_model = 16;
    cfg.d_ff = 32;
    cfg.batch = 8;
    cfg.eval_batch = 8;
    cfg.lr = 3e-3;
    cfg
}

#[wasm_bindgen_test]
async fn tiny_transformer_loss_falls_on_the_cpu_backend() {
    let mut cfg = tiny();
    cfg.steps = 40;
    cfg.eval_every = 40;
    let mut t = Trainer::new(cfg, &cpu_device()).unwrap();
    while t.advance().await == Status::Running {}
    let (a, b) = (&t.history.rows[0], t.history.rows.last().unwrap());
    web_sys::console::log_1(&format!("tiny CPU run: loss {} → {}", a.loss, b.loss).into());
    assert!(b.loss < a.loss - 0.2, "loss {} → {}", a.loss, b.loss);
}

#[wasm_bindgen_test]
async fn every_chapters_rows_match_the_native_golden_files() {
    let files = [
        include_str!("golden/interactive-seed0-24.csv"),
        include_str!("golden/anchors-seed0-12.csv"),
        include_str!("golden/anchors-shards4-seed0-12.csv"),
        include_str!("golden/syntax-seed0-12.csv"),
        include_str!("golden/lm-seed0-12.csv"),
    ];
    // Chapter 4's corpus, as the page's worker hands it over.
    plateau::chapters::lm::corpus::install(include_str!("../data/moby-dick.txt").to_string());
    assert_eq!(files.len(), common::golden_runs().len(), "one file per golden run");
    for ((name, cfg), golden) in common::golden_runs().into_iter().zip(files) {
        let mut run = plateau::run::Run::new(cfg, &cpu_device()).unwrap();
        while run.advance().await == Status::Running {}
        let (worst, identical) = common::csv_difference(&run.csv(), golden).unwrap_or_else(|e| panic!("{name}: {e}"));
        web_sys::console::log_1(
            &format!("{name}: browser vs native rows bit-identical {identical}, largest difference {worst:e}").into(),
        );
        assert!(worst < common::TOLERANCE, "{name}: largest difference {worst} (tolerance {})", common::TOLERANCE);
    }
}

/// One forward + backward + Adam step of the tiny model on `device`: (loss, the L2 norm of every
/// parameter's gradient, updated weights).
async fn one_step(device: &Device) -> (f32, Vec<f64>, Vec<f32>) {
    let cfg = tiny();
    let device_ad = device.clone().autodiff();
    let model = ch1::model_config(&cfg).init(Init::Paper, 3, &device_ad);
    let batch = mws::generate(
        mws::SumTask::try_from(cfg.experiment).unwrap(),
        cfg.plateau.n,
        cfg.batch,
        &mut stream(3, Stream::Train, 0),
    );
    let t = 2 * cfg.plateau.n;
    let f = model.forward(int_tensor(batch.inputs(), cfg.batch, t, &device_ad), None);
    let loss = cross_entropy(f.logits, int_tensor(batch.targets(), cfg.batch, t, &device_ad));
    let l = read_f32(loss.clone()).await[0];
    let grads = loss.backward();
    let norms = plateau::train::gradient_norms(&model, &grads).await;
    let grads = GradientsParams::from_grads(grads, &model);
    let mut optim = AdamConfig::new().with_epsilon(1e-8).init();
    let model = optim.step(1e-2, model, grads);
    (l, norms, model.valid().flat_params().await)
}

#[wasm_bindgen_test]
async fn webgpu_swiftshader_step_matches_the_cpu_backend() {
    let info = plateau::web::probe_adapter().await;
    web_sys::console::log_1(&format!("WebGPU adapter: {info:?}").into());
    assert!(info.api && info.adapter, "headless Chromium with --enable-unsafe-webgpu offers SwiftShader: {info:?}");
    assert!(info.fallback, "SwiftShader must be recognised as a software adapter");
    let choice = plateau::web::choose(info.clone(), "");
    assert_eq!(choice.backend, "cpu", "a software adapter is slower than the CPU backend");
    assert!(!choice.race, "a software adapter is not raced unless asked");
    let raced = plateau::web::choose(info.clone(), "race");
    assert!(raced.race && raced.backend == "webgpu", "backend=race races on SwiftShader too: {raced:?}");
    assert!(raced.reason.contains("backend=race"), "{}", raced.reason);
    let hardware = plateau::web::AdapterInfo { fallback: false, vendor: "nvidia".into(), ..info.clone() };
    let auto = plateau::web::choose(hardware.clone(), "");
    assert!(auto.race, "a hardware adapter is raced against the CPU: {auto:?}");
    assert!(auto.reason.contains("nvidia"), "{}", auto.reason);
    for over in ["cpu", "webgpu"] {
        assert!(!plateau::web::choose(hardware.clone(), over).race, "backend={over} is not raced");
    }
    assert_eq!(plateau::web::choose(info, "webgpu").backend, "webgpu");
    let gpu = plateau::web::webgpu_device().await.expect("WebGPU device on SwiftShader");
    let (l_gpu, g_gpu, w_gpu) = one_step(&gpu).await;
    let (l_cpu, g_cpu, w_cpu) = one_step(&cpu_device()).await;
    assert_eq!(w_gpu.len(), w_cpu.len());
    // The gradients' sizes, tensor by tensor (Adam's first step moves every weight by about the
    // learning rate whatever the gradient's size, so the weights alone check little more than
    // its signs).
    assert_eq!(g_gpu.len(), g_cpu.len());
    assert!(g_cpu.iter().all(|g| *g > 0.0), "every parameter has a gradient: {g_cpu:?}");
    let worst_grad = g_gpu.iter().zip(&g_cpu).map(|(a, b)| ((a - b) / b.abs().max(1e-12)).abs()).fold(0.0f64, f64::max);
    web_sys::console::log_1(&format!("largest relative gradient-norm difference {worst_grad:e}").into());
    assert!(worst_grad < 1e-4, "gradient norms gpu {g_gpu:?} cpu {g_cpu:?}");
    let worst = w_gpu.iter().zip(&w_cpu).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    web_sys::console::log_1(&format!("loss gpu {l_gpu} cpu {l_cpu}; largest weight difference {worst:e}").into());
    assert!((l_gpu - l_cpu).abs() < 1e-4, "loss gpu {l_gpu} cpu {l_cpu}");
    assert!(worst < 1e-4, "largest weight difference {worst}");
}

fn canvas(w: u32, h: u32) -> web_sys::HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

fn pixel(c: &web_sys::HtmlCanvasElement, x: f64, y: f64) -> [u8; 4] {
    let ctx: web_sys::CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx.get_image_data(x, y, 1.0, 1.0).unwrap().data();
    [d[0], d[1], d[2], d[3]]
}

/// How many changes `f` made to the page (a `MutationObserver` on the whole document: elements
/// added or removed, attributes set), counting those undone before it returned.
fn page_changes(f: impl FnOnce()) -> usize {
    let watch = js_sys::Function::new_no_args(
        "const o = new MutationObserver(() => {}); \
         o.observe(document.documentElement, { childList: true, subtree: true, attributes: true }); return o;",
    )
    .call0(&JsValue::NULL)
    .unwrap();
    f();
    let n = js_sys::Function::new_with_args("o", "const n = o.takeRecords().length; o.disconnect(); return n;")
        .call1(&JsValue::NULL, &watch)
        .unwrap();
    n.as_f64().unwrap() as usize
}

/// A 2×2 signed map −1, 0 / 0, +1, nothing masked, no labels.
fn signed_2x2() -> plateau::web::charts::HeatSpec {
    plateau::web::charts::HeatSpec {
        values: vec![-1.0, 0.0, 0.0, 1.0],
        rows: 2,
        cols: 2,
        signed: true,
        vmin: -1.0,
        vmax: 1.0,
        mask_upper: false,
        mask_diagonal: false,
        outline: vec![],
        label_offset: 0,
        tick_labels: vec![],
        row_labels: vec![],
        col_labels: vec![],
        separators: vec![],
        x_label: String::new(),
        y_label: String::new(),
        scale: 1.0,
        dark: false,
    }
}

#[wasm_bindgen_test]
fn plotters_canvas_draws_heatmap_cells_and_lines() {
    use plateau::web::charts::{draw_heatmap, draw_lines, LineSpec, Series};
    // A 2×2 signed map: −1, 0 / 0, +1 → blue, white, white, red; nothing masked.
    let c = canvas(200, 200);
    let spec = signed_2x2();
    draw_heatmap(c.clone(), &spec).unwrap();
    // plot area: margin 6, y labels 30 on the left, x labels 24 at the bottom
    let (x0, x1, y0, y1) = (36.0, 194.0, 6.0, 170.0);
    let cell = |i: f64, j: f64| pixel(&c, x0 + (j + 0.5) * (x1 - x0) / 2.0, y0 + (i + 0.5) * (y1 - y0) / 2.0);
    assert_eq!(cell(0.0, 0.0), [5, 48, 97, 255], "top-left −1 is dark blue");
    assert_eq!(cell(1.0, 1.0), [103, 0, 31, 255], "bottom-right +1 is dark red");
    assert_eq!(cell(0.0, 1.0), [247, 247, 247, 255]);

    // A line chart: a thick red horizontal line at y = 0.5 crosses the middle of the plot.
    let c = canvas(400, 300);
    let spec = LineSpec {
        x_max: 10.0,
        y_min: 0.0,
        y_max: 1.0,
        y_log: false,
        x_log: false,
        y_label: String::new(),
        series: vec![Series {
            label: "half".into(),
            color: "#ff0000".into(),
            points: (0..=10).map(|x| (x as f64, 0.5)).collect(),
            dashed: false,
            faint: false,
        }],
        bands: vec![],
        markers: vec![],
        spans: vec![],
        x_label: String::new(),
        scale: 2.0,
        dark: false,
        legend: String::new(),
    };
    // Drawing touches nothing but the canvas: no element is added to the page, even for a
    // moment (plotters' own text measurement appends a span and reads its offsetHeight, which
    // forces a layout of the whole page for every label).
    assert_eq!(page_changes(|| draw_lines(c.clone(), &spec).unwrap()), 0, "drawing a chart changed the page");
    let red_rows = (0..300).filter(|&y| pixel(&c, 200.0, y as f64) == [255, 0, 0, 255]).count();
    assert!(red_rows >= 2, "the series is drawn across the middle ({red_rows} red pixels in column 200)");
    assert_eq!(pixel(&c, 2.0, 2.0), [255, 255, 255, 255], "light background");
}

#[wasm_bindgen_test]
fn a_large_heatmap_is_painted_as_one_image_with_the_colours_of_its_cells() {
    use plateau::colormap::viridis;
    use plateau::web::charts::draw_heatmap;
    // Chapter 2's embedding map is 88 × 88: its cells are one image of one pixel per cell, drawn
    // scaled without smoothing, so each cell keeps its exact colour and the masked triangle its grey.
    let n = 88;
    let c = canvas(400, 400);
    let spec = plateau::web::charts::HeatSpec {
        values: (0..n * n).map(|k| k as f64).collect(),
        rows: n,
        cols: n,
        signed: false,
        vmin: 0.0,
        vmax: (n * n - 1) as f64,
        mask_upper: true,
        mask_diagonal: false,
        ..signed_2x2()
    };
    assert_eq!(page_changes(|| draw_heatmap(c.clone(), &spec).unwrap()), 0, "drawing the heatmap changed the page");
    // plot area: margin 6, y labels max(30, 20 + 6 × 2 characters) = 32 on the left, x labels 20
    // at the bottom: x 38..394, y 6..374.
    let (x0, x1, y0, y1) = (38.0, 394.0, 6.0, 374.0);
    let cell = |i: usize, j: usize| {
        pixel(&c, x0 + (j as f64 + 0.5) * (x1 - x0) / n as f64, y0 + (i as f64 + 0.5) * (y1 - y0) / n as f64)
    };
    for (i, j) in [(87, 0), (44, 20), (10, 5), (60, 60), (87, 87)] {
        let (r, g, b) = viridis((i * n + j) as f64 / (n * n - 1) as f64);
        assert_eq!(cell(i, j), [r, g, b, 255], "cell ({i}, {j})");
    }
    for (i, j) in [(0, 87), (20, 60), (43, 44)] {
        assert_eq!(cell(i, j), [236, 237, 240, 255], "cell ({i}, {j}) is masked");
    }
    assert_eq!(pixel(&c, 2.0, 2.0), [255, 255, 255, 255], "light background around the map");
}

/// The contents of every `<text>` element of an SVG document, trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string()))
        .collect()
}

/// The vector export: the same line chart as SVG (it parses in the page: share.test.mjs) names its axis label in text, and draws
/// each series in its colour; a heatmap's SVG has one rect per cell at least.
#[wasm_bindgen_test]
fn charts_export_as_svg_with_text_and_one_path_per_series() {
    use plateau::web::charts::{heatmap_svg, lines_svg, HeatSpec, LineSpec, Series};
    let series = |label: &str, color: &str, y: f64| Series {
        label: label.into(),
        color: color.into(),
        points: (0..=10).map(|x| (x as f64, y)).collect(),
        dashed: false,
        faint: false,
    };
    let spec = LineSpec {
        x_max: 10.0,
        y_min: 0.0,
        y_max: 1.0,
        y_log: false,
        x_log: false,
        y_label: "accuracy".into(),
        series: vec![series("test", "#0072b2", 0.25), series("train", "#e69f00", 0.75)],
        bands: vec![],
        markers: vec![],
        spans: vec![],
        x_label: String::new(),
        scale: 1.0,
        dark: false,
        legend: "ul".into(),
    };
    let svg = lines_svg(&spec, 480, 300).unwrap();
    assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "an SVG document: {svg}");
    let texts = svg_texts(&svg);
    for text in ["accuracy", "test", "train"] {
        assert!(texts.iter().any(|t| t == text), "{text:?} is text in the SVG: {texts:?}");
    }
    let lower = svg.to_lowercase();
    for color in ["#0072b2", "#e69f00"] {
        assert!(lower.contains(&format!("stroke=\"{color}\"")), "a path in {color}: {svg}");
    }
    let heat = HeatSpec { x_label: "key".into(), y_label: "query".into(), ..signed_2x2() };
    let svg = heatmap_svg(&heat, 200, 200).unwrap();
    assert!(svg.matches("<rect").count() >= 4, "one rect per cell: {svg}");
    let texts = svg_texts(&svg);
    assert!(texts.iter().any(|t| t == "key") && texts.iter().any(|t| t == "query"), "axis labels as text: {texts:?}");
}

#[wasm_bindgen_test]
fn scatter_draws_a_point_in_its_colour_at_the_centre() {
    use plateau::web::charts::{draw_scatter, ScatterSpec};
    // One point at the origin with the top value: the axes are symmetric around it, so it sits at
    // the centre of the plot area (300 − 28 bar − 34 gap = 238 wide; margins 8, y labels 56,
    // x labels 40 → x 64..230, y 8..252) in viridis(1).
    let c = canvas(300, 300);
    let spec = ScatterSpec {
        points: vec![(0.0, 0.0)],
        values: vec![99.0],
        vmin: 20.0,
        vmax: 99.0,
        x_label: String::new(),
        y_label: String::new(),
        color_label: String::new(),
        labeled: vec![],
        scale: 1.0,
        dark: false,
    };
    draw_scatter(c.clone(), &spec).unwrap();
    let (r, g, b) = plateau::colormap::viridis(1.0);
    assert_eq!(pixel(&c, 147.0, 130.0), [r, g, b, 255]);
    assert_eq!(
        pixel(&c, 76.0, 20.0),
        [255, 255, 255, 255],
        "background elsewhere (12 px inside the plot's top-left corner)"
    );
    let bad = ScatterSpec { values: vec![], ..spec };
    assert!(draw_scatter(c, &bad).is_err(), "one value per point is required");
}

#[wasm_bindgen_test]
async fn a_missing_empty_or_rejected_adapter_falls_back_to_the_cpu() {
    use plateau::web::{choose, probe_adapter, AdapterInfo};
    use wasm_bindgen::JsValue;
    let none =
        AdapterInfo { api: false, adapter: false, fallback: false, architecture: String::new(), vendor: String::new() };
    let c = choose(none.clone(), "");
    assert_eq!(c.backend, "cpu");
    assert!(c.reason.contains("no WebGPU"), "{}", c.reason);
    assert_eq!(choose(none.clone(), "webgpu").backend, "cpu", "an override cannot conjure an adapter");
    let raced = choose(none, "race");
    assert!(raced.backend == "cpu" && !raced.race, "nor can a race: {raced:?}");

    let nav = js_sys::Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let gpu = js_sys::Reflect::get(&nav, &"gpu".into()).unwrap();
    if gpu.is_undefined() {
        web_sys::console::log_1(&"no navigator.gpu in this browser: only the no-API case is checked".into());
        return;
    }
    // Shadow requestAdapter on this GPU object: first a rejected request, then a null adapter.
    for (body, what) in
        [("return Promise.reject(new Error('denied by policy'))", "rejected"), ("return Promise.resolve(null)", "null")]
    {
        let f = js_sys::Function::new_no_args(body);
        js_sys::Reflect::set(&gpu, &"requestAdapter".into(), &f).unwrap();
        let info = probe_adapter().await;
        assert!(info.api && !info.adapter, "{what}: {info:?}");
        let c = choose(info, "");
        assert_eq!(c.backend, "cpu", "{what}");
        assert!(c.reason.contains("returned no adapter"), "{what}: {}", c.reason);
    }
    js_sys::Reflect::delete_property(&gpu.unchecked_into::<js_sys::Object>(), &JsValue::from_str("requestAdapter"))
        .unwrap();
}

/// Size of this instance's wasm linear memory in bytes (it only ever grows).
fn linear_memory_bytes() -> usize {
    core::arch::wasm32::memory_size::<0>() * 65_536
}

/// A long in-browser run with a metric row and a snapshot at every step keeps its memory flat
/// once the snapshot history is full: the history thins itself to at most 256 snapshots. At
/// step 300 the history is already at its bound; 900 steps later the linear memory may have
/// grown by the 900 extra rows (a few hundred bytes each) but not by 900 snapshots (a 16 × 16
/// attention map, an 8 × 8 cosine matrix and 4 sample generations each, ≈ 3 KB).
#[wasm_bindgen_test]
async fn long_run_memory_stays_flat_in_the_browser() {
    let mut cfg = RunConfig::preset(Preset::Interactive);
    cfg.d_model = 16;
    cfg.d_ff = 32;
    cfg.batch = 8;
    cfg.eval_batch = 8;
    cfg.steps = 1200;
    cfg.eval_every = 1;
    cfg.snapshot_every = 1;
    let mut t = Trainer::new(cfg, &cpu_device()).unwrap();
    let mut at_300 = 0;
    while t.advance().await == Status::Running {
        if t.step() == 300 {
            at_300 = linear_memory_bytes();
        }
    }
    let at_end = linear_memory_bytes();
    assert!(t.history.snapshots.len() <= plateau::history::MAX_SNAPSHOTS);
    assert_eq!(t.history.rows.len(), 1201);
    web_sys::console::log_1(&format!("BENCH browser memory: {at_300} bytes at step 300, {at_end} at step 1200").into());
    assert!(at_end <= at_300 + 1_000_000, "linear memory grew from {at_300} to {at_end} bytes");
}

/// Where the SVG draws the `<text>` whose content is `content`: its `(x, y)` attributes.
fn svg_text_at(svg: &str, content: &str) -> (f64, f64) {
    let attr = |tag: &str, name: &str| -> f64 {
        let at = tag.find(&format!(" {name}=\"")).unwrap_or_else(|| panic!("no {name} in {tag}")) + name.len() + 3;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    svg.split("<text")
        .skip(1)
        .find_map(|t| {
            let (tag, rest) = t.split_once('>')?;
            (rest.split_once("</text>")?.0.trim() == content).then(|| (attr(tag, "x"), attr(tag, "y")))
        })
        .unwrap_or_else(|| panic!("no text {content:?} in {svg}"))
}

/// The legend never covers data: it keeps its preferred corner while no curve passes there,
/// moves to a free corner when one does, and goes into a strip above the plot (above the top
/// tick label) when a seed band fills every corner ([`plateau::legend::place`], unit-tested
/// natively; here the chart's own pixel mapping, in the SVG export the canvas shares).
#[wasm_bindgen_test]
fn the_legend_moves_out_of_the_curves_way() {
    use plateau::web::charts::{lines_svg, BandSpec, LineSpec, Series};
    let falling = || Series {
        label: "loss".into(),
        color: "#0072b2".into(),
        points: (0..=10).map(|x| (x as f64, 1.0 - x as f64 / 10.0)).collect(),
        dashed: false,
        faint: false,
    };
    let spec = |legend: &str, bands: Vec<BandSpec>| LineSpec {
        x_max: 10.0,
        y_min: 0.0,
        y_max: 1.0,
        y_log: false,
        x_log: false,
        y_label: "y".into(),
        series: vec![falling()],
        bands,
        markers: vec![],
        spans: vec![],
        x_label: String::new(),
        scale: 1.0,
        dark: false,
        legend: legend.into(),
    };
    // 480 px wide: the falling line passes through the upper-left corner, not the upper-right.
    // The legend box is the chart's only shape at 85 % opacity.
    const BOX: &str = "opacity=\"0.85\"";
    let svg = lines_svg(&spec("ul", vec![]), 480, 300).unwrap();
    let (x, y) = svg_text_at(&svg, "loss");
    assert!(x > 300.0 && y < 100.0, "moved to the upper right: ({x}, {y})");
    assert_eq!(svg.matches(BOX).count(), 1, "one legend box: {svg}");
    let (x, y) = svg_text_at(&lines_svg(&spec("ll", vec![]), 480, 300).unwrap(), "loss");
    assert!(x < 200.0 && y > 150.0, "kept in the free lower left: ({x}, {y})");
    let band = BandSpec {
        color: "#0072b2".into(),
        lo: (0..=10).map(|x| (x as f64, 0.01)).collect(),
        hi: (0..=10).map(|x| (x as f64, 0.99)).collect(),
    };
    let svg = lines_svg(&spec("ur", vec![band]), 480, 300).unwrap();
    let (_, y) = svg_text_at(&svg, "loss");
    let (_, top_tick) = svg_text_at(&svg, "1.0");
    assert!(y < top_tick, "above the plot (legend y {y}, top tick label y {top_tick})");
    assert_eq!(svg.matches(BOX).count(), 0, "no legend box inside the plot: {svg}");
}

/// Marker labels stay inside the canvas: one that fits to the right of its line starts there,
/// one that would run past the right edge ends at its line, and one too long for either side
/// (chapter 3's events at one step share a label) is shifted inside the canvas.
#[wasm_bindgen_test]
fn marker_labels_stay_inside_the_canvas() {
    use plateau::web::charts::{lines_svg, LineSpec, Marker, Series};
    let long = "verb-loss drop, non-adjacent onset, selection onset 425";
    let marker = |x: f64, label: &str| Marker { x, label: label.into() };
    let spec = LineSpec {
        x_max: 1500.0,
        y_min: 0.0,
        y_max: 1.0,
        y_log: false,
        x_log: false,
        y_label: "loss".into(),
        series: vec![Series {
            label: "train".into(),
            color: "#0072b2".into(),
            points: (0..=15).map(|x| (x as f64 * 100.0, 0.5)).collect(),
            dashed: false,
            faint: false,
        }],
        bands: vec![],
        markers: vec![marker(425.0, long), marker(100.0, "drop 100"), marker(1400.0, "onset 1400")],
        spans: vec![],
        x_label: String::new(),
        scale: 1.0,
        dark: false,
        legend: "lr".into(),
    };
    let (width, per_char) = (360.0, 5.6);
    let svg = lines_svg(&spec, width as u32, 220).unwrap();
    // Whether the `<text>` showing `content` is anchored at its end (else at its start).
    let anchored_end = |content: &str| {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>'))
            .find(|(_, rest)| rest.split_once("</text>").is_some_and(|(c, _)| c.trim() == content))
            .is_some_and(|(tag, _)| tag.contains("text-anchor=\"end\""))
    };
    let (x, _) = svg_text_at(&svg, long);
    let chars = long.chars().count() as f64 + 2.0; // the label's padding spaces
    assert!(!anchored_end(long), "{svg}");
    assert!(x >= 0.0 && x + chars * per_char <= width + 0.5, "the long label inside the canvas: starts at {x}");
    let (short, _) = svg_text_at(&svg, "drop 100");
    assert!(!anchored_end("drop 100") && short > 44.0 && short < 100.0, "starts at its line: {short}");
    let (right, _) = svg_text_at(&svg, "onset 1400");
    assert!(anchored_end("onset 1400") && right > 300.0 && right < width, "ends at its line: {right}");
}

/// A seed band is drawn under its curve as one filled polygon in the curve's colour (the SVG
/// names it), and a chart without bands has none.
#[wasm_bindgen_test]
fn a_seed_band_is_one_filled_polygon_in_its_curves_colour() {
    use plateau::web::charts::{lines_svg, BandSpec, LineSpec, Series};
    let spec = |bands: Vec<BandSpec>| LineSpec {
        x_max: 10.0,
        y_min: 0.0,
        y_max: 1.0,
        y_log: false,
        x_log: false,
        y_label: "accuracy".into(),
        series: vec![Series {
            label: "test".into(),
            color: "#0072b2".into(),
            points: (0..=10).map(|x| (x as f64, 0.5)).collect(),
            dashed: false,
            faint: false,
        }],
        bands,
        markers: vec![],
        spans: vec![],
        x_label: String::new(),
        scale: 1.0,
        dark: false,
        legend: "ul".into(),
    };
    let band = BandSpec {
        color: "#0072b2".into(),
        lo: (0..=10).map(|x| (x as f64, 0.25)).collect(),
        hi: (0..=10).map(|x| (x as f64, 0.75)).collect(),
    };
    let svg = lines_svg(&spec(vec![band]), 480, 300).unwrap().to_lowercase();
    let polygons: Vec<&str> = svg.split("<polygon").skip(1).collect();
    assert_eq!(polygons.len(), 1, "one band polygon: {svg}");
    assert!(polygons[0].contains("#0072b2"), "in the curve's colour: {}", polygons[0]);
    assert!(!lines_svg(&spec(vec![]), 480, 300).unwrap().contains("<polygon"));
}

/// *Save model* / *Load model* in the browser: a chapter 1 run saved at step 6 and loaded on the
/// CPU backend gives the straight run's rows bit for bit; saved on WebGPU (SwiftShader: the
/// weights and moments read back in one transaction, which burn's own record writers cannot do
/// in a browser) and loaded on the CPU, it keeps the WebGPU run's rows and goes on within the
/// backends' float noise of the straight CPU run.
#[wasm_bindgen_test]
async fn a_model_saved_in_the_browser_loads_on_either_backend_and_continues() {
    use plateau::run::Run;
    let (_, cfg) = common::golden_runs().remove(0);
    let to_end = |mut r: Run| async move {
        while r.advance().await == Status::Running {}
        r
    };
    let straight = to_end(Run::new(cfg.clone(), &cpu_device()).unwrap()).await;
    let mut first = Run::new(cfg.clone(), &cpu_device()).unwrap();
    while first.step() < 6 {
        first.advance().await;
    }
    let bytes = first.save_file().await.unwrap();
    let loaded = to_end(Run::from_file(&bytes, &cpu_device()).unwrap()).await;
    assert_eq!(loaded.csv(), straight.csv(), "CPU → CPU: the straight run's rows");

    let gpu = plateau::web::webgpu_device().await.expect("WebGPU device on SwiftShader");
    let mut on_gpu = Run::new(cfg.clone(), &gpu).unwrap();
    while on_gpu.step() < 6 {
        on_gpu.advance().await;
    }
    on_gpu.settle().await;
    let gpu_rows = on_gpu.csv();
    let bytes = on_gpu.save_file().await.unwrap();
    let moved = to_end(Run::from_file(&bytes, &cpu_device()).unwrap()).await;
    let csv = moved.csv();
    assert!(csv.starts_with(gpu_rows.trim_end()), "the WebGPU run's rows are kept:\n{gpu_rows}\n{csv}");
    let (worst, _) = common::csv_difference(&csv, &straight.csv()).unwrap();
    web_sys::console::log_1(
        &format!("saved on WebGPU, continued on the CPU: largest difference {worst:e} from the CPU run").into(),
    );
    assert!(worst < 1e-3, "WebGPU → CPU continues the run (largest difference {worst})");
}
