#![cfg(not(target_arch = "wasm32"))]
//! The engine's house rules, read from its source: no import circle between its modules (each
//! top-level module of `src/`, and each chapter's folder, is one module; tests are left out) nor
//! between the page's modules (`www/`), and
//! no Rust file over 700 lines, and `ARCHITECTURE.md` short.

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
        ["chapters", name, "knobs"] => Some(format!("chapters::{name}::knobs")),
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
                    if rest.starts_with(&format!("chapters::{name}::knobs")) && !name.is_empty() {
                        format!("chapters::{name}::knobs")
                    } else if rest.starts_with("chapters::") && !name.is_empty() {
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
        edges.get("config").is_none_or(|e| !e.iter().any(|m| m.starts_with("chapters") && !m.ends_with("::knobs"))),
        "config imports no chapter but their config sections (`knobs`): {:?}",
        edges.get("config")
    );
    // A chapter's config section sits below config: it imports the schema's machinery only.
    for (m, to) in edges.iter().filter(|(m, _)| m.ends_with("::knobs") || *m == "schema") {
        assert!(to.iter().all(|t| t == "schema"), "{m} imports only `schema`: {to:?}");
    }
    assert_no_circle(&edges);
    // The rule can see an import: the chapters build on config, train and view; config flattens
    // each chapter's section.
    assert!(edges["chapters::anchors"].contains("config") && edges["chapters::plateau"].contains("view"), "{edges:?}");
    assert!(
        edges["config"].contains("chapters::syntax::knobs") && edges["chapters::lm::knobs"].contains("schema"),
        "{edges:?}"
    );
}

/// Every path from each module: a circle is a path back to where it started.
fn assert_no_circle(edges: &BTreeMap<String, BTreeSet<String>>) {
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
}

/// Which of the page's modules (`www/*.js`, `www/chapters/*.js`) each imports by a static
/// `import … from './x.js'` (or `export … from`) or a dynamic `import('./x.js')` (a template's
/// folder: each of its modules), the engine's generated `pkg*/` left out.
fn page_imports() -> BTreeMap<String, BTreeSet<String>> {
    let www = Path::new(env!("CARGO_MANIFEST_DIR")).join("www");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for dir in [www.clone(), www.join("chapters")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let f = e.unwrap().path();
            if f.extension().is_none_or(|x| x != "js") {
                continue;
            }
            let from = f.strip_prefix(&www).unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&f).unwrap();
            let mut rest = text.as_str();
            while let Some(i) = rest.find(" from '") {
                rest = &rest[i + " from '".len()..];
                let target = rest.split('\'').next().unwrap();
                if !target.starts_with('.') || target.contains("pkg") {
                    continue;
                }
                let mut path: Vec<&str> = from.split('/').collect();
                path.pop();
                for part in target.split('/') {
                    match part {
                        "." => {}
                        ".." => {
                            path.pop();
                        }
                        p => path.push(p),
                    }
                }
                edges.entry(from.clone()).or_default().insert(path.join("/"));
            }
            // A dynamic `import(`./chapters/${…}.js`)` reaches every module of that folder, and
            // `import('./x.js')` that one: a circle through one is a circle at run time.
            let mut at = 0;
            while let Some(i) = text[at..].find("import(") {
                let start = at + i;
                at = start + "import(".len();
                let rest = &text[at..];
                // A type in a comment (JSDoc's `import('./x.js').T`) imports nothing at run time.
                let line = &text[text[..start].rfind('\n').map_or(0, |n| n + 1)..start];
                let (open, close) = (text[..start].rfind("/*"), text[..start].rfind("*/"));
                if line.contains("//") || line.trim_start().starts_with('*') || open > close {
                    continue;
                }
                let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '`')) else { continue };
                let target = rest[1..].split(quote).next().unwrap();
                if !target.starts_with("./") || target.contains("pkg") {
                    continue;
                }
                let dir = Path::new(&from).parent().unwrap().join(&target[2..]);
                let dir = dir.to_str().unwrap();
                match dir.split_once("${") {
                    Some((folder, _)) => {
                        for m in std::fs::read_dir(www.join(folder)).unwrap() {
                            let name = m.unwrap().file_name().into_string().unwrap();
                            if name.ends_with(".js") {
                                edges.entry(from.clone()).or_default().insert(format!("{folder}{name}"));
                            }
                        }
                    }
                    None => {
                        edges.entry(from.clone()).or_default().insert(dir.to_string());
                    }
                }
            }
        }
    }
    edges
}

