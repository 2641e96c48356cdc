//! The memory budget: an estimate of what one training step needs, against the limit of the
//! front end (1 GB in the browser, 8 GB natively or the CLI's `--max-memory`).

use super::*;

/// The memory budget [`RunConfig::validate`] checks, in bytes: 1 GB in the browser (a quarter of
/// wasm32's 4 GiB address space, leaving room for the copies the backend makes and the
/// allocator's slack); natively 8 GB unless [`set_memory_limit`] (the CLI's `--max-memory`) says
/// otherwise.
pub fn memory_limit() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        1e9
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        f64::from_bits(MEMORY_LIMIT.load(std::sync::atomic::Ordering::Relaxed))
    }
}

#[cfg(not(target_arch = "wasm32"))]
static MEMORY_LIMIT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0x41FD_CD65_0000_0000); // 8e9

/// Sets the native memory budget in bytes (the CLI's `--max-memory GB`).
#[cfg(not(target_arch = "wasm32"))]
pub fn set_memory_limit(bytes: f64) {
    MEMORY_LIMIT.store(bytes.to_bits(), std::sync::atomic::Ordering::Relaxed);
}

/// A model's shape as the memory estimate needs it: the positions the model reads and its
/// vocabulary. Each chapter gives its own for a config (`crate::view::View::shape`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The sequence length `T` the model reads.
    pub positions: usize,
    /// The vocabulary (the embedding's rows and the output's width).
    pub vocab: usize,
}

impl RunConfig {
    /// [`RunConfig::validate`], then the memory budget ([`RunConfig::check_memory`] against
    /// [`memory_limit`]) for a model of `shape`. Every trainer calls it before it allocates
    /// anything, so the CLI, the page, the custom element and *Load config JSON* all refuse a
    /// configuration that would not fit, with a message, instead of crashing.
    pub fn validate_for_training(&self, shape: Shape) -> Result<(), ConfigError> {
        self.validate()?;
        self.check_memory(shape, memory_limit())
    }

    /// An estimate of the memory one training step needs, in bytes, with each key's share: the
    /// parameters four times (weights, gradients, Adam's two moments), the activations the
    /// backward pass keeps (per layer and token `12·d_model + 3·d_ff` floats, plus
    /// `3·heads·T` for the attention scores, their softmax and gradient), the logits three times
    /// (`T·vocab` per sample), and one evaluation forward (`eval_batch · T · (4·d_model + d_ff +
    /// vocab)`); 4 bytes a float. `T` and the vocabulary are the chapter's `shape` (chapter 1: `2n`, the positions the model
    /// reads, and 18; chapter 2: `seq-len` and 100; chapter 3: the grammar's, 20 and 65 for agreement, 24 and 44 for nested; chapter 4: 32 and 1024). It is meant to be within a
    /// small factor of the truth, to refuse configurations that cannot fit, not to predict usage.
    pub fn memory_estimate(&self, shape: Shape) -> f64 {
        let (t, v) = (shape.positions as f64, shape.vocab as f64);
        let (d, ff, l, h) = (self.d_model as f64, self.d_ff as f64, self.layers as f64, self.heads as f64);
        let (b, eb) = (self.batch as f64, self.eval_batch as f64);
        let params = 2.0 * v * d + t * d + l * (4.0 * d * d + 2.0 * d * ff + 10.0 * d + ff) + 2.0 * d;
        let activations = b * t * l * (12.0 * d + 3.0 * ff + 3.0 * h * t) + 3.0 * b * t * v;
        let eval = eb * t * (4.0 * d + ff + v);
        4.0 * (4.0 * params + activations + eval)
    }

    /// Refuses a configuration whose [`RunConfig::memory_estimate`] for a model of `shape` is
    /// over `limit` bytes, with a message that gives both figures and names the keys that make it
    /// large (those above their chapter's interactive default).
    pub fn check_memory(&self, shape: Shape, limit: f64) -> Result<(), ConfigError> {
        let need = self.memory_estimate(shape);
        if need <= limit {
            return Ok(());
        }
        let base = RunConfig::defaults(self.experiment, Preset::Interactive);
        let big: Vec<String> = ["batch", "eval-batch", "n", "seq-len", "d-model", "d-ff", "layers", "heads"]
            .into_iter()
            .filter(|k| {
                let num = |c: &RunConfig| c.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
                num(self) > num(&base)
            })
            .map(|k| format!("{k} ({})", self.get(k).unwrap_or_default()))
            .collect();
        let gb = |x: f64| x / 1e9;
        Err(ConfigError {
            key: String::new(),
            value: String::new(),
            allowed: format!(
                "this configuration needs about {:.1} GB of memory to train, over the limit of {:.1} GB{}; reduce {}",
                gb(need),
                gb(limit),
                if cfg!(target_arch = "wasm32") { " in the browser" } else { " (--max-memory)" },
                if big.is_empty() { "batch or d-model".to_string() } else { big.join(", ") }
            ),
            safe: None,
        })
    }
}
