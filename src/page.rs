//! The page: what the page decides that is not the run's config. Its own URL keys (how the page
//! shows a run, not the run: one table of them, read from a URL and written back here, for
//! `readUrl`, `parsePage` and `pageQuery` in `src/web/mod.rs`), the notices about a whole query
//! ([`query_notices`]) and the address read once ([`read_url`]), the compare view's budget and
//! how many workers train ([`workers_for`], with the sentence the status line shows). Built on
//! [`crate::config`], which knows nothing of the page.

use crate::config::{from_parsed, spec, Kind, Query, RunConfig, PARAMS, URL_VERSION, URL_VERSIONS};
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
    PageKey {
        key: "compare-steps",
        doc: "chapter 2: the steps of the run beside it: `auto` (its own budget when the first run trains its preset's steps, else the same), `same`, or 1 to 100000",
    },
    PageKey {
        key: "workers",
        doc: "`auto` or 1 to 16: how many workers share each step's shards (the run's `shards`); `auto` takes the machine's cores",
    },
];

/// The backends `backend=` takes.
pub const BACKENDS: [&str; 3] = ["webgpu", "cpu", "race"];
/// The parts `hide=` takes.
pub const HIDE: [&str; 5] = ["prose", "nav", "controls", "status", "maps"];
/// The most seeds of a seed band (`seeds=`).
pub const MAX_SEEDS: u32 = 8;
/// The most workers (`workers=`).
pub const MAX_WORKERS: u32 = 16;
/// The most workers `workers=auto` starts: the page's Shards control offers four slices
/// (`plateau bench --suite workers` measures one, two and four workers on them), and each worker
/// holds a whole replica of the run in its own memory.
pub const AUTO_WORKERS: u32 = 4;
/// Chapter 2's comparison γ when the URL names none: the large init of the default contrast
/// (symmetric in 4 of 6 runs of the γ sweep, against 0.7's inferential in 6 of 6).
pub const DEFAULT_COMPARE: f64 = 0.4;
/// The steps chapter 2's comparison run trains beside a run of its preset's steps (`compare-steps`
/// `auto`, [`companion_steps`]): the large init settles later than the small one, so it trains to
/// a budget of its own, chosen by the measured search in `REPRODUCTION.md` (*Chapter 2 — the large
/// init's budget in the compare view*). Links of URL version 3 and older train both runs to the
/// first run's steps.
pub const DEFAULT_COMPARE_STEPS: u32 = 1000;
/// The most steps `compare-steps=` takes.
pub const MAX_COMPARE_STEPS: u32 = 100_000;

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
    /// `compare-steps=`: the comparison run's steps: `None` for `auto` ([`companion_steps`]),
    /// `Some(0)` for `same` (the first run's), or a number.
    #[serde(default)]
    pub compare_steps: Option<u32>,
    /// `workers=`: 1 to [`MAX_WORKERS`], or 0 for `auto` ([`workers_for`]).
    #[serde(default)]
    pub workers: u32,
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
            compare_steps: None,
            workers: 0,
        }
    }
}

