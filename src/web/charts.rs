//! Charts drawn with plotters + plotters-canvas onto `<canvas>` elements, and the same charts as
//! SVG documents (plotters' SVG backend) for vector export.
//!
//! The page hands over what to draw (series of recorded metric values, a snapshot's matrix);
//! these functions only draw. Canvas pixel sizes are set by the caller (CSS size × device pixel
//! ratio); `scale` enlarges text and strokes to match.

use crate::colormap::{diverging, viridis};
use measured::{canvas_backend, svg_backend};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;
use web_sys::HtmlCanvasElement;

/// Text measured without touching the page's layout ([`measured::Measured`]), in a module of its
/// own so that the backend traits it implements stay out of the drawing code's scope.
mod measured;

use crate::legend::Swatch;
mod arcs;
mod lines;
mod scatter;
pub use arcs::*;
use lines::*;
pub use scatter::*;

/// One line of a line chart.
#[derive(Deserialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// `#rrggbb`.
    pub color: String,
    /// `(x, y)` points in step order.
    pub points: Vec<(f64, f64)>,
    /// Draw dashed (baselines).
    #[serde(default)]
    pub dashed: bool,
    /// Draw thin and pale, under the other lines (the runs measured by the command-line tool,
    /// behind the live run).
    #[serde(default)]
    pub faint: bool,
}

/// A shaded range of one curve over several seeds: its minimum and maximum at each step
/// ([`crate::seeds::Band`]), drawn under the curves in the curve's colour.
#[derive(Deserialize)]
pub struct BandSpec {
    /// `#rrggbb`, the colour of the curve it belongs to.
    pub color: String,
    /// `(x, minimum)` in step order.
    pub lo: Vec<(f64, f64)>,
    /// `(x, maximum)` in step order.
    pub hi: Vec<(f64, f64)>,
}

/// A shaded stretch of the x axis over the whole plot height (a plateau while it lasts), with a
/// short label at its top left inside the plot.
#[derive(Deserialize)]
pub struct Span {
    /// First x of the stretch.
    pub from: f64,
    /// Last x of the stretch.
    pub to: f64,
    /// `#rrggbb`.
    pub color: String,
    /// Short label drawn inside the stretch, at its top (empty: none).
    #[serde(default)]
    pub label: String,
}

/// A vertical marker line.
#[derive(Deserialize)]
pub struct Marker {
    /// Position on the x axis.
    pub x: f64,
    /// Short label drawn at the top.
    pub label: String,
}

/// What a line chart shows.
#[derive(Deserialize)]
pub struct LineSpec {
    /// Largest x (the run's step budget), so charts share their step axis.
    pub x_max: f64,
    /// y range.
    pub y_min: f64,
    /// y range.
    pub y_max: f64,
    /// Logarithmic y axis (`y_min` must be > 0).
    #[serde(default)]
    pub y_log: bool,
    /// Logarithmic step axis: `ln(1 + x)` plotted, ticks at 0, 1, 10, 100, … (step 0 stays on the
    /// chart).
    #[serde(default)]
    pub x_log: bool,
    /// y axis label.
    #[serde(default)]
    pub y_label: String,
    /// Lines.
    pub series: Vec<Series>,
    /// Seed bands, drawn under the lines.
    #[serde(default)]
    pub bands: Vec<BandSpec>,
    /// Vertical markers (e.g. the drop step, the scrubber position).
    #[serde(default)]
    pub markers: Vec<Marker>,
    /// Shaded stretches of the x axis, drawn first (under the bands and lines).
    #[serde(default)]
    pub spans: Vec<Span>,
    /// x axis label (default: `step`, or `step (log)` on a log axis).
    #[serde(default)]
    pub x_label: String,
    /// Text and stroke scale (device pixel ratio).
    #[serde(default = "one")]
    pub scale: f64,
    /// Dark theme.
    #[serde(default)]
    pub dark: bool,
    /// The legend's preferred corner: `"ul"`, `"ur"` (default), `"ll"` or `"lr"`. It is kept while
    /// no curve or band passes under the legend there; otherwise the legend goes to another
    /// corner that is free, or into a strip above the plot ([`crate::legend::place`]).
    #[serde(default)]
    pub legend: String,
}

