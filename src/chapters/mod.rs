//! The chapters, one folder each: its data, metrics, trainer, rows, summaries and view
//! ([`crate::view::View`]); and the one dispatch from a task to its chapter's rows
//! ([`with_rows!`](crate::with_rows)), with what reads any chapter's rows through it.

use crate::seeds::Measure;
use crate::view::View;

pub mod anchors;
pub mod lm;
pub mod outcome;
pub mod plateau;
pub mod syntax;

/// `$body` with the type `$r` bound to the row type ([`View`]) of the chapter of `$task` (a
/// [`Task`](crate::config::Task)), chosen by its [`ChapterId`](crate::config::chapters::ChapterId)
/// in an exhaustive match: the one place where a chapter meets its row type (a test holds each
/// `View::CHAPTER` equal to it).
#[macro_export]
macro_rules! with_rows {
    ($task:expr, $r:ident => $body:expr) => {
        match $task.chapter() {
            $crate::config::chapters::ChapterId::Plateau => {
                type $r = $crate::chapters::plateau::MetricRow;
                $body
            }
            $crate::config::chapters::ChapterId::Init => {
                type $r = $crate::chapters::anchors::AnchorRow;
                $body
            }
            $crate::config::chapters::ChapterId::Syntax => {
                type $r = $crate::chapters::syntax::SyntaxRow;
                $body
            }
            $crate::config::chapters::ChapterId::Text => {
                type $r = $crate::chapters::lm::LmRow;
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

/// The model shape of `cfg`'s chapter ([`View::shape`]).
pub fn shape(cfg: &crate::config::RunConfig) -> crate::config::Shape {
    with_rows!(cfg.experiment, R => R::shape(cfg))
}