/// How many workers train a run, and the sentence that says why: `requested` is `workers=` (0
/// for `auto`), `cores` what the browser reports (`navigator.hardwareConcurrency`), `runs` how
/// many runs train side by side (2 in chapter 2's compare view: each takes its share of the
/// cores), `shards` the run's, `cpu` whether it trains on the CPU backend. Workers share a
/// step's shards, so there are never more workers than shards; WebGPU trains on one (the GPU is
/// one device for all of them); `auto` takes the run's share of the cores, at most
/// [`AUTO_WORKERS`].
///
/// ```
/// use plateau::page::workers_for;
/// assert_eq!(workers_for(0, 8, 1, 4, true).0, 4);
/// assert_eq!(workers_for(0, 2, 1, 4, true).0, 2);
/// assert_eq!(workers_for(0, 4, 2, 4, true).0, 2);
/// assert_eq!(workers_for(3, 8, 1, 2, true).0, 2);
/// assert_eq!(workers_for(0, 8, 1, 1, true).0, 1);
/// assert_eq!(workers_for(4, 8, 1, 4, false).0, 1);
/// ```
pub fn workers_for(requested: u32, cores: u32, runs: u32, shards: usize, cpu: bool) -> (u32, String) {
    let shards = shards.max(1) as u32;
    let all = cores.max(1);
    let runs = runs.max(1);
    let cores = (all / runs).max(1);
    if !cpu {
        return (1, "One worker trains: on WebGPU every worker would share the one GPU.".into());
    }
    if shards == 1 {
        return (
            1,
            format!(
                "One worker trains: each step is one gradient of the whole batch (shards = 1, as the measured \
                 runs). With shards = 2 or 4, up to {} workers share each step, with the same rows.",
                cores.clamp(2, AUTO_WORKERS)
            ),
        );
    }
    let n = if requested == 0 { cores.min(AUTO_WORKERS) } else { requested.min(MAX_WORKERS) }.min(shards).max(1);
    let why = if requested == 0 && runs > 1 {
        format!("this browser reports {all} core{}, shared by {runs} runs", if all == 1 { "" } else { "s" })
    } else if requested == 0 {
        format!("this browser reports {all} core{}", if all == 1 { "" } else { "s" })
    } else if requested > shards {
        format!("workers={requested} asked for more than the {shards} shards")
    } else {
        format!("workers={requested}")
    };
    let who = if n == 1 { "One worker computes".to_string() } else { format!("{n} workers share") };
    (n, format!("{who} each step's {shards} shards ({why}); the rows are the same for any number of workers."))
}

/// The page keys of `query` (a leading `?` optional; each key's first value counts, as
/// `URLSearchParams.get` reads it), leniently: a value not allowed becomes a notice and the
/// default. `controls` and `charts` are the ids the page has (the engine does not know them).
pub fn page_from_query(query: &str, controls: &[String], charts: &[String]) -> (PageFlags, Vec<String>) {
    page_from_parsed(&Query::parse(query), controls, charts)
}

/// [`page_from_query`] of a parsed query.
pub fn page_from_parsed(query: &Query, controls: &[String], charts: &[String]) -> (PageFlags, Vec<String>) {
    let get = |key: &str| query.first(key);
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
        None if query.version() == Some("1") => None,
        None => Some(DEFAULT_COMPARE),
        Some("off") => None,
        Some(v) => {
            let (min, max) = match spec("gamma").map(|p| p.kind) {
                Some(Kind::Float { min, max, .. }) => (min, max),
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
    // A link older than URL version 4 trained both runs to the same steps.
    let old = query.version().and_then(|v| v.parse::<u32>().ok()).is_some_and(|v| (1..4).contains(&v));
    flags.compare_steps = match get("compare-steps") {
        None if old => Some(0),
        None | Some("auto") => None,
        Some("same") => Some(0),
        Some(v) => match v.parse::<u32>() {
            Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) && (1..=MAX_COMPARE_STEPS).contains(&n) => Some(n),
            _ => {
                notices.push(format!(
                    "Invalid compare-steps=\"{v}\" (allowed: auto, same, or 1 to {MAX_COMPARE_STEPS}); using auto."
                ));
                None
            }
        },
    };
    if let Some(v) = get("workers") {
        match v.parse::<u32>() {
            _ if v == "auto" => flags.workers = 0,
            Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) && (1..=MAX_WORKERS).contains(&n) => flags.workers = n,
            _ => notices.push(format!(
                "Invalid workers=\"{v}\" (allowed: auto, or 1 to {MAX_WORKERS}); choosing from this machine's cores."
            )),
        }
    }
    (flags, notices)
}

/// What a page reads from its URL, parsed once ([`read_url`]).
#[derive(Clone, Debug, Serialize)]
pub struct Url {
    /// The run's config ([`from_parsed`]).
    pub config: RunConfig,
    /// The page keys ([`page_from_parsed`]).
    pub page: PageFlags,
    /// Every notice, in this order: the config's rejected values, unknown keys and versions
    /// ([`query_notices_of`]), the page keys' rejected values.
    pub notices: Vec<String>,
}

