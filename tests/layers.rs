#![cfg(not(target_arch = "wasm32"))]
//! The engine's house rules, read from its source: no import circle between its modules (each
//! top-level module of `src/`, and each chapter's folder, is one module; tests are left out), and
//! no Rust file over 700 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file of `src/` belongs to: `chapters::<name>` for a chapter's folder, the
/// top-level module otherwise; `None` for the binary and the crate root.
fn module_of(rel: &str) -> Option<String> {
    let parts: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
    match parts.as_slice() {
        ["bin", ..] | ["lib"] => None,
        ["chapters", "mod"] => Some("chapters".into()),
        ["chapters", name, ..] => Some(format!("chapters::{name}")),
        [top, ..] => Some(top.to_string()),
        [] => None,
    }
}

/// Which modules each module names (`crate::x`, `$crate::chapters::y`), outside comments and tests.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_str().unwrap().to_string();
        let Some(from) = module_of(&rel) else { continue };
        if rel.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        // Unit tests sit at the end of a file, after `#[cfg(test)]`.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let word =
                    |s: &str| s.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("").to_string();
                let first = word(rest);
                let to = if first == "chapters" {
                    let name = word(rest.trim_start_matches("chapters::"));
                    if rest.starts_with("chapters::") && !name.is_empty() {
                        format!("chapters::{name}")
                    } else {
                        first
                    }
                } else {
                    first
                };
                if !to.is_empty() && to != from && !to.starts_with("with_rows") {
                    edges.entry(from.clone()).or_default().insert(to);
                }
            }
        }
    }
    edges
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let edges = imports();
    assert!(
        edges.get("config").is_none_or(|e| !e.iter().any(|m| m.starts_with("chapters"))),
        "config imports no chapter: {:?}",
        edges.get("config")
    );
    // Every path from each module: a circle is a path back to where it started.
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        while let Some((m, path)) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                assert!(next != start, "import circle: {} → {next}", path.join(" → "));
                if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    todo.push((next.clone(), p));
                }
            }
        }
    }
    // The rule can see an import: the chapters build on config, train and view.
    assert!(edges["chapters::anchors"].contains("config") && edges["chapters::plateau"].contains("view"), "{edges:?}");
}

#[test]
fn no_rust_file_is_over_700_lines() {
    let mut files = vec![];
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"), &mut files);
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).unwrap().lines().count()))
        .filter(|(_, n)| *n > 700)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(long.is_empty(), "split these: {long:?}");
}
