#![cfg(not(target_arch = "wasm32"))]
//! The chapter registry (`plateau::config::chapters::CHAPTERS`) over every chapter: each trains a
//! short run through the one `Run` type, and its view (`plateau::view::View`) reads the run's rows
//! back the same way from the engine and from its CSV; the page's chapter buttons and
//! `<plateau-figure>`'s chapter names are the registry's.

use plateau::chapters::{chapter_of_csv, measures_from_csv};
use plateau::config::chapters::CHAPTERS;
use plateau::config::Task;
use plateau::run::Run;
use plateau::view::View;

use crate::common;

#[test]
fn the_registry_numbers_every_task_once_in_page_order() {
    for (i, c) in CHAPTERS.iter().enumerate() {
        assert_eq!(c.number as usize, i + 1, "{c:?}");
        assert_eq!((c.id.number(), c.id.info()), (c.number, c), "the chapter's id is its entry");
        assert_eq!(plateau::config::chapters::ChapterId::from_number(c.number), Some(c.id));
        assert!(!c.tasks.is_empty() && !c.alias.is_empty() && !c.title.is_empty(), "{c:?}");
    }
    for t in Task::all() {
        let holders: Vec<_> = CHAPTERS.iter().filter(|c| c.tasks.contains(&t)).map(|c| c.id).collect();
        assert_eq!(holders, vec![t.chapter()], "{} is in exactly one chapter", t.name());
        // The dispatch from a task to its chapter's row type agrees with the registry.
        assert_eq!(plateau::with_rows!(t, R => R::CHAPTER), t.chapter(), "{}", t.name());
    }
    assert_eq!(plateau::config::chapters::ChapterId::from_number(0), None);
    assert_eq!(plateau::config::chapters::ChapterId::from_number(CHAPTERS.len() as u8 + 1), None);
    // Each chapter's CSV file name its own, named for the project.
    let mut csvs: Vec<&str> = CHAPTERS.iter().map(|c| c.csv).collect();
    assert!(csvs.iter().all(|n| n.starts_with("plateau") && n.ends_with("-metrics.csv")), "{csvs:?}");
    csvs.sort_unstable();
    csvs.dedup();
    assert_eq!(csvs.len(), CHAPTERS.len(), "each chapter's CSV name is its own");
    // Every alias once (sorted first: `dedup` alone only removes neighbouring duplicates).
    let mut aliases: Vec<&str> = CHAPTERS.iter().map(|c| c.alias).collect();
    aliases.sort_unstable();
    aliases.dedup();
    assert_eq!(aliases.len(), CHAPTERS.len(), "each chapter's alias is its own");
}

/// Every preset of every chapter fits a 1 GB budget; each chapter's model shape is its own.
#[test]
fn every_chapters_presets_fit_the_memory_budget() {
    use plateau::config::{Preset, RunConfig, Shape};
    for c in CHAPTERS {
        for &task in c.tasks {
            for preset in [Preset::Interactive, Preset::Paper] {
                let cfg = RunConfig::defaults(task, preset);
                let shape = plateau::chapters::shape(&cfg);
                assert!(
                    cfg.check_memory(shape, 1e9).is_ok(),
                    "{task:?} {preset:?}: {:.2} GB",
                    cfg.memory_estimate(shape) / 1e9
                );
            }
        }
    }
    // The shapes the memory estimate's doc comment names.
    let shape = |task, preset| plateau::chapters::shape(&RunConfig::defaults(task, preset));
    assert_eq!(shape(Task::MWS, Preset::Paper), Shape { positions: 32, vocab: 18 });
    assert_eq!(shape(Task::Anchors, Preset::Interactive).vocab, 100);
    assert_eq!(shape(Task::Syntax, Preset::Interactive), Shape { positions: 24, vocab: 44 }, "nested");
    assert_eq!(
        plateau::chapters::shape(&RunConfig::syntax_agreement(Preset::Interactive)),
        Shape { positions: 20, vocab: 65 }
    );
    assert_eq!(shape(Task::Lm, Preset::Interactive), Shape { positions: 32, vocab: 1024 });
}

