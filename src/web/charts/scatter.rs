//! Scatter charts: chapter 2's PCA of the key embeddings.

use super::*;

/// What a scatter plot shows.
#[derive(Deserialize)]
pub struct ScatterSpec {
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
    /// One value per point, coloured with viridis over `[vmin, vmax]`.
    pub values: Vec<f64>,
    /// Colour range.
    pub vmin: f64,
    /// Colour range.
    pub vmax: f64,
    /// Axis captions.
    #[serde(default)]
    pub x_label: String,
    /// Axis captions.
    #[serde(default)]
    pub y_label: String,
    /// Caption of the colour bar (e.g. "key value").
    #[serde(default)]
    pub color_label: String,
    /// Text labels drawn next to these point indices.
    #[serde(default)]
    pub labeled: Vec<(usize, String)>,
    /// Text scale.
    #[serde(default = "one")]
    pub scale: f64,
    /// Dark theme.
    #[serde(default)]
    pub dark: bool,
}

/// Draws points coloured by value, with a colour bar; the axes fit the points with a margin
/// and keep a 1:1 aspect-free square range so the cloud's shape is not stretched by outliers.
pub fn draw_scatter(canvas: HtmlCanvasElement, spec: &ScatterSpec) -> DrawResult {
    let backend = canvas_backend(canvas)?;
    scatter_on(backend.into_drawing_area(), spec)
}

/// [`draw_scatter`] as an SVG document of `width × height` pixels (text as `<text>` in the named
/// font, the same colours and labels as on the canvas).
pub fn scatter_svg(spec: &ScatterSpec, width: u32, height: u32) -> Result<String, String> {
    let mut out = String::new();
    scatter_on(svg_backend(&mut out, width, height).into_drawing_area(), spec)?;
    Ok(out)
}

fn scatter_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, spec: &ScatterSpec) -> DrawResult {
    if spec.points.len() != spec.values.len() {
        return Err(format!("scatter needs one value per point ({} vs {})", spec.points.len(), spec.values.len()));
    }
    let (bg, fg, grid) = theme(spec.dark);
    root.fill(&bg).map_err(err)?;
    let s = spec.scale.max(0.5);
    let font = |px: f64| ("sans-serif", (px * s) as u32).into_font().color(&fg);
    let finite: Vec<(f64, f64)> = spec.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    let lim = finite.iter().fold(1e-6f64, |m, (x, y)| m.max(x.abs()).max(y.abs())) * 1.1;
    let (w, _) = root.dim_in_pixel();
    let bar = (28.0 * s) as u32;
    let (plot, legend) = root.split_horizontally(w.saturating_sub(bar + (34.0 * s) as u32));
    let mut chart = ChartBuilder::on(&plot)
        .margin((8.0 * s) as u32)
        // Room for the tick labels and, outside them, the axis caption (at 30 and 40 px the
        // captions ran into the tick labels).
        .x_label_area_size((40.0 * s) as u32)
        .y_label_area_size((56.0 * s) as u32)
        .build_cartesian_2d(-lim..lim, -lim..lim)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(grid.mix(0.0))
        .bold_line_style(grid)
        .axis_style(fg.mix(0.6))
        .label_style(font(10.0))
        .axis_desc_style(font(11.0))
        .x_desc(spec.x_label.as_str())
        .y_desc(spec.y_label.as_str())
        .x_labels(5)
        .y_labels(5)
        .x_label_formatter(&|v| format!("{v:.2}"))
        .y_label_formatter(&|v| format!("{v:.2}"))
        .draw()
        .map_err(err)?;
    let span = (spec.vmax - spec.vmin).max(1e-12);
    let radius = (3.5 * s).round().max(2.0) as i32;
    chart
        .draw_series(spec.points.iter().zip(&spec.values).filter(|((x, y), _)| x.is_finite() && y.is_finite()).map(
            |(&(x, y), &v)| {
                let (r, g, b) = viridis((v - spec.vmin) / span);
                Circle::new((x, y), radius, RGBColor(r, g, b).filled())
            },
        ))
        .map_err(err)?;
    for (i, label) in &spec.labeled {
        if let Some(&(x, y)) = spec.points.get(*i).filter(|(x, y)| x.is_finite() && y.is_finite()) {
            chart.draw_series(std::iter::once(Text::new(format!(" {label}"), (x, y), font(10.0)))).map_err(err)?;
        }
    }
    // Colour bar: vmin at the bottom, vmax at the top.
    let (_, h) = legend.dim_in_pixel();
    let top = (12.0 * s) as i32;
    let bottom = h as i32 - (40.0 * s) as i32;
    let x0 = (6.0 * s) as i32;
    let steps = 48;
    for k in 0..steps {
        let t = k as f64 / (steps - 1) as f64;
        let (r, g, b) = viridis(t);
        let y1 = bottom - ((bottom - top) as f64 * (k + 1) as f64 / steps as f64) as i32;
        let y0 = bottom - ((bottom - top) as f64 * k as f64 / steps as f64) as i32;
        legend
            .draw(&Rectangle::new([(x0, y1), (x0 + (10.0 * s) as i32, y0)], RGBColor(r, g, b).filled()))
            .map_err(err)?;
    }
    let lab = |v: f64| if v.abs() >= 10.0 { format!("{v:.0}") } else { format!("{v:.2}") };
    legend.draw(&Text::new(lab(spec.vmax), (x0, top - (11.0 * s) as i32), font(10.0))).map_err(err)?;
    legend.draw(&Text::new(lab(spec.vmin), (x0, bottom + (2.0 * s) as i32), font(10.0))).map_err(err)?;
    if !spec.color_label.is_empty() {
        legend.draw(&Text::new(spec.color_label.clone(), (0, bottom + (16.0 * s) as i32), font(10.0))).map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}
