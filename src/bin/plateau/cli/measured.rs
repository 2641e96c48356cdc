//! `plateau measured`: the runs under `results/` as the page's measured-runs file
//! (`www/measured.json`; what goes in and how it reads is [`plateau::measured`]). This side finds
//! the runs on disk and reads `REPRODUCTION.md` for the commands that trained them; `reproduce`
//! calls it again whenever it rewrites a section of the repository's `REPRODUCTION.md`
//! ([`refresh_after_section`]), so the file follows the runs.

use super::tables::SYNTAX_DESIGN;
use super::{output, CliError};
use plateau::config::RunConfig;
use plateau::measured::{build, sections, to_json, Found, Section};
use std::path::Path;
use std::process::ExitCode;

/// Where the runs are, the file the page reads and the document that names their commands, when
/// run from the repository's root (`plateau measured`'s defaults).
const RESULTS: &str = "results";
const OUT: &str = "www/measured.json";
const DOC: &str = "REPRODUCTION.md";
/// The page whose links name the configurations that fill the file's budget first.
const PAGE: &str = "index.html";

/// The [`plateau::measured::group_key`]s of the configurations `html` links to (every
/// `href="?…"`, read as the page reads its URL; a link that reads with a notice is left out).
fn linked_keys(html: &str) -> Vec<String> {
    html.split("href=\"?")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter_map(|q| {
            let (cfg, notices) = plateau::config::from_query(&q.replace("&amp;", "&"));
            notices.is_empty().then(|| plateau::measured::group_key(&cfg))
        })
        .collect()
}

/// Every run under `dir` (recursively, in name order) with a record (`NAME-seedK.json` whose
/// `config` reads as a config) and its CSV; folders whose name starts with `transcription` (the
/// PyTorch transcription's runs, not the engine's) are left out, and so is a record without a
/// config or whose CSV is missing.
pub(super) fn find_runs(dir: &Path) -> std::io::Result<Vec<Found>> {
    let mut entries: Vec<std::path::PathBuf> =
        std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    let mut out = vec![];
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if p.is_dir() {
            if !name.starts_with("transcription") {
                out.extend(find_runs(&p)?);
            }
            continue;
        }
        let Some(stem) = name.strip_suffix(".json") else { continue };
        let csv = p.with_file_name(format!("{stem}.csv"));
        let (Ok(record), Ok(csv)) = (std::fs::read_to_string(&p), std::fs::read_to_string(&csv)) else { continue };
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&record) else { continue };
        let Ok(config) = serde_json::from_value::<RunConfig>(record["config"].clone()) else { continue };
        let base = stem.rsplit_once("-seed").map_or(stem, |(a, _)| a);
        let source = p.with_file_name(base).to_string_lossy().replace('\\', "/");
        out.push(Found { source, config, wall_s: record["wall_s"].as_f64(), csv });
    }
    Ok(out)
}

/// `doc`'s sections, with the folders a sweep writes that its section's text does not name,
/// from the sweep's own table: chapter 3's design search (`chapter3-design`, which names its
/// runs by [`SYNTAX_DESIGN`]) writes `results/syntax-design/`. A folder another section names
/// (the design search's agreement row reuses the plateau search's runs) stays that section's.
fn with_sweep_folders(mut sections: Vec<Section>) -> Vec<Section> {
    let named: Vec<String> = sections.iter().flat_map(|s| s.folders.clone()).collect();
    if let Some(design) = sections.iter_mut().find(|s| s.name == "chapter3-design") {
        for (_, _, folder, _) in SYNTAX_DESIGN {
            let folder = format!("{RESULTS}/{folder}");
            if !named.contains(&folder) && !design.folders.contains(&folder) {
                design.folders.push(folder);
            }
        }
    }
    sections
}

/// Writes the file `out` from the runs under `dir` and the commands `doc` quotes (a missing `doc`
/// names none); prints what was left out and why, and a line on what was written.
fn write_measured(dir: &str, out: &str, doc: &str) -> Result<(), CliError> {
    let found = find_runs(Path::new(dir)).map_err(|e| CliError(format!("cannot read {dir}: {e}")))?;
    let sections = with_sweep_folders(sections(&std::fs::read_to_string(doc).unwrap_or_default()));
    let linked = linked_keys(&std::fs::read_to_string(PAGE).unwrap_or_default());
    let (file, skipped) = build(found, &sections, "plateau measured", &linked);
    for s in &skipped {
        eprintln!("left out: {s}");
    }
    let text = to_json(&file);
    output::write_file(out, text.as_bytes())?;
    let runs: usize = file.groups.iter().map(|g| g.runs.len()).sum();
    let named = file.groups.iter().filter(|g| g.command.is_some()).count();
    eprintln!(
        "wrote {out}: {} configurations ({named} with the command that trains them), {runs} runs, {} bytes",
        file.groups.len(),
        text.len()
    );
    Ok(())
}

/// `plateau measured [--results DIR] [--doc FILE] [--out FILE]`.
pub(super) fn cmd_measured(args: &[String]) -> Result<ExitCode, CliError> {
    let (mut dir, mut out, mut doc) = (RESULTS.to_string(), OUT.to_string(), DOC.to_string());
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = || CliError(format!("{flag} needs a value"));
        match flag.as_str() {
            "--results" => dir = it.next().ok_or_else(value)?.clone(),
            "--out" => out = it.next().ok_or_else(value)?.clone(),
            "--doc" => doc = it.next().ok_or_else(value)?.clone(),
            other => {
                return Err(CliError(format!(
                    "unknown flag {other} for measured (--results DIR, --doc FILE, --out FILE)"
                )))
            }
        }
    }
    write_measured(&dir, &out, &doc)?;
    Ok(ExitCode::SUCCESS)
}

/// After `reproduce` rewrote section(s) of `out`: when that is the repository's `REPRODUCTION.md`
/// (the default `--out`, run from the root, where `results/` and `www/` are), the page's file is
/// written again from `results/`, so it never lags behind the runs a section describes. A sweep
/// into another document or folder (the tests') leaves it alone.
pub(super) fn refresh_after_section(out: &str) -> Result<(), CliError> {
    if out == DOC && Path::new(RESULTS).is_dir() && Path::new(OUT).parent().is_some_and(Path::is_dir) {
        write_measured(RESULTS, OUT, DOC)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The page's links read as the page reads its URL (`&amp;` is `&`); a link with a bad value
    /// names no configuration.
    #[test]
    fn linked_keys_are_the_group_keys_of_the_pages_links() {
        let html = r#"<a href="?v=4&amp;experiment=syntax&amp;grammar=copy&amp;seed=3">x</a> <a href="?c=banana">y</a>
                      <a href="REPRODUCTION.md">z</a>"#;
        let keys = super::linked_keys(html);
        let (cfg, _) = plateau::config::from_query("v=4&experiment=syntax&grammar=copy");
        assert_eq!(keys, [plateau::measured::group_key(&cfg)]);
        assert!(keys[0].contains("grammar=copy") && !keys[0].contains("seed"), "{keys:?}");
    }
}
