//! The page's backend race: where the browser offers a hardware WebGPU adapter, the training
//! worker times a few training steps of the reader's configuration on both backends and trains
//! on the faster (for models this small WebGPU's fixed cost per kernel can make it slower than
//! the CPU). The worker does the timing (it owns the sessions); this module says what is timed
//! ([`timing_config`]), when a new race is needed ([`cost_key`]) and what the figures decide
//! ([`verdict`]), so the decision and its sentence are tested natively. `plateau bench` times its
//! browser rows with the same [`timing_config`].

use crate::config::RunConfig;
use serde::Serialize;

/// Steps the race leaves untimed on each backend: kernels compile, buffers are allocated, the
/// step 0 evaluation runs. Two, because the second step is slow too: measured on SwiftShader
/// (chapter 1 interactive, one step per read) 15.1 s, 11.2 s, then 2.5, 2.6, 2.5, 2.3 s.
pub const WARMUP_STEPS: u32 = 2;
/// Wall time (ms) the race spends timing each backend after its warm-up, at most
/// [`MAX_STEPS`] steps and at least one: about 2 s for the two.
pub const BUDGET_MS: f64 = 900.0;
/// The most steps timed on one backend.
pub const MAX_STEPS: u32 = 30;

/// `cfg` as timed: the same model, data and batch with evaluations and snapshots off, so the
/// figure is a training step's (a fresh batch, forward, backward, one update; the loss is read
/// back once at the end of the timed stretch).
pub fn timing_config(cfg: &RunConfig) -> RunConfig {
    let mut c = cfg.clone();
    c.steps = 1_000_000;
    c.eval_every = 100_000;
    c.snapshot_every = 100_000;
    c.lm.log_evals = 0;
    c
}

/// What sets the cost of a training step: the chapter and task, the model's shape, the batch and
/// the sequence length. The page races again when this changes (another chapter, preset or
/// width), and keeps the last verdict when only the seed, rates or cadences change.
pub fn cost_key(cfg: &RunConfig) -> String {
    format!(
        "{}|{:?}|n{}|L{}|H{}|d{}|ff{}|{:?}|b{}|{:?}|T{}|lex{}",
        cfg.experiment.name(),
        cfg.preset,
        cfg.plateau.n,
        cfg.layers,
        cfg.heads,
        cfg.d_model,
        cfg.d_ff,
        cfg.plateau.attention,
        cfg.batch,
        cfg.anchors.model,
        cfg.anchors.seq_len,
        cfg.syntax.lexicon
    )
}

/// What the race decided.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Verdict {
    /// `"webgpu"` or `"cpu"`.
    pub backend: String,
    /// The figures and the decision, in words ("WebGPU 41 ms/step, CPU 55 ms/step → WebGPU …").
    pub reason: String,
    /// WebGPU's milliseconds per step, when it ran.
    pub webgpu_ms: Option<f64>,
    /// The CPU backend's milliseconds per step.
    pub cpu_ms: f64,
}