#[test]
fn no_page_module_imports_one_that_imports_it_back() {
    let edges = page_imports();
    assert_no_circle(&edges);
    // The rule can see an import: the app boots the charts, a chapter's module draws with draw.js.
    assert!(edges["app.js"].contains("charts.js") && edges["chapters/init.js"].contains("draw.js"), "{edges:?}");
    // ... and a dynamic one: the app loads the chapters' modules by their aliases.
    assert!(edges["app.js"].contains("chapters/syntax.js"), "{edges:?}");
}

/// Which sibling modules each file of the command-line tool's folders (`src/bin/plateau/cli/`,
/// `src/bin/plateau/bench/`) names through `super::x` or `use super::{x, …}`; what the parent
/// itself declares (`super::Flags`, `super::linked_keys`) is not a sibling and not an edge.
fn cli_imports(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    let name = |p: &Path| p.file_stem().unwrap().to_str().unwrap().to_string();
    let siblings: BTreeSet<String> = files.iter().map(|p| name(p)).filter(|n| n != "mod").collect();
    let word = |s: &str| s.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("").to_string();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
            for (i, _) in line.match_indices("super::") {
                let rest = &line[i + "super::".len()..];
                let named: Vec<String> = match rest.strip_prefix('{') {
                    Some(list) => list.split('}').next().unwrap().split(',').map(|p| word(p.trim())).collect(),
                    None => vec![word(rest)],
                };
                for to in named.into_iter().filter(|n| siblings.contains(n) && *n != name(f)) {
                    edges.entry(name(f)).or_default().insert(to);
                }
            }
        }
    }
    edges
}

#[test]
fn no_cli_module_imports_one_that_imports_it_back() {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin/plateau");
    let cli = cli_imports(&bin.join("cli"));
    assert_no_circle(&cli);
    // The rule can see both forms: `use super::shared::…` and `use super::{output, …}`.
    assert!(cli["reproduce_syntax"].contains("shared") && cli["shared"].contains("output"), "{cli:?}");
    assert_no_circle(&cli_imports(&bin.join("bench")));
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

#[test]
fn the_architecture_document_stays_short() {
    // Structure and rules, one line per folder; details live in the module doc comments.
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap();
    let lines = text.lines().count();
    assert!(lines <= 120, "ARCHITECTURE.md has {lines} lines (at most 120)");
    let long: Vec<(usize, usize)> =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.chars().count())).filter(|&(_, n)| n > 240).collect();
    assert!(long.is_empty(), "ARCHITECTURE.md lines over 240 characters (line, length): {long:?}");
}

/// The functions of `text` longer than `max` lines (name, lines): a function starts at a line
/// `fn name` (Rust) or `function name` (JavaScript) with a body, and ends at the first line that
/// is its indentation followed by `}`.
fn long_functions(text: &str, max: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec![];
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let mut words = body.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        let has_body = body.trim_end().ends_with('{') || !body.trim_end().ends_with(';');
        let name = loop {
            match words.next() {
                Some("pub" | "crate" | "super" | "async" | "const" | "unsafe" | "export" | "") => continue,
                Some("fn" | "function") => break words.find(|w| !w.is_empty()),
                _ => break None,
            }
        };
        let Some(name) = name.filter(|_| has_body) else { continue };
        let close = format!("{indent}}}");
        if let Some(n) = lines[i + 1..].iter().position(|l| l.trim_end() == close) {
            if n + 2 > max {
                out.push((name.to_string(), n + 2));
            }
        }
    }
    out
}

#[test]
fn the_function_length_rule_reads_both_languages() {
    let rust = format!("pub(crate) async fn long() {{\n{}}}\nfn short() -> u8 {{\n    1\n}}\n", "    x;\n".repeat(150));
    assert_eq!(long_functions(&rust, 150), vec![("long".to_string(), 152)]);
    let js = format!("export async function draw(a) {{\n{}}}\nfunction ok() {{\n}}\n", "  a();\n".repeat(148));
    assert_eq!(long_functions(&js, 150), vec![]);
    assert_eq!(long_functions(&js, 149), vec![("draw".to_string(), 150)]);
    assert!(long_functions("fn declared();\n}\n", 0).is_empty());
}

#[test]
fn no_function_is_over_150_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    rust_files(&root.join("src"), &mut files);
    let www = std::fs::read_dir(root.join("www")).unwrap().chain(std::fs::read_dir(root.join("www/chapters")).unwrap());
    files.extend(www.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "js")));
    let long: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            long_functions(&text, 150).into_iter().map(move |(n, l)| format!("{} {n} ({l} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these: {long:?}");
}
