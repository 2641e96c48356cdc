//! A toy dependency grammar with gold trees and number agreement, for the masked-language-model
//! reproduction of Chen et al. (PAPERS.md §C).
//!
//! Every sentence comes with its gold unlabelled dependency tree, so the UAS probe and the SAS
//! regularizer of the paper can be computed exactly. The language is built so that *no fixed
//! offset predicts most arcs*: subjects are modified by prepositional phrases and relative clauses
//! (centre-embedded, so the subject–verb arc is long and crosses a possible attractor noun of the
//! other number), objects and verbs take prepositional phrases whose noun attaches across the
//! preposition and determiner, and determiners are separated from their noun by adjectives.
//! (The toy of PAPERS.md's "measured warning" had mostly adjacent arcs, and "the next word is the
//! head" scored 0.51; here it scores 0.37 and is the best offset baseline, see the tests.)
//!
//! # Grammar
//!
//! `n ∈ {sg, pl}` is grammatical number, drawn uniformly for every noun phrase; `[x]` is optional.
//! Probabilities are the `P_*` constants below.
//!
//! ```text
//! S          → NP₀(n) VP(n) "."                         the main verb is the root
//! NP₀(n)     → Det(n) Adj* N(n) [PP | RC(n)]            subject / object NP at depth 0
//! NP₁(n)     → Det(n) Adj* N(n) [PP₂]                   NP inside a PP or RC (depth 1)
//! NP₂(n)     → Det(n) Adj* N(n)                         (depth 2, no modifiers)
//! PP         → P NP_{d+1}                               attached to the noun (or verb) before it
//! RC(n)      → "that" Vt(n) NP₁                          subject relative
//!            | "that" Vi(n)                              subject relative, intransitive
//!            | "that" NP₁(m) Vt(m)                       object relative (m drawn afresh)
//! VP(n)      → [AdvPre] Vi(n) [AdvPost | PP]
//!            | [AdvPre] Vt(n) NP₀                        (an object NP₀ may not take an RC that
//!                                                         itself holds an RC: RCs do not nest)
//! Det(sg)    → the | a | this | every          Det(pl) → the | these | some | many | ε (bare plural)
//! Adj*       → ε | Adj | Adj Adj
//! ```
//!
//! Agreement: every finite verb agrees in number with its subject — the main verb with the head
//! noun of `NP₀` (across any PP or RC in between), a subject-relative verb with the noun the
//! clause modifies, an object-relative verb with the relative clause's own subject. Determiners
//! agree with their noun ("the" and the bare plural carry no number).
//!
//! Sentences longer than [`MAX_LEN`] tokens (the period included) are rejected and redrawn, so
//! the distribution is the grammar's conditioned on `len ≤ MAX_LEN`.
//!
//! # Dependency conventions (UD-like, heads are 0-based token positions)
//!
//! | dependent                     | head                                   | UD relation   |
//! |-------------------------------|----------------------------------------|---------------|
//! | determiner, adjective         | its noun                               | det, amod     |
//! | subject head noun             | its verb                               | nsubj         |
//! | object head noun              | its verb                               | obj           |
//! | preposition                   | the noun of its own phrase             | case          |
//! | noun of a PP                  | the noun or verb the PP modifies       | nmod, obl     |
//! | relative-clause verb          | the noun the clause modifies           | acl:relcl     |
//! | "that"                        | the relative-clause verb               | nsubj / obj   |
//! | adverb                        | its verb                               | advmod        |
//! | period                        | the main verb                          | punct         |
//! | main verb                     | `None` (the root)                      | root          |
//!
//! # Tokens
//!
//! `PAD = 0`, `MASK = 1`, words from `2` on (see [`word`]); there is no CLS/SEP, so positions
//! `0..len` of a sentence are exactly its words and the gold heads index them directly.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Padding token (also what [`batch`] fills with).
pub const PAD: i64 = 0;
/// The `[MASK]` token of BERT-style masking.
pub const MASK: i64 = 1;
/// Ignore index of the MLM targets (positions that are not predicted).
pub const IGNORE: i64 = -1;
/// Id of the first word; ids below are special tokens.
pub const FIRST_WORD: i64 = 2;
/// Longest sentence in tokens, the final period included.
pub const MAX_LEN: usize = 20;
/// Share of real positions BERT masking selects.
pub const MLM_PROB: f64 = 0.15;

