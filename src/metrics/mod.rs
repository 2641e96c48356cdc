//! Metrics as documented pure functions on host arrays. Chapter 1: [`plateau`]. Chapter 2:
//! [`anchors`].

pub mod anchors;
pub mod plateau;