/// A page's URL query read once: the config, the page keys (`controls` and `charts` the ids the
/// page has) and every notice.
///
/// ```
/// let url = plateau::page::read_url("?experiment=anchors&gamma=9&autoplay=2&frob=1", &[], &[]);
/// assert_eq!(url.config.experiment, plateau::config::Task::Anchors);
/// assert!(url.page.autoplay);
/// assert_eq!(url.notices.len(), 3, "{:?}", url.notices);
/// ```
pub fn read_url(query: &str, controls: &[String], charts: &[String]) -> Url {
    let q = Query::parse(query);
    let (config, rejected) = from_parsed(&q);
    let (page, page_notices) = page_from_parsed(&q, controls, charts);
    let notices = rejected.into_iter().map(|e| e.to_string()).chain(query_notices_of(&q)).chain(page_notices).collect();
    Url { config, page, notices }
}

/// What a page should hear about a query beyond [`from_query`]'s value notices: keys neither the
/// schema nor [`PAGE_KEYS`] know, and a `v` other than [`URL_VERSION`]. Texts, in query order.
pub fn query_notices(query: &str) -> Vec<String> {
    query_notices_of(&Query::parse(query))
}

/// [`query_notices`] of a parsed query.
pub fn query_notices_of(query: &Query) -> Vec<String> {
    let mut out = vec![];
    for (k, v) in query.pairs() {
        if k == "v" && !URL_VERSIONS.contains(&v.as_str()) {
            out.push(format!("URL format version {v:?} is not known here (this page writes v={URL_VERSION}); reading it as v={URL_VERSION}"));
        } else if spec(k).is_none() && !PAGE_KEYS.iter().any(|p| p.key == k) {
            let known: Vec<&str> = PARAMS.iter().map(|p| p.key).chain(PAGE_KEYS.iter().map(|p| p.key)).collect();
            out.push(format!("unknown URL parameter {k:?} ignored; known: {}", known.join(", ")));
        }
    }
    out
}

/// The page keys that differ from their defaults, as `key=value` pairs in [`PAGE_KEYS`] order:
/// what the page adds to the config's query ([`crate::config::to_query`]) in its address bar and links.
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
    if flags.compare.is_some() {
        match flags.compare_steps {
            None => {}
            Some(0) => out.push("compare-steps=same".into()),
            Some(n) => out.push(format!("compare-steps={n}")),
        }
    }
    if flags.workers != 0 {
        out.push(format!("workers={}", flags.workers));
    }
    out
}