/// Probability that a depth-0 NP takes a PP.
pub const P_PP: f64 = 0.3;
/// Probability that a depth-0 NP takes a relative clause (when not taking a PP).
pub const P_RC: f64 = 0.35;
/// Probability that a depth-1 NP takes a PP.
pub const P_PP_INNER: f64 = 0.15;
/// Probability that the main verb is transitive.
pub const P_TRANSITIVE: f64 = 0.5;
/// Probability of a bare plural (no determiner).
pub const P_BARE_PLURAL: f64 = 0.25;
/// Probability of one adjective; a second follows with probability `P_ADJ2` more.
pub const P_ADJ: f64 = 0.35;
/// Probability of a second adjective given a first.
pub const P_ADJ2: f64 = 0.3;
/// Probability of a pre-verbal adverb.
pub const P_ADV_PRE: f64 = 0.15;
/// Probability that an intransitive main verb takes a post-verbal adverb (else PP with `P_PP`).
pub const P_ADV_POST: f64 = 0.2;

const WORDS: [&str; 63] = [
    // determiners: "the" (any number), singular, plural
    "the", "a", "this", "every", "these", "some", "many", //
    // adjectives
    "big", "small", "red", "old", "happy", "quiet", //
    // singular nouns, then their plurals in the same order
    "dog", "cat", "bird", "man", "woman", "child", "teacher", "farmer", "tree", "house", //
    "dogs", "cats", "birds", "men", "women", "children", "teachers", "farmers", "trees", "houses", //
    // intransitive verbs, singular then plural
    "runs", "sleeps", "sings", "waits", "falls", //
    "run", "sleep", "sing", "wait", "fall", //
    // transitive verbs, singular then plural
    "sees", "chases", "likes", "helps", "finds", //
    "see", "chase", "like", "help", "find", //
    // prepositions
    "near", "behind", "with", "under", //
    // relative pronoun, adverbs (two pre-verbal, two post-verbal), period
    "that", "often", "never", "quickly", "again", ".",
];

const fn id(index: usize) -> i64 {
    FIRST_WORD + index as i64
}

/// "the".
pub const THE: i64 = id(0);
const DET_SG: [i64; 3] = [id(1), id(2), id(3)];
const DET_PL: [i64; 3] = [id(4), id(5), id(6)];
const ADJ0: usize = 7;
const N_ADJ: usize = 6;
const NOUN_SG0: usize = 13;
const NOUN_PL0: usize = 23;
const N_NOUN: usize = 10;
const VI_SG0: usize = 33;
const VI_PL0: usize = 38;
const VT_SG0: usize = 43;
const VT_PL0: usize = 48;
const N_VERB: usize = 5;
const PREP0: usize = 53;
const N_PREP: usize = 4;
/// The relative pronoun "that".
pub const THAT: i64 = id(57);
const ADV_PRE: [i64; 2] = [id(58), id(59)];
const ADV_POST: [i64; 2] = [id(60), id(61)];
/// The sentence-final period.
pub const PERIOD: i64 = id(62);

/// Number of token ids: the specials `PAD`, `MASK` and the 63 words (65).
pub const fn vocab_size() -> usize {
    FIRST_WORD as usize + WORDS.len()
}

/// The spelling of token `id`: `"<pad>"`, `"<mask>"`, the word, or `"<unk>"` when out of range.
pub fn word(id: i64) -> &'static str {
    match id {
        PAD => "<pad>",
        MASK => "<mask>",
        _ if id >= FIRST_WORD && ((id - FIRST_WORD) as usize) < WORDS.len() => WORDS[(id - FIRST_WORD) as usize],
        _ => "<unk>",
    }
}

/// Grammatical number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Number {
    /// Singular.
    Sg,
    /// Plural.
    Pl,
}

impl Number {
    fn other(self) -> Number {
        match self {
            Number::Sg => Number::Pl,
            Number::Pl => Number::Sg,
        }
    }
}

/// The number of a noun token, `None` for a non-noun.
pub fn noun_number(tok: i64) -> Option<Number> {
    let k = (tok - FIRST_WORD) as isize;
    if (NOUN_SG0 as isize..(NOUN_SG0 + N_NOUN) as isize).contains(&k) {
        Some(Number::Sg)
    } else if (NOUN_PL0 as isize..(NOUN_PL0 + N_NOUN) as isize).contains(&k) {
        Some(Number::Pl)
    } else {
        None
    }
}

