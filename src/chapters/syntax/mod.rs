//! Chapter 3 — the sudden onset of syntactic attention (Chen et al., 2024): the dependency grammar
//! ([`data`]) the nested language ([`nested`]), the bracket language ([`dyck`]) and copy agreement ([`copy`]) behind one face ([`language`]), the probe, the regularizer and the event markers ([`metrics`]), the trainer
//! ([`Syntax`] for [`crate::train::Trainer`]: an MLM encoder with the SAS regularizer λ·R), its
//! rows and snapshots ([`rows`]) and the summaries of the generated documents ([`summary`]).

pub mod copy;
pub mod data;
pub mod dyck;
pub mod knobs;
pub mod language;
pub mod metrics;
pub mod nested;
pub mod rows;
pub mod summary;
#[cfg(feature = "engine")]
mod trainer;
pub mod view;

pub use rows::*;
#[cfg(feature = "engine")]
pub use trainer::*;
