//! `plateau bench --suite copy` (issue 52): the copy-agreement configuration the page offers
//! (`cli::reproduce_syntax::PAGE_COPY_CONFIG`) trained on the page itself in headless Chromium
//! until the page marks its drop, beside chapter 3's default language in the same run
//! (`bench/workers.mjs`'s phenomena, one worker each: chapter 3 trains as one shard). It forms
//! the `chapter3-copy-browser` section of `BENCHMARKS.md` (kept when the full bench rewrites the
//! rest) and the page's `chapter3-copy-time` block, the sentence that offers the configuration
//! with its measured time.

use super::{PhenomenonTime, WorkersBrowser};

/// The section's name in `BENCHMARKS.md`.
pub const COPY_SECTION: &str = "chapter3-copy-browser";
/// The page block's name in `index.html`.
pub const COPY_PAGE_BLOCK: &str = "chapter3-copy-time";

/// The rows' names: chapter 3's default language and the copy-agreement configuration.
const DEFAULT_ROW: &str = "ch3";
const COPY_ROW: &str = "ch3-copy";

/// The spec `bench/workers.mjs` takes: chapter 3 at its defaults and at `copy_query` (the copy
/// configuration's page query), each on one worker until the page marks the drop.
pub fn copy_spec(copy_query: &str) -> serde_json::Value {
    serde_json::json!({
        "cases": [],
        "phenomena": [
            {"name": DEFAULT_ROW, "query": "experiment=syntax", "workers": 1, "kind": "syntax"},
            {"name": COPY_ROW, "query": copy_query, "workers": 1, "kind": "syntax"},
        ],
        "warmup_s": super::WARMUP_S,
        "window_s": super::WINDOW_S,
    })
}

/// The drop's step and training seconds of one row (`None` when the page never marked it).
fn drop_of(t: Option<&PhenomenonTime>) -> Option<(f64, f64)> {
    let t = t?;
    let e = t.events.first()?;
    Some((e.step?, t.seconds()?))
}

fn row<'a>(b: &'a WorkersBrowser, name: &str) -> Option<&'a PhenomenonTime> {
    b.phenomena.iter().find(|t| t.page.name == name)
}

/// One row's cell: "step N after S s (M ms a step)", or why there is none.
fn cell(t: Option<&PhenomenonTime>) -> String {
    match (t, drop_of(t)) {
        (_, Some((step, s))) => {
            format!("step {step:.0} after **{s:.0} s** ({:.0} ms a step)", 1000.0 * s / step.max(1.0))
        }
        (Some(t), None) => match &t.page.error {
            Some(e) => format!("— ({e})"),
            None => "no drop marked before the run finished".into(),
        },
        (None, None) => "—".into(),
    }
}

/// The section: the command, the machine, and the two rows side by side with their ratio.
/// `copy_name` says what the configuration is; `copy_query` is its page query.
pub fn copy_section(
    command: &str,
    cpu: &str,
    date: &str,
    copy_name: &str,
    copy_query: &str,
    r: &Result<WorkersBrowser, String>,
) -> String {
    let mut o = format!(
        "## Chapter 3's copy-agreement configuration in the browser\n\n\
         Written by `{command}` on {date} ({cpu}). The page in headless Chromium{}, on the CPU backend, one \
         worker: training seconds until the page marked the loss's drop (the loss on the outermost slot for \
         copy agreement, on the far-subject verbs for the default language: the page's hero chart and its \
         marker), at chapter 3's defaults and at the copy-agreement configuration the page offers ({copy_name}: \
         `?{copy_query}`), in one run.\n\n",
        r.as_ref().ok().map(|b| format!(" ({})", b.browser)).unwrap_or_default(),
    );
    match r {
        Err(e) => o.push_str(&format!("Not measured: {e}\n")),
        Ok(b) => {
            let (d, c) = (row(b, DEFAULT_ROW), row(b, COPY_ROW));
            o.push_str("| chapter 3 | drop marked at |\n|---|---|\n");
            o.push_str(&format!("| the default language | {} |\n", cell(d)));
            o.push_str(&format!("| copy agreement ({copy_name}) | {} |\n", cell(c)));
            if let (Some((_, sd)), Some((_, sc))) = (drop_of(d), drop_of(c)) {
                o.push_str(&format!("\nCopy agreement's drop takes {:.2}× the default language's time.\n", sc / sd));
            }
        }
    }
    o
}

/// The page's sentence: the link to the configuration and, where measured, its time to the drop
/// beside the default language's (HTML, inside the chapter's text).
pub fn copy_page_sentence(copy_name: &str, copy_query: &str, r: &Result<WorkersBrowser, String>) -> String {
    let link = format!("<a href=\"?{}\">Copy agreement</a>", copy_query.replace('&', "&amp;"));
    let measured =
        r.as_ref().ok().and_then(|b| Some((b.cores, drop_of(row(b, COPY_ROW))?, drop_of(row(b, DEFAULT_ROW)))));
    let time = match measured {
        Some((cores, (step, s), Some((dstep, ds)))) => format!(
            " In headless Chromium on a {cores}-core machine its loss dropped at step {step:.0} after {s:.0} s of \
             training (the language above: step {dstep:.0}, {ds:.0} s; BENCHMARKS.md)."
        ),
        Some((cores, (step, s), None)) => format!(
            " In headless Chromium on a {cores}-core machine its loss dropped at step {step:.0} after {s:.0} s of \
             training (BENCHMARKS.md)."
        ),
        None => String::new(),
    };
    format!(
        "{link}, a language built for a sudden drop (its search is in REPRODUCTION.md): two layers learn to copy \
         each verb's subject class across the clauses between them ({copy_name}).{time}"
    )
}