/// The number of a verb token, `None` for a non-verb.
pub fn verb_number(tok: i64) -> Option<Number> {
    let k = (tok - FIRST_WORD) as isize;
    let in_range = |a: usize| (a as isize..(a + N_VERB) as isize).contains(&k);
    if in_range(VI_SG0) || in_range(VT_SG0) {
        Some(Number::Sg)
    } else if in_range(VI_PL0) || in_range(VT_PL0) {
        Some(Number::Pl)
    } else {
        None
    }
}

/// The same verb in the other number ("runs" ↔ "run"); `None` for a non-verb.
pub fn flip_verb_number(tok: i64) -> Option<i64> {
    match verb_number(tok)? {
        Number::Sg => Some(tok + N_VERB as i64),
        Number::Pl => Some(tok - N_VERB as i64),
    }
}

/// One sentence with its gold tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Sentence {
    /// Word ids, the final period included (`len ≤ MAX_LEN`).
    pub tokens: Vec<i64>,
    /// Gold head of every token: `Some(position)`, `None` for the root (the main verb).
    pub heads: Vec<Option<usize>>,
    /// Position of the main verb (the root).
    pub root: usize,
    /// Position of the main subject's head noun.
    pub subject: usize,
    /// Positions of all finite verbs (main and relative-clause), in order.
    pub verb_positions: Vec<usize>,
    /// For each entry of `verb_positions`, the position of the noun it agrees with.
    pub controllers: Vec<usize>,
}

impl Sentence {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }
    /// Whether the sentence is empty (never, for sampled sentences).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
    /// The sentence as text.
    pub fn text(&self) -> String {
        self.tokens.iter().map(|&t| word(t)).collect::<Vec<_>>().join(" ")
    }
}

/// The full lexicon: at most this many words per open class (nouns, verbs, adjectives) are used
/// (the config's default `lexicon`).
pub const FULL_LEXICON: usize = super::knobs::FULL_LEXICON;

/// A sentence being drawn: its tokens, each token's head, the (subject, verb) pairs. The
/// agreement grammar's productions are below; the nested language adds its own
/// (`nested.rs`).
pub(super) struct Builder<'a> {
    pub(super) rng: &'a mut ChaCha8Rng,
    /// Words per open class in use: nouns `min(lexicon, 10)`, verbs `min(lexicon, 5)` per
    /// transitivity and number, adjectives `min(lexicon, 6)` (the nested language: see there).
    pub(super) lexicon: usize,
    pub(super) tokens: Vec<i64>,
    pub(super) heads: Vec<Option<usize>>,
    pub(super) verbs: Vec<(usize, usize)>,
}

