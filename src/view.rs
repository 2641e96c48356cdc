//! What the command line and the page read of a chapter's runs, the same way for every chapter:
//! each chapter's row type implements [`View`] in its folder (`chapters/*/view.rs`), and
//! [`with_rows!`](crate::with_rows) is the one dispatch from a [`Task`](crate::config::Task) to
//! it. The chapters themselves are listed once, in [`crate::config::chapters::CHAPTERS`].

use crate::seeds::Measure;

/// A chapter's view of its recorded rows: its events, headline numbers, progress and headline
/// line. Implemented by each chapter's metric row type.
pub trait View: crate::history::Row + Clone + serde::Serialize + serde::de::DeserializeOwned {
    /// The chapter's number in [`crate::config::chapters::CHAPTERS`].
    const CHAPTER: u8;
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
}

/// `$body` with the type `$r` bound to the row type ([`View`]) of the chapter of `$task` (a
/// [`Task`](crate::config::Task)), chosen by the chapter's number in the registry: the one place
/// where a chapter's number meets its row type (a test holds each `View::CHAPTER` equal to it).
#[macro_export]
macro_rules! with_rows {
    ($task:expr, $r:ident => $body:expr) => {
        match $task.chapter() {
            2 => {
                type $r = $crate::chapters::anchors::AnchorRow;
                $body
            }
            3 => {
                type $r = $crate::chapters::syntax::SyntaxRow;
                $body
            }
            4 => {
                type $r = $crate::chapters::lm::LmRow;
                $body
            }
            _ => {
                type $r = $crate::chapters::plateau::MetricRow;
                $body
            }
        }
    };
}

/// Which chapter a metrics CSV belongs to, from its columns (each chapter's rows have a column
/// the others lack, its [`View::MARK_COLUMN`]): the first task of that chapter.
pub fn chapter_of_csv(text: &str) -> Option<crate::config::Task> {
    let header: Vec<&str> = text.lines().next()?.split(',').collect();
    crate::config::chapters::CHAPTERS.iter().map(|c| c.tasks[0]).find(|&t| {
        let mark = with_rows!(t, R => <R as View>::MARK_COLUMN);
        header.contains(&mark)
    })
}

/// One run's headline numbers in a metrics CSV: its seed (when the CSV has a `seed` column) and
/// its measures.
pub type SeedMeasures = (Option<u64>, Vec<Measure>);

/// `plateau summarize`'s work: each seed's headline numbers from a metrics CSV (one run, or
/// several with a `seed` column) and the chapter they belong to.
pub fn measures_from_csv(text: &str) -> Result<(crate::config::Task, Vec<SeedMeasures>), String> {
    let task = chapter_of_csv(text).ok_or_else(|| {
        let marks: Vec<String> = crate::config::chapters::CHAPTERS
            .iter()
            .map(|c| format!("{} (chapter {})", with_rows!(c.tasks[0], R => <R as View>::MARK_COLUMN), c.number))
            .collect();
        format!("not a Plateau metrics CSV: its header has none of {}", marks.join(", "))
    })?;
    let mut out = vec![];
    for (seed, part) in crate::seeds::split_by_seed(text)? {
        let measures = with_rows!(task, R => R::measures(&crate::history::from_csv::<R>(&part)?));
        if measures.is_empty() {
            return Err(format!("seed {}: no rows", seed.map_or("–".into(), |s| s.to_string())));
        }
        out.push((seed, measures));
    }
    Ok((task, out))
}
