//! A fifth language for chapter 3: **copy agreement** (issue 52). Agreement is carried by one
//! circuit of two pieces that are useless apart, no shortcut predicts the target, and there is one
//! mode: each clause's verb ends in an *agreement slot* that must copy its own subject's class
//! token, across the clauses embedded between them.
//!
//! ```text
//! S       → U₀ F  U₁ F  U₂ F  W₂ F  W₁ F  W₀ F      k = 3 centre-embedded clauses
//! Uₐ      → q_a N c_a                               subject unit of clause a
//! Wₐ      → q_a V [c_a]                             verb unit: [c_a] is the agreement slot
//! F       → f^{0..2}                                0, 1 or 2 filler words, uniformly
//! ```
//!
//! The particles `q_a` of the three clauses are distinct, drawn from 8; `N` and `V` are drawn
//! uniformly from 24 words each and say nothing; the subject classes `c_a` are a permutation of
//! the 3 classes, so each class shows once per sentence on the subject side; the slot `[c_a]`
//! holds the class of its own clause's subject. Example (the issue's):
//! `q3 N13 c1 f0 f0 q1 N2 c0 f1 f3 q5 N15 c2 q5 V10 [c2] q1 V19 [c0] q3 V23 [c1] f2`.
//!
//! Masking ([`mask`]): **every agreement slot is always masked** (replaced by `MASK`, never by a
//! random word or itself), so counting the visible class tokens cannot give the answer; every
//! other word is selected with [`P_MASK`] = 0.15 and replaced BERT-style (80 % `MASK`, 10 % a
//! random word, 10 % kept; with the knob `mask-only`, always `MASK`, as the reference toy
//! masks). Fillers follow each of the six units (the example's trailing `f2`),
//! so the slot's subject class stands 3–5 words before the innermost slot and 9–15 and 15–25
//! before the others: no fixed offset finds it (the tests measure the distribution).
//!
//! Gold tree (heads are 0-based positions): in a subject unit the particle and the class token →
//! the noun, the noun → its clause's verb (nsubj); in a verb unit the particle → the verb, the
//! **slot → its subject's class token**, an embedded clause's verb → the noun of the clause
//! around it (acl); a filler → the verb of the innermost clause open where it stands (the
//! outermost verb after the last unit); the outermost verb is the root. The arcs that carry the
//! agreement are the slot's to its own subject unit — its class token, noun and particle
//! ([`sas_pairs`]); the SAS regularizer of this language is on those pairs, and the probe of
//! `uas_subject` scores the slot → class token arcs ([`slot_arcs`]).
//!
//! `lexicon` does not apply (24 nouns and 24 verbs always, as the reference). At most
//! `6 · 3 + 6 · 2 = 30` tokens ([`MAX_LEN`]).
//!
//! Three knobs ([`Options`], the keys `decoys`, `repeat-classes` and `mask-only`), all off in the
//! reference: **masking with `MASK` only** (see above; the reference toy's masking), and two of the
//! language: **decoy class tokens**, each of a uniform class placed at a uniform place among
//! the words of a uniform gap (after one of the six units), so that the class token nearest a
//! slot (the innermost clause's shortcut) need not be its subject's and the visible class tokens
//! no longer hold each class once; and **classes drawn with repetition**, independently per
//! clause, so that no slot's class follows by elimination from the others'. A decoy attaches as a
//! filler does and is masked as any other word; it is never a slot's head.

use super::data::{AgreementItem, Sentence, FIRST_WORD, IGNORE, MASK};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Clauses per sentence (k).
pub const CLAUSES: usize = 3;
/// Particles the clauses' distinct particles are drawn from.
pub const PARTICLES: usize = 8;
/// Uninformative nouns.
pub const NOUNS: usize = 24;
/// Uninformative verbs.
pub const VERBS: usize = 24;
/// Subject classes (a permutation of them per sentence).
pub const CLASSES: usize = 3;
/// Filler words.
pub const FILLERS: usize = 4;
/// Most filler words after a unit (uniform over `0..=MAX_FILLERS`).
pub const MAX_FILLERS: usize = 2;
/// Share of the words other than the slots that masking selects.
pub const P_MASK: f64 = 0.15;
/// Longest sentence in tokens: six units of 3 and up to 2 fillers after each.
pub const MAX_LEN: usize = 2 * CLAUSES * (3 + MAX_FILLERS);

/// The language's knobs: the reference language has neither (see the module's doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Decoy class tokens per sentence.
    pub decoys: usize,
    /// Subject classes drawn independently per clause (true) or as a permutation (false).
    pub repeat_classes: bool,
    /// Every word masking selects becomes `MASK` (true), or BERT-style (false; see [`mask`]).
    pub mask_only: bool,
}

