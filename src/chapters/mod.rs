//! The chapters, one folder each: its data, metrics, trainer, rows and summaries.

pub mod anchors;
pub mod lm;
pub mod plateau;
pub mod syntax;
