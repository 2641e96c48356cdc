//! Charts drawn with plotters + plotters-canvas onto `<canvas>` elements.
//!
//! The page hands over what to draw (series of recorded metric values, a snapshot's matrix);
//! these functions only draw. Canvas pixel sizes are set by the caller (CSS size × device pixel
//! ratio); `scale` enlarges text and strokes to match.

use crate::colormap::{diverging, viridis};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use serde::Deserialize;
use web_sys::HtmlCanvasElement;

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
    /// y axis label.
    #[serde(default)]
    pub y_label: String,
    /// Lines.
    pub series: Vec<Series>,
    /// Vertical markers (e.g. the drop step, the scrubber position).
    #[serde(default)]
    pub markers: Vec<Marker>,
    /// Text and stroke scale (device pixel ratio).
    #[serde(default = "one")]
    pub scale: f64,
    /// Dark theme.
    #[serde(default)]
    pub dark: bool,
    /// Legend corner: `"ul"`, `"ur"` (default), `"ll"` or `"lr"` — where the curves are not.
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
    /// Grey out the strict upper triangle (causal maps).
    #[serde(default)]
    pub mask_upper: bool,
    /// Cells to outline (e.g. Ω).
    #[serde(default)]
    pub outline: Vec<(usize, usize)>,
    /// Offset of the first row/column label (e.g. 1 for y_1..y_n).
    #[serde(default)]
    pub label_offset: usize,
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
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    let (bg, fg, grid) = theme(spec.dark);
    root.fill(&bg).map_err(err)?;
    let s = spec.scale.max(0.5);
    let font = |px: f64| ("sans-serif", (px * s) as u32).into_font().color(&fg);
    let x_max = spec.x_max.max(1.0);
    let ty = |y: f64| if spec.y_log { y.max(1e-9).ln() } else { y };
    let (y0, y1) = if spec.y_max > spec.y_min {
        (ty(spec.y_min), ty(spec.y_max))
    } else {
        (ty(spec.y_min) - 0.5, ty(spec.y_min) + 0.5)
    };
    let mut chart = ChartBuilder::on(&root)
        .margin((8.0 * s) as u32)
        .x_label_area_size((36.0 * s) as u32)
        .y_label_area_size((44.0 * s) as u32)
        .build_cartesian_2d(0f64..x_max, y0..y1)
        .map_err(err)?;
    let y_fmt = |v: &f64| {
        let y = if spec.y_log { v.exp() } else { *v };
        if y.abs() >= 10.0 {
            format!("{y:.0}")
        } else if spec.y_log {
            format!("{y:.2}")
        } else {
            format!("{y:.1}")
        }
    };
    chart
        .configure_mesh()
        .light_line_style(grid.mix(0.0))
        .bold_line_style(grid)
        .axis_style(fg.mix(0.6))
        .label_style(font(11.0))
        .axis_desc_style(font(11.0))
        .x_desc("step")
        .y_desc(spec.y_label.as_str())
        .x_labels(6)
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&y_fmt)
        .draw()
        .map_err(err)?;
    for m in &spec.markers {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(m.x, y0), (m.x, y1)],
                fg.mix(0.45).stroke_width((1.0 * s) as u32),
            )))
            .map_err(err)?;
        if !m.label.is_empty() {
            let pos = Pos::new(HPos::Left, VPos::Top);
            chart
                .draw_series(std::iter::once(Text::new(format!(" {}", m.label), (m.x, y1), font(10.0).pos(pos))))
                .map_err(err)?;
        }
    }
    for ser in &spec.series {
        let color = hex(&ser.color);
        let style = color.stroke_width((if ser.dashed { 1.0 } else { 2.0 } * s).round().max(1.0) as u32);
        let pts: Vec<(f64, f64)> =
            ser.points.iter().map(|&(x, y)| (x, ty(y))).filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
        if ser.dashed {
            chart.draw_series(DashedLineSeries::new(pts, (5.0 * s) as u32, (4.0 * s) as u32, style)).map_err(err)?
        } else {
            chart.draw_series(LineSeries::new(pts, style)).map_err(err)?
        }
        .label(ser.label.clone())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(match spec.legend.as_str() {
            "ul" => SeriesLabelPosition::UpperLeft,
            "ll" => SeriesLabelPosition::LowerLeft,
            "lr" => SeriesLabelPosition::LowerRight,
            _ => SeriesLabelPosition::UpperRight,
        })
        .background_style(bg.mix(0.85))
        .border_style(grid)
        .label_font(font(11.0))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// Draws a matrix as coloured cells, with optional causal masking and outlined cells.
pub fn draw_heatmap(canvas: HtmlCanvasElement, spec: &HeatSpec) -> DrawResult {
    if spec.values.len() != spec.rows * spec.cols || spec.rows == 0 || spec.cols == 0 {
        return Err(format!("heatmap needs {}×{} values, got {}", spec.rows, spec.cols, spec.values.len()));
    }
    let backend = CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?;
    let root = backend.into_drawing_area();
    let (bg, fg, _) = theme(spec.dark);
    root.fill(&bg).map_err(err)?;
    let s = spec.scale.max(0.5);
    let font = |px: f64| ("sans-serif", (px * s) as u32).into_font().color(&fg);
    let (r, c) = (spec.rows, spec.cols);
    let mut chart = ChartBuilder::on(&root)
        .margin((6.0 * s) as u32)
        .x_label_area_size((24.0 * s) as u32)
        .y_label_area_size((30.0 * s) as u32)
        .build_cartesian_2d(0f64..c as f64, r as f64..0f64)
        .map_err(err)?;
    let step = |n: usize| ((n as f64 / 8.0).ceil() as usize).max(1);
    let off = spec.label_offset;
    chart
        .configure_mesh()
        .disable_mesh()
        .axis_style(fg.mix(0.5))
        .label_style(font(10.0))
        .axis_desc_style(font(11.0))
        .x_desc(spec.x_label.as_str())
        .y_desc(spec.y_label.as_str())
        .x_labels(c.min(9))
        .y_labels(r.min(9))
        .x_label_formatter(&|v| {
            let i = v.floor() as usize;
            if (v - v.floor()).abs() < 1e-9 && i < c && i % step(c) == 0 {
                (i + off).to_string()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| {
            let i = v.floor() as usize;
            if (v - v.floor()).abs() < 1e-9 && i < r && i % step(r) == 0 {
                (i + off).to_string()
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(err)?;
    let masked = if spec.dark { RGBColor(44, 47, 54) } else { RGBColor(236, 237, 240) };
    let span = (spec.vmax - spec.vmin).max(1e-12);
    let vabs = spec.vmax.abs().max(spec.vmin.abs()).max(1e-12);
    chart
        .draw_series((0..r).flat_map(|i| (0..c).map(move |j| (i, j))).map(|(i, j)| {
            let v = spec.values[i * c + j];
            let color = if spec.mask_upper && j > i {
                masked
            } else {
                let (cr, cg, cb) = if spec.signed { diverging(v / vabs) } else { viridis((v - spec.vmin) / span) };
                RGBColor(cr, cg, cb)
            };
            Rectangle::new([(j as f64, i as f64), (j as f64 + 1.0, i as f64 + 1.0)], color.filled())
        }))
        .map_err(err)?;
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
