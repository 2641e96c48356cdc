//! The text of chapter 3's sections of `REPRODUCTION.md`, beside the tables they quote: the λ
//! conditions of one configuration, the search for a plateau and the language design search
//! (`plateau reproduce --experiment syntax [--search | --design]` writes them).

use super::{
    copy_findings, copy_table, design_findings, design_table, search_findings, search_table, syntax_comparison,
    syntax_table, CopyCell, SearchCell, SyntaxSummary,
};
use crate::chapters::syntax::metrics as m;
use crate::config::RunConfig;

/// The section of the λ conditions (baseline, suppression, promotion, brief suppression) of
/// `base`'s runs (`csv_dir` holds their CSVs), with the page's paragraph for the page's default.
pub fn syntax_section(
    written_by: &str,
    base: &RunConfig,
    csv_dir: &str,
    runs: &[SyntaxSummary],
    page: Option<&str>,
) -> String {
    let page_paragraph = match page {
        Some(paragraph) => format!("\n### On the page\n\nChapter 3's text quotes this paragraph (`index.html`, section `chapter3-findings`):\n\n> {paragraph}\n"),
        None => String::new(),
    };
    format!(
        "## Chapter 3 — {} preset{}, syntax (generated)\n\n\
         {}. Encoder: {}; MLM with BERT masking (`language::mask`) on the \
         {} language of `{}`; R averaged over sentences (the paper's code \
         sums over the batch). The loss drop is where `verb_loss` (the masked main verb of {} fixed held-out sentences \
         whose subject stands ≥ {} words before it) leaves a plateau, and the structure onset where the UAS over \
         non-adjacent arcs leaves one, both by `metrics::syntax::plateau_end`. Per-run CSVs: `{csv_dir}/`.\n\n{}\n\
         ### The paper's questions\n\n{}{}",
        base.preset.name(),
        variant_words(base),
        written_by,
        crate::report::model_line(base),
        base.syntax.grammar.name(),
        crate::chapters::syntax::language::source_file(base.syntax.grammar),
        crate::chapters::syntax::VERB_ITEMS,
        crate::chapters::syntax::VERB_MIN_DISTANCE,
        syntax_table(runs, base.syntax.grammar),
        syntax_comparison(runs, base.syntax.grammar),
        page_paragraph,
    )
}

/// The language design search's section (`base`: the configuration each design changes the
/// language of), with the page's paragraph.
pub fn design_section(written_by: &str, base: &RunConfig, cells: &[SearchCell], paragraph: &str) -> String {
    format!(
        "## Chapter 3 — the design search: which language gives a sudden drop with the syntactic heads (generated)\n\n\
         {}, from the runs named in \
         `SYNTAX_DESIGN` (`src/bin/plateau/cli/reproduce_syntax.rs`). Each line changes the *language* of the agreement grammar's interactive configuration ({}; the chapter's default until URL version 3); \
         the languages are documented in `src/chapters/syntax/data.rs` (agreement), `src/chapters/syntax/nested.rs` \
         (nested, nested-verbs) and `src/chapters/syntax/dyck.rs` (dyck). For every run: the plateau of `verb_loss` (the masked outermost verb of {} fixed held-out \
         sentences whose subject stands ≥ {} words before it) and its drop, by the rule of `metrics::syntax::plateau_end` \
         (as in the plateau search below); the fall's 10 % and 90 % steps (`metrics::syntax::fall_width`: first held for \
         {} evaluations, the floor the median of the last {}) and whether its width is at most {} of the plateau's length \
         (sudden, `metrics::syntax::is_sudden`); the structure onset by the same plateau rule rising on the best head's UAS \
         of the subject → verb arcs (the arcs `verb_loss` needs) and on all non-adjacent arcs of {} fixed sentences; and \
         whether an onset lies within two evaluations of a sudden drop (issue #35's rule, fixed before any design was run). \
         Every finished run of this command is listed.\n\n{}\n### What it shows\n\n{}\n### On the page\n\n\
         Chapter 3's text quotes this paragraph (`index.html`, section `chapter3-design-findings`):\n\n> {paragraph}\n",
        written_by,
        crate::report::model_line(base),
        crate::chapters::syntax::VERB_ITEMS,
        crate::chapters::syntax::VERB_MIN_DISTANCE,
        m::FALL_SUSTAIN,
        m::FLOOR_EVALS,
        m::SUDDEN_SHARE,
        crate::chapters::syntax::PROBE_SENTENCES,
        design_table(cells),
        design_findings(cells),
    )
}

