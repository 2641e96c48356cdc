//! `plateau bench --suite workers` (`scripts/bench-workers.sh`): the page's data-parallel
//! training (`train::shards`, `www/shard-worker.js`) measured on the page itself in headless
//! Chromium (`bench/workers.mjs`): steps per second of every chapter preset that can be sharded,
//! with one shard on one worker, four shards on one worker (the cost of the
//! slicing) and four shards on two workers (and four where the machine has the cores), side by
//! side in one run; where a sharded step's time goes; and each chapter's time to its phenomenon
//! at the page's defaults with one and two workers (four and eight where the machine has them;
//! [`PHENOMENA`]). It forms the workers section of `BENCHMARKS.md`, which
//! the full bench keeps when it rewrites the rest.

/// The section's name in `BENCHMARKS.md` (`<!-- BEGIN workers -->` … `<!-- END workers -->`).
pub const WORKERS_SECTION: &str = "workers";

/// Seconds of training before a rate's window opens (the wasm compiled, the first chunks past).
pub const WARMUP_S: u32 = 6;
/// Seconds a rate is measured over.
pub const WINDOW_S: u32 = 20;

/// The shards of the sharded rows.
pub const SHARDS: usize = 4;

/// The presets measured (name, page query): every chapter whose steps can be sharded (chapter 3
/// trains as one shard), at both presets where a step is long enough to share.
pub fn worker_presets() -> Vec<(&'static str, &'static str)> {
    vec![
        ("ch1 interactive", ""),
        ("ch1 paper", "preset=paper"),
        ("ch2 interactive", "experiment=anchors"),
        ("ch4 interactive", "experiment=lm"),
    ]
}

/// One configuration of a preset: its extra query and its workers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// Shards of the run.
    pub shards: usize,
    /// Workers asked for (`workers=`).
    pub workers: u32,
}

/// The settings measured on a machine of `cores` cores: one shard on one worker, [`SHARDS`] on
/// one, two and (with four cores or more) four workers.
pub fn settings(cores: usize) -> Vec<Setting> {
    let mut s = vec![
        Setting { shards: 1, workers: 1 },
        Setting { shards: SHARDS, workers: 1 },
        Setting { shards: SHARDS, workers: 2 },
    ];
    if cores >= 4 {
        s.push(Setting { shards: SHARDS, workers: 4 });
    }
    s
}

/// The page query of a preset at a setting.
pub fn setting_query(preset: &str, s: Setting) -> String {
    // Always named: chapter 2's interactive default trains 4 shards since URL version 4.
    let shards = format!("shards={}", s.shards);
    [preset, shards.as_str()].iter().filter(|q| !q.is_empty()).copied().collect::<Vec<_>>().join("&")
}

/// Where a sharded step's time went (ms per step).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Split {
    /// The training worker's own engine calls: its slices, the row when due, the update.
    pub own_ms: f64,
    /// Waiting for the other workers' slices after its own were done.
    pub wait_ms: f64,
    /// Summing the payloads and sending the sum.
    pub sum_ms: f64,
}

/// What every measurement of `bench/workers.mjs` names: the page it opened and the workers.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Opened {
    /// The row's name (the preset, or chapter 2 and its γ).
    pub name: String,
    /// The page query.
    pub query: String,
    /// Workers asked for.
    pub workers: u32,
    /// Workers the page trained with.
    #[serde(default)]
    pub chosen: Option<u32>,
    /// What went wrong.
    #[serde(default)]
    pub error: Option<String>,
}

/// One rate (`bench/workers.mjs`'s `cases`).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Rate {
    /// The page and its workers.
    #[serde(flatten)]
    pub page: Opened,
    /// Milliseconds per step over the window.
    #[serde(default)]
    pub ms_per_step: Option<f64>,
    /// The sharded steps' split.
    #[serde(default)]
    pub sharding: Option<Split>,
}

/// One event of a chapter's phenomenon as the page marked it (`bench/workers.mjs`'s `events`).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Event {
    /// What happened (`drop`, `γ 0.7 inferential`, `recovered`, …).
    pub label: String,
    /// The step of the event.
    #[serde(default)]
    pub step: Option<f64>,
    /// Training seconds until the page had that step (the row of the event's step arrived; for
    /// chapter 1, the drop's mark).
    #[serde(default)]
    pub seconds: Option<f64>,
}

/// One time to a chapter's phenomenon (`bench/workers.mjs`'s `phenomena`).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct PhenomenonTime {
    /// The page and its workers.
    #[serde(flatten)]
    pub page: Opened,
    /// Which wait (`drop`, `compare`, `syntax`, `lm`).
    #[serde(default)]
    pub kind: String,
    /// The events the phenomenon is made of (chapter 2's compare view: both answers).
    #[serde(default)]
    pub events: Vec<Event>,
}

