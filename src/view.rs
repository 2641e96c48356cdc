//! What the command line and the page read of a chapter's runs, the same way for every chapter:
//! each chapter's row type implements [`View`] in its folder (`chapters/*/view.rs`), and
//! [`with_rows!`](crate::with_rows) (in `chapters/mod.rs`) is the one dispatch from a
//! [`Task`](crate::config::Task) to it. The chapters themselves are listed once, in
//! [`crate::config::chapters::CHAPTERS`]. This module is the ground floor the chapters build on: it
//! imports none of them.

use crate::seeds::Measure;

/// A chapter's view of its recorded rows: its events, headline numbers, progress and headline
/// line. Implemented by each chapter's metric row type.
pub trait View: crate::history::Row + Clone + serde::Serialize + serde::de::DeserializeOwned {
    /// The chapter whose rows these are.
    const CHAPTER: crate::config::chapters::ChapterId;
    /// A column only this chapter's CSVs have: how `plateau summarize` recognizes them.
    const MARK_COLUMN: &'static str;
    /// The run's events in its rows so far: what the page marks on its charts and notes in its
    /// status line. The worker computes them once per chunk from the engine's own history and
    /// sends them with the chunk, so the page never passes its rows back to find them.
    type Events: serde::Serialize + std::fmt::Debug + PartialEq;
    /// The events of `rows`.
    fn events(rows: &[Self]) -> Self::Events;
    /// The run's headline numbers for a seed summary ([`crate::seeds::summary_lines`]): the same
    /// names in the same order for every run of the chapter.
    fn measures(rows: &[Self]) -> Vec<Measure>;
    /// The latest training loss and the chapter's headline metric, named, for progress lines.
    fn progress(rows: &[Self]) -> (f64, &'static str, f64);
    /// One line with the run's key numbers (`None` without rows): the page's run table.
    fn headline(rows: &[Self]) -> Option<String>;
    /// The shape of the chapter's model for `cfg` (the positions it reads, its vocabulary), for
    /// the memory budget ([`crate::config::RunConfig::check_memory`]).
    fn shape(cfg: &crate::config::RunConfig) -> crate::config::Shape;
}
