//! Seeded random streams that give the same numbers natively and in wasm.
//!
//! Every random quantity comes from a ChaCha8 stream keyed by the run seed and a stream id, so
//! initialization, training data and held-out data are independent of each other and of the
//! backend: the same seed gives the same weights and batches everywhere.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The named streams of a run.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Parameter initialization.
    Init = 1,
    /// Training batches.
    Train = 2,
    /// Held-out batches (keyed by step as well).
    Eval = 3,
    /// Fixed tables of a task drawn once per seed (chapter 2's memory labels).
    Table = 4,
    /// Training-time randomness that is not data (chapter 3's MLM masking, keyed by step).
    Mask = 5,
}

/// A ChaCha8 generator for `(seed, stream, index)`.
pub fn stream(seed: u64, stream: Stream, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(((stream as u64) << 40) ^ index);
    rng
}

/// `n` draws from N(0, std²), by the Box–Muller transform in f64.
pub fn normal_vec(rng: &mut ChaCha8Rng, n: usize, std: f64) -> Vec<f32> {
    let mut out = Vec::with_capacity(n + 1);
    while out.len() < n {
        // u1 in (0, 1], u2 in [0, 1)
        let u1 = 1.0 - rng.random::<f64>();
        let u2 = rng.random::<f64>();
        let r = (-2.0 * u1.ln()).sqrt();
        let t = std::f64::consts::TAU * u2;
        out.push((std * r * t.cos()) as f32);
        out.push((std * r * t.sin()) as f32);
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u32> = (0..4).map(|_| stream(7, Stream::Train, 0).random()).collect();
        assert!(a.iter().all(|x| *x == a[0]));
        let b: u32 = stream(7, Stream::Eval, 0).random();
        let c: u32 = stream(7, Stream::Eval, 1).random();
        assert_ne!(a[0], b);
        assert_ne!(b, c);
    }

    #[test]
    fn normal_has_the_requested_moments() {
        let v = normal_vec(&mut stream(1, Stream::Init, 0), 200_000, 0.02);
        let mean = v.iter().map(|x| *x as f64).sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (*x as f64 - mean).powi(2)).sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 2e-4, "mean {mean}");
        assert!((var.sqrt() - 0.02).abs() < 2e-4, "std {}", var.sqrt());
    }
}