impl Options {
    /// The reference language: no decoys, the classes a permutation.
    pub const REFERENCE: Options = Options { decoys: 0, repeat_classes: false, mask_only: false };

    /// Longest sentence in tokens: [`MAX_LEN`] and the decoys.
    pub fn max_len(&self) -> usize {
        MAX_LEN + self.decoys
    }
}

const WORDS: [&str; 63] = [
    "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", //
    "N0", "N1", "N2", "N3", "N4", "N5", "N6", "N7", "N8", "N9", "N10", "N11", "N12", "N13", "N14", "N15", "N16", "N17",
    "N18", "N19", "N20", "N21", "N22", "N23", //
    "V0", "V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10", "V11", "V12", "V13", "V14", "V15", "V16", "V17",
    "V18", "V19", "V20", "V21", "V22", "V23", //
    "c0", "c1", "c2", //
    "f0", "f1", "f2", "f3", //
];

const PARTICLE0: usize = 0;
const NOUN0: usize = PARTICLE0 + PARTICLES;
const VERB0: usize = NOUN0 + NOUNS;
const CLASS0: usize = VERB0 + VERBS;
const FILLER0: usize = CLASS0 + CLASSES;

const fn id(index: usize) -> i64 {
    FIRST_WORD + index as i64
}

/// Number of token ids: `PAD`, `MASK` and the 63 words (65).
pub const fn vocab_size() -> usize {
    FIRST_WORD as usize + WORDS.len()
}

/// Number of words (what masking's random replacement draws from).
pub const fn n_words() -> usize {
    WORDS.len()
}

/// The spelling of token `id` (`"<unk>"` out of range; the specials by [`super::data::word`]).
pub fn word(id: i64) -> &'static str {
    match id {
        super::data::PAD | MASK => super::data::word(id),
        _ if id >= FIRST_WORD && ((id - FIRST_WORD) as usize) < WORDS.len() => WORDS[(id - FIRST_WORD) as usize],
        _ => "<unk>",
    }
}

/// Particle `k` (0-based, `< PARTICLES`).
pub fn particle(k: usize) -> i64 {
    id(PARTICLE0 + k)
}
/// Noun `k`.
pub fn noun(k: usize) -> i64 {
    id(NOUN0 + k)
}
/// Verb `k`.
pub fn verb(k: usize) -> i64 {
    id(VERB0 + k)
}
/// Class token `k`.
pub fn class(k: usize) -> i64 {
    id(CLASS0 + k)
}
/// Filler `k`.
pub fn filler(k: usize) -> i64 {
    id(FILLER0 + k)
}

/// The class (0..3) of a class token, `None` for anything else.
pub fn class_of(tok: i64) -> Option<usize> {
    let k = tok - FIRST_WORD;
    (CLASS0 as i64..(CLASS0 + CLASSES) as i64).contains(&k).then(|| (k as usize) - CLASS0)
}

/// The minimal-pair foil of a class token: the next class (`(x + 1) mod 3`).
pub fn foil(tok: i64) -> Option<i64> {
    class_of(tok).map(|x| class((x + 1) % CLASSES))
}

/// One clause's words: particle, noun, verb and subject class (indices into their sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clause {
    /// Particle index (`< PARTICLES`).
    pub particle: usize,
    /// Noun index (`< NOUNS`).
    pub noun: usize,
    /// Verb index (`< VERBS`).
    pub verb: usize,
    /// Subject class (`< CLASSES`).
    pub class: usize,
}

