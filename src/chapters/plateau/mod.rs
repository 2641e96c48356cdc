//! Chapter 1 — loss plateaus, repetition bias and representation collapse (Gopalani & Hu, 2025):
//! the moving-window-sum and prefix-sum tasks ([`data`]), the paper's metrics ([`metrics`]), the
//! trainer ([`Plateau`] for [`crate::train::Trainer`]), its rows and snapshots ([`rows`]) and the
//! summaries of the generated documents ([`summary`]).

pub mod data;
pub mod knobs;
pub mod metrics;
pub mod rows;
pub mod summary;
#[cfg(feature = "engine")]
mod trainer;
pub mod view;

pub use rows::*;
#[cfg(feature = "engine")]
pub use trainer::*;