/// Every chapter's golden run (a few steps of its interactive default) trained through `Run`: its
/// CSV is recognized as its chapter's, its headline numbers read from the CSV are the engine's,
/// and its events and headline line are there.
#[test]
fn every_chapter_trains_and_its_view_reads_the_rows_back() {
    let runs = common::golden_runs();
    for c in CHAPTERS {
        let (name, cfg) =
            runs.iter().find(|(_, cfg)| cfg.experiment.chapter() == c.id).expect("a golden run per chapter");
        let mut run = Run::new(cfg.clone(), &plateau::backend::cpu_device()).unwrap();
        while plateau::tensor::block_on(run.advance()) == plateau::train::Status::Running {}
        let csv = run.csv();
        assert_eq!(chapter_of_csv(&csv).map(|t| t.chapter()), Some(c.id), "{name}");
        let (task, from_csv) = measures_from_csv(&csv).unwrap();
        assert_eq!(task.chapter(), c.id, "{name}");
        let engine = run.measures();
        assert!(!engine.is_empty(), "{name}");
        assert_eq!(from_csv, vec![(None, engine)], "{name}: the CSV reads back to the engine's numbers");
        plateau::with_rows!(cfg.experiment, R => {
            let rows: Vec<R> = plateau::history::from_csv(&csv).unwrap();
            assert_eq!(rows.len(), run.row_count(), "{name}");
            let events = serde_json::to_value(R::events(&rows)).unwrap();
            assert!(events.is_object(), "{name}: events {events}");
            assert!(R::headline(&rows).is_some(), "{name}");
            let (loss, metric, _) = R::progress(&rows);
            assert!(loss.is_finite() && !metric.is_empty(), "{name}");
            assert_eq!(run.progress().1, metric, "{name}");
        });
    }
}

/// The page's chapter buttons (`index.html`) and `<plateau-figure>`'s chapter names
/// (`www/plateau-figure.js`, which runs in host pages without the engine) are the registry's.
#[test]
fn the_page_and_embeds_name_the_registrys_chapters() {
    let root = env!("CARGO_MANIFEST_DIR");
    let html = std::fs::read_to_string(format!("{root}/index.html")).unwrap();
    let buttons: Vec<(String, String)> = html
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("<button type=\"button\" class=\"chapter\" data-experiment=\"")?;
            let (experiment, rest) = rest.split_once('"')?;
            let text = rest.split_once('>')?.1.strip_suffix("</button>")?;
            Some((experiment.to_string(), text.to_string()))
        })
        .collect();
    let expected: Vec<(String, String)> = CHAPTERS
        .iter()
        .map(|c| {
            let name = format!(r#"<span class="long">{}</span><span class="short">{}</span>"#, c.title, c.short);
            (c.tasks[0].name().to_string(), format!("{} · {name}", c.number))
        })
        .collect();
    assert_eq!(buttons, expected, "index.html's chapter buttons");

    let js = std::fs::read_to_string(format!("{root}/www/plateau-figure.js")).unwrap();
    let line = js.lines().find(|l| l.starts_with("const CHAPTERS = {")).expect("plateau-figure.js names its chapters");
    let inner = line.trim_start_matches("const CHAPTERS = {").trim_end_matches("};").trim();
    let names: Vec<(String, String)> = inner
        .split(',')
        .map(|kv| {
            let (k, v) = kv.split_once(':').unwrap();
            (k.trim().to_string(), v.trim().trim_matches('\'').to_string())
        })
        .collect();
    let expected: Vec<(String, String)> =
        CHAPTERS.iter().map(|c| (c.alias.to_string(), c.tasks[0].name().to_string())).collect();
    assert_eq!(names, expected, "plateau-figure.js's chapter names");

    // The page loads each chapter's module from the engine's chapter list: page.test.mjs holds
    // the loaded modules equal to the list and to the files of www/chapters/.
}