/// What a heatmap shows.
#[derive(Deserialize)]
pub struct HeatSpec {
    /// Row-major values.
    pub values: Vec<f64>,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Signed (diverging map over [−vmax, vmax]) or magnitude (viridis over [vmin, vmax]).
    pub signed: bool,
    /// Colour range.
    pub vmin: f64,
    /// Colour range.
    pub vmax: f64,
    /// Grey out the diagonal (a similarity map's self-similarity of 1, which would set the scale).
    #[serde(default)]
    pub mask_diagonal: bool,
    /// Grey out the strict upper triangle (causal maps).
    #[serde(default)]
    pub mask_upper: bool,
    /// Cells to outline (e.g. Ω).
    #[serde(default)]
    pub outline: Vec<(usize, usize)>,
    /// Offset of the first row/column label (e.g. 1 for y_1..y_n).
    #[serde(default)]
    pub label_offset: usize,
    /// Labels of the rows/columns (square maps), replacing the numbers when given.
    #[serde(default)]
    pub tick_labels: Vec<String>,
    /// Labels of the rows alone (overrides `tick_labels` for rows).
    #[serde(default)]
    pub row_labels: Vec<String>,
    /// Labels of the columns alone (overrides `tick_labels` for columns).
    #[serde(default)]
    pub col_labels: Vec<String>,
    /// Thin separator lines drawn after these row/column indices (e.g. between anchors and keys).
    #[serde(default)]
    pub separators: Vec<usize>,
    /// Axis captions.
    #[serde(default)]
    pub x_label: String,
    /// Axis captions.
    #[serde(default)]
    pub y_label: String,
    /// Text scale.
    #[serde(default = "one")]
    pub scale: f64,
    /// Dark theme.
    #[serde(default)]
    pub dark: bool,
}

fn one() -> f64 {
    1.0
}

fn hex(c: &str) -> RGBColor {
    let c = c.trim_start_matches('#');
    let p = |i: usize| u8::from_str_radix(c.get(i..i + 2).unwrap_or("80"), 16).unwrap_or(128);
    RGBColor(p(0), p(2), p(4))
}

fn theme(dark: bool) -> (RGBColor, RGBColor, RGBColor) {
    // (background, text, grid)
    if dark {
        (RGBColor(24, 26, 31), RGBColor(220, 222, 228), RGBColor(60, 64, 72))
    } else {
        (RGBColor(255, 255, 255), RGBColor(40, 42, 48), RGBColor(225, 227, 232))
    }
}

type DrawResult = Result<(), String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Draws a line chart with a shared step axis. A log axis is drawn by plotting `ln y` on a
/// linear axis with labels in `y` units, so tick labels stay readable over small ranges.
pub fn draw_lines(canvas: HtmlCanvasElement, spec: &LineSpec) -> DrawResult {
    let backend = canvas_backend(canvas)?;
    lines_on(backend.into_drawing_area(), spec)
}

/// [`draw_lines`] as an SVG document of `width × height` pixels (text as `<text>` in the named
/// font, the same colours and labels as on the canvas).
pub fn lines_svg(spec: &LineSpec, width: u32, height: u32) -> Result<String, String> {
    let mut out = String::new();
    lines_on(svg_backend(&mut out, width, height).into_drawing_area(), spec)?;
    Ok(out)
}