/// A time in milliseconds with three significant digits (as the bench prints them).
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The faster backend of the race: WebGPU's figure (or why it could not be timed) against the
/// CPU's, in milliseconds per training step. A tie goes to the CPU (it needs no GPU memory and
/// cannot lose its device). A non-finite or non-positive figure counts as not timed.
pub fn verdict(webgpu: Result<f64, String>, cpu_ms: f64) -> Verdict {
    let cpu_ok = cpu_ms.is_finite() && cpu_ms > 0.0;
    match webgpu {
        Ok(w) if w.is_finite() && w > 0.0 => {
            let gpu = !cpu_ok || w < cpu_ms;
            let cpu_text = if cpu_ok { format!("{} ms/step", ms(cpu_ms)) } else { "not timed".into() };
            let reason = format!(
                "WebGPU {} ms/step, CPU {cpu_text} → {} (the faster of the two, timed here on this model).",
                ms(w),
                if gpu { "WebGPU" } else { "CPU" }
            );
            Verdict { backend: if gpu { "webgpu" } else { "cpu" }.into(), reason, webgpu_ms: Some(w), cpu_ms }
        }
        Ok(w) => verdict(Err(format!("its timing came out as {w} ms/step")), cpu_ms),
        Err(why) => Verdict {
            backend: "cpu".into(),
            reason: format!(
                "WebGPU could not be timed ({why}); CPU {} → CPU.",
                if cpu_ok { format!("{} ms/step", ms(cpu_ms)) } else { "not timed".into() }
            ),
            webgpu_ms: None,
            cpu_ms,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Preset, Task};

    #[test]
    fn the_faster_backend_wins_and_the_sentence_has_both_figures() {
        let v = verdict(Ok(41.0), 55.0);
        assert_eq!(v.backend, "webgpu");
        assert!(v.reason.starts_with("WebGPU 41.0 ms/step, CPU 55.0 ms/step → WebGPU"), "{}", v.reason);
        let v = verdict(Ok(2396.4), 23.24);
        assert_eq!(v.backend, "cpu");
        assert!(v.reason.starts_with("WebGPU 2396 ms/step, CPU 23.2 ms/step → CPU"), "{}", v.reason);
        assert_eq!((v.webgpu_ms, v.cpu_ms), (Some(2396.4), 23.24));
        assert_eq!(verdict(Ok(30.0), 30.0).backend, "cpu", "a tie goes to the CPU");
    }

    #[test]
    fn a_failed_or_nonsense_webgpu_timing_trains_on_the_cpu() {
        let v = verdict(Err("device lost".into()), 12.0);
        assert_eq!(v.backend, "cpu");
        assert_eq!(v.reason, "WebGPU could not be timed (device lost); CPU 12.0 ms/step → CPU.");
        for bad in [f64::NAN, f64::INFINITY, 0.0, -3.0] {
            let v = verdict(Ok(bad), 12.0);
            assert_eq!(v.backend, "cpu", "{bad}");
            assert!(v.reason.contains("could not be timed"), "{}", v.reason);
        }
        // A CPU figure that makes no sense leaves WebGPU's standing.
        assert_eq!(verdict(Ok(50.0), f64::NAN).backend, "webgpu");
    }

    #[test]
    fn the_timed_config_trains_without_evaluations_and_keeps_the_model() {
        for task in [Task::MWS, Task::Anchors, Task::Syntax, Task::Lm] {
            for preset in [Preset::Interactive, Preset::Paper] {
                let cfg = RunConfig::defaults(task, preset);
                let t = timing_config(&cfg);
                t.validate().unwrap_or_else(|e| panic!("{task:?} {preset:?}: {e}"));
                assert_eq!(cost_key(&t), cost_key(&cfg));
                // The timed steps (1 ..= WARMUP + MAX) have no evaluation.
                for s in 1..=(WARMUP_STEPS + MAX_STEPS) as usize {
                    assert!(s % t.eval_every != 0 && s % t.snapshot_every != 0 && t.lm.log_evals == 0);
                }
            }
        }
    }

    #[test]
    fn the_race_is_run_again_when_the_model_changes_not_the_seed() {
        let a = RunConfig::defaults(Task::MWS, Preset::Interactive);
        let mut b = a.clone();
        b.seed = 7;
        b.lr *= 2.0;
        b.plateau.c = 3.0;
        assert_eq!(cost_key(&a), cost_key(&b));
        let mut wider = a.clone();
        wider.d_model *= 2;
        assert_ne!(cost_key(&a), cost_key(&wider));
        assert_ne!(cost_key(&a), cost_key(&RunConfig::defaults(Task::MWS, Preset::Paper)));
        assert_ne!(cost_key(&a), cost_key(&RunConfig::defaults(Task::Lm, Preset::Interactive)));
    }
}