impl PhenomenonTime {
    /// The phenomenon's time: the latest of its events (every event must have happened).
    pub fn seconds(&self) -> Option<f64> {
        if self.events.is_empty() || self.page.error.is_some() {
            return None;
        }
        self.events.iter().map(|e| e.seconds).try_fold(0.0f64, |m, s| s.map(|s| m.max(s)))
    }
}

/// What `bench/workers.mjs` prints.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct WorkersBrowser {
    /// Browser version.
    #[serde(default)]
    pub browser: String,
    /// `navigator.hardwareConcurrency` in the page.
    #[serde(default)]
    pub cores: usize,
    /// The rates.
    #[serde(default)]
    pub cases: Vec<Rate>,
    /// The times to each chapter's phenomenon.
    #[serde(default)]
    pub phenomena: Vec<PhenomenonTime>,
}

/// One chapter's phenomenon as the bench waits for it: the chapter's row name, what the
/// phenomenon is, the page query of its defaults, which of the page's marks to wait for, and
/// whether its steps can be shared (chapter 3 trains as one shard).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phenomenon {
    /// The row's name.
    pub chapter: &'static str,
    /// The phenomenon in words.
    pub what: &'static str,
    /// The page query of the chapter's defaults.
    pub query: &'static str,
    /// The page's mark to wait for (`bench/workers.mjs`).
    pub kind: &'static str,
    /// Its steps can be cut into shards.
    pub shardable: bool,
}

/// Every chapter's phenomenon at the page's defaults.
pub const PHENOMENA: [Phenomenon; 4] = [
    Phenomenon { chapter: "ch1", what: "the drop (test accuracy ≥ 0.5)", query: "", kind: "drop", shardable: true },
    Phenomenon {
        chapter: "ch2",
        what: "both held-out answers of the compare view (γ 0.7 beside γ 0.4)",
        query: "experiment=anchors",
        kind: "compare",
        shardable: true,
    },
    Phenomenon {
        chapter: "ch3",
        what: "the verb loss's drop",
        query: "experiment=syntax",
        kind: "syntax",
        shardable: false,
    },
    Phenomenon {
        chapter: "ch4",
        what: "the collapse's recovery (fallen back by half its rise)",
        query: "experiment=lm",
        kind: "lm",
        shardable: true,
    },
];

/// The worker counts of the phenomenon times on a machine of `cores` cores: 1 and 2, and 4 and 8
/// where the machine has them.
pub fn phenomenon_workers(cores: usize) -> Vec<u32> {
    [1, 2, 4, 8].into_iter().filter(|&n| n <= 2 || n as usize <= cores).collect()
}

/// The page query of a phenomenon with `workers` workers: the chapter's defaults with one worker;
/// with more, [`SHARDS`] shards where the chapter's default is one shard (chapter 2's default is
/// already [`SHARDS`]), so that the workers have slices to share. `None` for a chapter whose steps
/// cannot be shared: more workers would train the same run on one.
pub fn phenomenon_query(p: &Phenomenon, workers: u32) -> Option<String> {
    if workers == 1 {
        return Some(p.query.to_string());
    }
    if !p.shardable {
        return None;
    }
    let default_shards = if p.kind == "compare" { SHARDS } else { 1 };
    Some(if default_shards == SHARDS {
        p.query.to_string()
    } else {
        setting_query(p.query, Setting { shards: SHARDS, workers })
    })
}

/// The spec `bench/workers.mjs` takes, for a machine of `cores` cores; `rates` and `phenomena`
/// choose the parts (the GPU check runs the rates alone).
pub fn workers_spec(cores: usize, rates: bool, phenomena: bool) -> serde_json::Value {
    let mut cases = vec![];
    if rates {
        for (name, q) in worker_presets() {
            for s in settings(cores) {
                cases.push(serde_json::json!({"name": name, "query": setting_query(q, s), "workers": s.workers}));
            }
        }
    }
    let mut times = vec![];
    if phenomena {
        for p in &PHENOMENA {
            for n in phenomenon_workers(cores) {
                if let Some(query) = phenomenon_query(p, n) {
                    times.push(serde_json::json!({"name": p.chapter, "query": query, "workers": n, "kind": p.kind}));
                }
            }
        }
    }
    serde_json::json!({"cases": cases, "phenomena": times, "warmup_s": WARMUP_S, "window_s": WINDOW_S})
}

fn ms(r: Option<&Rate>) -> Option<f64> {
    r.and_then(|r| r.ms_per_step).filter(|m| m.is_finite() && *m > 0.0)
}