fn lines_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, spec: &LineSpec) -> DrawResult {
    let (bg, fg, grid) = theme(spec.dark);
    root.fill(&bg).map_err(err)?;
    let s = spec.scale.max(0.5);
    let font = |px: f64| ("sans-serif", (px * s) as u32).into_font().color(&fg);
    let tx = |x: f64| x_t(spec, x);
    let x_max = tx(spec.x_max.max(1.0));
    let ty = |y: f64| y_t(spec, y);
    let (y0, y1) = if spec.y_max > spec.y_min {
        (ty(spec.y_min), ty(spec.y_max))
    } else {
        (ty(spec.y_min) - 0.5, ty(spec.y_min) + 0.5)
    };
    // Marker labels go in a strip above the plot, where no curve or legend can hide them: one
    // line, and another for each label that would run into one at its left; a label that would
    // run past the right edge is drawn to the left of its line, and one that fits on neither
    // side of it is shifted to stay inside the canvas (its leader still starts at the line).
    let (margin, y_area, line_h) = (8.0 * s, 44.0 * s, 12.0 * s);
    // On the right, room for half of the last x tick's label ("1000"), which is centred on the
    // plot's right edge.
    let right = 16.0 * s;
    let canvas_w = root.dim_in_pixel().0 as f64;
    let plot = (margin + y_area, canvas_w - right);
    let labels =
        marker_labels(spec, |x| plot.0 + (tx(x) / x_max).clamp(0.0, 1.0) * (plot.1 - plot.0), plot.1, canvas_w, s);
    let lines = labels.iter().map(|l| l.2 + 1).max().unwrap_or(1);
    // The legend: in a corner no curve or band passes through, else in a strip above the plot
    // (and above the marker labels). The plot's pixel rectangle is known before the chart is
    // built, so the data can be mapped to it here.
    let x_area = 36.0 * s;
    let legend_font = font(11.0);
    let entries: Vec<(&str, RGBColor, f64, f64, Swatch)> = spec
        .series
        .iter()
        .filter(|ser| !ser.label.is_empty())
        .map(|ser| {
            let (w, h) = root.estimate_text_size(&ser.label, &legend_font).unwrap_or((0, 0));
            (ser.label.as_str(), hex(&ser.color), w as f64, h as f64, Swatch { faint: ser.faint, dashed: ser.dashed })
        })
        .collect();
    let legend_line = legend_font.font.get_size() * 1.25;
    let boxed = (
        entries.iter().map(|e| e.2).fold(0.0, f64::max) + LEGEND_SWATCH + 2.0 * LEGEND_PAD,
        entries.iter().enumerate().map(|(i, e)| (i as f64 * legend_line).round() + e.3).fold(0.0, f64::max)
            + 2.0 * LEGEND_PAD,
    );
    let (width, height) = root.dim_in_pixel();
    let top = margin + lines as f64 * line_h;
    let plot_px = (width as f64 - right - plot.0, height as f64 - margin - x_area - top);
    let to_px = |(x, y): (f64, f64)| ((tx(x) / x_max) * plot_px.0, (1.0 - (ty(y) - y0) / (y1 - y0)) * plot_px.1);
    let mut ink = crate::legend::Ink::default();
    for ser in &spec.series {
        ink.add_curve(ser.points.iter().map(|&p| to_px(p)));
    }
    for b in &spec.bands {
        let lo: Vec<_> = b.lo.iter().map(|&p| to_px(p)).collect();
        let hi: Vec<_> = b.hi.iter().map(|&p| to_px(p)).collect();
        ink.add_band(&lo, &hi);
    }
    let spot = if entries.is_empty() {
        crate::legend::Spot::Corner(crate::legend::Corner::UpperRight)
    } else {
        crate::legend::place(plot_px, boxed, LEGEND_INSET, 2.0 * s, crate::legend::Corner::parse(&spec.legend), &ink)
    };
    let strip_gap = 12.0 * s;
    let strip_entry = |w: f64| 22.0 * s + w;
    let strip =
        crate::legend::rows(&entries.iter().map(|e| strip_entry(e.2)).collect::<Vec<_>>(), strip_gap, plot.1 - plot.0);
    let strip_h = match spot {
        crate::legend::Spot::Above => (strip.iter().map(|r| r.0 + 1).max().unwrap_or(0) as f64) * legend_line + 4.0 * s,
        crate::legend::Spot::Corner(_) => 0.0,
    };
    if strip_h > 0.0 {
        for ((label, color, _, th, swatch), (row, x)) in entries.iter().zip(&strip) {
            let (lx, ly) = ((plot.0 + x) as i32, (margin + *row as f64 * legend_line) as i32);
            let mid = ly + (*th / 2.0) as i32;
            draw_swatch(&root, (lx, mid), *color, *swatch, s)?;
            root.draw(&Text::new(*label, (lx + (22.0 * s) as i32, ly), legend_font.clone())).map_err(err)?;
        }
    }
    let mut chart = ChartBuilder::on(&root)
        .margin(margin as u32)
        .margin_top((top + strip_h) as u32)
        .margin_right(right as u32)
        .x_label_area_size(x_area as u32)
        .y_label_area_size(y_area as u32)
        .build_cartesian_2d(0f64..x_max, y0..y1)
        .map_err(err)?;
    let span = (y1 - y0).abs();
    let y_fmt = |v: &f64| y_tick(*v, spec.y_log, span);
    // The axis titles at 11 px, both smaller (down to 8 px) where the y title is longer than the
    // plot is tall (a phone's short hero charts), so that it is not cut at the canvas's edges.
    let y_title_w = root.estimate_text_size(&spec.y_label, &font(11.0)).map_or(0.0, |(w, _)| w as f64);
    let y_room = plot_px.1 - strip_h;
    let desc = if y_title_w > y_room && y_title_w > 0.0 { (11.0 * y_room / y_title_w).max(8.0) } else { 11.0 };
    chart
        .configure_mesh()
        .light_line_style(grid.mix(0.0))
        .bold_line_style(grid)
        .axis_style(fg.mix(0.6))
        .label_style(font(11.0))
        .axis_desc_style(font(desc))
        .x_desc(if !spec.x_label.is_empty() {
            spec.x_label.as_str()
        } else if spec.x_log {
            "step (log)"
        } else {
            "step"
        })
        .y_desc(spec.y_label.as_str())
        .x_labels(if spec.x_log { 0 } else { 6 })
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&y_fmt)
        .draw()
        .map_err(err)?;
    let font11 = font(11.0);
    if spec.x_log {
        draw_decades(&mut chart, &root, spec, (y0, y1), x_max, grid, &font11, s)?;
    }
    draw_spans(&mut chart, &root, spec, (y0, y1), &font11, s)?;
    for m in &spec.markers {
        let mx = tx(m.x);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(mx, y0), (mx, y1)],
                fg.mix(0.45).stroke_width((1.0 * s) as u32),
            )))
            .map_err(err)?;
    }
    for (m, text, line, offset, hpos) in labels {
        let (px, top) = chart.backend_coord(&(tx(m.x), y1));
        let y = top - ((lines - line) as f64 * line_h) as i32;
        root.draw(&PathElement::new(vec![(px, y), (px, top)], fg.mix(0.25))).map_err(err)?;
        root.draw(&Text::new(text, (px + offset.round() as i32, y), font(10.0).pos(Pos::new(hpos, VPos::Top))))
            .map_err(err)?;
    }
    draw_curves(&mut chart, spec, s)?;
    if let crate::legend::Spot::Corner(corner) = spot {
        let entries: Vec<(&str, RGBColor, Swatch)> = entries.iter().map(|e| (e.0, e.1, e.4)).collect();
        draw_legend(&chart.plotting_area().strip_coord_spec(), &entries, corner, &legend_font, bg.mix(0.85), grid)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// At most this many lines of marker labels above a line chart.
const MAX_LABEL_LINES: usize = 2;

/// The legend box's swatch column, padding and distance from the plot's corner, in pixels.
const LEGEND_SWATCH: f64 = 30.0;
const LEGEND_PAD: f64 = 10.0;
const LEGEND_INSET: f64 = 5.0;

/// The series legend in `corner` of `plot` (chosen by [`crate::legend::place`]), laid out as
/// plotters' series labels are: a [`LEGEND_SWATCH`] px swatch column, [`LEGEND_PAD`] px margins,
/// lines 1.25 font sizes apart, [`LEGEND_INSET`] px from the corner. plotters' own legend measures
/// its labels with its web font code (a forced layout of the page per label); this one measures
/// through the backend ([`measured::Measured`]).
fn draw_legend<DB: DrawingBackend>(
    plot: &DrawingArea<DB, Shift>,
    entries: &[(&str, RGBColor, Swatch)],
    corner: crate::legend::Corner,
    font: &TextStyle,
    background: RGBAColor,
    border: RGBColor,
) -> DrawResult {
    if entries.is_empty() {
        return Ok(());
    }
    let (swatch_area, margin) = (LEGEND_SWATCH as i32, LEGEND_PAD as i32);
    let line_h = font.font.get_size() * 1.25;
    let mut boxes = Vec::with_capacity(entries.len());
    for (i, (label, _, _)) in entries.iter().enumerate() {
        let (w, h) = plot.estimate_text_size(label, font).map_err(err)?;
        boxes.push(((i as f64 * line_h).round() as i32, w as i32, h as i32));
    }
    let w = boxes.iter().map(|b| b.1).max().unwrap_or(0) + swatch_area + 2 * margin;
    let h = boxes.iter().map(|b| b.0 + b.2).max().unwrap_or(0) + 2 * margin;
    let (aw, ah) = plot.dim_in_pixel();
    let (x, y) = corner.origin((aw as f64, ah as f64), (w as f64, h as f64), LEGEND_INSET);
    let (x, y) = (x.round() as i32, y.round() as i32);
    plot.draw(&Rectangle::new([(x, y), (x + w, y + h)], background.filled())).map_err(err)?;
    plot.draw(&Rectangle::new([(x, y), (x + w, y + h)], border)).map_err(err)?;
    for ((label, color, swatch), (dy, _, th)) in entries.iter().zip(&boxes) {
        let top = y + margin + dy;
        plot.draw(&Text::new(*label, (x + swatch_area + margin, top), font.clone())).map_err(err)?;
        // The box's geometry is in unscaled pixels (its swatch column included).
        draw_swatch(plot, (x + margin, top + th / 2), *color, *swatch, 1.0)?;
    }
    Ok(())
}

/// A legend swatch 16 px wide from `(x, mid)`, drawn as its line is ([`Swatch::stroke`]): faint,
/// dashed or solid, so that no two entries of a legend look alike.
fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x, mid): (i32, i32),
    color: RGBColor,
    swatch: Swatch,
    s: f64,
) -> DrawResult {
    let (opacity, width, dashes) = swatch.stroke();
    let style = color.mix(opacity).stroke_width((width * s).round().max(1.0) as u32);
    for (a, b) in dashes {
        let (a, b) = (x + (a * s).round() as i32, x + (b * s).round() as i32);
        area.draw(&PathElement::new(vec![(a, mid), (b, mid)], style)).map_err(err)?;
    }
    Ok(())
}

