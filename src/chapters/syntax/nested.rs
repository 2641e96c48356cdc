//! A second language for chapter 3: centre-embedded clauses whose verb is *selected* by its own
//! subject noun, with an index particle before each clause's subject and before its verb (issue
//! #35, family (a)). It is built so that only one non-adjacent arc says which verb stands in a
//! clause, and that arc can only be found by matching particles:
//!
//! ```text
//! S      → CL(1)                                   the outermost clause's verb is the root
//! CL(k)  → [Det] q_k N_k [CL(k+1)] [Adv] q_k V_k   CL(k+1) with probability P_NEST while k < DEPTH
//! V_k    ∈ verbs(N_k)                              each noun allows 3 of the 24 verbs, uniformly
//! ```
//!
//! `q_k` is the particle of depth `k` ("q1" … "q4"); `Det` (`P_DET`) and `Adv` (`P_ADV`) carry no
//! information about anything. Example: `the q1 dog q2 cat often q2 purrs q1 barks` — "purrs"
//! is the cat's, "barks" the dog's; nothing adjacent says so. A bag of words narrows a verb to the
//! sets of the nouns present (up to 12 of 24), the nearest noun is the wrong one for every outer
//! clause, and a head that attends from `q_k V` to `q_k N` (a particle matched to a particle, as an
//! induction head matches tokens) gets it: the verb's loss falls from `ln 12` or so to `ln 3`.
//!
//! Dependencies (heads are 0-based positions): determiner and first particle → their noun; noun →
//! its verb (nsubj); an embedded clause's verb → the noun it follows (acl); adverb and second
//! particle → their verb; the outermost verb is the root. At most `4 · 6 = 24` tokens
//! ([`MAX_LEN`]); no period.
//!
//! Words per open class (`lexicon`, as in the agreement grammar) limit the nouns to
//! `min(lexicon, 8)` and each noun's verbs to `min(lexicon, 3)`.
//!
//! `verbs-only` masking ([`super::language::Grammar::NestedVerbs`]) masks verbs and nothing else, so
//! every target is predicted by its arc alone (issue #35, family (b)).

use super::data::{AgreementItem, Builder, Sentence, FIRST_WORD};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Longest sentence in tokens (4 clauses of at most 6).
pub const MAX_LEN: usize = 24;
/// Deepest clause.
pub const DEPTH: usize = 4;
/// Probability that a clause holds a clause one level deeper (while `k < DEPTH`).
pub const P_NEST: f64 = 0.8;
/// Probability that a clause opens with a determiner.
pub const P_DET: f64 = 0.5;
/// Probability of an adverb before a clause's second particle.
pub const P_ADV: f64 = 0.3;
/// Nouns, each with its own [`VERBS_PER_NOUN`] verbs.
pub const N_NOUN: usize = 8;
/// Verbs a noun allows (disjoint sets).
pub const VERBS_PER_NOUN: usize = 3;

const WORDS: [&str; 42] = [
    // determiners, particles q1..q4
    "the",
    "a",
    "one",
    "q1",
    "q2",
    "q3",
    "q4", //
    // nouns
    "dog",
    "cat",
    "bird",
    "fish",
    "child",
    "farmer",
    "tree",
    "river", //
    // each noun's three verbs, in the nouns' order
    "barks",
    "digs",
    "fetches",
    "purrs",
    "meows",
    "scratches",
    "flies",
    "nests",
    "chirps", //
    "swims",
    "spawns",
    "darts",
    "plays",
    "giggles",
    "naps",
    "plows",
    "sows",
    "harvests", //
    "grows",
    "sways",
    "blooms",
    "flows",
    "floods",
    "bends", //
    // adverbs
    "often",
    "never",
    "again",
];

const fn id(index: usize) -> i64 {
    FIRST_WORD + index as i64
}

const DET0: usize = 0;
const N_DET: usize = 3;
const PARTICLE0: usize = 3;
const NOUN0: usize = 7;
const VERB0: usize = 15;
const ADV0: usize = 39;
const N_ADV: usize = 3;

/// Number of token ids: `PAD`, `MASK` and the 42 words (44).
pub const fn vocab_size() -> usize {
    FIRST_WORD as usize + WORDS.len()
}

/// Number of words (what BERT masking's random replacement draws from).
pub const fn n_words() -> usize {
    WORDS.len()
}

/// The spelling of token `id` (`"<unk>"` out of range; the specials by [`super::data::word`]).
pub fn word(id: i64) -> &'static str {
    match id {
        super::data::PAD | super::data::MASK => super::data::word(id),
        _ if id >= FIRST_WORD && ((id - FIRST_WORD) as usize) < WORDS.len() => WORDS[(id - FIRST_WORD) as usize],
        _ => "<unk>",
    }
}