impl Builder<'_> {
    /// Appends `tok` (no head yet); its position.
    pub(super) fn push(&mut self, tok: i64) -> usize {
        self.tokens.push(tok);
        self.heads.push(None);
        self.tokens.len() - 1
    }
    /// True with probability `p`.
    pub(super) fn coin(&mut self, p: f64) -> bool {
        self.rng.random::<f64>() < p
    }
    fn pick(&mut self, base: usize, n: usize) -> i64 {
        id(base + self.rng.random_range(0..n.min(self.lexicon).max(1)))
    }
    fn number(&mut self) -> Number {
        if self.coin(0.5) {
            Number::Sg
        } else {
            Number::Pl
        }
    }

    /// Det Adj* N: returns the noun's position.
    fn bare_np(&mut self, n: Number) -> usize {
        let mut deps = Vec::new();
        let det = match n {
            Number::Pl if self.coin(P_BARE_PLURAL) => None,
            _ if self.coin(0.5) => Some(THE),
            Number::Sg => Some(DET_SG[self.rng.random_range(0..DET_SG.len())]),
            Number::Pl => Some(DET_PL[self.rng.random_range(0..DET_PL.len())]),
        };
        if let Some(d) = det {
            deps.push(self.push(d));
        }
        if self.coin(P_ADJ) {
            let a = self.pick(ADJ0, N_ADJ);
            deps.push(self.push(a));
            if self.coin(P_ADJ2) && N_ADJ.min(self.lexicon) >= 2 {
                let mut b = self.pick(ADJ0, N_ADJ);
                while b == a {
                    b = self.pick(ADJ0, N_ADJ);
                }
                deps.push(self.push(b));
            }
        }
        let noun = match n {
            Number::Sg => self.pick(NOUN_SG0, N_NOUN),
            Number::Pl => self.pick(NOUN_PL0, N_NOUN),
        };
        let pos = self.push(noun);
        for d in deps {
            self.heads[d] = Some(pos);
        }
        pos
    }

    /// A PP attached to `host`: P NP_{depth}.
    fn pp(&mut self, host: usize, depth: usize) {
        let p = self.pick(PREP0, N_PREP);
        let p = self.push(p);
        let n = self.number();
        let noun = self.np(n, depth, false);
        self.heads[p] = Some(noun);
        self.heads[noun] = Some(host);
    }

    fn verb(&mut self, n: Number, transitive: bool) -> i64 {
        let base = match (transitive, n) {
            (false, Number::Sg) => VI_SG0,
            (false, Number::Pl) => VI_PL0,
            (true, Number::Sg) => VT_SG0,
            (true, Number::Pl) => VT_PL0,
        };
        self.pick(base, N_VERB)
    }

    /// A relative clause modifying the noun at `host` of number `n`.
    fn rc(&mut self, host: usize, n: Number) {
        let that = self.push(THAT);
        let r = self.rng.random_range(0..3);
        let v = if r == 2 {
            // object relative: that NP₁(m) Vt(m)
            let m = self.number();
            let subj = self.np(m, 1, false);
            let vt = self.verb(m, true);
            let v = self.push(vt);
            self.heads[subj] = Some(v);
            self.verbs.push((v, subj));
            v
        } else {
            let vt = self.verb(n, r == 0);
            let v = self.push(vt);
            self.verbs.push((v, host));
            if r == 0 {
                let m = self.number();
                let obj = self.np(m, 1, false);
                self.heads[obj] = Some(v);
            }
            v
        };
        self.heads[that] = Some(v);
        self.heads[v] = Some(host);
    }

    /// An NP at `depth` (0, 1 or 2); `rc_ok` allows a relative clause at depth 0.
    fn np(&mut self, n: Number, depth: usize, rc_ok: bool) -> usize {
        let noun = self.bare_np(n);
        if depth == 0 {
            if self.coin(P_PP) {
                self.pp(noun, 1);
            } else if rc_ok && self.coin(P_RC / (1.0 - P_PP)) {
                self.rc(noun, n);
            }
        } else if depth == 1 && self.coin(P_PP_INNER) {
            self.pp(noun, 2);
        }
        noun
    }

    fn sentence(mut self) -> Sentence {
        let n = self.number();
        let subject = self.np(n, 0, true);
        let adv = if self.coin(P_ADV_PRE) {
            let a = ADV_PRE[self.rng.random_range(0..ADV_PRE.len())];
            Some(self.push(a))
        } else {
            None
        };
        let transitive = self.coin(P_TRANSITIVE);
        let vt = self.verb(n, transitive);
        let root = self.push(vt);
        self.heads[subject] = Some(root);
        if let Some(a) = adv {
            self.heads[a] = Some(root);
        }
        self.verbs.push((root, subject));
        if transitive {
            let m = self.number();
            let obj = self.np(m, 0, true);
            self.heads[obj] = Some(root);
        } else if self.coin(P_ADV_POST) {
            let a = ADV_POST[self.rng.random_range(0..ADV_POST.len())];
            let a = self.push(a);
            self.heads[a] = Some(root);
        } else if self.coin(P_PP) {
            self.pp(root, 1);
        }
        let dot = self.push(PERIOD);
        self.heads[dot] = Some(root);
        self.verbs.sort_unstable();
        Sentence {
            tokens: self.tokens,
            heads: self.heads,
            root,
            subject,
            verb_positions: self.verbs.iter().map(|v| v.0).collect(),
            controllers: self.verbs.iter().map(|v| v.1).collect(),
        }
    }
}

/// Draws one sentence of the full grammar (rejecting and redrawing any longer than [`MAX_LEN`]).
pub fn sample(rng: &mut ChaCha8Rng) -> Sentence {
    sample_with(rng, FULL_LEXICON)
}

/// Draws one sentence whose open classes use at most `lexicon` words each (nouns, verbs per
/// transitivity and number, adjectives; the closed classes stay whole). The structure, its
/// probabilities and the trees are those of the full grammar; only the lexical entropy falls,
/// so that more of the MLM loss is syntax. `lexicon ≥ 10` is the full grammar, with exactly the
/// draws of [`sample`]; 0 counts as 1.
pub fn sample_with(rng: &mut ChaCha8Rng, lexicon: usize) -> Sentence {
    loop {
        let s =
            Builder { rng: &mut *rng, lexicon, tokens: Vec::new(), heads: Vec::new(), verbs: Vec::new() }.sentence();
        if s.len() <= MAX_LEN {
            return s;
        }
    }
}