/// Draws a matrix as coloured cells, with optional causal masking and outlined cells.
pub fn draw_heatmap(canvas: HtmlCanvasElement, spec: &HeatSpec) -> DrawResult {
    let backend = canvas_backend(canvas.clone())?;
    heatmap_on(
        backend.into_drawing_area(),
        spec,
        Some(&|from, to, rgba, cols, rows| cells_image(&canvas, from, to, rgba, cols, rows)),
    )
}

/// A plotters element per cell costs two calls into the page per cell (a fill colour and a
/// rectangle): chapter 2's 88 × 88 embedding map took 25–80 ms of main-thread time per draw. On a
/// canvas the cells are instead one image of one pixel per cell (`rgba`, `cols × rows`, row-major),
/// put into a canvas that is never attached to the page and drawn scaled, without smoothing, onto
/// the plot area from `from` (top left) to `to` (bottom right): three calls for the whole grid.
fn cells_image(
    canvas: &HtmlCanvasElement,
    from: (i32, i32),
    to: (i32, i32),
    rgba: &[u8],
    cols: usize,
    rows: usize,
) -> DrawResult {
    use wasm_bindgen::{Clamped, JsCast};
    use web_sys::{CanvasRenderingContext2d, ImageData};
    let context = |c: &HtmlCanvasElement| -> Result<CanvasRenderingContext2d, String> {
        c.get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
            .ok_or_else(|| "no 2d context".to_string())
    };
    let grid: HtmlCanvasElement = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .and_then(|c| c.dyn_into().ok())
        .ok_or("no document to draw the heatmap's cells in")?;
    grid.set_width(cols as u32);
    grid.set_height(rows as u32);
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), cols as u32, rows as u32).map_err(err)?;
    context(&grid)?.put_image_data(&image, 0.0, 0.0).map_err(err)?;
    let ctx = context(canvas)?;
    ctx.set_image_smoothing_enabled(false);
    let drawn = ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
        &grid,
        f64::from(from.0),
        f64::from(from.1),
        f64::from(to.0 - from.0),
        f64::from(to.1 - from.1),
    );
    ctx.set_image_smoothing_enabled(true);
    drawn.map_err(err)
}

