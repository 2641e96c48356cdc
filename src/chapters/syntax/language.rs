//! Chapter 3's languages behind one face: what the trainer, the probe and the documents ask of a
//! [`Grammar`] (its vocabulary, its longest sentence, its sentences with gold trees, its masking
//! and its minimal pairs), dispatched to the agreement grammar ([`super::data`]), the nested
//! language ([`super::nested`]), the bracket language ([`super::dyck`]) or copy agreement
//! ([`super::copy`]). The agreement grammar's draws are exactly those of `data`'s own
//! functions, so its rows are unchanged by the option.

use super::data::{self, AgreementItem, Sentence};
use super::{copy, dyck, nested};
pub use crate::config::Grammar;
use rand_chacha::ChaCha8Rng;

/// What a language's draws depend on besides its grammar: the words per open class
/// (`lexicon`; the agreement and nested grammars) and copy agreement's decoy class tokens and
/// class repetition (`decoys`, `repeat-classes`; [`copy::Options`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// Words per open class.
    pub lexicon: usize,
    /// Copy agreement's options.
    pub copy: copy::Options,
}

impl Draw {
    /// The full lexicon and the reference copy language.
    pub const FULL: Draw = Draw { lexicon: super::knobs::FULL_LEXICON, copy: copy::Options::REFERENCE };

    /// The draw a chapter 3 config asks for.
    pub fn of(cfg: &crate::config::RunConfig) -> Draw {
        Draw {
            lexicon: cfg.syntax.lexicon,
            copy: copy::Options {
                decoys: cfg.syntax.decoys,
                repeat_classes: cfg.syntax.repeat_classes == 1,
                mask_only: cfg.syntax.mask_only == 1,
            },
        }
    }
}

/// Share of a nested-verbs sentence's verbs that are masked (at least one is).
pub const VERB_MASK_PROB: f64 = 0.5;

/// Number of token ids (specials included): the model's vocabulary.
pub fn vocab_size(g: Grammar) -> usize {
    match g {
        Grammar::Agreement => data::vocab_size(),
        Grammar::Nested | Grammar::NestedVerbs => nested::vocab_size(),
        Grammar::Dyck => dyck::vocab_size(),
        Grammar::Copy => copy::vocab_size(),
    }
}

/// Longest sentence in tokens: the model's positions (copy agreement's grow by its decoys).
pub fn max_len(g: Grammar, draw: &Draw) -> usize {
    match g {
        Grammar::Agreement => data::MAX_LEN,
        Grammar::Nested | Grammar::NestedVerbs => nested::MAX_LEN,
        Grammar::Dyck => dyck::MAX_LEN,
        Grammar::Copy => draw.copy.max_len(),
    }
}

/// The spelling of token `id`.
pub fn word(g: Grammar, id: i64) -> &'static str {
    match g {
        Grammar::Agreement => data::word(id),
        Grammar::Nested | Grammar::NestedVerbs => nested::word(id),
        Grammar::Dyck => dyck::word(id),
        Grammar::Copy => copy::word(id),
    }
}

/// One sentence of `draw` (its lexicon; copy agreement's options).
pub fn sample(g: Grammar, rng: &mut ChaCha8Rng, draw: &Draw) -> Sentence {
    match g {
        Grammar::Agreement => data::sample_with(rng, draw.lexicon),
        Grammar::Nested | Grammar::NestedVerbs => nested::sample_with(rng, draw.lexicon),
        Grammar::Dyck => dyck::sample(rng),
        Grammar::Copy => copy::sample_with(rng, &draw.copy),
    }
}

/// `n` sentences.
pub fn sample_n(g: Grammar, rng: &mut ChaCha8Rng, n: usize, draw: &Draw) -> Vec<Sentence> {
    (0..n).map(|_| sample(g, rng, draw)).collect()
}

/// How the summaries name language `g`'s minimal-pair measures: `(part, pair, accuracy)`, the
/// part of the verb's loss that only the pair decides (`verb_number_loss`), what a pair
/// contrasts, and the name of `agreement_acc` ([`minimal_pairs`]).
pub fn pair_words(g: Grammar) -> (&'static str, &'static str, &'static str) {
    match g {
        Grammar::Agreement => ("number part", "the right verb form against the wrong one", "agreement"),
        Grammar::Nested | Grammar::NestedVerbs => {
            ("selection part", "the verb its subject selects against another noun's", "selection accuracy")
        }
        Grammar::Dyck => ("bracket-type part", "the right closing bracket against the next type", "bracket accuracy"),
        Grammar::Copy => {
            ("class part", "the outermost slot's right class against the next class", "slot class accuracy")
        }
    }
}

