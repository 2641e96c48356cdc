//! Chapter 4 — the same signature in a language model on real text (Gopalani & Hu's Pythia and
//! OLMo-2 measurement, in small): the corpus and its subword tokens ([`corpus`]), the metrics of
//! the greedy generations ([`metrics`]), the trainer ([`Lm`] for [`crate::train::Trainer`]: a
//! causal decoder trained on next-token prediction), its rows and snapshots ([`rows`]) and the
//! summaries ([`summary`]).

pub mod corpus;
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
