//! The chapters of the explorable, listed once: each chapter's number, the name an embed uses
//! for it, its title, the short label of the page's run table, and the tasks (`experiment`
//! values) it trains. Everything that names a chapter reads it from here: [`Task::chapter`], the
//! page's chapter list (`chapterList` in `src/web/mod.rs`), `<plateau-figure>`'s names and the
//! chapter buttons of `index.html` (both held equal to it by `tests/registry.rs`). A chapter's
//! row type says which number it is ([`crate::view::View::CHAPTER`]).

use super::Task;

/// One chapter of the explorable.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ChapterInfo {
    /// 1, 2, 3, … in page order.
    pub number: u8,
    /// The name `<plateau-figure chapter="…">` takes.
    pub alias: &'static str,
    /// The title of its chapter button and heading's first words.
    pub title: &'static str,
    /// Its short label in the page's run table.
    pub label: &'static str,
    /// The `experiment` values it trains, its default first.
    pub tasks: &'static [Task],
}

/// Every chapter, in page order.
pub const CHAPTERS: [ChapterInfo; 4] = [
    ChapterInfo {
        number: 1,
        alias: "plateau",
        title: "The plateau",
        label: "plateau",
        tasks: &[Task::Mws, Task::PrefixSum],
    },
    ChapterInfo { number: 2, alias: "init", title: "Small initialization", label: "init", tasks: &[Task::Anchors] },
    ChapterInfo { number: 3, alias: "syntax", title: "A head for syntax", label: "syntax", tasks: &[Task::Syntax] },
    ChapterInfo { number: 4, alias: "text", title: "A language model on real text", label: "text", tasks: &[Task::Lm] },
];

impl Task {
    /// The chapter of the explorable this task belongs to ([`CHAPTERS`]).
    pub fn chapter(self) -> u8 {
        CHAPTERS.iter().find(|c| c.tasks.contains(&self)).map_or(1, |c| c.number)
    }
}
