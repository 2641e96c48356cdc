#![cfg(not(target_arch = "wasm32"))]
//! The README's promises, checked: its list of chart ids is the page's, and every
//! `<plateau-figure>` example shows the phenomenon it is there for, in the runs the project kept
//! (`results/`, written by `plateau reproduce`; the page computes the same rows, which
//! `tests/web.rs` holds equal to the CLI's).

use plateau::chapters::anchors::summary::{heldout_answer, summarize_anchors, Answer};
use plateau::chapters::plateau::MetricRow;
use plateau::history::from_csv;
use std::collections::BTreeMap;

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The attributes of every `<plateau-figure …>` in the README's html block.
fn examples(readme: &str) -> Vec<BTreeMap<String, String>> {
    readme
        .match_indices("<plateau-figure ")
        .map(|(i, _)| {
            let tag = &readme[i + "<plateau-figure ".len()..];
            let tag = &tag[..tag.find('>').expect("a closed tag")];
            tag.split_whitespace()
                .filter_map(|a| a.split_once('='))
                .map(|(k, v)| (k.to_string(), v.trim_matches('"').to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn the_readmes_chart_ids_are_the_pages() {
    let (readme, html) = (read("README.md"), read("index.html"));
    let line = readme.split("**Chart ids**").nth(1).expect("a chart ids paragraph");
    let line = &line[..line.find("\n- ").unwrap_or(line.len())];
    let mut listed: Vec<String> = line.split('`').skip(1).step_by(2).map(str::to_string).collect();
    listed.retain(|id| !id.starts_with("chart-") && !id.contains('='));
    let mut page: Vec<String> = html
        .match_indices("<canvas id=\"")
        .map(|(i, m)| {
            let rest = &html[i + m.len()..];
            rest[..rest.find('"').unwrap()].trim_start_matches("chart-").to_string()
        })
        .collect();
    page.push("samples".into());
    page.push("lm-samples".into());
    listed.sort();
    page.sort();
    assert_eq!(listed, page, "README's chart ids against index.html's canvases");
}

#[test]
fn every_readme_figure_example_shows_its_phenomenon_in_the_kept_runs() {
    let readme = read("README.md");
    let figs = examples(&readme);
    assert!(figs.len() >= 4, "the README's examples: {figs:?}");
    for f in figs {
        let get = |k: &str, d: &str| f.get(k).cloned().unwrap_or_else(|| d.to_string());
        for k in f.keys() {
            assert!(
                ["chapter", "c", "seed", "gamma", "lambda", "lambda-until", "controls", "only", "height"]
                    .contains(&k.as_str()),
                "example {f:?}: no kept run has {k} set; add one or check it here"
            );
        }
        let seed = get("seed", "0");
        match get("chapter", "plateau").as_str() {
            "plateau" => {
                let c = get("c", "1");
                let rows: Vec<MetricRow> =
                    from_csv(&read(&format!("results/interactive-mws-c{c}-seed{seed}.csv"))).unwrap();
                let drop = rows.iter().find(|r| r.test_acc >= 0.5).map(|r| r.step);
                assert!(
                    drop.is_some(),
                    "example {f:?} (c {c}, seed {seed}) never drops within {} steps",
                    rows.last().unwrap().step
                );
            }
            "init" => {
                let default = plateau::config::RunConfig::defaults(
                    plateau::config::Task::Anchors,
                    plateau::config::Preset::Interactive,
                );
                let g = get("gamma", &default.anchors.gamma.to_string());
                let rows =
                    from_csv(&read(&format!("results/interactive-anchors-transformer-g{g}-seed{seed}.csv"))).unwrap();
                let s = summarize_anchors(&rows, g.parse().unwrap(), seed.parse().unwrap(), 0.0);
                assert_eq!(heldout_answer(&s), Answer::Inferential, "example {f:?}: small init should reason");
            }
            "syntax" => {
                // The page's default: the nested language on 1 layer (its runs in their own folder).
                let condition = match (get("lambda", "0").as_str(), get("lambda-until", "").as_str()) {
                    ("0", "") => "baseline",
                    ("0.1", "") => "suppress",
                    other => panic!("example {f:?}: no kept run has λ, until = {other:?}"),
                };
                let rows = from_csv(&read(&format!(
                    "results/syntax-nested-1layer/interactive-syntax-{condition}-seed{seed}.csv"
                )))
                .unwrap();
                let o = plateau::chapters::syntax::onsets(&rows);
                if condition == "baseline" {
                    assert!(
                        o.drop.is_some() && o.subject_onset.is_some(),
                        "example {f:?}: the verb loss should leave its plateau as the subject → verb head appears, got {o:?}"
                    );
                } else {
                    assert!(o.drop.is_none(), "example {f:?}: suppression should keep the plateau, got {o:?}");
                }
            }
            "text" => {
                let rows: Vec<plateau::chapters::lm::LmRow> =
                    from_csv(&read(&format!("results/lm/interactive-lm-seed{seed}.csv"))).unwrap();
                let c = plateau::chapters::lm::summary::course(&rows).unwrap();
                assert!(
                    c.collapsed.is_some() && c.recovered.is_some(),
                    "example {f:?}: the hidden states should collapse and recover, got {c:?}"
                );
            }
            other => panic!("example {f:?}: unknown chapter {other}"),
        }
    }
}
