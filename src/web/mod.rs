//! The only JavaScript-facing surface (wasm only). This module is the page's view, what its main
//! thread needs: the parameter schema and the config codec, the summaries, CSV and the chart
//! drawing entry points. With the `engine` feature [`engine`] adds what the training worker
//! needs: a training [`Session`], the WebGPU adapter probe, the backend choice and race, and
//! chapter 4's corpus. `scripts/build-web.sh` builds both: `www/pkg` (engine, for the worker) and
//! `www/pkg-view` (`--no-default-features`, for the main thread, a fraction of the size).
//!
//! The engine never touches the DOM; this module only converts between JS values and the
//! engine's types, and draws what the page hands it.

mod backend;
pub use backend::*;
pub mod charts;
#[cfg(feature = "engine")]
mod engine;
#[cfg(feature = "engine")]
pub use engine::*;

use crate::config::{ParamSpec, RunConfig, PARAMS};
use serde::Serialize;
use wasm_bindgen::prelude::*;

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

pub(crate) fn js_err(msg: impl std::fmt::Display) -> JsValue {
    JsValue::from(js_sys::Error::new(&msg.to_string()))
}

pub(crate) fn to_js<T: Serialize>(v: &T) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

/// The chapters of the explorable ([`crate::config::chapters::CHAPTERS`]): `[{number, alias,
/// title, label, tasks}]`, `tasks` the `experiment` values of each, its default first. The page
/// reads every chapter's number and name from it.
#[wasm_bindgen(js_name = chapterList)]
pub fn chapter_list() -> JsValue {
    to_js(&crate::config::chapters::CHAPTERS)
}

/// The parameter schema the page builds its controls from: `[{key, doc, kind, min, max, log,
/// choices, live, chapters, control}]`, `control` the page's control ([`crate::controls::Control`])
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
        control: Option<crate::controls::Control>,
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
                control: crate::controls::control(p.key),
            }
        })
        .collect();
    to_js(&rows)
}

/// Parses a URL query (`a=1&b=2`, leading `?` optional) into a config: `{config, notices}`
/// where `notices` name every rejected value and the safe value used instead.
#[wasm_bindgen(js_name = parseQuery)]
pub fn parse_query(query: String) -> JsValue {
    let (cfg, mut notices) = config_from_query(&query);
    notices.extend(crate::page::query_notices(&query));
    #[derive(Serialize)]
    struct Out {
        config: RunConfig,
        notices: Vec<String>,
    }
    to_js(&Out { config: cfg, notices })
}

/// A config from a query string ([`crate::config::from_query`]) with the notices as text.
pub fn config_from_query(query: &str) -> (RunConfig, Vec<String>) {
    let (cfg, notices) = crate::config::from_query(query);
    (cfg, notices.into_iter().map(|e| e.to_string()).collect())
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
    use crate::view::View;
    let task = crate::config::Task::parse(&experiment)?;
    let measures: Vec<Vec<crate::seeds::Measure>> = crate::with_rows!(task, R => {
        let runs: Vec<Vec<R>> = serde_wasm_bindgen::from_value(runs).ok()?;
        runs.iter().map(|r| R::measures(r)).collect()
    });
    Some(crate::seeds::summary_sentence(&measures))
}

/// Work on a run's rows that needs their chapter's row type (its columns and how a row reads).
trait WithRows {
    fn with<R: crate::history::Row + serde::de::DeserializeOwned>(self, cfg: &RunConfig) -> Result<String, JsValue>;
}

/// Reads `config` and calls `work` with the row type of its chapter.
fn by_chapter(config: JsValue, work: impl WithRows) -> Result<String, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    crate::with_rows!(cfg.experiment, R => work.with::<R>(&cfg))
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

/// How chapter 3's charts name the measures of language `grammar` (`agreement`, `nested`,
/// `nested-verbs`, `dyck`; another name reads as the default language):
/// `{target, part, accuracy, pair, onset}` ([`crate::chapters::syntax::language::chart_words`]).
#[wasm_bindgen(js_name = syntaxWords)]
pub fn syntax_words(grammar: String) -> JsValue {
    let g = crate::config::Grammar::from_name(&grammar)
        .unwrap_or(crate::chapters::syntax::knobs::Knobs::preset(crate::config::Preset::Interactive).grammar);
    to_js(&crate::chapters::syntax::language::chart_words(g))
}

