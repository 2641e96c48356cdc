//! Colour-blind-safe colour maps for the charts: viridis for magnitudes and a blue–white–red
//! diverging map (ColorBrewer RdBu, reversed) for signed values such as linear attention.

/// RGB triple.
pub type Rgb = (u8, u8, u8);

/// Viridis anchor colours at t = 0, 0.125, …, 1 (matplotlib's viridis sampled at 9 points).
const VIRIDIS: [Rgb; 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

/// ColorBrewer RdBu (11 classes) reversed: −1 → blue, 0 → near white, +1 → red.
const DIVERGING: [Rgb; 11] = [
    (5, 48, 97),
    (33, 102, 172),
    (67, 147, 195),
    (146, 197, 222),
    (209, 229, 240),
    (247, 247, 247),
    (253, 219, 199),
    (244, 165, 130),
    (214, 96, 77),
    (178, 24, 43),
    (103, 0, 31),
];

fn lerp_table(table: &[Rgb], t: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let x = t * (table.len() - 1) as f64;
    let i = (x.floor() as usize).min(table.len() - 2);
    let f = x - i as f64;
    let (a, b) = (table[i], table[i + 1]);
    let mix = |p: u8, q: u8| (p as f64 + (q as f64 - p as f64) * f).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Viridis at `t ∈ [0, 1]` (clamped; NaN maps to 0).
pub fn viridis(t: f64) -> Rgb {
    lerp_table(&VIRIDIS, t)
}

/// Diverging map at `v ∈ [−1, 1]` (clamped): blue for negative, white at 0, red for positive.
pub fn diverging(v: f64) -> Rgb {
    lerp_table(&DIVERGING, (v + 1.0) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_and_midpoints() {
        assert_eq!(viridis(0.0), (68, 1, 84));
        assert_eq!(viridis(1.0), (253, 231, 37));
        assert_eq!(viridis(2.0), (253, 231, 37));
        assert_eq!(viridis(f64::NAN), (68, 1, 84));
        assert_eq!(diverging(0.0), (247, 247, 247));
        assert_eq!(diverging(-1.0), (5, 48, 97));
        assert_eq!(diverging(1.0), (103, 0, 31));
        // halfway between the first two viridis anchors
        assert_eq!(viridis(0.0625), (70, 23, 103));
    }
}