/// [`draw_heatmap`] as an SVG document of `width × height` pixels (text as `<text>` in the named
/// font, the same colours and labels as on the canvas).
pub fn heatmap_svg(spec: &HeatSpec, width: u32, height: u32) -> Result<String, String> {
    let mut out = String::new();
    heatmap_on(svg_backend(&mut out, width, height).into_drawing_area(), spec, None)?;
    Ok(out)
}

/// Paints a heatmap's cells as one image: the plot area's top-left and bottom-right backend
/// pixels, the cells' RGBA bytes row by row, the number of columns and rows ([`cells_image`]).
type CellPainter<'a> = &'a dyn Fn((i32, i32), (i32, i32), &[u8], usize, usize) -> DrawResult;

/// Draws a heatmap on `root`; its cells are one rectangle element each, or with `paint` one image.
fn heatmap_on<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    spec: &HeatSpec,
    paint: Option<CellPainter>,
) -> DrawResult {
    if spec.values.len() != spec.rows * spec.cols || spec.rows == 0 || spec.cols == 0 {
        return Err(format!("heatmap needs {}×{} values, got {}", spec.rows, spec.cols, spec.values.len()));
    }
    let (bg, fg, _) = theme(spec.dark);
    root.fill(&bg).map_err(err)?;
    let s = spec.scale.max(0.5);
    let font = |px: f64| ("sans-serif", (px * s) as u32).into_font().color(&fg);
    let (r, c) = (spec.rows, spec.cols);
    let mut chart = ChartBuilder::on(&root)
        .margin((6.0 * s) as u32)
        .x_label_area_size((if spec.x_label.is_empty() { 20.0 } else { 32.0 } * s) as u32)
        .y_label_area_size(
            ({
                let longest =
                    spec.row_labels.iter().chain(&spec.tick_labels).map(|l| l.chars().count()).max().unwrap_or(0);
                (30.0f64).max(20.0 + 6.0 * longest as f64) * s
            }) as u32,
        )
        .build_cartesian_2d(0f64..c as f64, r as f64..0f64)
        .map_err(err)?;
    let step = |n: usize| ((n as f64 / 8.0).ceil() as usize).max(1);
    let off = spec.label_offset;
    let tick = |labels: &[String], i: usize| {
        labels.get(i).or_else(|| spec.tick_labels.get(i)).cloned().unwrap_or_else(|| (i + off).to_string())
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .axis_style(fg.mix(0.5))
        .axis_desc_style(font(11.0))
        .x_desc(spec.x_label.as_str())
        .y_desc(spec.y_label.as_str())
        .x_labels(0)
        .y_labels(0)
        .draw()
        .map_err(err)?;
    // Tick labels at the middle of their row or column (the mesh would put them on cell edges).
    let tick_len = (3.0 * s).round() as i32;
    let axis = fg.mix(0.5);
    for i in (0..c).step_by(step(c)) {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, r as f64));
        root.draw(&PathElement::new(vec![(px, py), (px, py + tick_len)], axis)).map_err(err)?;
        let pos = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(tick(&spec.col_labels, i), (px, py + tick_len + 1), font(10.0).pos(pos))).map_err(err)?;
    }
    for i in (0..r).step_by(step(r)) {
        let (px, py) = chart.backend_coord(&(0.0, i as f64 + 0.5));
        root.draw(&PathElement::new(vec![(px - tick_len, py), (px, py)], axis)).map_err(err)?;
        let pos = Pos::new(HPos::Right, VPos::Center);
        root.draw(&Text::new(tick(&spec.row_labels, i), (px - tick_len - 2, py), font(10.0).pos(pos))).map_err(err)?;
    }
    let masked = if spec.dark { RGBColor(44, 47, 54) } else { RGBColor(236, 237, 240) };
    let span = (spec.vmax - spec.vmin).max(1e-12);
    let vabs = spec.vmax.abs().max(spec.vmin.abs()).max(1e-12);
    let color = |i: usize, j: usize| {
        let v = spec.values[i * c + j];
        if (spec.mask_upper && j > i) || (spec.mask_diagonal && i == j) {
            masked
        } else {
            let (cr, cg, cb) = if spec.signed { diverging(v / vabs) } else { viridis((v - spec.vmin) / span) };
            RGBColor(cr, cg, cb)
        }
    };
    let cells = (0..r).flat_map(|i| (0..c).map(move |j| (i, j)));
    match paint {
        Some(paint) => {
            // Present what plotters drew so far (the canvas backend draws at once; this keeps the
            // order: axes, then cells, then separators and outlines on top).
            let rgba: Vec<u8> = cells
                .flat_map(|(i, j)| {
                    let RGBColor(cr, cg, cb) = color(i, j);
                    [cr, cg, cb, 255]
                })
                .collect();
            root.present().map_err(err)?;
            paint(chart.backend_coord(&(0.0, 0.0)), chart.backend_coord(&(c as f64, r as f64)), &rgba, c, r)?;
        }
        None => {
            chart
                .draw_series(cells.map(|(i, j)| {
                    Rectangle::new([(j as f64, i as f64), (j as f64 + 1.0, i as f64 + 1.0)], color(i, j).filled())
                }))
                .map_err(err)?;
        }
    }
    let sep = fg.mix(0.8).stroke_width((1.0 * s).round().max(1.0) as u32);
    for &k in spec.separators.iter().filter(|&&k| k < r.max(c)) {
        let k = k as f64;
        chart.draw_series(std::iter::once(PathElement::new(vec![(k, 0.0), (k, r as f64)], sep))).map_err(err)?;
        chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, k), (c as f64, k)], sep))).map_err(err)?;
    }
    let outline = if spec.signed { RGBColor(0, 0, 0) } else { RGBColor(255, 255, 255) };
    let outline = if spec.dark && spec.signed { RGBColor(255, 210, 0) } else { outline };
    chart
        .draw_series(spec.outline.iter().filter(|(i, j)| *i < r && *j < c).map(|&(i, j)| {
            Rectangle::new(
                [(j as f64, i as f64), (j as f64 + 1.0, i as f64 + 1.0)],
                outline.stroke_width((1.5 * s).round().max(1.0) as u32),
            )
        }))
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}