/// The steps of chapter 2's comparison run beside `cfg` (`compare-steps`, `flag`): `auto`
/// (`None`) gives the large init its own budget, [`DEFAULT_COMPARE_STEPS`], when `cfg` trains its
/// preset's steps, else `cfg`'s steps (a reader who set the steps gets both runs that long);
/// `same` (`Some(0)`) `cfg`'s steps; a number that many.
pub fn companion_steps(cfg: &RunConfig, flag: Option<u32>) -> usize {
    match flag {
        None if cfg.steps == RunConfig::defaults(cfg.experiment, cfg.preset).steps => {
            (DEFAULT_COMPARE_STEPS as usize).max(cfg.steps)
        }
        None | Some(0) => cfg.steps,
        Some(n) => n as usize,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_read_leniently_and_write_back() {
        let controls = vec!["c".to_string(), "seed".to_string()];
        let charts = vec!["loss".to_string(), "map-att".to_string()];
        let (f, notes) = page_from_query(
            "?v=4&c=2.5&backend=cpu&hide=prose,nav&controls=c,seed&autoplay=0&only=loss&seeds=3&compare=0.6&compare-steps=1200&workers=2",
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
                compare_steps: Some(1200),
                workers: 2,
            }
        );
        assert_eq!(
            page_query(&f),
            [
                "backend=cpu",
                "hide=prose,nav",
                "controls=c,seed",
                "autoplay=0",
                "only=loss",
                "seeds=3",
                "compare=0.6",
                "compare-steps=1200",
                "workers=2"
            ]
        );
        assert!(page_query(&PageFlags::default()).is_empty(), "the defaults write nothing");
        // The comparison's own budget: `auto`, `same`, a number, a bad value (a notice and auto),
        // and a link older than version 4 (both runs to the same steps).
        let steps = |q: &str| page_from_query(q, &controls, &charts);
        assert_eq!(steps("?compare-steps=same").0.compare_steps, Some(0));
        assert_eq!(page_query(&steps("?compare-steps=same").0), ["compare-steps=same"]);
        assert_eq!(steps("?v=4").0.compare_steps, None);
        assert_eq!(steps("?compare-steps=auto").0.compare_steps, None);
        assert_eq!(steps("?v=3").0.compare_steps, Some(0), "version 3 trained both to the same steps");
        assert_eq!(steps("?v=3&compare-steps=900").0.compare_steps, Some(900));
        let (f, notes) = steps("?compare-steps=-5");
        assert_eq!((f.compare_steps, notes.len()), (None, 1));
        assert!(notes[0].contains("Invalid compare-steps=\"-5\""), "{notes:?}");
        assert_eq!(steps("?compare-steps=100001").0.compare_steps, None);
        assert!(
            page_query(&steps("?compare=off&compare-steps=900").0) == ["compare=off"],
            "no budget without a comparison"
        );
        // Auto: the large init's own budget beside the preset's steps, else the run's steps.
        let ch2 = crate::config::RunConfig::defaults(crate::config::Task::Anchors, crate::config::Preset::Interactive);
        assert_eq!(companion_steps(&ch2, None), DEFAULT_COMPARE_STEPS as usize);
        assert_eq!(companion_steps(&crate::config::RunConfig { steps: 20, ..ch2.clone() }, None), 20);
        assert_eq!(companion_steps(&ch2, Some(0)), ch2.steps);
        assert_eq!(companion_steps(&crate::config::RunConfig { steps: 20, ..ch2.clone() }, Some(300)), 300);
        let paper = crate::config::RunConfig::defaults(crate::config::Task::Anchors, crate::config::Preset::Paper);
        assert_eq!(companion_steps(&paper, None), paper.steps, "never shorter than the run's own budget");
        // Every page key of the table, and no other, is read.
        for k in PAGE_KEYS {
            assert!(crate::config::spec(k.key).is_none(), "{} is a schema key too", k.key);
        }
    }

    #[test]
    fn bad_page_values_get_a_notice_and_the_default() {
        let (f, notes) = page_from_query(
            "backend=tpu&hide=prose,legs&controls=c,x&autoplay=maybe&only=pie&seeds=12&compare=2&workers=17",
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
                "Invalid workers=\"17\" (allowed: auto, or 1 to 16); choosing from this machine's cores.",
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
        for bad in ["0", "-1", "+2", "two", ""] {
            let (f, n) = page_from_query(&format!("workers={bad}"), &[], &[]);
            assert_eq!((f.workers, n.len()), (0, 1), "{bad:?}");
        }
        assert_eq!(page_from_query("workers=auto", &[], &[]).0.workers, 0);
    }

    #[test]
    fn the_worker_count_follows_the_cores_the_shards_and_the_backend_and_says_why() {
        // auto: the cores, at most AUTO_WORKERS, at most the shards.
        assert_eq!(workers_for(0, 12, 1, 8, true).0, AUTO_WORKERS);
        assert_eq!(workers_for(0, 2, 1, 4, true), (2, "2 workers share each step's 4 shards (this browser reports 2 cores); the rows are the same for any number of workers.".into()));
        assert_eq!(workers_for(0, 1, 1, 4, true).1, "One worker computes each step's 4 shards (this browser reports 1 core); the rows are the same for any number of workers.");
        // Asked: as many as asked, never more than the shards.
        assert_eq!(workers_for(8, 2, 1, 16, true).0, 8);
        let (n, why) = workers_for(8, 16, 1, 4, true);
        assert_eq!(n, 4);
        assert!(why.contains("workers=8 asked for more than the 4 shards"), "{why}");
        // One shard or WebGPU: one worker, and the reason.
        let (n, why) = workers_for(4, 8, 1, 1, true);
        assert_eq!(n, 1);
        assert!(why.contains("shards = 1"), "{why}");
        assert_eq!(
            workers_for(4, 8, 1, 4, false),
            (1, "One worker trains: on WebGPU every worker would share the one GPU.".into())
        );
        assert_eq!(workers_for(0, 0, 0, 0, true).0, 1, "no cores reported, no shards: one");
        // The compare view: two runs share the cores.
        let (n, why) = workers_for(0, 4, 2, 4, true);
        assert_eq!(n, 2);
        assert!(why.contains("this browser reports 4 cores, shared by 2 runs"), "{why}");
        assert_eq!(workers_for(0, 2, 2, 4, true).0, 1);
    }
}
