#![cfg(not(target_arch = "wasm32"))]
//! `plateau reproduce` across invocations: finished runs reused only when identical, runs
//! continued from their checkpoints to the same rows, sweeps split with `--shard` and merged, and
//! the engine's seeds set against the transcription's with the same code.

use crate::common;

use common::cli::{flags_of, plateau, tmp};

/// `reproduce --resume` reuses a finished run only when its config is the same, and the section
/// it writes is then the same table.
#[test]
fn reproduce_resume_reuses_only_identical_runs() {
    let dir = tmp("resume");
    let md = tmp("resume.md");
    let args = |steps: &'static str, resume: bool| {
        let mut a =
            vec!["reproduce", "--preset", "interactive", "--seeds", "0", "--cs", "10", "--steps", steps, "--quiet"];
        if resume {
            a.push("--resume");
        }
        a
    };
    let (d, m) = (dir.to_str().unwrap().to_string(), md.to_str().unwrap().to_string());
    let with_paths = |a: Vec<&str>| -> (i32, String, String) {
        let mut a = a;
        a.extend(["--csv-dir", d.as_str(), "--out", m.as_str()]);
        plateau(&a)
    };
    let (code, _, err) = with_paths(args("10", false));
    assert_eq!(code, 0, "{err}");
    let table = |s: &str| s.lines().filter(|l| l.starts_with("| 10 |")).map(str::to_string).collect::<Vec<_>>();
    let first = table(&std::fs::read_to_string(&md).unwrap());
    assert_eq!(first.len(), 1);
    let (code, _, err) = with_paths(args("10", true));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("reusing the finished run"), "{err}");
    let doc = std::fs::read_to_string(&md).unwrap();
    assert_eq!(table(&doc), first, "the reused run gives the same row");
    assert!(doc.contains("1 of the 1 runs were finished by earlier invocations"), "{doc}");
    // A different length is a different run: trained again.
    let (code, _, err) = with_paths(args("15", true));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("reusing"), "{err}");
    // --finished-only trains nothing: with a second seed never run, the section has the finished
    // run (the last one, 15 steps) and names the missing one.
    let mut a = vec!["reproduce", "--preset", "interactive", "--seeds", "0,1", "--cs", "10", "--steps", "15"];
    a.extend(["--finished-only", "--csv-dir", d.as_str(), "--out", m.as_str()]);
    let (code, _, err) = plateau(&a);
    assert_eq!(code, 0, "{err}");
    assert!(!dir.join("interactive-mws-c10-seed1.csv").exists(), "nothing trained: {err}");
    let doc = std::fs::read_to_string(&md).unwrap();
    assert_eq!(table(&doc).len(), 1, "{doc}");
    assert!(doc.contains("**Unfinished sweep:** 1 of the 2 runs are finished; not finished: c = 10 seed 1."), "{doc}");
    assert!(doc.contains("this one trained nothing"), "{doc}");
}

