//! A fourth language for chapter 3: typed brackets nested like Dyck words (issue #35, family (d)).
//! Which closing bracket stands at a position is decided by the opening bracket it matches, and
//! finding that one needs depth: the nearest unmatched opening bracket to the left, which no fixed
//! offset gives.
//!
//! ```text
//! S    → open_t Pair P close_t          the outer pair (never empty): its opening bracket is the root
//! P    → ε | Pair P                     another pair with probability P_MORE, while depth < DEPTH
//! Pair → open_u P close_u               u uniform over the 4 types
//! ```
//!
//! Sentences longer than [`MAX_LEN`] are rejected and redrawn. Dependencies: a closing bracket →
//! its opening bracket; an opening bracket → the opening bracket of the pair that encloses it; the
//! outer opening bracket is the root. In [`Sentence`]'s terms the "verb" whose loss is measured is
//! the outer *closing* bracket and its "subject" the outer opening bracket (so `subject` holds
//! the last position and `root` the first: the measured arc runs from the closing bracket to its
//! opening one, the direction of the gold head); `verb_positions` are the closing brackets and
//! `controllers` their opening brackets.

use super::data::{AgreementItem, Sentence, FIRST_WORD, MASK};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Longest sentence in tokens.
pub const MAX_LEN: usize = 20;
/// Deepest nesting inside the outer pair.
pub const DEPTH: usize = 4;
/// Probability of one more pair at a level (while the depth allows; the outer pair always holds
/// one, so its closing bracket is never next to its opening one).
pub const P_MORE: f64 = 0.5;
/// Bracket types.
pub const TYPES: usize = 4;

const WORDS: [&str; 8] = ["(", "[", "{", "<", ")", "]", "}", ">"];

/// Number of token ids: `PAD`, `MASK` and the 8 brackets (10).
pub const fn vocab_size() -> usize {
    FIRST_WORD as usize + WORDS.len()
}

/// Number of words (what BERT masking's random replacement draws from).
pub const fn n_words() -> usize {
    WORDS.len()
}

/// The spelling of token `id`.
pub fn word(id: i64) -> &'static str {
    match id {
        super::data::PAD | MASK => super::data::word(id),
        _ if id >= FIRST_WORD && ((id - FIRST_WORD) as usize) < WORDS.len() => WORDS[(id - FIRST_WORD) as usize],
        _ => "<unk>",
    }
}

/// The opening bracket of type `t`.
pub fn open(t: usize) -> i64 {
    FIRST_WORD + t as i64
}

/// The closing bracket of type `t`.
pub fn close(t: usize) -> i64 {
    FIRST_WORD + (TYPES + t) as i64
}

/// The type of a closing bracket, `None` for anything else.
pub fn close_type(tok: i64) -> Option<usize> {
    let k = tok - FIRST_WORD;
    (TYPES as i64..2 * TYPES as i64).contains(&k).then(|| (k as usize) - TYPES)
}

/// The minimal-pair foil of a closing bracket: the closing bracket of the next type.
pub fn foil(tok: i64) -> Option<i64> {
    close_type(tok).map(|t| close((t + 1) % TYPES))
}

struct Builder<'a> {
    rng: &'a mut ChaCha8Rng,
    tokens: Vec<i64>,
    heads: Vec<Option<usize>>,
    pairs: Vec<(usize, usize)>,
}

impl Builder<'_> {
    /// A pair at `depth` (0 = the outer one) whose opening bracket's head is `parent`.
    fn pair(&mut self, depth: usize, parent: Option<usize>) -> usize {
        let t = self.rng.random_range(0..TYPES);
        let o = self.tokens.len();
        self.tokens.push(open(t));
        self.heads.push(parent);
        let mut first = depth == 0;
        while depth < DEPTH && (first || self.rng.random::<f64>() < P_MORE) {
            first = false;
            self.pair(depth + 1, Some(o));
        }
        let c = self.tokens.len();
        self.tokens.push(close(t));
        self.heads.push(Some(o));
        self.pairs.push((c, o));
        o
    }
}

