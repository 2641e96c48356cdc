//! URLs and config files: the lenient readers of the page (`from_query`, `from_json`, with a
//! notice for every value replaced) and the writers that reproduce a config (`to_query`, `to_json`).

use super::*;

/// Decodes `+` (space) and `%XX` escapes of a URL query component. Bytes are reassembled and
/// read as UTF-8 (invalid sequences become U+FFFD); a `%` not followed by two hex digits is
/// kept as it is.
pub fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A URL query read once: its `key=value` pairs in order, both sides percent-decoded
/// ([`url_decode`]; a part without `=` is a key with an empty value). [`from_parsed`],
/// [`crate::page::query_notices_of`] and [`crate::page::page_from_parsed`] read the same pairs, and [`crate::page::read_url`]
/// parses a page's query once for all three.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Splits and decodes `query` (`a=1&b=2`, a leading `?` optional).
    ///
    /// ```
    /// let q = plateau::config::Query::parse("?c=2.5&hide=prose%2Cnav&c=3&v=4&flag");
    /// assert_eq!(q.first("c"), Some("2.5"));
    /// assert_eq!(q.first("hide"), Some("prose,nav"));
    /// assert_eq!(q.first("flag"), Some(""));
    /// assert_eq!(q.version(), Some("4"));
    /// ```
    pub fn parse(query: &str) -> Query {
        let pairs = query
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (url_decode(k), url_decode(v)),
                None => (url_decode(p), String::new()),
            })
            .collect();
        Query { pairs }
    }

    /// Every pair, in query order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// The first value of `key` (as `URLSearchParams.get` reads it): how the page keys read.
    pub fn first(&self, key: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The link's URL format version `v` (its last value, as the config keys read: the last
    /// value of a key applies), whatever it says; [`from_parsed`] reads an unknown one as today's.
    pub fn version(&self) -> Option<&str> {
        self.pairs.iter().rev().find(|(k, _)| k == "v").map(|(_, v)| v.as_str())
    }
}

/// A config from a URL query (`a=1&b=2`, a leading `?` optional), leniently ([`from_parsed`]).
pub fn from_query(query: &str) -> (RunConfig, Vec<ConfigError>) {
    from_parsed(&Query::parse(query))
}

