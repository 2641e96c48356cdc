//! Arc diagrams: chapter 3's gold dependency tree above a sentence and the best head's arcs below.

use super::*;

/// A sentence with arcs: the gold tree above the words, one attention head's choices below.
#[derive(Deserialize)]
pub struct ArcSpec {
    /// The words, in order.
    pub words: Vec<String>,
    /// Gold head of every word (`-1` for the root).
    pub gold: Vec<i64>,
    /// The head's predicted head of every word (`-1` for none).
    pub pred: Vec<i64>,
    /// Attention weight of each predicted arc (0..1), for its stroke opacity.
    #[serde(default)]
    pub weight: Vec<f64>,
    /// Text scale.
    #[serde(default = "one")]
    pub scale: f64,
    /// Dark theme.
    #[serde(default)]
    pub dark: bool,
}

/// Draws the words on a middle line, gold arcs (grey) above and predicted arcs below: blue where
/// the prediction is the gold head, vermilion where it is not, opacity by attention weight.
pub fn draw_arcs(canvas: HtmlCanvasElement, spec: &ArcSpec) -> DrawResult {
    let backend = canvas_backend(canvas)?;
    arcs_on(backend.into_drawing_area(), spec)
}

/// [`draw_arcs`] as an SVG document of `width × height` pixels (text as `<text>` in the named
/// font, the same colours and labels as on the canvas).
pub fn arcs_svg(spec: &ArcSpec, width: u32, height: u32) -> Result<String, String> {
    let mut out = String::new();
    arcs_on(svg_backend(&mut out, width, height).into_drawing_area(), spec)?;
    Ok(out)
}

fn arcs_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, spec: &ArcSpec) -> DrawResult {
    let (bg, fg, _) = theme(spec.dark);
    root.fill(&bg).map_err(err)?;
    let n = spec.words.len();
    if n == 0 {
        root.present().map_err(err)?;
        return Ok(());
    }
    let s = spec.scale.max(0.5);
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (w as f64, h as f64);
    let pad = 10.0 * s;
    let dx = (w - 2.0 * pad) / n as f64;
    let x = |i: usize| pad + dx * (i as f64 + 0.5);
    let mid = h * 0.5;
    let font_px = (dx * 0.32).clamp(8.0 * s, 13.0 * s);
    let font = ("sans-serif", font_px as u32).into_font().color(&fg);
    let centre = Pos::new(HPos::Center, VPos::Center);
    for (i, word) in spec.words.iter().enumerate() {
        root.draw(&Text::new(word.clone(), (x(i) as i32, mid as i32), font.clone().pos(centre))).map_err(err)?;
    }
    let up = mid - font_px * 0.9;
    let down = mid + font_px * 0.9;
    let room = (mid - font_px * 0.9 - 4.0 * s).max(4.0);
    let arc = |a: usize, b: usize, y0: f64, dir: f64| -> Vec<(i32, i32)> {
        let (xa, xb) = (x(a), x(b));
        let span = (b as f64 - a as f64).abs() / n as f64;
        let height = room * (0.25 + 0.75 * span.sqrt()).min(1.0);
        (0..=24)
            .map(|k| {
                let t = k as f64 / 24.0;
                let px = xa + (xb - xa) * t;
                let py = y0 + dir * height * (std::f64::consts::PI * t).sin();
                (px as i32, py as i32)
            })
            .collect()
    };
    let gold_style = fg.mix(0.55).stroke_width((1.4 * s).round().max(1.0) as u32);
    for (i, &g) in spec.gold.iter().enumerate().take(n) {
        if g >= 0 && (g as usize) < n {
            let pts = arc(g as usize, i, up, -1.0);
            root.draw(&PathElement::new(pts.clone(), gold_style)).map_err(err)?;
            // Arrowhead dot at the dependent.
            root.draw(&Circle::new(*pts.last().unwrap(), (2.0 * s) as i32, fg.mix(0.55).filled())).map_err(err)?;
        }
    }
    let right = RGBColor(0, 114, 178);
    let wrong = RGBColor(213, 94, 0);
    for (i, &p) in spec.pred.iter().enumerate().take(n) {
        if p >= 0 && (p as usize) < n && p as usize != i {
            let ok = spec.gold.get(i) == Some(&p);
            let alpha = spec.weight.get(i).copied().unwrap_or(1.0).clamp(0.15, 1.0);
            let color = if ok { right } else { wrong };
            let pts = arc(p as usize, i, down, 1.0);
            root.draw(&PathElement::new(pts.clone(), color.mix(alpha).stroke_width((1.8 * s).round().max(1.0) as u32)))
                .map_err(err)?;
            root.draw(&Circle::new(*pts.last().unwrap(), (2.2 * s) as i32, color.mix(alpha).filled())).map_err(err)?;
        }
    }
    root.present().map_err(err)?;
    Ok(())
}
