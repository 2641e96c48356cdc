//! Parts of a line chart: the axes' transforms and tick labels, the markers' labels above the
//! plot, the decade ticks of a log axis, the shaded stretches, and the bands and curves.

use super::*;

/// The x axis's transform: `ln(1 + x)` on a log axis.
pub(super) fn x_t(spec: &LineSpec, x: f64) -> f64 {
    if spec.x_log {
        x.max(0.0).ln_1p()
    } else {
        x
    }
}

/// The y axis's transform: `ln y` on a log axis.
pub(super) fn y_t(spec: &LineSpec, y: f64) -> f64 {
    if spec.y_log {
        y.max(1e-9).ln()
    } else {
        y
    }
}

/// A y tick's label ([`crate::legend::tick_label`]; `v` is `ln y` on a log axis).
pub(super) fn y_tick(v: f64, y_log: bool, span: f64) -> String {
    crate::legend::tick_label(if y_log { v.exp() } else { v }, y_log, span)
}

/// A marker's label above the plot: the marker, its text, its line in the strip, the text
/// anchor's offset from the marker's line in pixels, and the anchor's side.
pub(super) type MarkerLabel<'a> = (&'a Marker, String, usize, f64, HPos);

/// Places the markers' labels in the strip above the plot (`x_px`: a marker's x in pixels;
/// `right`: the plot's right edge): one line, and another for each label that would run into
/// one at its left; a label that would run past the right edge is drawn to the left of its
/// line, and one that fits on neither side is shifted to stay inside the canvas.
pub(super) fn marker_labels(
    spec: &LineSpec,
    x_px: impl Fn(f64) -> f64,
    right: f64,
    canvas_w: f64,
    s: f64,
) -> Vec<MarkerLabel<'_>> {
    let mut labels: Vec<MarkerLabel> = Vec::new();
    let mut taken: Vec<(usize, f64, f64)> = Vec::new(); // (line, left, right) in pixels
    let mut labeled: Vec<&Marker> = spec.markers.iter().filter(|m| !m.label.is_empty() && m.x.is_finite()).collect();
    labeled.sort_by(|a, b| a.x.total_cmp(&b.x));
    for m in labeled {
        let text = format!(" {} ", m.label);
        let px = x_px(m.x);
        let width = text.chars().count() as f64 * 5.6 * s;
        let (left, hpos) = if px + width <= right {
            (px, HPos::Left)
        } else if px - width >= 0.0 {
            (px - width, HPos::Right)
        } else {
            ((canvas_w - width).max(0.0), HPos::Left)
        };
        let offset = if matches!(hpos, HPos::Right) { 0.0 } else { left - px };
        let line = (0..).find(|&k| taken.iter().all(|&(l, a, b)| l != k || left > b || left + width < a)).unwrap_or(0);
        // Labels never stack more than two deep: a third one is left out (its line stays), and
        // the chapter merges events of one step into one label.
        if line >= MAX_LABEL_LINES {
            continue;
        }
        taken.push((line, left, left + width));
        labels.push((m, text, line, offset, hpos));
    }
    labels
}

/// A line chart's plotting context.
pub(super) type LineChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

/// Decade ticks of a log step axis: a grid line and a label at 0, 1, 10, 100, … up to its end.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_decades<DB: DrawingBackend>(
    chart: &mut LineChart<'_, DB>,
    root: &DrawingArea<DB, Shift>,
    spec: &LineSpec,
    (y0, y1): (f64, f64),
    x_max: f64,
    grid: RGBColor,
    font: &TextStyle,
    s: f64,
) -> DrawResult {
    // From step 1: a log axis has no 0 tick (step 0 is its left edge).
    let mut decade = 1.0f64;
    while x_t(spec, decade) <= x_max + 1e-9 {
        let x = x_t(spec, decade);
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, y0), (x, y1)], grid))).map_err(err)?;
        let (px, py) = chart.backend_coord(&(x, y0));
        root.draw(&Text::new(
            format!("{decade:.0}"),
            (px, py + (5.0 * s) as i32),
            font.clone().pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
        decade *= 10.0;
    }
    Ok(())
}