/// How the page names language `g`'s measures in chapter 3's charts and markers.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ChartWords {
    /// The masked target of `verb_loss`, e.g. "far-subject verbs".
    pub target: &'static str,
    /// The part of its loss only the minimal pair decides ([`pair_words`]'s part).
    pub part: &'static str,
    /// What `agreement_acc` measures ([`pair_words`]'s accuracy).
    pub accuracy: &'static str,
    /// What a minimal pair contrasts ([`pair_words`]'s pair).
    pub pair: &'static str,
    /// The marker where the part leaves its plateau at chance, e.g. "agreement onset".
    pub onset: &'static str,
    /// The arcs `uas_subject` scores, e.g. "subject → verb" ([`subject_arcs`]).
    pub arc: &'static str,
}

/// [`ChartWords`] of language `g`.
pub fn chart_words(g: Grammar) -> ChartWords {
    let (part, pair, accuracy) = pair_words(g);
    let (target, onset, arc) = match g {
        Grammar::Agreement => ("far-subject verbs", "agreement onset", "subject → verb"),
        Grammar::Nested | Grammar::NestedVerbs => ("far-subject verbs", "selection onset", "subject → verb"),
        Grammar::Dyck => ("far outer closing brackets", "bracket-type onset", "closing → opening bracket"),
        Grammar::Copy => ("outermost agreement slots", "copy onset", "slot → subject class"),
    };
    ChartWords { target, part, accuracy, pair, onset, arc }
}

/// The source file that documents language `g` (the sections name it).
pub fn source_file(g: Grammar) -> &'static str {
    match g {
        Grammar::Agreement => "src/chapters/syntax/data.rs",
        Grammar::Nested | Grammar::NestedVerbs => "src/chapters/syntax/nested.rs",
        Grammar::Dyck => "src/chapters/syntax/dyck.rs",
        Grammar::Copy => "src/chapters/syntax/copy.rs",
    }
}

/// `n` minimal pairs on the masked main verb: number agreement (the agreement grammar),
/// selection by the subject (the nested language, [`nested::foil`]) or the outer closing
/// bracket's type (the bracket language, [`dyck::foil`]) or the outermost slot's class (copy
/// agreement, [`copy::items`]). The lexicon does not apply to brackets or copy agreement.
pub fn minimal_pairs(g: Grammar, rng: &mut ChaCha8Rng, n: usize, draw: &Draw) -> Vec<AgreementItem> {
    match g {
        Grammar::Agreement => data::agreement_items_with(rng, n, draw.lexicon),
        Grammar::Nested | Grammar::NestedVerbs => nested::selection_items_with(rng, n, draw.lexicon),
        Grammar::Dyck => dyck::items(rng, n),
        Grammar::Copy => copy::items(rng, n, &draw.copy),
    }
}

/// The MLM inputs and targets of a padded batch: BERT masking ([`data::mlm_mask`]) over every
/// real position, or, for [`Grammar::NestedVerbs`], over the verbs only, each selected with
/// [`VERB_MASK_PROB`] (at least one per sentence), with the same 80/10/10 replacement; for
/// [`Grammar::Copy`] every agreement slot always and the other words with 0.15 ([`copy::mask`],
/// replaced as `draw.copy` says).
pub fn mask(
    g: Grammar,
    draw: &Draw,
    sentences: &[Sentence],
    tokens: &[i64],
    lengths: &[usize],
    t: usize,
    rng: &mut ChaCha8Rng,
) -> (Vec<i64>, Vec<i64>) {
    match g {
        Grammar::Agreement => data::mlm_mask(tokens, lengths, t, rng),
        Grammar::Nested => data::mlm_mask_among(tokens, lengths, t, nested::n_words(), None, data::MLM_PROB, rng),
        Grammar::Dyck => data::mlm_mask_among(tokens, lengths, t, dyck::n_words(), None, data::MLM_PROB, rng),
        Grammar::NestedVerbs => {
            let verbs: Vec<Vec<usize>> = sentences.iter().map(|s| s.verb_positions.clone()).collect();
            data::mlm_mask_among(tokens, lengths, t, nested::n_words(), Some(&verbs), VERB_MASK_PROB, rng)
        }
        Grammar::Copy => copy::mask(sentences, tokens, lengths, t, &draw.copy, rng),
    }
}

/// The SAS edge mask `[batch, t, t]` of language `g`: both directions of every gold arc
/// ([`super::metrics::sas_edge_mask`]), or for [`Grammar::Copy`] both directions of each slot's
/// pairs with its own subject's class token, noun and particle ([`copy::sas_pairs`]).
pub fn sas_edges(g: Grammar, sentences: &[Sentence], lengths: &[usize], t: usize) -> Vec<f32> {
    sas_edges_of(g, sentences, lengths, t, false)
}