fn cell(r: Option<&Rate>) -> String {
    match r {
        Some(r) => match (ms(Some(r)), &r.page.error) {
            (Some(m), _) => {
                let chosen = r
                    .page
                    .chosen
                    .filter(|&c| c != r.page.workers)
                    .map(|c| format!(" (trained on {c})"))
                    .unwrap_or_default();
                format!("{m:.1} ms ({:.2} steps/s){chosen}", 1000.0 / m)
            }
            (None, Some(e)) => format!("— ({e})"),
            (None, None) => "—".into(),
        },
        None => "not measured".into(),
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}×", a / b),
        _ => "—".into(),
    }
}

/// The target of the issue: two workers give at least this many times the steps per second of
/// one (chapter 2 and chapter 1's paper preset).
pub const TARGET_SPEEDUP: f64 = 1.6;
/// The target of the issue: chapter 2's answer within this many seconds.
pub const TARGET_VERDICT_S: f64 = 50.0;

/// The workers section of `BENCHMARKS.md` from a run of the suite.
pub fn workers_section(command: &str, cpu: &str, r: &Result<WorkersBrowser, String>, date: &str) -> String {
    let mut o = String::new();
    o.push_str("## Workers: data-parallel training in the page\n\n");
    o.push_str(&format!(
        "Written by `{command}` on {date} ({cpu}). The page in headless Chromium ({}), on the CPU backend, the \
         compare view off: steps per second of the page itself (its training worker, its shard workers and its \
         main thread drawing the charts), timed between two changes of the page's step counter at least {WINDOW_S} s \
         and 4 steps apart, after {WARMUP_S} s of training. With {SHARDS} shards each step's batch is cut into {SHARDS} slices whose gradients are summed \
         in slice order, so the rows are the same for any number of workers (`tests/e2e/workers.test.mjs`, \
         `tests/shards.rs`); one shard was every preset's default until this table moved chapter 2's interactive preset to 4 (URL version 4; `config::INTERACTIVE_ANCHOR_SHARDS`). Chapter 3 trains as \
         one shard (its loss is a mean over the batch's masked tokens).\n\n",
        r.as_ref().map_or("not run", |b| b.browser.as_str())
    ));
    let b = match r {
        Ok(b) => b,
        Err(e) => {
            o.push_str(&format!("Not measured: {e}.\n"));
            return o;
        }
    };
    o.push_str(&format!("The page reports {} cores (`navigator.hardwareConcurrency`).\n\n", b.cores));
    let find = |name: &str, s: Setting| {
        b.cases.iter().find(|c| {
            c.page.name == name
                && c.page.workers == s.workers
                && c.page.query.contains(&format!("shards={SHARDS}")) == (s.shards > 1)
        })
    };
    let four = b.cores >= 4;
    o.push_str(&format!(
        "| preset | 1 shard, 1 worker | {SHARDS} shards, 1 worker | {SHARDS} shards, 2 workers |{} 2 workers vs 1 shard | 2 workers vs 1 ({SHARDS} shards) | a 2-worker step: own / waiting / sum and send |\n",
        if four { format!(" {SHARDS} shards, 4 workers |") } else { String::new() }
    ));
    o.push_str(&format!("|---|---|---|---|{}---|---|---|\n", if four { "---|" } else { "" }));
    let mut speedups = vec![];
    for (name, _) in worker_presets() {
        let one = find(name, Setting { shards: 1, workers: 1 });
        let s1 = find(name, Setting { shards: SHARDS, workers: 1 });
        let s2 = find(name, Setting { shards: SHARDS, workers: 2 });
        let split = s2
            .and_then(|r| r.sharding.as_ref())
            .map_or("—".to_string(), |s| format!("{:.1} / {:.1} / {:.1} ms", s.own_ms, s.wait_ms, s.sum_ms));
        let col4 = if four {
            format!(" {} |", cell(find(name, Setting { shards: SHARDS, workers: 4 })))
        } else {
            String::new()
        };
        o.push_str(&format!(
            "| {name} | {} | {} | {} |{col4} {} | {} | {split} |\n",
            cell(one),
            cell(s1),
            cell(s2),
            ratio(ms(one), ms(s2)),
            ratio(ms(s1), ms(s2)),
        ));
        speedups.push((name, ms(one).zip(ms(s2)).map(|(a, b)| a / b)));
    }
    o.push_str(
        "\nSpeed-ups are steps per second over steps per second (ms per step of the slower over the faster). The \
         split is the training worker's: its own engine calls (its slices, the row when one is due, the update), \
         the wait for the other worker's slices after its own were done, and the summing of the payloads with the \
         sending of the sum.\n\n",
    );
    o.push_str(&phenomena_table(b));
    o.push_str("**Targets** (issue 38):\n\n");
    for (name, s) in speedups.iter().filter(|(n, _)| *n == "ch2 interactive" || *n == "ch1 paper") {
        o.push_str(&format!(
            "- {name}, 2 workers against one shard: {}.\n",
            match s {
                Some(x) if *x >= TARGET_SPEEDUP => format!("{x:.2}× — **met** (target ≥ {TARGET_SPEEDUP}×)"),
                Some(x) => format!("{x:.2}× — **not met** (target ≥ {TARGET_SPEEDUP}×)"),
                None => "not measured".into(),
            }
        ));
    }
    if !b.phenomena.is_empty() {
        let ch2 = |w: u32| {
            b.phenomena.iter().find(|t| t.kind == "compare" && t.page.workers == w).and_then(PhenomenonTime::seconds)
        };
        o.push_str(&format!(
            "- Chapter 2's answers, the later of the compare view's two with two workers: {}.\n",
            match ch2(2) {
                Some(s) if s <= TARGET_VERDICT_S => format!("{s:.0} s — **met** (target ≤ {TARGET_VERDICT_S:.0} s)"),
                Some(s) => format!(
                    "{s:.0} s — **not met** (target ≤ {TARGET_VERDICT_S:.0} s; one worker: {})",
                    ch2(1).map_or("—".into(), |s| format!("{s:.0} s"))
                ),
                None => "not measured".into(),
            }
        ));
    }
    o
}

