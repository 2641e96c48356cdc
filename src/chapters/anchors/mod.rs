//! Chapter 2 — embedding differentiation under small initialization (Yao, Zhang & Xu, 2025):
//! the composite anchor task ([`data`]), its metrics ([`metrics`]), the trainer ([`Anchors`] for
//! [`crate::train::Trainer`]: a transformer or an Emb-MLP, γ-init, AdamW), its rows and snapshots
//! ([`rows`]) and the summaries of the generated documents ([`summary`]).

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
