//! Where a line chart's legend goes: in a corner of the plot that no curve or seed band passes
//! through, chosen from the data at every redraw, or, when every corner has data under it, in a
//! strip above the plot. Pure geometry in pixels (y grows downwards), so it is tested natively;
//! the charts (`web::charts`) call it with their own pixel mapping, the same for the canvas and
//! the SVG export.

/// A corner of the plot area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corner {
    /// Upper left.
    UpperLeft,
    /// Upper right.
    UpperRight,
    /// Lower left.
    LowerLeft,
    /// Lower right.
    LowerRight,
}

impl Corner {
    /// `"ul"`, `"ll"`, `"lr"`; anything else (including `""`) is the upper right.
    pub fn parse(text: &str) -> Corner {
        match text {
            "ul" => Corner::UpperLeft,
            "ll" => Corner::LowerLeft,
            "lr" => Corner::LowerRight,
            _ => Corner::UpperRight,
        }
    }

    /// The legend box's top-left pixel in a plot of `plot` = (width, height) pixels, `inset`
    /// pixels from the corner.
    pub fn origin(self, plot: (f64, f64), size: (f64, f64), inset: f64) -> (f64, f64) {
        let left = matches!(self, Corner::UpperLeft | Corner::LowerLeft);
        let top = matches!(self, Corner::UpperLeft | Corner::UpperRight);
        (if left { inset } else { plot.0 - size.0 - inset }, if top { inset } else { plot.1 - size.1 - inset })
    }
}

/// Where the legend is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    /// Inside the plot, in this corner.
    Corner(Corner),
    /// In a strip above the plot: no corner is free of data.
    Above,
}

/// A pixel rectangle `[x0, x1] × [y0, y1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x0: f64,
    /// Top.
    pub y0: f64,
    /// Right.
    pub x1: f64,
    /// Bottom.
    pub y1: f64,
}

impl Rect {
    /// Whether the segment from `a` to `b` has a point inside (or on the edge of) the rectangle
    /// (Liang–Barsky clipping: the segment's parameter interval inside all four half-planes is
    /// not empty).
    pub fn meets_segment(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [(-dx, a.0 - self.x0), (dx, self.x1 - a.0), (-dy, a.1 - self.y0), (dy, self.y1 - a.1)] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// What the legend must not cover, in plot pixels: the curves (polylines; a single point is a
/// polyline of one point) and the seed bands (a band covers the area between its lower and upper
/// edges: each edge is a polyline, and each of its steps a vertical segment from one to the other).
#[derive(Default)]
pub struct Ink {
    segments: Vec<((f64, f64), (f64, f64))>,
}

impl Ink {
    /// A curve through `points` (non-finite points break the curve, as the charts draw it).
    pub fn add_curve(&mut self, points: impl IntoIterator<Item = (f64, f64)>) {
        let mut last: Option<(f64, f64)> = None;
        for p in points {
            if !(p.0.is_finite() && p.1.is_finite()) {
                last = None;
                continue;
            }
            self.segments.push((last.unwrap_or(p), p));
            last = Some(p);
        }
    }

    /// A band between `lo` and `hi` (same steps, in order).
    pub fn add_band(&mut self, lo: &[(f64, f64)], hi: &[(f64, f64)]) {
        self.add_curve(lo.iter().copied());
        self.add_curve(hi.iter().copied());
        for (&a, &b) in lo.iter().zip(hi) {
            if a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite() {
                self.segments.push((a, b));
            }
        }
    }

    /// Whether anything drawn meets `rect`.
    pub fn meets(&self, rect: &Rect) -> bool {
        self.segments.iter().any(|&(a, b)| rect.meets_segment(a, b))
    }
}

/// The legend's place for a box of `size` pixels on a plot of `plot` pixels, `inset` pixels from
/// the corner: the `preferred` corner if no ink meets the box there (grown by `clearance` pixels
/// on every side), else the first free one of upper right, upper left, lower right, lower left,
/// else [`Spot::Above`]. A box larger than the plot goes above.
pub fn place(plot: (f64, f64), size: (f64, f64), inset: f64, clearance: f64, preferred: Corner, ink: &Ink) -> Spot {
    if size.0 + 2.0 * inset > plot.0 || size.1 + 2.0 * inset > plot.1 {
        return Spot::Above;
    }
    let order = [preferred, Corner::UpperRight, Corner::UpperLeft, Corner::LowerRight, Corner::LowerLeft];
    for corner in order {
        let (x, y) = corner.origin(plot, size, inset);
        let rect =
            Rect { x0: x - clearance, y0: y - clearance, x1: x + size.0 + clearance, y1: y + size.1 + clearance };
        if !ink.meets(&rect) {
            return Spot::Corner(corner);
        }
    }
    Spot::Above
}

/// Rows of a legend laid out left to right in a strip `width` pixels wide: each entry takes its
/// `widths[i]` plus `gap`; an entry that would run past the right edge starts a new row (an entry
/// wider than the strip gets a row of its own). Returns each entry's `(row, x)`.
pub fn rows(widths: &[f64], gap: f64, width: f64) -> Vec<(usize, f64)> {
    let (mut row, mut x) = (0, 0.0);
    widths
        .iter()
        .map(|&w| {
            if x > 0.0 && x + w > width {
                row += 1;
                x = 0.0;
            }
            let at = (row, x);
            x += w + gap;
            at
        })
        .collect()
}

/// A y tick's label: whole numbers from 10 up. On a linear axis as many decimals as its `span`
/// (in axis units) needs (a span of 0.1 gets two). On a log axis (`y` > 0 always) two
/// significant digits with trailing zeros dropped, so that a small tick never reads as "0.00"
/// (0.004 is "0.004", 0.25 is "0.25", 1.5 is "1.5", 2 is "2").
pub fn tick_label(y: f64, y_log: bool, span: f64) -> String {
    if y.abs() >= 10.0 {
        return format!("{y:.0}");
    }
    if y_log {
        let digits = if y > 0.0 { (1.0 - y.log10().floor()).max(0.0) as usize } else { 2 };
        let text = format!("{y:.digits$}");
        return if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text };
    }
    let digits = if span >= 0.5 {
        1
    } else if span >= 0.05 {
        2
    } else {
        3
    };
    format!("{y:.digits$}")
}

/// A legend swatch's look, as its line is drawn: a measured run faint (pale, thin), a baseline
/// dashed, the live run solid and thick; a faint dashed line is both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swatch {
    /// Drawn pale (40 % opacity) and 1 px wide.
    pub faint: bool,
    /// Drawn in dashes.
    pub dashed: bool,
}