/// The copy-agreement section (issue 52): the reference configuration `base` reproduced, and any
/// configuration of the search that changes one factor of it.
pub fn copy_section(written_by: &str, dir: &str, base: &RunConfig, cells: &[CopyCell], paragraph: &str) -> String {
    format!(
        "## Chapter 3 — copy agreement: the reference configuration and its search (generated)\n\n\
         {}, from the runs in `{dir}/` named in `COPY_CONFIGS` (`src/bin/plateau/cli/reproduce_syntax.rs`). \
         The language is `src/chapters/syntax/copy.rs` (issue 52: 3 centre-embedded clauses, each verb's agreement slot, \
         always masked, copies its own subject's class token; classes a permutation of 3, particles distinct from 8, \
         24 nouns and 24 verbs, 0–2 fillers after each unit, every other word masked with p = 0.15; its two knobs, off \
         in the reference, are `decoys`, class tokens placed among the fillers, and `repeat-classes`, classes drawn \
         with repetition). The reference \
         configuration: {}, warm-up {} steps, the engine's pre-LN encoder with the paper's init. For every run: the \
         plateau of `slot_loss` (the loss at every slot of the {} held-out sentences of each evaluation, masked as in \
         training) that ends in its drop, by `metrics::syntax::plateau_end` (≥ 5 evaluations within 4σ̂, then a fall of \
         6σ̂ that holds for 2), the fall's 10 % and 90 % steps (`fall_width`: held for {} evaluations, the floor the \
         median of the last {}), sudden when the width is at most {} of the plateau (`is_sudden`), the onset of the best \
         head's UAS on the slot → subject class arcs (`uas_subject`, the same plateau rule rising) and whether it lies \
         within two evaluations of the drop; the slot accuracy and that UAS at the end (means of the last 5 \
         evaluations) against the best fixed-offset guess (offsets −3..+2); the same probe on the slot → subject \
         *unit* arcs (`uas_subject_unit`: the slot's predicted head is its own subject's class token, noun or \
         particle, the three gold arcs of the slot, read on the held-out batch masked as in training, every slot \
         masked, since the model never sees a slot unmasked while `uas_subject` reads unmasked sentences as the \
         paper's probe does; added after the first runs, which do not have it, when their class-token UAS stayed \
         low through the drop), its onset and its offset guess; and each clause depth's own slot loss \
         (`slot_loss_d0`, `_d1`, `_d2`, outermost first) by the same plateau and fall rules, its drop, fall width and \
         whether that fall is sudden (for the outermost slot also whether the subject-unit onset lies within two \
         evaluations of its drop) \
         (depths that drop one after another widen the whole slot loss's fall). All these rules are the design \
         search's, fixed before any run. Every finished run of this command is listed.\n\n\
         **Against the reference toy** (issue 52: pre-LN bidirectional encoder, 2 layers × 4 heads, d 64, d_ff 256, \
         weights N(0, 0.02), AdamW lr 10⁻³, warm-up 100, weight decay 0.01, batch 128, fresh sentences each step, \
         5000 steps). The same here: pre-LN blocks (`x += Attn(LN(x)); x += MLP(LN(x))`, a final LayerNorm), no causal \
         mask, the shape, the optimizer's rate, decay and batch, fresh sentences every step (the `Train` stream). \
         What differs or is not known of the reference: (1) the init is the paper's (`Init::Paper`): N(0, 0.02²) for \
         the embeddings, Q, K, V, the MLP's first layer and the LM head, but the two output projections (attention out, \
         MLP down) N(0, (0.02/√(2·layers))²), 0.01 at 2 layers (the configuration `flat-out` draws them N(0, 0.02²) as \
         the reference; `qk-init` scales the std of W_q and W_k, a knob the issue names); (2) learned position embeddings for 30 positions, an \
         untied LM head without bias, biases 0, no CLS/SEP; (3) GELU in its tanh form (PyTorch's `nn.GELU` default is \
         the exact one); (4) AdamW with betas (0.9, 0.999), ε 10⁻⁸, the decay on every parameter, the rate rising \
         linearly over the first 100 steps and constant after (no decay of the rate); (5) the words other than the \
         slots are replaced BERT-style when selected (80 % `MASK`, 10 % a random word, 10 % kept) and the loss is the \
         mean over every target of the batch, slots and others (the configurations named `mask-only` replace every \
         selected word by `MASK`, as the reference's masking reads and as a PyTorch transcription of it, \
         `bench/copy_toy.py`, masks: there BERT's replacement shortened the plateau at ln 3 on every seed tried); (6) four filler words, 0–2 after each of the six units \
         (the example's trailing filler); (7) the slot loss is measured on {} fresh held-out sentences every {} steps.\n\n\
         {}\n### What it shows\n\n{}\n### On the page\n\n\
         Chapter 3's text quotes this paragraph (`index.html`, section `chapter3-copy-findings`):\n\n> {paragraph}\n",
        written_by,
        crate::report::model_line(base),
        base.warmup,
        base.eval_batch,
        m::FALL_SUSTAIN,
        m::FLOOR_EVALS,
        m::SUDDEN_SHARE,
        base.eval_batch,
        base.eval_every,
        copy_table(cells),
        copy_findings(cells),
    )
}

