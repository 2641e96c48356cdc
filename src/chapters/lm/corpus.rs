//! Chapter 4's data: Herman Melville's *Moby Dick* (public domain; provenance and licence in
//! `data/README.md`), split into a training and a held-out part, tokenized into subwords by a
//! byte-pair encoding learned deterministically on the training part, and the fixed 100 held-out
//! prompts (the analogue of Gopalani & Hu's 100 ARC-Easy questions).
//!
//! - **Pre-tokens** ([`pretokenize`]): the text lowercased, `’` read as `'`; a word is a run of
//!   letters (with inner apostrophes: `whale's`) or of digits and is written with a leading `▁`
//!   (the space before it); the punctuation marks `. , ; : ! ?` and the dash (`—` or `--`) are
//!   pre-tokens of their own; everything else (quotes, brackets, hyphens) separates words.
//! - **Subwords** ([`Bpe::learn`]): the alphabet of the training pre-tokens, then merges of the
//!   most frequent adjacent pair (ties: the pair of smallest ids) until [`VOCAB`] tokens. Common
//!   words end up as one token (`▁the`, `▁whale`), rare ones as a few pieces; so "repetition"
//!   means repeated words or pieces of words, as in a real LM's tokenizer. Token 0 is `<unk>`
//!   (a character the training part never uses).
//! - **Split**: everything before [`HELDOUT_FROM`] (chapters 1–121, about 89% of the tokens)
//!   trains; chapters 122–135 and the epilogue are held out.
//! - **Prompts** ([`Corpus::prompts`]): [`PROMPTS`] windows of [`PROMPT_LEN`] held-out tokens,
//!   each starting at the first sentence start at or after `k/PROMPTS` of the held-out part.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Number of tokens of the vocabulary (`<unk>`, the alphabet, the merges).
pub const VOCAB: usize = 1024;
/// Where the held-out part begins.
pub const HELDOUT_FROM: &str = "CHAPTER 122.";
/// Number of fixed held-out prompts.
pub const PROMPTS: usize = 100;
/// Tokens per prompt.
pub const PROMPT_LEN: usize = 16;
/// Tokens generated greedily per prompt (the paper's 8).
pub const GENERATE: usize = 8;
/// The model's context: training windows of `CONTEXT` inputs (and their `CONTEXT` next tokens).
pub const CONTEXT: usize = 32;
/// The marker of a word start (the space before it).
pub const SPACE: char = '▁';

/// The corpus text the native build carries (`data/moby-dick.txt`). The wasm build gets the
/// same file from the page ([`install`]), so the engine stays small.
#[cfg(not(target_arch = "wasm32"))]
pub const TEXT: &str = include_str!("../../../data/moby-dick.txt");

static INSTALLED: OnceLock<String> = OnceLock::new();
static CORPUS: OnceLock<Corpus> = OnceLock::new();

/// Hands the engine the corpus text (the page fetches `data/moby-dick.txt` and calls this once
/// before the first chapter 4 run). A second call is ignored. Natively the text is built in.
pub fn install(text: String) {
    let _ = INSTALLED.set(text);
}

/// Whether the corpus text is available (always natively; in wasm once [`install`]ed).
pub fn available() -> bool {
    cfg!(not(target_arch = "wasm32")) || INSTALLED.get().is_some()
}

/// The corpus, built once per process from the text (about 0.5 s natively).
pub fn corpus() -> Result<&'static Corpus, String> {
    if let Some(c) = CORPUS.get() {
        return Ok(c);
    }
    let text: &str = match INSTALLED.get() {
        Some(t) => t,
        None => {
            #[cfg(not(target_arch = "wasm32"))]
            {
                TEXT
            }
            #[cfg(target_arch = "wasm32")]
            {
                return Err("chapter 4's corpus (data/moby-dick.txt) is not loaded".to_string());
            }
        }
    };
    let built = Corpus::build(text)?;
    Ok(CORPUS.get_or_init(|| built))
}