/// The sentence of `clauses` (outermost first) with `fillers[u]` after unit `u` (the subject
/// units in order, then the verb units innermost first; an index `< FILLERS` is that filler word,
/// `FILLERS + x` a decoy class token of class `x`): tokens, gold tree, and in
/// [`Sentence`]'s terms `root` the outermost verb, `subject` the outermost noun,
/// `verb_positions` the slots (in order) and `controllers` their subjects' class tokens.
pub fn build(clauses: &[Clause], fillers: &[Vec<usize>]) -> Sentence {
    let k = clauses.len();
    let mut tokens = Vec::new();
    let mut heads: Vec<Option<usize>> = Vec::new();
    let push = |tokens: &mut Vec<i64>, tok: i64| {
        tokens.push(tok);
        tokens.len() - 1
    };
    // Positions per clause: (subject particle, noun, class, verb particle, verb, slot).
    let mut at = vec![[0usize; 6]; k];
    // The clause whose verb each filler attaches to (None: the outermost verb, after the last unit).
    let mut filler_owner: Vec<(usize, usize)> = vec![];
    let fill = |tokens: &mut Vec<i64>, owner: &mut Vec<(usize, usize)>, u: usize, clause: usize| {
        for &f in fillers.get(u).map_or(&[][..], |v| &v[..]) {
            tokens.push(if f < FILLERS { filler(f) } else { class(f - FILLERS) });
            owner.push((tokens.len() - 1, clause));
        }
    };
    for (a, c) in clauses.iter().enumerate() {
        at[a][0] = push(&mut tokens, particle(c.particle));
        at[a][1] = push(&mut tokens, noun(c.noun));
        at[a][2] = push(&mut tokens, class(c.class));
        fill(&mut tokens, &mut filler_owner, a, a);
    }
    for (u, a) in (0..k).rev().enumerate() {
        let c = clauses[a];
        at[a][3] = push(&mut tokens, particle(c.particle));
        at[a][4] = push(&mut tokens, verb(c.verb));
        at[a][5] = push(&mut tokens, class(c.class));
        fill(&mut tokens, &mut filler_owner, k + u, a.saturating_sub(1));
    }
    heads.resize(tokens.len(), None);
    for a in 0..k {
        let [q1, n, c, q2, v, slot] = at[a];
        heads[q1] = Some(n);
        heads[c] = Some(n);
        heads[n] = Some(v);
        heads[q2] = Some(v);
        heads[slot] = Some(c);
        if a > 0 {
            heads[v] = Some(at[a - 1][1]);
        }
    }
    for (pos, a) in filler_owner {
        heads[pos] = Some(at[a][4]);
    }
    let verb_positions: Vec<usize> = (0..k).rev().map(|a| at[a][5]).collect();
    let controllers: Vec<usize> = (0..k).rev().map(|a| at[a][2]).collect();
    Sentence { tokens, heads, root: at[0][4], subject: at[0][1], verb_positions, controllers }
}

/// Draws one sentence of the reference language ([`Options::REFERENCE`]).
pub fn sample(rng: &mut ChaCha8Rng) -> Sentence {
    sample_with(rng, &Options::REFERENCE)
}

/// Draws one sentence: [`CLAUSES`] distinct particles, a permutation of the classes (or, with
/// `repeat_classes`, each clause's class uniform), uniform nouns and verbs, `0..=MAX_FILLERS`
/// uniform fillers after each unit, then each decoy's gap, place in it and class. The reference
/// options draw exactly what [`sample`] always drew.
pub fn sample_with(rng: &mut ChaCha8Rng, options: &Options) -> Sentence {
    let mut particles: Vec<usize> = (0..PARTICLES).collect();
    for i in 0..CLAUSES {
        let j = rng.random_range(i..PARTICLES);
        particles.swap(i, j);
    }
    let mut classes: Vec<usize> = (0..CLASSES).collect();
    if options.repeat_classes {
        for c in classes.iter_mut() {
            *c = rng.random_range(0..CLASSES);
        }
    } else {
        for i in (1..CLASSES).rev() {
            let j = rng.random_range(0..=i);
            classes.swap(i, j);
        }
    }
    let clauses: Vec<Clause> = (0..CLAUSES)
        .map(|a| Clause {
            particle: particles[a],
            noun: rng.random_range(0..NOUNS),
            verb: rng.random_range(0..VERBS),
            class: classes[a % CLASSES],
        })
        .collect();
    let mut fillers: Vec<Vec<usize>> = (0..2 * CLAUSES)
        .map(|_| {
            let n = rng.random_range(0..=MAX_FILLERS);
            (0..n).map(|_| rng.random_range(0..FILLERS)).collect()
        })
        .collect();
    for _ in 0..options.decoys {
        let gap = &mut fillers[rng.random_range(0..2 * CLAUSES)];
        let at = rng.random_range(0..=gap.len());
        gap.insert(at, FILLERS + rng.random_range(0..CLASSES));
    }
    build(&clauses, &fillers)
}

/// One agreement slot of a sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Its position.
    pub pos: usize,
    /// The position of its own subject's class token (its gold head).
    pub class_pos: usize,
    /// Its clause's depth: 0 the outermost.
    pub depth: usize,
}

/// The slots of a sentence of this language, in order (the innermost clause's first).
pub fn slots(s: &Sentence) -> Vec<Slot> {
    let mut by_class: Vec<usize> = s.controllers.clone();
    by_class.sort_unstable();
    s.verb_positions
        .iter()
        .zip(&s.controllers)
        .map(|(&pos, &c)| Slot { pos, class_pos: c, depth: by_class.iter().position(|&x| x == c).unwrap_or(0) })
        .collect()
}