/// One line with a run's key numbers from its rows ([`crate::view::View::headline`] of its
/// chapter), or `undefined` when there are none.
#[wasm_bindgen(js_name = runHeadline)]
pub fn run_headline(experiment: String, rows: JsValue) -> Option<String> {
    use crate::view::View;
    crate::with_rows!(crate::config::Task::parse(&experiment)?, R => R::headline(&serde_wasm_bindgen::from_value::<Vec<R>>(rows).ok()?))
}

/// The reader set `key` to `value` in `config` ([`crate::config::edit`]): `{config, notices,
/// query}`, the new config (holding the safe value when `value` was rejected), the notices, and
/// the new config's URL query. One call per change of a control.
#[wasm_bindgen(js_name = editConfig)]
pub fn edit_config(config: JsValue, key: String, value: String) -> Result<JsValue, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    let (cfg, notices) = crate::config::edit(&cfg, &key, &value);
    #[derive(Serialize)]
    struct Out {
        notices: Vec<String>,
        query: String,
        config: RunConfig,
    }
    Ok(to_js(&Out {
        notices: notices.into_iter().map(|e| e.to_string()).collect(),
        query: crate::config::to_query(&cfg),
        config: cfg,
    }))
}

/// The page keys of a URL query ([`crate::page::page_from_query`]): `{flags, notices}`;
/// `controls` and `charts` are the ids the page has.
#[wasm_bindgen(js_name = parsePage)]
pub fn parse_page(query: String, controls: Vec<String>, charts: Vec<String>) -> JsValue {
    let (flags, notices) = crate::page::page_from_query(&query, &controls, &charts);
    #[derive(Serialize)]
    struct Out {
        flags: crate::page::PageFlags,
        notices: Vec<String>,
    }
    to_js(&Out { flags, notices })
}

/// A page's URL query read once ([`crate::page::read_url`]): `{config, page, notices}`, the
/// run's config, the page keys (`controls` and `charts` the ids the page has) and every notice.
/// The page reads its address with this at load and on a step's link or back/forward.
#[wasm_bindgen(js_name = readUrl)]
pub fn read_url(query: String, controls: Vec<String>, charts: Vec<String>) -> JsValue {
    to_js(&crate::page::read_url(&query, &controls, &charts))
}

/// The `backend=` of a URL query as the page reads it (`""` for none or one not known): what the
/// training worker's early start chooses its engine by, before the page has read the rest.
#[wasm_bindgen(js_name = queryBackend)]
pub fn query_backend(query: String) -> String {
    crate::page::page_from_query(&query, &[], &[]).0.backend
}

/// The page keys of `flags` that differ from their defaults ([`crate::page::page_query`]), as
/// `key=value` strings; throws, naming the field, for flags that do not read (a page bug, never
/// a silent loss of the keys).
#[wasm_bindgen(js_name = pageQuery)]
pub fn page_query(flags: JsValue) -> Result<Vec<String>, JsValue> {
    let flags: crate::page::PageFlags =
        serde_wasm_bindgen::from_value(flags).map_err(|e| js_err(format!("invalid page keys: {e}")))?;
    Ok(crate::page::page_query(&flags))
}

/// The steps of chapter 2's comparison run beside `config` ([`crate::page::companion_steps`]):
/// `flag` is the page's `compare_steps` (`null` for auto, 0 for same, or a number).
#[wasm_bindgen(js_name = companionSteps)]
pub fn companion_steps(config: JsValue, flag: Option<u32>) -> Result<usize, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    Ok(crate::page::companion_steps(&cfg, flag))
}

/// How many workers train a run and why ([`crate::page::workers_for`]): `{count, reason}`.
#[wasm_bindgen(js_name = workersFor)]
pub fn workers_for(requested: u32, cores: u32, runs: u32, shards: usize, cpu: bool) -> JsValue {
    let (count, reason) = crate::page::workers_for(requested, cores, runs, shards, cpu);
    #[derive(Serialize)]
    struct Out {
        count: u32,
        reason: String,
    }
    to_js(&Out { count, reason })
}

/// The URL query that reproduces a config (`v=4` and its non-default values).
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

/// The plateau a curve is on, ended or still lasting, by the rule every plateau marker uses
/// ([`crate::chapters::syntax::metrics::plateau_span`] with `PLATEAU_RULE`): `{start, end, event}`
/// (`event` null while it lasts), or null. `steps` and `values` are one column of the run's rows;
/// `rising` reads a rising curve (a UAS) the same way. What a hero chart shades as "plateau".
#[wasm_bindgen(js_name = plateauSpan)]
pub fn plateau_span(steps: Vec<f64>, values: Vec<f64>, rising: bool) -> JsValue {
    use crate::chapters::syntax::metrics::{plateau_span, PLATEAU_RULE};
    let steps: Vec<usize> = steps.iter().map(|&s| s.max(0.0) as usize).collect();
    plateau_span(&steps, &values, rising, PLATEAU_RULE).map_or(JsValue::NULL, |p| to_js(&p))
}