/// [`sas_edges`], or for [`Grammar::Copy`] with `units` every word of each verb unit with every
/// word of its own subject unit ([`copy::unit_pairs`]): the pairs of `sas-unit`.
pub fn sas_edges_of(g: Grammar, sentences: &[Sentence], lengths: &[usize], t: usize, units: bool) -> Vec<f32> {
    match g {
        Grammar::Copy => {
            let pick = if units { copy::unit_pairs } else { copy::sas_pairs };
            let pairs: Vec<Vec<(usize, usize)>> = sentences.iter().map(pick).collect();
            super::metrics::sas_pair_mask(&pairs, lengths, t)
        }
        _ => super::metrics::sas_edge_mask(&data::gold_heads(sentences), lengths, t),
    }
}

/// The arcs of `uas_subject`: the main subject's head noun → the main verb (nsubj; in `dyck` the
/// outer closing bracket → its opening one), or for [`Grammar::Copy`] every slot → its own
/// subject's class token ([`copy::slot_arcs`]); every other word `None`.
pub fn subject_arcs(g: Grammar, sentences: &[Sentence]) -> Vec<Vec<Option<usize>>> {
    match g {
        Grammar::Copy => copy::slot_arcs(sentences),
        _ => sentences
            .iter()
            .map(|s| {
                let mut h = vec![None; s.len()];
                h[s.subject] = Some(s.root);
                h
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn chart_words_name_each_languages_own_pair() {
        let w = chart_words(Grammar::Nested);
        assert_eq!((w.part, w.accuracy, w.onset), ("selection part", "selection accuracy", "selection onset"));
        assert_eq!(chart_words(Grammar::Agreement).onset, "agreement onset");
        assert_eq!(chart_words(Grammar::NestedVerbs), w, "the same language, other masking");
        for g in Grammar::ALL {
            let w = chart_words(g);
            assert_eq!((w.part, w.pair, w.accuracy), pair_words(g));
        }
        assert_ne!(chart_words(Grammar::Dyck).target, w.target);
        assert_eq!((w.arc, chart_words(Grammar::Copy).arc), ("subject → verb", "slot → subject class"));
    }

    #[test]
    fn agreement_draws_are_the_grammars_own() {
        let g = Grammar::Agreement;
        let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(3), ChaCha8Rng::seed_from_u64(3));
        let s = sample_n(g, &mut a, 40, &Draw::FULL);
        assert_eq!(s, data::sample_n(&mut b, 40));
        let t = max_len(g, &Draw::FULL);
        let (tok, len) = data::batch(&s, t);
        let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(4), ChaCha8Rng::seed_from_u64(4));
        assert_eq!(mask(g, &Draw::FULL, &s, &tok, &len, t, &mut a), data::mlm_mask(&tok, &len, t, &mut b));
        assert_eq!((vocab_size(g), t, word(g, data::THE)), (65, 20, "the"));
    }

    #[test]
    fn nested_verbs_masks_verbs_only() {
        let g = Grammar::NestedVerbs;
        let mut r = ChaCha8Rng::seed_from_u64(8);
        let s = sample_n(g, &mut r, 300, &Draw::FULL);
        let t = max_len(g, &Draw::FULL);
        let (tok, len) = data::batch(&s, t);
        let (inputs, targets) = mask(g, &Draw::FULL, &s, &tok, &len, t, &mut r);
        let (mut masked, mut verbs) = (0usize, 0usize);
        for (b, sent) in s.iter().enumerate() {
            let chosen: Vec<usize> = (0..t).filter(|&i| targets[b * t + i] != data::IGNORE).collect();
            assert!(!chosen.is_empty(), "at least one target per sentence");
            assert!(chosen.iter().all(|i| sent.verb_positions.contains(i)), "{}", sent.text());
            for &i in &chosen {
                assert_eq!(targets[b * t + i], sent.tokens[i]);
                let x = inputs[b * t + i];
                assert!(x == data::MASK || (x >= data::FIRST_WORD && (x as usize) < vocab_size(g)));
            }
            masked += chosen.len();
            verbs += sent.verb_positions.len();
        }
        // half the verbs, plus the forced one where none was drawn (one-clause sentences: 1 in 5)
        let share = masked as f64 / verbs as f64;
        assert!((0.48..0.62).contains(&share), "{share}");
        // the nested language's BERT masking replaces with its own words only
        let g = Grammar::Nested;
        let (inputs, _) = mask(g, &Draw::FULL, &s, &tok, &len, t, &mut r);
        assert!(inputs.iter().all(|&x| (x as usize) < vocab_size(g)));
    }
}
