//! # Plateau
//!
//! Train small transformers and watch the training dynamics three papers describe: loss
//! plateaus and abrupt drops, repetition bias and representation collapse (Gopalani & Hu, 2025),
//! embedding differentiation under small initialization (Yao, Zhang & Xu, 2025) and the sudden
//! onset of syntactic attention (Chen et al., 2024).
//!
//! One engine serves both front ends: the native CLI (`src/bin/plateau/`) and the WebAssembly
//! page (`web`, wasm only). Data flows one way: [`config`] → a chapter's data and [`model`]
//! ([`chapters`]) → the one [`train::Trainer`] → [`history`] (rows and snapshots) → CSV or
//! charts. Every metric is a documented function in its chapter's `metrics` (shared helpers in
//! [`metrics`]).
//!
//! ```
//! # #[cfg(not(target_arch = "wasm32"))] {
//! use plateau::config::{Preset, RunConfig};
//! use plateau::chapters::plateau::PlateauTrainer;
//! use plateau::tensor::block_on;
//! use plateau::train::Status;
//! let mut cfg = RunConfig::preset(Preset::Interactive);
//! cfg.steps = 2;
//! let mut run = PlateauTrainer::new(cfg, &plateau::backend::cpu_device()).unwrap();
//! while block_on(run.advance()) == Status::Running {}
//! assert_eq!(run.history.rows.last().unwrap().step, 2);
//! # }
//! ```

#[cfg(feature = "engine")]
pub mod backend;
pub mod chapters;
pub mod colormap;
pub mod config;
pub mod controls;
pub mod history;
pub mod legend;
pub mod measured;
pub mod metrics;
#[cfg(feature = "engine")]
pub mod model;
pub mod page;
pub mod race;
pub mod report;
pub mod rng;
#[cfg(feature = "engine")]
pub mod run;
pub mod schema;
pub mod seeds;
#[cfg(feature = "engine")]
pub mod tensor;
#[cfg(feature = "engine")]
pub mod train;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod web;