/// The particle of depth `k` (1-based).
pub fn particle(k: usize) -> i64 {
    id(PARTICLE0 + k - 1)
}

/// The noun index (0..8) of a noun token, `None` for a non-noun.
pub fn noun_index(tok: i64) -> Option<usize> {
    let k = (tok - FIRST_WORD) as isize;
    (NOUN0 as isize..(NOUN0 + N_NOUN) as isize).contains(&k).then(|| (k as usize) - NOUN0)
}

/// The noun whose verb `tok` is and the verb's slot in its set, `None` for a non-verb.
pub fn verb_owner(tok: i64) -> Option<(usize, usize)> {
    let k = (tok - FIRST_WORD) as isize;
    let n = N_NOUN * VERBS_PER_NOUN;
    (VERB0 as isize..(VERB0 + n) as isize)
        .contains(&k)
        .then(|| ((k as usize - VERB0) / VERBS_PER_NOUN, (k as usize - VERB0) % VERBS_PER_NOUN))
}

/// Verb `slot` of noun `noun`.
pub fn verb_of(noun: usize, slot: usize) -> i64 {
    id(VERB0 + noun * VERBS_PER_NOUN + slot)
}

/// The minimal-pair foil of a verb: the verb in the same slot of the next noun (`(n + 1) mod 8`),
/// a real verb that the subject does not allow. `None` for a non-verb.
pub fn foil(tok: i64) -> Option<i64> {
    let (n, slot) = verb_owner(tok)?;
    Some(verb_of((n + 1) % N_NOUN, slot))
}

impl Builder<'_> {
    /// Clause at depth `k`; returns `(noun, verb)` positions.
    fn clause(&mut self, k: usize) -> (usize, usize) {
        let det = if self.coin(P_DET) {
            let d = id(DET0 + self.rng.random_range(0..N_DET));
            Some(self.push(d))
        } else {
            None
        };
        let q1 = self.push(particle(k));
        let noun = self.rng.random_range(0..N_NOUN.min(self.lexicon).max(1));
        let n = self.push(id(NOUN0 + noun));
        if let Some(d) = det {
            self.heads[d] = Some(n);
        }
        self.heads[q1] = Some(n);
        let inner = if k < DEPTH && self.coin(P_NEST) { Some(self.clause(k + 1)) } else { None };
        let adv = if self.coin(P_ADV) {
            let a = id(ADV0 + self.rng.random_range(0..N_ADV));
            Some(self.push(a))
        } else {
            None
        };
        let q2 = self.push(particle(k));
        let slot = self.rng.random_range(0..VERBS_PER_NOUN.min(self.lexicon).max(1));
        let v = self.push(verb_of(noun, slot));
        self.heads[n] = Some(v);
        self.heads[q2] = Some(v);
        if let Some(a) = adv {
            self.heads[a] = Some(v);
        }
        if let Some((_, inner_verb)) = inner {
            self.heads[inner_verb] = Some(n);
        }
        self.verbs.push((v, n));
        (n, v)
    }
}

/// Draws one sentence of the nested language with `lexicon` words per open class (0 counts as
/// 1). Every sentence fits [`MAX_LEN`]; nothing is rejected.
pub fn sample_with(rng: &mut ChaCha8Rng, lexicon: usize) -> Sentence {
    let mut b = Builder { rng, lexicon, tokens: Vec::new(), heads: Vec::new(), verbs: Vec::new() };
    let (subject, root) = b.clause(1);
    b.verbs.sort_unstable();
    Sentence {
        tokens: b.tokens,
        heads: b.heads,
        root,
        subject,
        verb_positions: b.verbs.iter().map(|v| v.0).collect(),
        controllers: b.verbs.iter().map(|v| v.1).collect(),
    }
}

