//! The page's own URL keys (how the page shows a run, not the run): one table of them, read from
//! a URL and written back here, for the page (`parsePage`, `pageQuery` in `src/web/mod.rs`) and
//! for [`query_notices`](super::query_notices), which names them as known.

use serde::{Deserialize, Serialize};

/// One key a URL may carry for the page rather than the engine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PageKey {
    /// The key.
    pub key: &'static str,
    /// What it does and which values it takes.
    pub doc: &'static str,
}

/// Every page key, in the order the page writes them (`v` is the config query's).
pub const PAGE_KEYS: &[PageKey] = &[
    PageKey { key: "v", doc: "the URL format version (`URL_VERSION`)" },
    PageKey { key: "backend", doc: "`webgpu`, `cpu` or `race`: the backend, instead of the page's own choice" },
    PageKey {
        key: "hide",
        doc: "a comma list of `prose`, `nav`, `controls`, `status`, `maps`: parts of the page to hide",
    },
    PageKey { key: "controls", doc: "a comma list of control keys: only those controls" },
    PageKey { key: "autoplay", doc: "`0` or `1`: whether the run starts playing" },
    PageKey { key: "only", doc: "a comma list of chart ids: just those charts, large, with their captions" },
    PageKey { key: "seeds", doc: "1 to 8: a seed band of that many seeds" },
    PageKey { key: "compare", doc: "chapter 2: the γ of a second run trained beside the first, or `off`" },
];

/// The backends `backend=` takes.
pub const BACKENDS: [&str; 3] = ["webgpu", "cpu", "race"];
/// The parts `hide=` takes.
pub const HIDE: [&str; 5] = ["prose", "nav", "controls", "status", "maps"];
/// The most seeds of a seed band (`seeds=`).
pub const MAX_SEEDS: u32 = 8;
/// Chapter 2's comparison γ when the URL names none: the large init of the default contrast
/// (symmetric in 4 of 6 runs of the γ sweep, against 0.7's inferential in 6 of 6).
pub const DEFAULT_COMPARE: f64 = 0.4;

/// The values of the page keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageFlags {
    /// `backend=`: `""` (the page chooses) or one of [`BACKENDS`].
    pub backend: String,
    /// `hide=`: parts of [`HIDE`].
    pub hide: Vec<String>,
    /// `controls=`: the controls to show (`None`: all).
    pub controls: Option<Vec<String>>,
    /// `autoplay=`.
    pub autoplay: bool,
    /// `only=`: the charts to show (`None`: all).
    pub only: Option<Vec<String>>,
    /// `seeds=`: 1 to [`MAX_SEEDS`].
    pub seeds: u32,
    /// `compare=`: chapter 2's comparison γ (`None`: off).
    pub compare: Option<f64>,
}

impl Default for PageFlags {
    fn default() -> Self {
        PageFlags {
            backend: String::new(),
            hide: vec![],
            controls: None,
            autoplay: true,
            only: None,
            seeds: 1,
            compare: Some(DEFAULT_COMPARE),
        }
    }
}

/// The page keys of `query` (a leading `?` optional; each key's first value counts, as
/// `URLSearchParams.get` reads it), leniently: a value not allowed becomes a notice and the
/// default. `controls` and `charts` are the ids the page has (the engine does not know them).
pub fn page_from_query(query: &str, controls: &[String], charts: &[String]) -> (PageFlags, Vec<String>) {
    let pairs: Vec<(String, String)> = query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (super::url_decode(k), super::url_decode(v)),
            None => (super::url_decode(p), String::new()),
        })
        .collect();
    let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let list =
        |v: &str| -> Vec<String> { v.split(',').map(str::trim).filter(|x| !x.is_empty()).map(String::from).collect() };
    let mut flags = PageFlags::default();
    let mut notices = vec![];
    if let Some(b) = get("backend") {
        if BACKENDS.contains(&b) {
            flags.backend = b.to_string();
        } else {
            notices.push(format!(
                "Unknown backend \"{b}\" in the URL (allowed: {}); choosing automatically.",
                BACKENDS.join(", ")
            ));
        }
    }
    for h in list(get("hide").unwrap_or("")) {
        if HIDE.contains(&h.as_str()) {
            flags.hide.push(h);
        } else {
            notices.push(format!("Unknown value \"{h}\" in hide= (allowed: {}); ignored.", HIDE.join(", ")));
        }
    }
    if let Some(v) = get("controls") {
        let (known, unknown): (Vec<String>, Vec<String>) = list(v).into_iter().partition(|c| controls.contains(c));
        for c in unknown {
            notices.push(format!("Unknown control \"{c}\" in controls= (allowed: {}); ignored.", controls.join(", ")));
        }
        flags.controls = Some(known);
    }
    if let Some(a) = get("autoplay") {
        match a {
            "0" | "1" => flags.autoplay = a == "1",
            _ => notices.push(format!("Invalid autoplay=\"{a}\" (allowed: 0, 1); playing.")),
        }
    }
    if let Some(v) = get("only") {
        let (known, unknown): (Vec<String>, Vec<String>) = list(v).into_iter().partition(|c| charts.contains(c));
        for c in unknown {
            notices.push(format!("Unknown chart \"{c}\" in only= (allowed: {}); ignored.", charts.join(", ")));
        }
        flags.only = (!known.is_empty()).then_some(known);
    }
    if let Some(v) = get("seeds") {
        match v.parse::<u32>() {
            Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) && (1..=MAX_SEEDS).contains(&n) => flags.seeds = n,
            _ => notices.push(format!("Invalid seeds=\"{v}\" (allowed: 1 to {MAX_SEEDS}); training one seed.")),
        }
    }
    flags.compare = match get("compare") {
        // A link of URL version 1 predates the compare view: it trains alone.
        None if get("v") == Some("1") => None,
        None => Some(DEFAULT_COMPARE),
        Some("off") => None,
        Some(v) => {
            let (min, max) = match super::spec("gamma").map(|p| p.kind) {
                Some(super::Kind::Float { min, max, .. }) => (min, max),
                _ => unreachable!("gamma is a float key"),
            };
            let decimal = {
                let (int, frac) = v.split_once('.').unwrap_or(("", v));
                !frac.is_empty() && (int.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
            };
            match v.parse::<f64>() {
                Ok(g) if decimal && (min..=max).contains(&g) => Some(g),
                _ => {
                    notices.push(format!(
                        "Invalid compare=\"{v}\" (allowed: off, or a γ from {min} to {max}); comparing with γ = {DEFAULT_COMPARE}."
                    ));
                    Some(DEFAULT_COMPARE)
                }
            }
        }
    };
    (flags, notices)
}