/// The plateau search's section (`dir` holds its runs), with the page's paragraph.
pub fn search_section(written_by: &str, dir: &str, base: &RunConfig, cells: &[SearchCell], paragraph: &str) -> String {
    format!(
        "## Chapter 3 — the search for a plateau (generated)\n\n\
         {}, from the runs in `{dir}/`. \
         Each configuration changes one factor of the agreement grammar's interactive configuration ({}; the chapter's default until URL version 3) that plausibly creates a plateau. \
         For every run: the plateau of `verb_loss` (the masked main verb's loss on {} fixed held-out sentences whose \
         subject stands ≥ {} words before it) that ends in its drop, by the rule of `metrics::syntax::plateau_end` \
         (≥ 5 evaluations within a band of 4σ̂, then a fall of 6σ̂ below the band within 5 evaluations that holds for 2; \
         σ̂ the curve's own evaluation-to-evaluation noise); the structure onset, the same rule rising on the UAS over \
         non-adjacent arcs of {} fixed held-out sentences; whether the two lie within two evaluations; and how far the \
         best non-adjacent UAS rises above its best fixed-offset guess. A plateau that ends where a warm-up ends is the \
         learning rate's ramp, not the model's. Every finished run of this command is listed.\n\n\
         {}\n### What it shows\n\n{}\n### On the page\n\nChapter 3's text quotes this paragraph (`index.html`, section \
         `chapter3-search-findings`):\n\n> {paragraph}\n",
        written_by,
        crate::report::model_line(base),
        crate::chapters::syntax::VERB_ITEMS,
        crate::chapters::syntax::VERB_MIN_DISTANCE,
        crate::chapters::syntax::PROBE_SENTENCES,
        search_table(cells),
        search_findings(cells),
    )
}

/// The language and model of a chapter 3 run where they differ from the agreement grammar's
/// configuration of its preset, in words for the section's title: "" or ", nested language, 1 layer(s)".
pub fn variant_words(cfg: &RunConfig) -> String {
    let d = RunConfig::syntax_agreement(cfg.preset);
    let mut w = vec![];
    if cfg.syntax.grammar != d.syntax.grammar {
        w.push(format!("{} language", cfg.syntax.grammar.name()));
    }
    if cfg.layers != d.layers {
        w.push(format!("{} layer(s)", cfg.layers));
    }
    if cfg.heads != d.heads {
        w.push(format!("{} head(s) per layer", cfg.heads));
    }
    if w.is_empty() {
        String::new()
    } else {
        format!(", {}", w.join(", "))
    }
}
