//! The chapters of the explorable, declared once ([`chapters!`]): each chapter's variant of
//! [`ChapterId`], its number, the name an embed uses for it, its title, the short label of the
//! page's run table, the tasks (`experiment` values) it trains and its CSV's file name. From that one declaration
//! come the exhaustive enum [`ChapterId`], the registry [`CHAPTERS`] and [`Task::chapter`] (an
//! exhaustive match: a task no chapter trains does not compile). Every dispatch to a chapter's
//! code matches on [`ChapterId`] without a fallback arm, so a chapter a dispatch leaves out is a
//! compile error. The page reads the registry (`chapterList` in `src/web/mod.rs`); a chapter's
//! row type says which chapter it is ([`crate::view::View::CHAPTER`]).

use super::Task;

/// One chapter of the explorable.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ChapterInfo {
    /// The chapter.
    #[serde(skip)]
    pub id: ChapterId,
    /// 1, 2, 3, … in page order.
    pub number: u8,
    /// The name `<plateau-figure chapter="…">` takes.
    pub alias: &'static str,
    /// The title of its chapter button and heading's first words.
    pub title: &'static str,
    /// Its chapter button's name on a phone, where four titles do not fit in a row.
    pub short: &'static str,
    /// Its short label in the page's run table.
    pub label: &'static str,
    /// The `experiment` values it trains, its default first.
    pub tasks: &'static [Task],
    /// The file name of its metrics CSV when the page exports it.
    pub csv: &'static str,
}

/// Declares the chapters: `Variant = number { alias, title, short, label, tasks: [Task variants or consts] }`,
/// in page order.
macro_rules! chapters {
    ($($id:ident = $number:literal {
        alias: $alias:literal, title: $title:literal, short: $short:literal, label: $label:literal, tasks: [$($task:ident),+ $(,)?],
        csv: $csv:literal $(,)?
    }),+ $(,)?) => {
        /// A chapter of the explorable. Its discriminant is its number.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ChapterId {
            $(#[doc = $title] $id = $number),+
        }

        /// Every chapter, in page order.
        pub const CHAPTERS: [ChapterInfo; [$($number),+].len()] = [
            $(ChapterInfo { id: ChapterId::$id, number: $number, alias: $alias, title: $title, short: $short, label: $label, tasks: &[$(Task::$task),+], csv: $csv }),+
        ];

        impl Task {
            /// The chapter of the explorable this task belongs to ([`CHAPTERS`]).
            pub fn chapter(self) -> ChapterId {
                match self {
                    $($(Task::$task)|+ => ChapterId::$id,)+
                }
            }
        }
    };
}

chapters! {
    Plateau = 1 {
        alias: "plateau", title: "The plateau", short: "Plateau", label: "plateau", tasks: [MWS, PREFIX_SUM], csv: "plateau-metrics.csv",
    },
    Init = 2 {
        alias: "init", title: "Small initialization", short: "Small init", label: "init", tasks: [Anchors], csv: "plateau-anchors-metrics.csv",
    },
    Syntax = 3 {
        alias: "syntax", title: "A head for syntax", short: "Syntax", label: "syntax", tasks: [Syntax], csv: "plateau-syntax-metrics.csv",
    },
    Text = 4 {
        alias: "text", title: "A language model on real text", short: "Real text", label: "text", tasks: [Lm], csv: "plateau-lm-metrics.csv",
    },
}

impl ChapterId {
    /// Its number: 1, 2, 3, … in page order.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// Its entry of [`CHAPTERS`].
    pub fn info(self) -> &'static ChapterInfo {
        &CHAPTERS[self as usize - 1]
    }

    /// The chapter numbered `number`, if there is one.
    pub fn from_number(number: u8) -> Option<ChapterId> {
        CHAPTERS.iter().find(|c| c.number == number).map(|c| c.id)
    }
}
