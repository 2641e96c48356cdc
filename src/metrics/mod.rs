//! Metrics as documented pure functions on host arrays. Chapter 1: [`plateau`]. Chapter 2:
//! [`anchors`]. Chapter 3: [`syntax`] (UAS probe, SAS regularizer, onsets, agreement).

pub mod anchors;
pub mod plateau;
pub mod syntax;