/// Draws `n` sentences.
pub fn sample_n(rng: &mut ChaCha8Rng, n: usize) -> Vec<Sentence> {
    sample_n_with(rng, n, FULL_LEXICON)
}

/// Draws `n` sentences with [`sample_with`].
pub fn sample_n_with(rng: &mut ChaCha8Rng, n: usize, lexicon: usize) -> Vec<Sentence> {
    (0..n).map(|_| sample_with(rng, lexicon)).collect()
}

/// Pads the sentences into a row-major `[batch, t]` token array (`PAD` after the words) and
/// returns it with the lengths. A sentence longer than `t` is truncated to `t` (its length is
/// reported as `t`); with `t ≥ MAX_LEN` that never happens.
pub fn batch(sentences: &[Sentence], t: usize) -> (Vec<i64>, Vec<usize>) {
    let mut tokens = vec![PAD; sentences.len() * t];
    let mut lengths = Vec::with_capacity(sentences.len());
    for (b, s) in sentences.iter().enumerate() {
        let l = s.len().min(t);
        tokens[b * t..b * t + l].copy_from_slice(&s.tokens[..l]);
        lengths.push(l);
    }
    (tokens, lengths)
}

/// The gold heads of the sentences, in the form the UAS probe (metrics::syntax) takes them.
pub fn gold_heads(sentences: &[Sentence]) -> Vec<Vec<Option<usize>>> {
    sentences.iter().map(|s| s.heads.clone()).collect()
}

/// BERT masking of a padded `[batch, t]` token array with real lengths `lengths`.
///
/// Each real position (`< lengths[b]`, clipped to `t`) is selected independently with
/// probability [`MLM_PROB`] = 0.15; a sentence with no selected position gets one, uniformly
/// among its positions (as long as it has any). A selected position becomes `MASK` with
/// probability 0.8, a uniformly random *word* (never a special token) with 0.1, and stays
/// unchanged with 0.1. `targets` holds the original token at selected positions and
/// [`IGNORE`] (−1) everywhere else, padding included. Returns `(inputs, targets)`, both
/// `[batch, t]` with `batch = min(lengths.len(), tokens.len() / t)` (empty when `t = 0`).
pub fn mlm_mask(tokens: &[i64], lengths: &[usize], t: usize, rng: &mut ChaCha8Rng) -> (Vec<i64>, Vec<i64>) {
    mlm_mask_among(tokens, lengths, t, WORDS.len(), None, MLM_PROB, rng)
}

/// [`mlm_mask`] generalized: a random replacement draws one of `n_words` words (ids
/// `FIRST_WORD..FIRST_WORD + n_words`), and the positions that may be selected are, per sentence,
/// `candidates[b]` (those below its length, in the given order) instead of every real position;
/// each is selected with probability `p`, and a sentence with none selected gets one of its
/// candidates uniformly (if it has any). `mlm_mask` is `(WORDS.len(), None, MLM_PROB)`, with
/// exactly its draws.
pub fn mlm_mask_among(
    tokens: &[i64],
    lengths: &[usize],
    t: usize,
    n_words: usize,
    candidates: Option<&[Vec<usize>]>,
    p: f64,
    rng: &mut ChaCha8Rng,
) -> (Vec<i64>, Vec<i64>) {
    if t == 0 {
        return (Vec::new(), Vec::new());
    }
    let batch = lengths.len().min(tokens.len() / t);
    let mut inputs = tokens[..batch * t].to_vec();
    let mut targets = vec![IGNORE; batch * t];
    let n_words = n_words as i64;
    for (b, &len) in lengths.iter().enumerate().take(batch) {
        let len = len.min(t);
        let pool: Vec<usize> = match candidates {
            Some(c) => c.get(b).map_or(Vec::new(), |c| c.iter().copied().filter(|&i| i < len).collect()),
            None => (0..len).collect(),
        };
        if pool.is_empty() {
            continue;
        }
        let mut chosen: Vec<usize> = pool.iter().copied().filter(|_| rng.random::<f64>() < p).collect();
        if chosen.is_empty() {
            chosen.push(pool[rng.random_range(0..pool.len())]);
        }
        for i in chosen {
            let k = b * t + i;
            targets[k] = tokens[k];
            let r = rng.random::<f64>();
            if r < 0.8 {
                inputs[k] = MASK;
            } else if r < 0.9 {
                inputs[k] = FIRST_WORD + rng.random_range(0..n_words);
            }
        }
    }
    (inputs, targets)
}