/// Every cell of every table row but the last (*wall s*, each run's wall-clock time), with
/// `dirs` replaced by `DIR`: what two sections of the same runs trained at different times share.
fn without_wall_times(doc: &str, dirs: &[&std::path::Path]) -> String {
    let mut doc = doc.to_string();
    for d in dirs {
        doc = doc.replace(d.to_str().unwrap(), "DIR");
    }
    doc.lines()
        .map(|l| match l.strip_suffix(" |").and_then(|l| l.rsplit_once(" | ")) {
            Some((cells, _wall)) if l.starts_with("| ") => format!("{cells} | · |"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `reproduce --shard i/N` splits a sweep between N invocations: each trains its share (runs i,
/// i + N, … in the sweep's order) into the same layout and writes no section, and `--finished-only`
/// then writes the section an unsharded invocation writes (the wall times aside), from the same
/// CSVs byte for byte. Chapter 1's sweep and chapters 2 to 4's (chapter 2 here) each.
#[test]
fn reproduce_shards_merge_into_the_unsharded_section() {
    let (_, anchors) = common::golden_runs().into_iter().find(|(n, _)| n.starts_with("anchors")).unwrap();
    let anchor_flags: Vec<String> =
        flags_of(&anchors).into_iter().filter(|f| f != "--experiment" && f != "anchors").collect();
    let sweeps: [(&str, Vec<String>, [&str; 4]); 2] = [
        (
            "ch1",
            ["--preset", "interactive", "--seeds", "0,1", "--cs", "10,2.5", "--steps", "6"].map(String::from).to_vec(),
            [
                "interactive-mws-c10-seed0.csv",
                "interactive-mws-c10-seed1.csv",
                "interactive-mws-c2.5-seed0.csv",
                "interactive-mws-c2.5-seed1.csv",
            ],
        ),
        (
            "ch2",
            ["--experiment", "anchors", "--gammas", "0.8,0.6", "--seeds", "0,1"]
                .map(String::from)
                .into_iter()
                .chain(anchor_flags)
                .collect(),
            [
                "interactive-anchors-transformer-g0.8-seed0.csv",
                "interactive-anchors-transformer-g0.8-seed1.csv",
                "interactive-anchors-transformer-g0.6-seed0.csv",
                "interactive-anchors-transformer-g0.6-seed1.csv",
            ],
        ),
    ];
    for (name, sweep, files) in sweeps {
        let run = |dir: &std::path::Path, md: &std::path::Path, extra: &[&str]| -> String {
            let mut a: Vec<&str> = vec!["reproduce", "--quiet"];
            a.extend(sweep.iter().map(String::as_str));
            a.extend(["--csv-dir", dir.to_str().unwrap(), "--out", md.to_str().unwrap()]);
            a.extend(extra);
            let (code, _, err) = plateau(&a);
            assert_eq!(code, 0, "{name} {extra:?}: {err}");
            err
        };
        let (whole, whole_md) = (tmp(&format!("shard-{name}-whole")), tmp(&format!("shard-{name}-whole.md")));
        let (parts, parts_md) = (tmp(&format!("shard-{name}-parts")), tmp(&format!("shard-{name}-parts.md")));
        run(&whole, &whole_md, &[]);
        let err = run(&parts, &parts_md, &["--shard", "1/2"]);
        assert!(err.contains("shard 1/2: this invocation's share was 2 of the sweep's 4 runs"), "{name}: {err}");
        assert!(!parts_md.exists(), "{name}: a shard writes no section");
        let trained = files.map(|f| parts.join(f).exists());
        assert_eq!(trained, [true, false, true, false], "{name}: shard 1/2 trains runs 1 and 3");
        run(&parts, &parts_md, &["--shard", "2/2"]);
        assert!(!parts_md.exists(), "{name}: a shard writes no section");
        for f in files {
            let read = |d: &std::path::Path| std::fs::read_to_string(d.join(f)).unwrap();
            assert_eq!(read(&parts), read(&whole), "{name} {f}: the shard's run is the unsharded one");
        }
        run(&whole, &whole_md, &["--finished-only"]);
        run(&parts, &parts_md, &["--finished-only"]);
        let read = |md: &std::path::Path| std::fs::read_to_string(md).unwrap();
        let (a, b) = (read(&whole_md), read(&parts_md));
        assert!(a.lines().filter(|l| l.starts_with("| ")).count() >= 5, "{name}: a table of 4 runs\n{a}");
        assert_eq!(without_wall_times(&a, &[&whole]), without_wall_times(&b, &[&parts]), "{name}");
    }
}

/// A sweep stopped by `--stop-after` leaves a checkpoint; `--resume` continues it, and the run's
/// CSV is byte for byte the CSV of the same run trained straight through.
#[test]
fn reproduce_continues_a_checkpointed_run_to_the_same_rows() {
    let run = |dir: &str, extra: &[&str]| -> (i32, String) {
        let (d, m) = (tmp(dir), tmp(&format!("{dir}.md")));
        let mut a = vec!["reproduce", "--preset", "interactive", "--seeds", "0", "--cs", "2.5", "--steps", "20"];
        a.extend(["--eval-every", "2", "--quiet", "--csv-dir", d.to_str().unwrap(), "--out", m.to_str().unwrap()]);
        a.extend(extra);
        let (code, _, err) = plateau(&a);
        (code, err)
    };
    let (code, err) = run("straight", &[]);
    assert_eq!(code, 0, "{err}");
    let straight = std::fs::read_to_string(tmp("straight").join("interactive-mws-c2.5-seed0.csv")).unwrap();

    let (code, err) = run("parts", &["--checkpoint-every", "5", "--stop-after", "12"]);
    assert_eq!(code, 0, "{err}");
    let ckpt = tmp("parts").join("interactive-mws-c2.5-seed0.ckpt");
    let meta = std::fs::read_to_string(ckpt.join("run.json")).unwrap();
    assert!(meta.contains("\"step\": 12"), "{meta}");
    assert!(!tmp("parts").join("interactive-mws-c2.5-seed0.csv").exists());
    let doc = std::fs::read_to_string(tmp("parts.md")).unwrap();
    assert!(doc.contains("not finished: c = 2.5 seed 0 (checkpointed at step 12 of 20)"), "{doc}");

    // Another config ignores the checkpoint (and says so): on a copy, since it then trains afresh.
    let other = tmp("other").join("interactive-mws-c2.5-seed0.ckpt");
    std::fs::create_dir_all(&other).unwrap();
    for f in ["model.bpk", "optimizer.bpk", "state.cbor", "run.json"] {
        std::fs::copy(ckpt.join(f), other.join(f)).unwrap();
    }
    let (code, err) = run("other", &["--resume", "--lr", "0.002", "--stop-after", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("made with another config"), "{err}");

    let (code, err) = run("parts", &["--resume", "--checkpoint-every", "5", "--stop-after", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("continuing from the checkpoint"), "{err}");
    let meta = std::fs::read_to_string(ckpt.join("run.json")).unwrap();
    assert!(meta.contains("\"step\": 15"), "{meta}");
    let (code, err) = run("parts", &["--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("at step 15"), "{err}");
    let resumed = std::fs::read_to_string(tmp("parts").join("interactive-mws-c2.5-seed0.csv")).unwrap();
    assert_eq!(resumed, straight);
    assert!(!ckpt.exists(), "a finished run's checkpoint is removed");
}

/// Chapters 2 to 4 resume too: a chapter 2 reproduction stopped mid-run by `--stop-after` leaves
/// a checkpoint, `--resume` continues it, and the finished run's CSV is byte for byte the golden
/// run's (the same config trained straight through).
#[test]
fn reproduce_continues_a_checkpointed_chapter_2_run_to_the_golden_rows() {
    let (_, cfg) = common::golden_runs().into_iter().find(|(n, _)| n.starts_with("anchors")).unwrap();
    let dir = tmp("resume-anchors");
    let md = tmp("resume-anchors.md");
    let run = |extra: &[&str]| -> (i32, String) {
        let mut a: Vec<String> = ["reproduce", "--experiment", "anchors", "--gammas", "0.8", "--seeds", "0", "--quiet"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(flags_of(&cfg).into_iter().filter(|f| f != "--experiment" && f != "anchors"));
        a.extend(["--csv-dir", dir.to_str().unwrap(), "--out", md.to_str().unwrap()].iter().map(|s| s.to_string()));
        a.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, _, err) = plateau(&refs);
        (code, err)
    };
    let stem = dir.join("interactive-anchors-transformer-g0.8-seed0").to_str().unwrap().to_string();
    let (ckpt, csv) = (format!("{stem}.ckpt"), format!("{stem}.csv"));
    let (code, err) = run(&["--checkpoint-every", "4", "--stop-after", "6"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("stopped at step 6 (--stop-after)"), "{err}");
    assert!(err.contains("no run has finished yet"), "{err}");
    let meta = std::fs::read_to_string(format!("{ckpt}/run.json")).unwrap();
    assert!(meta.contains("\"step\": 6"), "{meta}");
    assert!(!std::path::Path::new(&csv).exists());
    let (code, err) = run(&["--resume"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("continuing from the checkpoint") && err.contains("at step 6"), "{err}");
    let golden =
        std::fs::read_to_string(format!("{}/tests/golden/anchors-seed0-12.csv", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), golden);
    assert!(!std::path::Path::new(&ckpt).exists(), "a finished run's checkpoint is removed");
}

/// `reproduce --against-transcription` reads the engine's and the transcription's CSVs with the
/// same code: with the engine's own rows standing in for the transcription, every statistic has
/// the same distribution on both sides (U = m·k/2, p = 1); a transcription run made with another
/// protocol, or a CSV without the training first-output accuracy, is refused with a message.
#[test]
fn against_transcription_compares_both_sides_with_the_same_code() {
    let (engine, torch, out) = (tmp("seeds-engine"), tmp("seeds-torch"), tmp("seeds.md"));
    let (early, early_torch) = (tmp("seeds-early"), tmp("seeds-early-torch"));
    std::fs::create_dir_all(&torch).unwrap();
    std::fs::create_dir_all(&early_torch).unwrap();
    let args = [
        "reproduce",
        "--preset",
        "paper",
        "--against-transcription",
        "--seeds",
        "3",
        "--steps",
        "5",
        "--eval-every",
        "5",
        "--csv-dir",
        engine.to_str().unwrap(),
        "--transcription-dir",
        torch.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--early-seeds",
        "4",
        "--early-dir",
        early.to_str().unwrap(),
        "--early-transcription-dir",
        early_torch.to_str().unwrap(),
        "--quiet",
    ];
    let (code, _, err) = plateau(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to compare yet") && err.contains("transcription seed 3"), "{err}");
    let csv = std::fs::read_to_string(engine.join("paper-mws-c1-seed3.csv")).expect("the engine's run is kept");
    assert!(csv.lines().next().unwrap().contains(",train_first_acc,"), "{csv}");
    std::fs::write(torch.join("paper-mws-c1-seed3.csv"), &csv).unwrap();
    let meta = |steps: usize| {
        format!(
            r#"{{"config": {{"steps": {steps}, "after-drop": 50, "eval-every": 5, "batch": 256, "eval-batch": 64,
            "d-model": 256, "d-ff": 1024, "n": 16, "lr": 0.0001}}, "torch": "stand-in", "wall_s": 1.0}}"#
        )
    };
    std::fs::write(torch.join("paper-mws-c1-seed3.json"), meta(5)).unwrap();
    // The early-collapse runs (10 steps): the engine's seed 4 stands in for the transcription's.
    let early_csv = std::fs::read_to_string(early.join("paper-mws-c1-seed4.csv")).expect("the early run is kept");
    assert_eq!(early_csv.lines().filter_map(|l| l.split(',').next()).collect::<Vec<_>>(), ["step", "0", "5", "10"]);
    std::fs::write(early_torch.join("paper-mws-c1-seed4.csv"), &early_csv).unwrap();
    std::fs::write(early_torch.join("paper-mws-c1-seed4.json"), meta(10)).unwrap();
    let (code, _, err) = plateau(&args);
    assert_eq!(code, 0, "{err}");
    let doc = std::fs::read_to_string(&out).unwrap();
    assert!(doc.contains("## Chapter 1 — the engine against the transcription, 1 seed each (generated)"), "{doc}");
    assert!(doc.contains("PyTorch stand-in"), "{doc}");
    let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with("| peak ") || l.starts_with("| hidden ")).collect();
    assert_eq!(rows.len(), 6, "3 in the main table, 3 in the early collapse's: {doc}");
    assert!(doc.contains("### The early collapse on 1 more seed"), "{doc}");
    assert!(doc.contains("No step of the early collapse differs at the 5 % level"), "{doc}");
    for row in rows {
        let cells: Vec<&str> = row.split(" | ").collect();
        assert_eq!(cells[1], cells[2], "the same rows give the same distribution: {row}");
        assert_eq!(&cells[3..], ["0.5", "1.000 |"], "{row}");
    }
    assert!(doc.contains("No statistic differs at the 5 % level"), "{doc}");
    std::fs::write(torch.join("paper-mws-c1-seed3.json"), meta(400)).unwrap();
    let (code, _, err) = plateau(&args);
    assert_eq!(code, 2);
    assert!(err.contains("steps is 400, this comparison uses 5"), "{err}");
    std::fs::write(torch.join("paper-mws-c1-seed3.json"), meta(5)).unwrap();
    let old: String = csv
        .lines()
        .map(|l| {
            let mut c: Vec<&str> = l.split(',').collect();
            c.remove(13);
            c.join(",") + "\n"
        })
        .collect();
    std::fs::write(torch.join("paper-mws-c1-seed3.csv"), old).unwrap();
    let (code, _, err) = plateau(&args);
    assert_eq!(code, 2);
    assert!(err.contains("no train_first_acc column"), "{err}");
}

/// The page's measured-runs file (`www/measured.json`) is byte for byte what `plateau measured`
/// writes from `results/` now (so it never drifts from the runs), fits the page's 300 KB download,
/// holds the CSVs' values within the golden tolerance, names the commands that trained the runs,
/// and has runs at each chapter's default (chapter 2's compare γ too) but none at a configuration
/// nobody measured.
#[test]
fn the_measured_runs_file_is_the_one_plateau_measured_writes_from_results() {
    use plateau::config::{Preset, RunConfig, Task};
    use plateau::measured::{matching, MeasuredFile};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join("www/measured.json")).expect("www/measured.json is committed");
    let out = tmp("measured.json");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_plateau"))
        .current_dir(root)
        .args(["measured", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(
        std::fs::read_to_string(&out).unwrap() == committed,
        "www/measured.json is stale: run `cargo run --release --bin plateau -- measured`"
    );
    // The download: gzip -9 of the file.
    let gz = std::process::Command::new("gzip")
        .args(["-9c", root.join("www/measured.json").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(gz.status.success());
    assert!(gz.stdout.len() <= 300_000, "www/measured.json is {} bytes gzipped (at most 300 KB)", gz.stdout.len());
    let file: MeasuredFile = serde_json::from_str(&committed).unwrap();
    // Every group's first run, every value, against its CSV (the source whose CSV has its rows).
    for g in &file.groups {
        let run = &g.runs[0];
        let csv = g
            .source
            .split(", ")
            .filter_map(|s| std::fs::read_to_string(root.join(format!("{s}-seed{}.csv", run.seed))).ok())
            .find(|c| c.lines().skip(1).filter(|l| !l.is_empty()).count() == run.rows.len())
            .unwrap_or_else(|| panic!("{}: no CSV of seed {} with its rows", g.source, run.seed));
        let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let rows: Vec<Vec<f64>> =
            csv.lines().skip(1).map(|l| l.split(',').map(|c| c.parse().unwrap_or(f64::NAN)).collect()).collect();
        for (k, col) in g.columns.iter().enumerate() {
            let i = head.iter().position(|h| h == col).unwrap();
            for (m, r) in run.rows.iter().zip(&rows) {
                let (a, b) = (m[k].unwrap_or(f64::NAN), r[i]);
                assert!(
                    (a - b).abs() <= common::TOLERANCE || (a.is_nan() && b.is_nan()),
                    "{} seed {}: {col} {a} against {b}",
                    g.source,
                    run.seed
                );
            }
        }
    }
    let seeds = |cfg: &RunConfig| -> Vec<u64> {
        matching(&file, cfg).iter().flat_map(|g| g.runs.iter().map(|r| r.seed)).collect()
    };
    // Chapter 1's default (c = 1), with the command that trained it.
    let mws = RunConfig::defaults(Task::MWS, Preset::Interactive);
    assert_eq!(seeds(&mws), [0, 1, 2]);
    assert_eq!(
        matching(&file, &mws)[0].command.as_deref(),
        Some("cargo run --release --bin plateau -- reproduce --preset interactive")
    );
    // Chapter 2's default (γ 0.7, 4 shards) and its compare run (γ 0.4 at the comparison's own
    // budget): 6 to 9 seeds each, from the sweep's section and the budget search's.
    let anchors = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    assert_eq!((anchors.anchors.gamma, anchors.shards), (0.7, 4), "chapter 2's default γ and shards");
    let mut large = anchors.clone();
    large.anchors.gamma = plateau::page::DEFAULT_COMPARE;
    large.steps = plateau::page::DEFAULT_COMPARE_STEPS as usize;
    for (c, section) in [(&anchors, "chapter2-interactive-anchors-transformer"), (&large, "chapter2-compare-budget")] {
        let n = seeds(c).len();
        assert!((6..=9).contains(&n), "γ {}: {n} measured runs", c.anchors.gamma);
        assert_eq!(matching(&file, c)[0].section.as_deref(), Some(section));
    }
    // Chapters 3 and 4's defaults.
    for task in [Task::Syntax, Task::Lm] {
        let n = seeds(&RunConfig::defaults(task, Preset::Interactive)).len();
        assert!((3..=6).contains(&n), "{}: {n} measured runs at the default", task.name());
    }
    // Nobody measured c = 3 or γ 0.45.
    let mut c3 = mws.clone();
    c3.plateau.c = 3.0;
    assert!(seeds(&c3).is_empty(), "c = 3");
    let mut g45 = anchors.clone();
    g45.anchors.gamma = 0.45;
    assert!(seeds(&g45).is_empty(), "γ 0.45");
}