/// A config from a parsed URL query, leniently: a `preset`, then an `experiment`, then the other
/// keys apply ([`RunConfig::apply_pairs`]); each rejected value becomes a notice and its safe
/// value is used. Keys the schema does not know (page-only keys such as `backend`, `hide`,
/// `autoplay`) are left to the page and not reported.
pub fn from_parsed(query: &Query) -> (RunConfig, Vec<ConfigError>) {
    let pairs: Vec<&(String, String)> = query.pairs().iter().filter(|(k, _)| spec(k).is_some()).collect();
    // A link written against older defaults keeps them: a key it left out took that version's
    // default when it was written. They are read with the link's own keys (after its chapter and
    // preset), so that the rules between keys see them (a one-shard link's batch).
    let version = query.version();
    let mut chapter = RunConfig::default();
    chapter.apply_pairs(
        pairs.iter().filter(|(k, _)| k == "preset" || k == "experiment").map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let mut old: Vec<(String, String)> = vec![];
    // A link without a version, or of an unknown one, reads today's defaults.
    if let Some(v) = version.and_then(|v| v.parse::<u32>().ok()).filter(|v| (1..URL_VERSION).contains(v)) {
        // Oldest change last, so that the oldest value of a key changed twice is the one read.
        for &(changed_in, task, preset, key, value) in OLD_DEFAULTS.iter().rev() {
            if changed_in > v
                && chapter.experiment == task
                && chapter.preset == preset
                && !pairs.iter().any(|(k, _)| k == key)
            {
                old.retain(|(k, _)| k != key);
                old.push((key.to_string(), value.to_string()));
            }
        }
    }
    let mut cfg = RunConfig::default();
    let notices = cfg.apply_pairs(old.iter().chain(pairs.iter().copied()).map(|(k, v)| (k.as_str(), v.as_str())));
    (cfg, notices)
}

/// Version of the URL format the page writes (`v=4`). A query lists only the values that differ
/// from its chapter's defaults, so a change of a default needs a new version: links of an older
/// version read the keys they leave out with that version's defaults ([`OLD_DEFAULTS`]).
pub const URL_VERSION: u32 = 4;

/// The versions a URL may carry: 1 (until chapter 2's interactive γ moved from 0.8 to 0.7), 2
/// (until chapter 3's interactive default moved from the agreement grammar on 2 layers to the
/// nested language on 1 layer), 3 (until chapter 2's interactive default moved from one shard to
/// four) and 4.
pub const URL_VERSIONS: &[&str] = &["1", "2", "3", "4"];

/// The defaults older links were written against, where they differ from today's, in the order
/// they changed: `(version that changed it, experiment, preset, key, old value)`. A link of
/// version `v` reads every entry changed in a version after `v`.
pub const OLD_DEFAULTS: &[(u32, Task, Preset, &str, &str)] = &[
    (2, Task::Anchors, Preset::Interactive, "gamma", "0.8"),
    (3, Task::Syntax, Preset::Interactive, "grammar", "agreement"),
    (3, Task::Syntax, Preset::Interactive, "layers", "2"),
    (4, Task::Anchors, Preset::Interactive, "shards", "1"),
];

/// `cfg` with the reader's `value` for `key`, checked in the context of the whole config
/// ([`RunConfig::set_lenient`]: a value rejected becomes a notice and its safe value, the range's
/// end, or the value `cfg` had when it does not parse); an `experiment` of another chapter keeps
/// only the seed and the preset, and a `preset` only the chapter and the seed, as a link with
/// those keys reads. The page's one path for a value the reader sets.
pub fn edit(cfg: &RunConfig, key: &str, value: &str) -> (RunConfig, Vec<ConfigError>) {
    match key {
        "preset" => {
            let pairs: Vec<(String, String)> = vec![
                ("experiment".into(), cfg.experiment.name().into()),
                ("seed".into(), cfg.seed.to_string()),
                (key.to_string(), value.to_string()),
            ];
            let mut out = RunConfig::default();
            let notices = out.apply_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            (out, notices)
        }
        _ => {
            let mut out = cfg.clone();
            let notices = out.set_lenient(key, value).into_iter().collect();
            (out, notices)
        }
    }
}

/// The query that reproduces `cfg`: `v=4` ([`URL_VERSION`]) and the values that differ from its chapter's
/// defaults ([`RunConfig::non_default_pairs`]), percent-encoded.
pub fn to_query(cfg: &RunConfig) -> String {
    let enc = |s: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    std::iter::once(format!("v={URL_VERSION}"))
        .chain(cfg.non_default_pairs().into_iter().map(|(k, v)| format!("{}={}", enc(&k), enc(&v))))
        .collect::<Vec<_>>()
        .join("&")
}

/// A config from JSON (a file saved by the page or written by hand): missing keys take the
/// defaults of the file's experiment and preset, every present key goes through the schema
/// leniently (so a bad value becomes a notice and its safe value), unknown keys are reported.
/// Not an object → an error message.
pub fn from_json(text: &str) -> Result<(RunConfig, Vec<String>), String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let obj = value.as_object().ok_or("a config must be a JSON object of parameters")?;
    let text_of = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut notices = vec![];
    let mut pairs = vec![];
    for (k, v) in obj {
        if spec(k).is_some() {
            pairs.push((k.clone(), text_of(v)));
        } else {
            notices.push(format!("unknown key {k:?} in the config ignored"));
        }
    }
    let mut cfg = RunConfig::default();
    notices.extend(cfg.apply_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).iter().map(|e| e.to_string()));
    Ok((cfg, notices))
}

/// The config as the JSON [`from_json`] reads back: every key (kebab-case) with its typed value,
/// the one JSON form of a config everywhere (the page's config file and snapshots file, the CLI's
/// run records and checkpoints, the worker's messages all serialize [`RunConfig`] the same way).
pub fn to_json(cfg: &RunConfig) -> String {
    serde_json::to_string_pretty(cfg).unwrap_or_default()
}
