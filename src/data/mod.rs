//! Seeded data generators. Chapter 1: [`mws`] (moving-window sum and prefix sum). Chapter 2:
//! [`anchors`] (the composite anchor task with reasoning and memory anchors).

pub mod anchors;
pub mod mws;