/// The pairs the SAS regularizer of this language covers: each slot with its own subject's class
/// token, noun and particle (`(slot, class)`, `(slot, class − 1)`, `(slot, class − 2)`).
pub fn sas_pairs(s: &Sentence) -> Vec<(usize, usize)> {
    slots(s).iter().flat_map(|x| [x.class_pos, x.class_pos - 1, x.class_pos - 2].map(|j| (x.pos, j))).collect()
}

/// Every word of each verb unit (particle, verb, slot) with every word of its own subject unit
/// (particle, noun, class token): 9 pairs per clause, the pairs of `sas-unit` (they cover a relay
/// of the class through the verb's particle or the verb as well as the slot's own arcs).
pub fn unit_pairs(s: &Sentence) -> Vec<(usize, usize)> {
    slots(s)
        .iter()
        .flat_map(|x| {
            let (verb, subject) = ([x.pos - 2, x.pos - 1, x.pos], [x.class_pos - 2, x.class_pos - 1, x.class_pos]);
            verb.into_iter().flat_map(move |v| subject.map(|u| (v, u)))
        })
        .collect()
}

/// The gold heads of the slot → subject class token arcs only (every other word `None`), for
/// the probe's `uas_subject` and its offset guess.
pub fn slot_arcs(sentences: &[Sentence]) -> Vec<Vec<Option<usize>>> {
    sentences
        .iter()
        .map(|s| {
            let mut h = vec![None; s.len()];
            for x in slots(s) {
                h[x.pos] = Some(x.class_pos);
            }
            h
        })
        .collect()
}

/// The slot → subject unit arcs, one gold array per unit word: each slot's own subject's class
/// token, noun and particle (`[class, class − 1, class − 2]`; every other word `None`), for the
/// probe's `uas_subject_unit` ([`crate::chapters::syntax::metrics::best_head_any_of`]).
pub fn unit_arcs(sentences: &[Sentence]) -> Vec<Vec<Vec<Option<usize>>>> {
    (0..3)
        .map(|back| {
            sentences
                .iter()
                .map(|s| {
                    let mut h = vec![None; s.len()];
                    for x in slots(s) {
                        h[x.pos] = Some(x.class_pos - back);
                    }
                    h
                })
                .collect()
        })
        .collect()
}

/// The MLM inputs and targets of a padded `[batch, t]` token array: every slot (of `sentences`)
/// becomes `MASK` with its class as the target; every other real position is selected with
/// [`P_MASK`] and becomes `MASK` (0.8), a uniformly random word (0.1) or stays (0.1), or with
/// `options.mask_only` always `MASK` (the choice of replacement is still drawn, the random word
/// is not, so the stream moves on differently). No sentence needs a forced target: each has its
/// slots.
pub fn mask(
    sentences: &[Sentence],
    tokens: &[i64],
    lengths: &[usize],
    t: usize,
    options: &Options,
    rng: &mut ChaCha8Rng,
) -> (Vec<i64>, Vec<i64>) {
    if t == 0 {
        return (Vec::new(), Vec::new());
    }
    let batch = lengths.len().min(tokens.len() / t);
    let mut inputs = tokens[..batch * t].to_vec();
    let mut targets = vec![IGNORE; batch * t];
    for (b, &len) in lengths.iter().enumerate().take(batch) {
        let slot: Vec<usize> = sentences.get(b).map_or(vec![], |s| s.verb_positions.clone());
        for i in 0..len.min(t) {
            let k = b * t + i;
            if slot.contains(&i) {
                targets[k] = tokens[k];
                inputs[k] = MASK;
            } else if rng.random::<f64>() < P_MASK {
                targets[k] = tokens[k];
                let r = rng.random::<f64>();
                if r < 0.8 || options.mask_only {
                    inputs[k] = MASK;
                } else if r < 0.9 {
                    inputs[k] = FIRST_WORD + rng.random_range(0..n_words() as i64);
                }
            }
        }
    }
    (inputs, targets)
}

/// `n` minimal pairs on the outermost clause's slot of sentences drawn with `options`: the
/// sentence with **every** slot masked (as in training; nothing else), the right class against
/// the next one ([`foil`]); `attractor` is always true (the other clauses' class tokens stand
/// between).
pub fn items(rng: &mut ChaCha8Rng, n: usize, options: &Options) -> Vec<AgreementItem> {
    (0..n)
        .map(|_| {
            let s = sample_with(rng, options);
            let outer = *slots(&s).iter().find(|x| x.depth == 0).expect("an outermost slot");
            let good = s.tokens[outer.pos];
            let mut tokens = s.tokens.clone();
            for &p in &s.verb_positions {
                tokens[p] = MASK;
            }
            AgreementItem {
                tokens,
                verb_pos: outer.pos,
                subject_pos: outer.class_pos,
                good,
                bad: foil(good).unwrap_or(good),
                attractor: true,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