impl Swatch {
    /// The swatch's stroke: (opacity, width in px at scale 1, dash segments over its 16 px as
    /// (start, end) pairs in px).
    pub fn stroke(self) -> (f64, f64, Vec<(f64, f64)>) {
        let opacity = if self.faint { 0.4 } else { 1.0 };
        let width = if self.faint || self.dashed { 1.5 } else { 3.0 };
        let dashes = if self.dashed { vec![(0.0, 5.0), (9.0, 14.0)] } else { vec![(0.0, 16.0)] };
        (opacity, width, dashes)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn log_ticks_never_read_zero() {
        assert_eq!(tick_label(0.004, true, 3.0), "0.004");
        assert_eq!(tick_label(0.0123, true, 3.0), "0.012");
        assert_eq!(tick_label(0.25, true, 3.0), "0.25");
        assert_eq!(tick_label(1.5, true, 3.0), "1.5");
        assert_eq!(tick_label(2.0, true, 3.0), "2");
        assert_eq!(tick_label(25.4, true, 3.0), "25");
        // Linear axes keep the span's decimals, 0 included.
        assert_eq!(tick_label(0.0, false, 1.0), "0.0");
        assert_eq!(tick_label(0.25, false, 0.1), "0.25");
        assert_eq!(tick_label(0.125, false, 0.01), "0.125");
    }

    #[test]
    fn swatches_are_drawn_as_their_lines() {
        let live = Swatch { faint: false, dashed: false }.stroke();
        let measured = Swatch { faint: true, dashed: false }.stroke();
        let baseline = Swatch { faint: false, dashed: true }.stroke();
        let faint_dashed = Swatch { faint: true, dashed: true }.stroke();
        assert_eq!(live, (1.0, 3.0, vec![(0.0, 16.0)]));
        assert_eq!(measured, (0.4, 1.5, vec![(0.0, 16.0)]));
        assert_eq!(baseline, (1.0, 1.5, vec![(0.0, 5.0), (9.0, 14.0)]));
        assert_eq!(faint_dashed, (0.4, 1.5, vec![(0.0, 5.0), (9.0, 14.0)]));
        // No two of the four look alike.
        let all = [live, measured, baseline, faint_dashed];
        for a in 0..4 {
            for b in a + 1..4 {
                assert_ne!(all[a], all[b]);
            }
        }
    }
    use super::*;

    fn unit() -> Rect {
        Rect { x0: 10.0, y0: 10.0, x1: 20.0, y1: 20.0 }
    }

    #[test]
    fn segments_meet_a_rectangle_only_when_they_pass_through_it() {
        let r = unit();
        assert!(r.meets_segment((0.0, 15.0), (30.0, 15.0)), "straight through");
        assert!(r.meets_segment((12.0, 12.0), (13.0, 13.0)), "wholly inside");
        assert!(r.meets_segment((15.0, 15.0), (15.0, 15.0)), "a point inside");
        assert!(r.meets_segment((0.0, 0.0), (30.0, 30.0)), "the diagonal");
        assert!(r.meets_segment((20.0, 0.0), (20.0, 5.0 + 10.0)), "touching the edge");
        assert!(!r.meets_segment((0.0, 0.0), (30.0, 5.0)), "passing above");
        assert!(!r.meets_segment((0.0, 9.0), (9.0, 30.0)), "passing by the lower-left corner");
        assert!(!r.meets_segment((25.0, 0.0), (25.0, 30.0)), "vertical, to the right");
        assert!(!r.meets_segment((0.0, 25.0), (9.0, 25.0)), "short, below and to the left");
        // Crossing the corner's diagonal line just outside: from (0, 21) to (21, 0) passes
        // (10.5, 10.5), inside; from (0, 19) to (19, 0) passes (9.5, 9.5), outside.
        assert!(r.meets_segment((0.0, 21.0), (21.0, 0.0)));
        assert!(!r.meets_segment((0.0, 19.0), (19.0, 0.0)));
    }

    /// A 200 × 100 plot, a 60 × 30 legend 5 px from the corner, no clearance.
    fn spot(ink: &Ink, preferred: Corner) -> Spot {
        place((200.0, 100.0), (60.0, 30.0), 5.0, 0.0, preferred, ink)
    }

    #[test]
    fn the_preferred_corner_is_kept_while_it_is_free_and_the_next_free_one_taken_when_not() {
        let empty = Ink::default();
        assert_eq!(spot(&empty, Corner::LowerLeft), Spot::Corner(Corner::LowerLeft));
        // A loss curve falling from the upper left to the lower right: it passes the upper-left
        // box (5..65 × 5..35) and the lower-right one (135..195 × 65..95).
        let mut falling = Ink::default();
        falling.add_curve([(0.0, 0.0), (100.0, 50.0), (200.0, 100.0)]);
        assert_eq!(spot(&falling, Corner::UpperLeft), Spot::Corner(Corner::UpperRight));
        assert_eq!(spot(&falling, Corner::LowerLeft), Spot::Corner(Corner::LowerLeft));
        // A plateau along the top then a drop to the bottom at x = 150: both upper corners are
        // covered by the plateau line at y = 20, the lower right by the floor at y = 80.
        let mut drop = Ink::default();
        drop.add_curve([(0.0, 20.0), (150.0, 20.0), (160.0, 80.0), (200.0, 80.0)]);
        assert_eq!(spot(&drop, Corner::UpperRight), Spot::Corner(Corner::LowerLeft));
    }

    #[test]
    fn a_band_covers_the_area_between_its_edges_and_full_corners_send_the_legend_above() {
        // A band from y 2 to y 98 over the whole width: its edges miss every box, its inside
        // does not.
        let lo: Vec<_> = (0..=20).map(|i| (i as f64 * 10.0, 98.0)).collect();
        let hi: Vec<_> = (0..=20).map(|i| (i as f64 * 10.0, 2.0)).collect();
        let mut band = Ink::default();
        band.add_band(&lo, &hi);
        assert_eq!(spot(&band, Corner::UpperRight), Spot::Above);
        let mut edges = Ink::default();
        edges.add_curve(lo.iter().copied());
        edges.add_curve(hi.iter().copied());
        assert_eq!(spot(&edges, Corner::UpperRight), Spot::Corner(Corner::UpperRight));
        // A legend that does not fit goes above whatever the data.
        assert_eq!(place((50.0, 100.0), (60.0, 30.0), 5.0, 0.0, Corner::UpperRight, &Ink::default()), Spot::Above);
    }

    #[test]
    fn clearance_keeps_a_curve_that_only_grazes_the_box_out() {
        let mut grazing = Ink::default();
        grazing.add_curve([(0.0, 38.0), (200.0, 38.0)]); // 3 px under the upper boxes (5..35)
        assert_eq!(
            place((200.0, 100.0), (60.0, 30.0), 5.0, 0.0, Corner::UpperRight, &grazing),
            Spot::Corner(Corner::UpperRight)
        );
        assert_eq!(
            place((200.0, 100.0), (60.0, 30.0), 5.0, 4.0, Corner::UpperRight, &grazing),
            Spot::Corner(Corner::LowerRight)
        );
    }

    #[test]
    fn non_finite_points_break_a_curve_instead_of_joining_across_the_gap() {
        let mut gap = Ink::default();
        // Two pieces whose join would cross the upper-right box (135..195 × 5..35).
        gap.add_curve([(120.0, 60.0), (f64::NAN, 1.0), (199.0, 1.0)]);
        assert_eq!(spot(&gap, Corner::UpperRight), Spot::Corner(Corner::UpperRight));
        let mut joined = Ink::default();
        joined.add_curve([(120.0, 60.0), (199.0, 1.0)]);
        assert_eq!(spot(&joined, Corner::UpperRight), Spot::Corner(Corner::UpperLeft));
    }

    #[test]
    fn strip_rows_wrap_at_the_edge() {
        assert_eq!(rows(&[40.0, 40.0, 40.0], 10.0, 100.0), vec![(0, 0.0), (0, 50.0), (1, 0.0)]);
        assert_eq!(rows(&[150.0, 20.0], 10.0, 100.0), vec![(0, 0.0), (1, 0.0)]);
        assert_eq!(rows(&[], 10.0, 100.0), vec![]);
    }
}