/// `n` minimal pairs on the outermost verb (masked): the verb its subject selected against its
/// [`foil`]. `attractor` marks items with a noun of another kind between subject and verb.
pub fn selection_items_with(rng: &mut ChaCha8Rng, n: usize, lexicon: usize) -> Vec<AgreementItem> {
    (0..n)
        .map(|_| {
            let s = sample_with(rng, lexicon);
            let good = s.tokens[s.root];
            let bad = foil(good).unwrap_or(good);
            let subj = noun_index(s.tokens[s.subject]);
            let attractor =
                s.tokens[s.subject + 1..s.root].iter().any(|&w| noun_index(w).is_some_and(|m| Some(m) != subj));
            let mut tokens = s.tokens;
            tokens[s.root] = super::data::MASK;
            AgreementItem { tokens, verb_pos: s.root, subject_pos: s.subject, good, bad, attractor }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn vocabulary_layout() {
        assert_eq!(vocab_size(), 44);
        assert_eq!(word(particle(1)), "q1");
        assert_eq!(word(particle(4)), "q4");
        assert_eq!(word(id(NOUN0)), "dog");
        assert_eq!(word(verb_of(0, 0)), "barks");
        assert_eq!(word(verb_of(1, 0)), "purrs");
        assert_eq!(word(verb_of(7, 2)), "bends");
        assert_eq!(word(id(ADV0 + 2)), "again");
        assert_eq!(word(super::super::data::MASK), "<mask>");
        assert_eq!(word(vocab_size() as i64), "<unk>");
        assert_eq!(verb_owner(verb_of(5, 1)), Some((5, 1)));
        assert_eq!(verb_owner(id(NOUN0)), None);
        assert_eq!(foil(verb_of(0, 2)), Some(verb_of(1, 2)));
        assert_eq!(foil(verb_of(7, 0)), Some(verb_of(0, 0)));
        let mut w = WORDS.to_vec();
        w.sort_unstable();
        w.dedup();
        assert_eq!(w.len(), WORDS.len(), "no word spelled twice");
    }

    /// Every sentence is a tree with the documented arcs, and every verb is one its subject allows.
    #[test]
    fn sentences_are_trees_with_selection() {
        let mut r = ChaCha8Rng::seed_from_u64(5);
        let mut depths = [0usize; DEPTH + 1];
        for _ in 0..5000 {
            let s = sample_with(&mut r, 10);
            let l = s.len();
            assert!((4..=MAX_LEN).contains(&l), "{}", s.text());
            assert_eq!(s.heads[s.root], None);
            assert_eq!(s.heads.iter().filter(|h| h.is_none()).count(), 1, "one root: {}", s.text());
            // acyclic: every word reaches the root
            for i in 0..l {
                let (mut j, mut hops) = (i, 0);
                while let Some(h) = s.heads[j] {
                    j = h;
                    hops += 1;
                    assert!(hops <= l, "cycle in {}", s.text());
                }
                assert_eq!(j, s.root);
            }
            // each verb is selected by its controller, which is its nsubj child, and is preceded by
            // the particle that precedes that noun
            let clauses = s.verb_positions.len();
            depths[clauses] += 1;
            for (&v, &n) in s.verb_positions.iter().zip(&s.controllers) {
                let (owner, _) = verb_owner(s.tokens[v]).expect("a verb");
                assert_eq!(Some(owner), noun_index(s.tokens[n]));
                assert_eq!(s.heads[n], Some(v));
                assert_eq!(s.tokens[v - 1], s.tokens[n - 1], "matching particles in {}", s.text());
                assert_eq!(s.heads[v - 1], Some(v));
                assert_eq!(s.heads[n - 1], Some(n));
            }
            // the outermost clause opens the sentence and closes it
            assert_eq!(s.tokens[s.subject - 1], particle(1));
            assert_eq!(s.root, l - 1);
        }
        // P(k clauses) = 0.8^(k−1)·0.2 for k < 4, 0.8³ for 4: 1000, 800, 640, 2560 of 5000
        for (k, want) in [(1, 1000.0), (2, 800.0), (3, 640.0), (4, 2560.0)] {
            assert!((depths[k] as f64 - want).abs() < 4.0 * want.sqrt() + 10.0, "{k} clauses: {}", depths[k]);
        }
    }

    #[test]
    fn a_small_lexicon_limits_nouns_and_verbs() {
        let mut r = ChaCha8Rng::seed_from_u64(6);
        for _ in 0..500 {
            let s = sample_with(&mut r, 2);
            for &v in &s.verb_positions {
                let (n, slot) = verb_owner(s.tokens[v]).unwrap();
                assert!(n < 2 && slot < 2, "{}", s.text());
            }
        }
    }

    #[test]
    fn selection_items_mask_the_root_verb() {
        let mut r = ChaCha8Rng::seed_from_u64(7);
        let items = selection_items_with(&mut r, 200, 10);
        let mut attractors = 0;
        for it in &items {
            assert_eq!(it.tokens[it.verb_pos], super::super::data::MASK);
            assert_eq!(foil(it.good), Some(it.bad));
            assert_ne!(verb_owner(it.good).unwrap().0, verb_owner(it.bad).unwrap().0);
            attractors += usize::from(it.attractor);
        }
        // P(another kind of noun inside) = 0.16·7/8 + 0.128·(1 − 1/8²) + 0.512·(1 − 1/8³) ≈ 0.78
        assert!((130..=180).contains(&attractors), "{attractors}");
    }
}