/// The page keys that differ from their defaults, as `key=value` pairs in [`PAGE_KEYS`] order:
/// what the page adds to the config's query ([`super::to_query`]) in its address bar and links.
pub fn page_query(flags: &PageFlags) -> Vec<String> {
    let mut out = vec![];
    if !flags.backend.is_empty() {
        out.push(format!("backend={}", flags.backend));
    }
    if !flags.hide.is_empty() {
        out.push(format!("hide={}", flags.hide.join(",")));
    }
    if let Some(c) = &flags.controls {
        out.push(format!("controls={}", c.join(",")));
    }
    if !flags.autoplay {
        out.push("autoplay=0".into());
    }
    if let Some(o) = &flags.only {
        out.push(format!("only={}", o.join(",")));
    }
    if flags.seeds > 1 {
        out.push(format!("seeds={}", flags.seeds));
    }
    if flags.compare != Some(DEFAULT_COMPARE) {
        out.push(format!("compare={}", flags.compare.map_or("off".to_string(), |g| g.to_string())));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_read_leniently_and_write_back() {
        let controls = vec!["c".to_string(), "seed".to_string()];
        let charts = vec!["loss".to_string(), "map-att".to_string()];
        let (f, notes) = page_from_query(
            "?v=3&c=2.5&backend=cpu&hide=prose,nav&controls=c,seed&autoplay=0&only=loss&seeds=3&compare=0.6",
            &controls,
            &charts,
        );
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(
            f,
            PageFlags {
                backend: "cpu".into(),
                hide: vec!["prose".into(), "nav".into()],
                controls: Some(controls.clone()),
                autoplay: false,
                only: Some(vec!["loss".into()]),
                seeds: 3,
                compare: Some(0.6),
            }
        );
        assert_eq!(
            page_query(&f),
            ["backend=cpu", "hide=prose,nav", "controls=c,seed", "autoplay=0", "only=loss", "seeds=3", "compare=0.6"]
        );
        assert!(page_query(&PageFlags::default()).is_empty(), "the defaults write nothing");
        // Every page key of the table, and no other, is read.
        for k in PAGE_KEYS {
            assert!(super::super::spec(k.key).is_none(), "{} is a schema key too", k.key);
        }
    }

    #[test]
    fn bad_page_values_get_a_notice_and_the_default() {
        let (f, notes) = page_from_query(
            "backend=tpu&hide=prose,legs&controls=c,x&autoplay=maybe&only=pie&seeds=12&compare=2",
            &["c".to_string()],
            &["loss".to_string()],
        );
        assert_eq!(f.backend, "");
        assert_eq!(f.hide, ["prose"]);
        assert_eq!(f.controls, Some(vec!["c".to_string()]));
        assert!(f.autoplay);
        assert_eq!(f.only, None, "no known chart left: all charts");
        assert_eq!((f.seeds, f.compare), (1, Some(DEFAULT_COMPARE)));
        assert_eq!(
            notes,
            [
                "Unknown backend \"tpu\" in the URL (allowed: webgpu, cpu, race); choosing automatically.",
                "Unknown value \"legs\" in hide= (allowed: prose, nav, controls, status, maps); ignored.",
                "Unknown control \"x\" in controls= (allowed: c); ignored.",
                "Invalid autoplay=\"maybe\" (allowed: 0, 1); playing.",
                "Unknown chart \"pie\" in only= (allowed: loss); ignored.",
                "Invalid seeds=\"12\" (allowed: 1 to 8); training one seed.",
                "Invalid compare=\"2\" (allowed: off, or a γ from 0.1 to 1.5); comparing with γ = 0.4.",
            ]
        );
        for bad in ["1e0", "-0.5", "0.5x", ".", "", "NaN"] {
            let (f, n) = page_from_query(&format!("compare={bad}"), &[], &[]);
            assert_eq!((f.compare, n.len()), (Some(DEFAULT_COMPARE), 1), "{bad:?}");
        }
        assert_eq!(page_from_query("compare=.5", &[], &[]).0.compare, Some(0.5));
        assert_eq!(page_from_query("compare=1", &[], &[]).0.compare, Some(1.0));
        assert_eq!(page_from_query("compare=off", &[], &[]).0.compare, None);
        assert_eq!(page_from_query("v=1", &[], &[]).0.compare, None, "version 1 links train alone");
        assert_eq!(page_from_query("seeds=+3", &[], &[]).0.seeds, 1);
        assert_eq!(page_query(&page_from_query("v=1", &[], &[]).0), ["compare=off"]);
    }
}