/// Draws one bracket sentence (rejecting and redrawing any longer than [`MAX_LEN`]).
pub fn sample(rng: &mut ChaCha8Rng) -> Sentence {
    loop {
        let mut b = Builder { rng: &mut *rng, tokens: Vec::new(), heads: Vec::new(), pairs: Vec::new() };
        b.pair(0, None);
        if b.tokens.len() > MAX_LEN {
            continue;
        }
        b.pairs.sort_unstable();
        let last = b.tokens.len() - 1;
        return Sentence {
            tokens: b.tokens,
            heads: b.heads,
            root: 0,
            subject: last,
            verb_positions: b.pairs.iter().map(|p| p.0).collect(),
            controllers: b.pairs.iter().map(|p| p.1).collect(),
        };
    }
}

/// `n` minimal pairs on the outer closing bracket (masked): the right type against the next one.
/// `attractor` marks items with an opening bracket of another type inside.
pub fn items(rng: &mut ChaCha8Rng, n: usize) -> Vec<AgreementItem> {
    (0..n)
        .map(|_| {
            let s = sample(rng);
            let (pos, opener) = (s.subject, s.root);
            let good = s.tokens[pos];
            let bad = foil(good).unwrap_or(good);
            let attractor = s.tokens[1..pos].iter().any(|&w| w != s.tokens[0] && close_type(w).is_none());
            let mut tokens = s.tokens;
            tokens[pos] = MASK;
            AgreementItem { tokens, verb_pos: pos, subject_pos: opener, good, bad, attractor }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn vocabulary_layout() {
        assert_eq!(vocab_size(), 10);
        assert_eq!((word(open(0)), word(close(0)), word(open(3)), word(close(3))), ("(", ")", "<", ">"));
        assert_eq!(word(MASK), "<mask>");
        assert_eq!(word(vocab_size() as i64), "<unk>");
        assert_eq!(close_type(close(2)), Some(2));
        assert_eq!(close_type(open(2)), None);
        assert_eq!(foil(close(3)), Some(close(0)));
    }

    /// Every sentence is balanced, every closing bracket's head is the opening bracket it matches
    /// (by a stack), and the tree is rooted at the outer opening bracket.
    #[test]
    fn sentences_are_balanced_with_matching_heads() {
        let mut r = ChaCha8Rng::seed_from_u64(9);
        let mut lens = 0usize;
        for _ in 0..3000 {
            let s = sample(&mut r);
            assert!(s.len() <= MAX_LEN && s.len() >= 4 && s.len() % 2 == 0);
            lens += s.len();
            let mut stack: Vec<usize> = vec![];
            for (i, &w) in s.tokens.iter().enumerate() {
                match close_type(w) {
                    None => {
                        assert_eq!(s.heads[i], stack.last().copied(), "opening bracket {i}");
                        stack.push(i);
                    }
                    Some(t) => {
                        let o = stack.pop().expect("balanced");
                        assert_eq!(s.tokens[o], open(t), "types match");
                        assert_eq!(s.heads[i], Some(o));
                    }
                }
                assert!(stack.len() <= DEPTH + 1);
            }
            assert!(stack.is_empty());
            assert_eq!((s.root, s.subject), (0, s.len() - 1));
            assert_eq!(s.heads[s.subject], Some(s.root));
        }
        // a simulation of the same process (20 000 draws) gives a mean length of 8.50
        let mean = lens as f64 / 3000.0;
        assert!((8.0..9.0).contains(&mean), "mean length {mean}");
    }

    #[test]
    fn items_mask_the_outer_closing_bracket() {
        let mut r = ChaCha8Rng::seed_from_u64(10);
        for it in items(&mut r, 100) {
            assert_eq!(it.tokens[it.verb_pos], MASK);
            assert_eq!(it.verb_pos + 1, it.tokens.len());
            assert_eq!(it.subject_pos, 0);
            assert_eq!(close_type(it.good).map(open), Some(it.tokens[0]));
            assert_eq!(foil(it.good), Some(it.bad));
        }
    }
}
