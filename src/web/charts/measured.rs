//! Text measured without touching the page's layout ([`Measured`]), in a module of its
//! own so that the backend traits it implements stay out of the drawing code's scope.

use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A plotters backend whose text is measured with a canvas 2D context's `measureText`.
///
/// plotters' own web font code measures a label by appending a `<span>` to the page and reading
/// its `offsetHeight`: a forced style and layout pass over the whole page for every label, and a
/// chart measures dozens (tick labels, legend, titles). On this long page that made a single
/// chart draw take 50–190 ms of main-thread time while training. `measureText` touches no
/// layout. Every other call, drawing included, is the wrapped backend's; the canvas and the SVG
/// export measure with the same detached context, so they lay out alike.
pub(super) struct Measured<B>(B);

thread_local! {
    /// The 2D context of a canvas that is never attached to the page (`None` without a DOM).
    static MEASURE: Option<CanvasRenderingContext2d> = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
        .and_then(|c| c.get_context("2d").ok().flatten())
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
}

/// `text`'s box in `style` as `(width, height)` pixels: the advance width rounded, and the font's
/// ascent plus descent (what a `line-height: normal` box of that font measures), or `None` when
/// the browser cannot measure.
fn measure_text<S: BackendTextStyle>(text: &str, style: &S) -> Option<(u32, u32)> {
    MEASURE.with(|ctx| {
        let ctx = ctx.as_ref()?;
        // The font string plotters-canvas draws with.
        ctx.set_font(&format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str()));
        let m = ctx.measure_text(text).ok()?;
        let h = m.font_bounding_box_ascent() + m.font_bounding_box_descent();
        let h = if h.is_finite() && h > 0.0 { h } else { style.size() * 1.2 };
        m.width().is_finite().then(|| (m.width().round() as u32, h.ceil() as u32))
    })
}

impl<B: DrawingBackend> DrawingBackend for Measured<B> {
    type ErrorType = B::ErrorType;
    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_path(path, s)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_circle(c, r, s, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.fill_polygon(v, s)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &S,
        p: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.draw_text(text, s, p)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        match measure_text(text, s) {
            Some(size) => Ok(size),
            None => self.0.estimate_text_size(text, s),
        }
    }
    fn blit_bitmap(
        &mut self,
        p: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.blit_bitmap(p, size, src)
    }
}

/// The canvas's plotters backend, text measured by [`Measured`].
pub(super) fn canvas_backend(canvas: HtmlCanvasElement) -> Result<Measured<CanvasBackend>, String> {
    Ok(Measured(CanvasBackend::with_canvas_object(canvas).ok_or("no 2d context")?))
}

/// An SVG backend of `width × height` pixels writing into `out`, text measured by [`Measured`].
pub(super) fn svg_backend(out: &mut String, width: u32, height: u32) -> Measured<SVGBackend<'_>> {
    Measured(SVGBackend::with_string(out, (width.max(50), height.max(50))))
}