/// One line on what the runs of a measured group show (a group of `www/measured.json`:
/// `{experiment, columns, runs: [{seed, rows}]}`), by each chapter's own rule
/// ([`crate::chapters::outcome::measured_outcome`]); null when the group lacks what it needs.
#[wasm_bindgen(js_name = measuredOutcome)]
pub fn measured_outcome(group: JsValue) -> Result<JsValue, JsValue> {
    let g = MeasuredGroup::read(group)?;
    Ok(crate::chapters::outcome::measured_outcome(&g.experiment, &g.columns, &g.runs)
        .map_or(JsValue::NULL, |s| to_js(&s)))
}

/// When the runs of a measured group reached the chapter's event
/// ([`crate::chapters::outcome::measured_event`]): `{what, step, reached, runs}`, or null.
#[wasm_bindgen(js_name = measuredEvent)]
pub fn measured_event(group: JsValue) -> Result<JsValue, JsValue> {
    let g = MeasuredGroup::read(group)?;
    Ok(crate::chapters::outcome::measured_event(&g.experiment, &g.columns, &g.runs)
        .map_or(JsValue::NULL, |e| to_js(&e)))
}

/// What [`measured_outcome`] and [`measured_event`] read of a group of `www/measured.json`.
#[derive(serde::Deserialize)]
struct MeasuredGroup {
    experiment: String,
    columns: Vec<String>,
    runs: Vec<crate::chapters::outcome::MeasuredRun>,
}

impl MeasuredGroup {
    fn read(group: JsValue) -> Result<MeasuredGroup, JsValue> {
        serde_wasm_bindgen::from_value(group).map_err(|e| js_err(format!("measured group: {e}")))
    }
}

thread_local! {
    /// The measured-runs file (`www/measured.json`), once the page has handed it over.
    static MEASURED: std::cell::RefCell<Option<crate::measured::MeasuredFile>> = const { std::cell::RefCell::new(None) };
}

/// Reads the measured-runs file (the text of `www/measured.json`, [`crate::measured`]) and keeps it
/// for [`measured_for`] and [`measured_agreement`]; returns how many configurations it holds, or
/// throws with the reason.
#[wasm_bindgen(js_name = measuredLoad)]
pub fn measured_load(text: String) -> Result<usize, JsValue> {
    let file: crate::measured::MeasuredFile =
        serde_json::from_str(&text).map_err(|e| js_err(format!("the measured-runs file does not read: {e}")))?;
    if file.version != crate::measured::VERSION {
        return Err(js_err(format!(
            "the measured-runs file is of version {}, this page reads version {}",
            file.version,
            crate::measured::VERSION
        )));
    }
    let n = file.groups.len();
    MEASURED.with(|m| *m.borrow_mut() = Some(file));
    Ok(n)
}

/// The measured groups of `config` (every seed; [`crate::measured::matching`]): an array of
/// `{experiment, preset, source, command?, section?, query, config, columns, runs: [{seed,
/// wall_s, rows}]}`, empty before [`measured_load`].
#[wasm_bindgen(js_name = measuredFor)]
pub fn measured_for(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: RunConfig = serde_wasm_bindgen::from_value(config).map_err(|e| js_err(format!("invalid config: {e}")))?;
    Ok(MEASURED.with(|m| {
        let m = m.borrow();
        let groups = m.as_ref().map_or(vec![], |f| crate::measured::matching(f, &cfg));
        to_js(&groups)
    }))
}

/// The live `rows` (the page's row objects) against the measured run of `seed` in the group of
/// key `query` ([`crate::measured::agreement`]): `{seed, compared, max_abs_diff, tolerance,
/// agree, agree_until}`, or null when that group has no run of this seed.
#[wasm_bindgen(js_name = measuredAgreement)]
pub fn measured_agreement(query: String, seed: u32, rows: JsValue) -> Result<JsValue, JsValue> {
    let rows: Vec<std::collections::BTreeMap<String, serde_json::Value>> =
        serde_wasm_bindgen::from_value(rows).map_err(|e| js_err(format!("rows: {e}")))?;
    Ok(MEASURED.with(|m| {
        let m = m.borrow();
        let group = m.as_ref().and_then(|f| f.groups.iter().find(|g| g.query == query));
        group.and_then(|g| crate::measured::agreement(g, u64::from(seed), &rows)).map_or(JsValue::NULL, |a| to_js(&a))
    }))
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
