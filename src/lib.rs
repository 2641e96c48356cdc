//! # Plateau
//!
//! Train small transformers and watch the training dynamics three papers describe: loss
//! plateaus and abrupt drops, repetition bias and representation collapse (Gopalani & Hu, 2025),
//! embedding differentiation under small initialization (Yao, Zhang & Xu, 2025) and the sudden
//! onset of syntactic attention (Chen et al., 2024).
//!
//! One engine serves both front ends: the native CLI (`src/bin/plateau.rs`) and the WebAssembly
//! page (`web`, wasm only). Data flows one way:
//! [`config`] → [`data`] + [`model`] → [`train`] → [`history`] (rows and snapshots) → CSV or
//! charts. Every metric is a documented function in [`metrics`].
//!
//! ```
//! # #[cfg(not(target_arch = "wasm32"))] {
//! use plateau::config::{Preset, RunConfig};
//! use plateau::train::{block_on, Status, Trainer};
//! let mut cfg = RunConfig::preset(Preset::Interactive);
//! cfg.steps = 2;
//! let mut run = Trainer::new(cfg, &plateau::backend::cpu_device()).unwrap();
//! while block_on(run.advance()) == Status::Running {}
//! assert_eq!(run.history.rows.last().unwrap().step, 2);
//! # }
//! ```

pub mod backend;
#[cfg(not(target_arch = "wasm32"))]
pub mod bench;
pub mod chapter2;
pub mod chapter3;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod colormap;
pub mod config;
pub mod data;
pub mod history;
pub mod metrics;
pub mod model;
pub mod report;
pub mod report23;
pub mod rng;
pub mod run;
pub mod train;

#[cfg(target_arch = "wasm32")]
pub mod web;