/// A subject–verb agreement minimal pair (BLiMP-style) on the main verb.
#[derive(Clone, Debug, PartialEq)]
pub struct AgreementItem {
    /// The sentence with its main verb replaced by `MASK`.
    pub tokens: Vec<i64>,
    /// Position of the masked main verb.
    pub verb_pos: usize,
    /// Position of the subject's head noun.
    pub subject_pos: usize,
    /// The verb that was there (agrees with the subject).
    pub good: i64,
    /// The same verb in the other number.
    pub bad: i64,
    /// Whether a noun of the other number stands between the subject and the verb.
    pub attractor: bool,
}

/// `n` agreement items from freshly sampled sentences, in the natural mix (measured on 10 000:
/// 65 % of subjects are followed by a PP or relative clause, 70 % of main verbs are not next to
/// their subject, 29 % of items have an attractor); filter on `attractor` or on
/// `verb_pos − subject_pos` for the harder subsets.
/// The model scores an item correctly when its logit for `good` at `verb_pos` beats `bad`.
pub fn agreement_items(rng: &mut ChaCha8Rng, n: usize) -> Vec<AgreementItem> {
    agreement_items_with(rng, n, FULL_LEXICON)
}

/// [`agreement_items`] from sentences of [`sample_with`]`(rng, lexicon)`.
pub fn agreement_items_with(rng: &mut ChaCha8Rng, n: usize, lexicon: usize) -> Vec<AgreementItem> {
    (0..n)
        .map(|_| {
            let s = sample_with(rng, lexicon);
            let good = s.tokens[s.root];
            let bad = flip_verb_number(good).unwrap_or(good);
            let subj_n = noun_number(s.tokens[s.subject]);
            let attractor = s.tokens[s.subject + 1..s.root]
                .iter()
                .any(|&w| noun_number(w).is_some_and(|m| Some(m.other()) == subj_n));
            let mut tokens = s.tokens;
            tokens[s.root] = MASK;
            AgreementItem { tokens, verb_pos: s.root, subject_pos: s.subject, good, bad, attractor }
        })
        .collect()
}

/// Corpus statistics of a set of sentences.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusStats {
    /// Number of sentences.
    pub sentences: usize,
    /// Number of arcs (non-root words).
    pub arcs: usize,
    /// Share of arcs with `|head − child| = 1`.
    pub adjacent: f64,
    /// `(offset, share of arcs with head − child = offset)` for offsets −3..=2 without 0. With
    /// every head inside the sentence this is exactly the UAS of the fixed-offset baseline
    /// (predicting root words is never scored, predictions outside the sentence are wrong).
    pub offset_uas: Vec<(i64, f64)>,
    /// Mean sentence length in tokens (period included).
    pub mean_len: f64,
    /// Share of sentences whose main verb is not next to its subject.
    pub long_agreement: f64,
}

/// Arc statistics of `sentences` (all zero for an empty set).
pub fn corpus_stats(sentences: &[Sentence]) -> CorpusStats {
    let offsets = [-3i64, -2, -1, 1, 2];
    let mut counts = [0usize; 5];
    let (mut arcs, mut adjacent, mut tokens, mut long) = (0usize, 0usize, 0usize, 0usize);
    for s in sentences {
        tokens += s.len();
        long += usize::from(s.root != s.subject + 1);
        for (i, h) in s.heads.iter().enumerate() {
            if let Some(h) = *h {
                arcs += 1;
                let d = h as i64 - i as i64;
                adjacent += usize::from(d.abs() == 1);
                if let Some(k) = offsets.iter().position(|&o| o == d) {
                    counts[k] += 1;
                }
            }
        }
    }
    let frac = |c: usize, n: usize| if n == 0 { 0.0 } else { c as f64 / n as f64 };
    CorpusStats {
        sentences: sentences.len(),
        arcs,
        adjacent: frac(adjacent, arcs),
        offset_uas: offsets.iter().zip(counts).map(|(&o, c)| (o, frac(c, arcs))).collect(),
        mean_len: frac(tokens, sentences.len()),
        long_agreement: frac(long, sentences.len()),
    }
}

#[cfg(test)]
mod tests;