/// One phenomenon's cell: its time, the steps of its events, and the shards where they are not the
/// chapter's default.
fn phenomenon_cell(t: Option<&PhenomenonTime>) -> String {
    let Some(t) = t else { return "—".into() };
    if let Some(e) = &t.page.error {
        return format!("— ({e})");
    }
    let events: Vec<String> = t
        .events
        .iter()
        .map(|e| format!("{} at step {}", e.label, e.step.map_or("—".into(), |s| format!("{s:.0}"))))
        .collect();
    let shards = if t.kind != "compare" && t.page.query.contains(&format!("shards={SHARDS}")) {
        format!(", {SHARDS} shards")
    } else {
        String::new()
    };
    let chosen =
        t.page.chosen.filter(|&c| c != t.page.workers).map(|c| format!(", trained on {c}")).unwrap_or_default();
    match t.seconds() {
        Some(s) => format!("**{s:.0} s** ({}{shards}{chosen})", events.join("; ")),
        None if events.is_empty() => format!("not reached{shards}{chosen}"),
        None => format!("— ({}{shards}{chosen})", events.join("; ")),
    }
}

/// The time to every chapter's phenomenon with each number of workers, side by side.
fn phenomena_table(b: &WorkersBrowser) -> String {
    if b.phenomena.is_empty() {
        return String::new();
    }
    let mut ns: Vec<u32> = b.phenomena.iter().map(|t| t.page.workers).collect();
    ns.sort_unstable();
    ns.dedup();
    let mut o = String::from(
        "**Time to each chapter's phenomenon** at the page's defaults (the compare view on, as a reader has it), \
         in training seconds until the page had the event's step (chapter 1: until it marked the drop; chapter 2: \
         the later of its two answers). One worker trains the chapter's default; more workers train the same \
         chapter with 4 shards where its default is one (chapters 1 and 4: a run of its own, whose rows differ \
         from one shard's in rounding), chapter 2's default is 4 shards, and chapter 3 trains as one shard, so \
         a second worker would have nothing to share.\n\n",
    );
    o.push_str("| chapter | phenomenon |");
    for n in &ns {
        o.push_str(&format!(" {n} worker{} |", if *n == 1 { "" } else { "s" }));
    }
    o.push_str(" 1 → 2 workers |\n|---|---|");
    o.push_str(&"---|".repeat(ns.len() + 1));
    o.push('\n');
    for p in &PHENOMENA {
        let find = |n: u32| b.phenomena.iter().find(|t| t.page.name == p.chapter && t.page.workers == n);
        o.push_str(&format!("| {} | {} |", p.chapter, p.what));
        for &n in &ns {
            let cell = match find(n) {
                None if n > 1 && !p.shardable => "one shard: as 1 worker".to_string(),
                t => phenomenon_cell(t),
            };
            o.push_str(&format!(" {cell} |"));
        }
        let one = find(1).and_then(PhenomenonTime::seconds);
        let two = find(2).and_then(PhenomenonTime::seconds);
        o.push_str(&format!(" {} |\n", ratio(one, two)));
    }
    o.push('\n');
    o
}

/// `doc` with its workers section replaced by `body` (or added).
pub fn with_workers_section(doc: &str, body: &str) -> String {
    plateau::report::replace_section(doc, WORKERS_SECTION, body)
}
