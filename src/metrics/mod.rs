//! Metrics as documented pure functions on host arrays. Chapter 1: [`plateau`].

pub mod plateau;