/// The pre-tokens of `text` (see the module doc).
///
/// ```
/// use plateau::chapters::lm::corpus::pretokenize;
/// assert_eq!(pretokenize("Call me Ishmael. The whale’s--jaw!"),
///            ["▁call", "▁me", "▁ishmael", ".", "▁the", "▁whale's", "—", "▁jaw", "!"]);
/// ```
pub fn pretokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().map(|c| if c == '’' { '\'' } else { c }).collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() {
            let mut w = String::from(SPACE);
            while i < chars.len() {
                let d = chars[i];
                if d.is_alphabetic() {
                    w.extend(d.to_lowercase());
                    i += 1;
                } else if d == '\'' && chars.get(i + 1).is_some_and(|n| n.is_alphabetic()) {
                    w.push('\'');
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(w);
        } else if c.is_ascii_digit() {
            let mut w = String::from(SPACE);
            while i < chars.len() && chars[i].is_ascii_digit() {
                w.push(chars[i]);
                i += 1;
            }
            out.push(w);
        } else if ".,;:!?".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else if c == '—' || (c == '-' && chars.get(i + 1) == Some(&'-')) {
            out.push("—".to_string());
            i += if c == '—' { 1 } else { 2 };
            while i < chars.len() && chars[i] == '-' {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// A byte-pair encoding over characters: the pieces (token id → text) and the merges in the
/// order they were learned.
#[derive(Clone, Debug)]
pub struct Bpe {
    pieces: Vec<String>,
    ids: HashMap<String, u32>,
    /// `(left, right) → rank` of every merge.
    ranks: HashMap<(u32, u32), usize>,
}

/// Id of the unknown-character token.
pub const UNK: u32 = 0;

impl Bpe {
    /// Learns `vocab` tokens from pre-token counts: `<unk>`, every character of the pre-tokens
    /// (in code-point order), then repeatedly the merge of the adjacent pair with the largest
    /// count over all pre-token occurrences (ties: smallest `(left, right)` ids) until `vocab`
    /// tokens or no pair occurs twice.
    pub fn learn(counts: &HashMap<String, u64>, vocab: usize) -> Bpe {
        let mut words: Vec<(&String, u64)> = counts.iter().map(|(w, &c)| (w, c)).collect();
        words.sort();
        let mut alphabet: Vec<char> = counts.keys().flat_map(|w| w.chars()).collect();
        alphabet.sort_unstable();
        alphabet.dedup();
        let mut pieces = vec!["<unk>".to_string()];
        pieces.extend(alphabet.iter().map(|c| c.to_string()));
        let mut ids: HashMap<String, u32> = pieces.iter().enumerate().map(|(i, p)| (p.clone(), i as u32)).collect();
        let mut syms: Vec<Vec<u32>> =
            words.iter().map(|(w, _)| w.chars().map(|c| ids[&c.to_string()]).collect()).collect();
        let freq: Vec<i64> = words.iter().map(|(_, c)| *c as i64).collect();
        let mut pairs: HashMap<(u32, u32), i64> = HashMap::new();
        let mut where_: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
        for (k, s) in syms.iter().enumerate() {
            for p in s.windows(2) {
                *pairs.entry((p[0], p[1])).or_default() += freq[k];
                where_.entry((p[0], p[1])).or_default().push(k);
            }
        }
        let mut ranks = HashMap::new();
        while pieces.len() < vocab {
            let best = pairs
                .iter()
                .filter(|(_, &c)| c >= 2)
                .max_by(|(a, ca), (b, cb)| ca.cmp(cb).then_with(|| b.cmp(a)))
                .map(|(p, _)| *p);
            let Some((l, r)) = best else { break };
            let id = pieces.len() as u32;
            let text = format!("{}{}", pieces[l as usize], pieces[r as usize]);
            ids.insert(text.clone(), id);
            pieces.push(text);
            ranks.insert((l, r), ranks.len());
            let mut touched = where_.remove(&(l, r)).unwrap_or_default();
            touched.sort_unstable();
            touched.dedup();
            for k in touched {
                let s = &syms[k];
                if !s.windows(2).any(|p| p[0] == l && p[1] == r) {
                    continue;
                }
                for p in s.windows(2) {
                    *pairs.entry((p[0], p[1])).or_default() -= freq[k];
                }
                let merged = merge_pair(s, l, r, id);
                for p in merged.windows(2) {
                    *pairs.entry((p[0], p[1])).or_default() += freq[k];
                    where_.entry((p[0], p[1])).or_default().push(k);
                }
                syms[k] = merged;
            }
            pairs.retain(|_, c| *c > 0);
            pairs.remove(&(l, r));
        }
        Bpe { pieces, ids, ranks }
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether there are no tokens (never, after [`Bpe::learn`]).
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The text of token `id` (`▁` marks a word start), `"<unk>"` for an id out of range.
    pub fn piece(&self, id: u32) -> &str {
        self.pieces.get(id as usize).map_or("<unk>", |s| s.as_str())
    }

    /// The tokens of one pre-token: its characters (unknown ones → [`UNK`]), then the learned
    /// merges applied in the order they were learned (the lowest-ranked adjacent pair first).
    pub fn encode_word(&self, word: &str) -> Vec<u32> {
        let mut s: Vec<u32> = word.chars().map(|c| self.ids.get(&c.to_string()).copied().unwrap_or(UNK)).collect();
        loop {
            let best = s.windows(2).filter_map(|p| self.ranks.get(&(p[0], p[1])).map(|&r| (r, p[0], p[1]))).min();
            let Some((_, l, r)) = best else { break };
            let id = self.ids[&format!("{}{}", self.pieces[l as usize], self.pieces[r as usize])];
            s = merge_pair(&s, l, r, id);
        }
        s
    }

    /// Readable text of tokens: pieces joined, `▁` as a space (none before the first word).
    pub fn decode(&self, ids: &[u32]) -> String {
        let s: String = ids.iter().map(|&i| self.piece(i)).collect();
        s.replace(SPACE, " ").trim_start().to_string()
    }
}

/// `s` with every non-overlapping occurrence of `(l, r)`, left to right, replaced by `id`.
fn merge_pair(s: &[u32], l: u32, r: u32, id: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if i + 1 < s.len() && s[i] == l && s[i + 1] == r {
            out.push(id);
            i += 2;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The tokenized corpus.
#[derive(Debug)]
pub struct Corpus {
    /// The subword vocabulary.
    pub bpe: Bpe,
    /// The training tokens, in text order.
    pub train: Vec<u32>,
    /// The held-out tokens, in text order.
    pub heldout: Vec<u32>,
    /// Start of every prompt in `heldout`.
    pub prompt_starts: Vec<usize>,
    /// Training-part frequency of each token (for the unigram reference).
    pub counts: Vec<u64>,
}

impl Corpus {
    /// Splits `text` at [`HELDOUT_FROM`], learns the vocabulary on the training part, tokenizes
    /// both parts and places the prompts.
    pub fn build(text: &str) -> Result<Corpus, String> {
        let at = text.find(HELDOUT_FROM).ok_or_else(|| format!("the corpus has no {HELDOUT_FROM:?}"))?;
        let (train_text, held_text) = text.split_at(at);
        let train_pre = pretokenize(train_text);
        let mut counts: HashMap<String, u64> = HashMap::new();
        for w in &train_pre {
            *counts.entry(w.clone()).or_default() += 1;
        }
        let bpe = Bpe::learn(&counts, VOCAB);
        let mut cache: HashMap<String, Vec<u32>> = HashMap::new();
        let mut encode = |pre: &[String]| -> Vec<u32> {
            let mut out = Vec::with_capacity(pre.len() * 2);
            for w in pre {
                let ids = cache.entry(w.clone()).or_insert_with(|| bpe.encode_word(w));
                out.extend_from_slice(ids);
            }
            out
        };
        let train = encode(&train_pre);
        let heldout = encode(&pretokenize(held_text));
        if heldout.len() < PROMPTS * (PROMPT_LEN + GENERATE) || train.len() <= CONTEXT + 1 {
            return Err("the corpus is too short".to_string());
        }
        let mut tok_counts = vec![0u64; bpe.len()];
        for &t in &train {
            tok_counts[t as usize] += 1;
        }
        let prompt_starts = prompt_starts(&bpe, &heldout);
        Ok(Corpus { bpe, train, heldout, prompt_starts, counts: tok_counts })
    }

    /// The [`PROMPTS`] prompts, each [`PROMPT_LEN`] tokens.
    pub fn prompts(&self) -> Vec<&[u32]> {
        self.prompt_starts.iter().map(|&s| &self.heldout[s..s + PROMPT_LEN]).collect()
    }

    /// Cross-entropy (nats per token) of the held-out part under the training part's token
    /// frequencies (add-one smoothed): the loss of a model that learned only how often each token
    /// occurs, the level an LM passes through early in training.
    pub fn unigram_loss(&self) -> f64 {
        let total = self.counts.iter().sum::<u64>() as f64 + self.counts.len() as f64;
        let nll: f64 = self.heldout.iter().map(|&t| -((self.counts[t as usize] as f64 + 1.0) / total).ln()).sum();
        nll / self.heldout.len() as f64
    }
}

/// The prompt starts: for `k = 0..PROMPTS`, the first sentence start (a token right after `.`,
/// `!` or `?`) at or after `k·(len − PROMPT_LEN − GENERATE)/PROMPTS` in the held-out tokens.
fn prompt_starts(bpe: &Bpe, heldout: &[u32]) -> Vec<usize> {
    let ends: Vec<bool> = heldout.iter().map(|&t| matches!(bpe.piece(t), "." | "!" | "?")).collect();
    let last = heldout.len() - PROMPT_LEN - GENERATE;
    (0..PROMPTS)
        .map(|k| {
            let target = k * last / PROMPTS;
            (target..last).find(|&i| i > 0 && ends[i - 1] && !ends[i]).unwrap_or(target)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretokens_of_a_hand_made_sentence() {
        assert_eq!(
            pretokenize("\"Don't,\" he said; 1851 -- whale-ship."),
            ["▁don't", ",", "▁he", "▁said", ";", "▁1851", "—", "▁whale", "▁ship", "."]
        );
        assert_eq!(pretokenize("'tis"), ["▁tis"]);
        assert!(pretokenize("  \"()  ").is_empty());
    }

    #[test]
    fn bpe_merges_the_most_frequent_pair_first() {
        // "▁ab" ×5, "▁abc" ×2, "▁c" ×1: pairs (▁,a) 7, (a,b) 7, (b,c) 2, (▁,c) 1.
        let counts: HashMap<String, u64> =
            [("▁ab", 5), ("▁abc", 2), ("▁c", 1)].iter().map(|(w, c)| (w.to_string(), *c)).collect();
        let bpe = Bpe::learn(&counts, 7);
        // <unk>, a, b, c, ▁ (code-point order: a b c < ▁).
        assert_eq!((0..5).map(|i| bpe.piece(i)).collect::<Vec<_>>(), ["<unk>", "a", "b", "c", "▁"]);
        // Tie between (▁,a)=(4,1) and (a,b)=(1,2) at 7: the smaller ids (1,2) win → "ab".
        assert_eq!(bpe.piece(5), "ab");
        // Then (▁,ab) 7 → "▁ab".
        assert_eq!(bpe.piece(6), "▁ab");
        assert_eq!(bpe.len(), 7);
        assert_eq!(bpe.encode_word("▁abc"), [6, 3]);
        assert_eq!(bpe.encode_word("▁abz"), [6, UNK]);
        assert_eq!(bpe.decode(&[6, 3, 4, 5]), "abc ab");
    }

    #[test]
    fn the_corpus_splits_tokenizes_and_places_the_prompts() {
        let c = corpus().unwrap();
        assert_eq!(c.bpe.len(), VOCAB);
        // The most common words are single tokens.
        for w in ["▁the", "▁whale", "▁of", ",", "."] {
            assert_eq!(c.bpe.encode_word(w).len(), 1, "{w}");
        }
        // Held out: chapters 122 on (about a tenth of the tokens).
        let share = c.heldout.len() as f64 / (c.train.len() + c.heldout.len()) as f64;
        assert!((0.08..0.14).contains(&share), "{share}");
        assert!(c.bpe.decode(&c.heldout[..4]).starts_with("chapter 122"));
        // No unknown characters in training (the alphabet is the training part's).
        assert!(!c.train.contains(&UNK));
        // 100 prompts, increasing, each at a sentence start.
        assert_eq!(c.prompt_starts.len(), PROMPTS);
        assert!(c.prompt_starts.windows(2).all(|w| w[0] < w[1]));
        for &s in &c.prompt_starts[1..] {
            assert!(matches!(c.bpe.piece(c.heldout[s - 1]), "." | "!" | "?"));
        }
        // A model that knows only token frequencies: between 4 and ln(1024) nats.
        let u = c.unigram_loss();
        assert!(u > 4.0 && u < (VOCAB as f64).ln(), "{u}");
    }
}