/// The shaded stretches of the x axis, each with its label at its top left.
pub(super) fn draw_spans<DB: DrawingBackend>(
    chart: &mut LineChart<'_, DB>,
    root: &DrawingArea<DB, Shift>,
    spec: &LineSpec,
    (y0, y1): (f64, f64),
    font: &TextStyle,
    s: f64,
) -> DrawResult {
    for sp in &spec.spans {
        let (a, b) = (x_t(spec, sp.from.min(sp.to)), x_t(spec, sp.from.max(sp.to)));
        if !(a.is_finite() && b.is_finite()) {
            continue;
        }
        let color = hex(&sp.color);
        chart
            .draw_series(std::iter::once(Rectangle::new([(a, y0), (b, y1)], color.mix(0.13).filled())))
            .map_err(err)?;
        if !sp.label.is_empty() {
            // At the span's top left; where a curve crosses there (the plateau of a loss that
            // starts near the top of its axis), just under the curves of the upper half there.
            let (w, h) = root.estimate_text_size(&sp.label, font).unwrap_or((0, 0));
            let pad = (4.0 * s) as i32;
            let (px, top) = chart.backend_coord(&(a, y1));
            let middle = (top + chart.backend_coord(&(a, y0)).1) / 2;
            let under: Vec<(i32, i32)> = spec
                .series
                .iter()
                .flat_map(|ser| &ser.points)
                .map(|&(x, v)| chart.backend_coord(&(x_t(spec, x), y_t(spec, v))))
                .filter(|&(cx, _)| cx >= px && cx <= px + 2 * pad + w as i32)
                .collect();
            let crossed = |y: i32| under.iter().any(|&(_, cy)| cy >= y - pad && cy <= y + h as i32 + pad);
            let below = under.iter().map(|&(_, cy)| cy).filter(|&cy| cy < middle).max().map_or(top, |cy| cy + pad);
            let y = if crossed(top + pad) && !crossed(below + pad) { below + pad } else { top + pad };
            root.draw(&Text::new(sp.label.clone(), (px + pad, y), font.clone().pos(Pos::new(HPos::Left, VPos::Top))))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// The bands, then the curves: faint ones first, so the live run's lines are drawn over them.
pub(super) fn draw_curves<DB: DrawingBackend>(chart: &mut LineChart<'_, DB>, spec: &LineSpec, s: f64) -> DrawResult {
    let finite = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
        pts.iter().map(|&(x, y)| (x_t(spec, x), y_t(spec, y))).filter(|(x, y)| x.is_finite() && y.is_finite()).collect()
    };
    for b in &spec.bands {
        let mut outline = finite(&b.lo);
        outline.extend(finite(&b.hi).into_iter().rev());
        if outline.len() >= 3 {
            chart.draw_series(std::iter::once(Polygon::new(outline, hex(&b.color).mix(0.2).filled()))).map_err(err)?;
        }
    }
    let order = spec.series.iter().filter(|ser| ser.faint).chain(spec.series.iter().filter(|ser| !ser.faint));
    for ser in order {
        let color = hex(&ser.color);
        let width = if ser.faint || ser.dashed { 1.0 } else { 2.0 };
        let style = if ser.faint {
            color.mix(0.4).stroke_width((width * s).round().max(1.0) as u32)
        } else {
            color.stroke_width((width * s).round().max(1.0) as u32)
        };
        let pts = finite(&ser.points);
        if ser.dashed {
            chart.draw_series(DashedLineSeries::new(pts, (5.0 * s) as u32, (4.0 * s) as u32, style)).map_err(err)?
        } else {
            chart.draw_series(LineSeries::new(pts, style)).map_err(err)?
        };
    }
    Ok(())
}
