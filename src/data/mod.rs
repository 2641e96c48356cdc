//! Seeded data generators. Chapter 1: [`mws`] (moving-window sum and prefix sum).

pub mod mws;
