//! Seeded data generators. Chapter 1: [`mws`] (moving-window sum and prefix sum). Chapter 2:
//! [`anchors`] (the composite anchor task with reasoning and memory anchors). Chapter 3:
//! [`grammar`] (sentences of a dependency grammar with gold heads and agreement).

pub mod anchors;
pub mod grammar;
pub mod mws;
