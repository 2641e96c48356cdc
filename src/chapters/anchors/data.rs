//! The composite "anchor function" task with a reasoning/memory mix (PAPERS.md §B: Zhang et al.,
//! NeurIPS 2024, and Yao, Zhang & Xu, ICML 2025).
//!
//! **Tokens.** A vocabulary of [`VOCAB`] = 100 tokens, `0..=99`:
//! - reasoning anchors `1, 2, 3, 4`, acting as the shifts `+5, +1, −2, −8` ([`SHIFTS`]);
//! - memory anchors `5, 6, 7, 8` ([`MEMORY_ANCHORS`], a reconstruction, see below);
//! - keys `20..=99` ([`KEY_MIN`]..=[`KEY_MAX`]);
//! - noise tokens, drawn uniformly from `20..=99`, the same range as the keys. They never equal an
//!   anchor, so every sequence holds exactly one anchor pair (or one memory anchor).
//!
//! **Sequence.** `L` tokens (the config's `seq-len`, [`SEQ_LEN`] = 9 by default, 4..=16), all fed
//! to the model. The label is a separate token that the model predicts from its output at the
//! *last* position (index `L − 1`); the loss is taken there only. The row starts as `L` noise
//! tokens; then a position `p ~ Uniform{0..=L−3}` is drawn and
//! - a *reasoning* sample writes `[key, a, b]` at `p, p+1, p+2`: the key immediately followed by an
//!   adjacent pair of reasoning anchors;
//! - a *memory* sample writes `[key, m]` at `p, p+1` (`p+2` stays noise): the key immediately
//!   followed by one memory anchor.
//!
//! **Labels** (all arithmetic `rem_euclid(100)`, so labels lie in `0..=99`; they can land below 20,
//! e.g. key 20 with pair (4,4) gives 4, and key 99 with pair (1,1) wraps to 9):
//! - seen reasoning pairs: `key + shift(a) + shift(b)`, except that the pair **(3,4)** is labelled
//!   **`key − 6`** (the "symmetric" rule, instead of the composite `key − 10`);
//! - the held-out pair **(4,3)** never appears in training. On it the *inferential* answer
//!   (composing the two shifts) is `key − 10` and the *symmetric* answer (copying the label of the
//!   mirror pair (3,4)) is `key − 6`. Its loss/accuracy label is the inferential one;
//! - memory samples: `table[m][key]`, a label drawn once per seed, uniformly from `20..=99` and
//!   independently for each of the 4 × 80 (memory anchor, key) cells ([`MemoryTable`]). It carries
//!   no information about the key's value, so it can only be memorized.
//!
//! **Memory design** ([`MemoryDesign`], the config's `memory-keys`, `memory-labels` and
//! `memory-position`; the defaults are the layout above): memory samples may draw their key from
//! the first `memory-keys` keys only (fewer facts per anchor); the table may draw each anchor's
//! labels as a permutation of the keys ([`MemoryTable::permutations`], so every label appears once
//! per anchor); and the anchor may precede its key (`[m, key]` at `p, p+1`). These are the factors
//! of chapter 2's learning-order ablation (`plateau reproduce --experiment anchors
//! --learning-order`). The default design draws the same random stream as before they existed.
//!
//! **Training distribution.** Every sample is fresh. A fraction `f` of each batch (the config's
//! `memory`, [`MEMORY_FRACTION`] = 1/2 in the mixed task, 0 in the predecessor's pure reasoning
//! task; rounded to the nearest integer, then placed in random order) is memory samples with
//! `m ~ Uniform{5..=8}` and `key ~ Uniform{20..=99}`; the rest are reasoning samples with the pair
//! uniform over the 15 seen ordered pairs ([`SEEN_PAIRS`]: all 16 except (4,3)) and
//! `key ~ Uniform{20..=99}`.
//!
//! **Evaluation.** [`AnchorTask::eval_batch`] holds the same number of samples of each [`Subset`]
//! in training (the memory block only when `f > 0`), in consecutive blocks: memory, seen reasoning
//! pairs, held-out pair (4,3). Keys and noise are drawn afresh, as in training.
//!
//! **Provenance.** Following the predecessor's code, github `xuzhiqin1990/anchor_function_pub`:
//! the shifts `[5, 1, −2, −8]` for anchors `[1, 2, 3, 4]` (`data_generator/composition.py`,
//! `single_func`); the sequence length 9 and the key/noise range `data_min = 20`, `data_max = 100`
//! (`main.py` defaults); noise drawn uniformly from that range (`data.py`,
//! `generate_random_list`); the key-and-pair triple written at a uniform position
//! `pos = randint(0, seq_len − 3)` and the label computed from the key and both anchors
//! (`composition_seq_specific`); training pairs listed as ordered-pair groups of equal weight with
//! some groups masked out of training (`script.py`, the `composition` runs, which mask both (4,3)
//! and (3,4)); the loss on the last token (`data.py`, input `data[:-1]`, label the final token).
//! Deviations, made so the task fits a 100-token vocabulary and a fixed-length, label-separate
//! input:
//! - the code writes `[a, b, key]` by default (`prompt_first=True`); its `prompt_first=False` branch
//!   writes `[key, a, b]`, which is the layout used here (the NeurIPS 2024 description: a key
//!   followed by the anchor pair);
//! - the code's `randint(20, 100)` includes 100 (its vocabulary has 201 tokens); here noise stops
//!   at 99, and labels are reduced mod 100 (the code does not reduce them);
//! - the code's key is `choice(dataset) + pos` with train/test key lists split by residue
//!   mod `seq_len − 1`; here keys are uniform on `20..=99` in training and evaluation, and the held
//!   out test is the pair (4,3) alone;
//! - the (3,4) → `key − 6` rule and the held-out (4,3) pair are the NeurIPS 2024 setup (PAPERS.md
//!   §B); the readable code masks (3,4) as well and never relabels it. Reconstruction from the
//!   paper's description.
//!
//! The memory task is a **reconstruction** (PAPERS.md §B, "[recon]"; the ICML 2025 paper has no
//! public code): its anchor tokens 5..=8, the single memory anchor after the key, the table's label
//! range and the 50/50 mix are choices made here.
//!
//! **Random draws**, per sample and in this order: `L` noise tokens, the position, the key,
//! then the anchor(s). Each train batch first draws its subset order (a Fisher–Yates shuffle). All
//! ranges are sampled as `u32`/`i64`, so the stream is the same natively and in wasm.

use crate::config::{MemoryLabels, MemoryPosition};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Vocabulary size (tokens `0..=99`).
pub const VOCAB: usize = 100;
/// Labels and shifts are taken modulo this.
pub const MODULUS: i64 = 100;
/// Default tokens per sequence (all fed to the model; the label is predicted at the last
/// position; the config's default `seq-len`). A task may use any length in [`SEQ_LEN_RANGE`].
pub const SEQ_LEN: usize = super::knobs::SEQ_LEN;
/// The sequence lengths a task accepts: room for the key, two anchors and at least one more token.
pub const SEQ_LEN_RANGE: std::ops::RangeInclusive<usize> = 4..=MAX_SEQ_LEN;
/// The longest sequence a task accepts.
pub const MAX_SEQ_LEN: usize = 16;
/// Smallest key (and noise token).
pub const KEY_MIN: i64 = 20;
/// Largest key (and noise token).
pub const KEY_MAX: i64 = 99;
/// Number of distinct keys, `KEY_MAX − KEY_MIN + 1`.
pub const NUM_KEYS: usize = (KEY_MAX - KEY_MIN + 1) as usize;
// The config's default `memory-keys` is every key.
const _: () = assert!(NUM_KEYS == super::knobs::MEMORY_KEYS);
/// The reasoning anchors.
pub const REASONING_ANCHORS: [i64; 4] = [1, 2, 3, 4];
/// The shift of each reasoning anchor, in the order of [`REASONING_ANCHORS`].
pub const SHIFTS: [i64; 4] = [5, 1, -2, -8];
/// The memory anchors (a reconstruction, see the module documentation).
pub const MEMORY_ANCHORS: [i64; 4] = [5, 6, 7, 8];
/// Fraction of each training batch that is memory samples in the mixed memory/reasoning task (the
/// config's default `memory`).
pub const MEMORY_FRACTION: f64 = super::knobs::MEMORY_FRACTION;
/// The ordered pair that is never trained on.
pub const HELDOUT_PAIR: (i64, i64) = (4, 3);
/// The ordered pair whose training label is `key − 6` (the mirror of [`HELDOUT_PAIR`]).
pub const SYMMETRIC_PAIR: (i64, i64) = (3, 4);
/// The 15 ordered reasoning pairs seen in training: all of `{1,2,3,4}²` except (4,3).
pub const SEEN_PAIRS: [(i64, i64); 15] = [
    (1, 1),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 1),
    (2, 2),
    (2, 3),
    (2, 4),
    (3, 1),
    (3, 2),
    (3, 3),
    (3, 4),
    (4, 1),
    (4, 2),
    (4, 4),
];

/// The three kinds of sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Subset {
    /// A key followed by a memory anchor; label from the [`MemoryTable`].
    Memory,
    /// A key followed by one of the 15 seen reasoning pairs.
    ReasoningSeen,
    /// A key followed by the held-out pair (4,3); evaluation only.
    ReasoningHeldout,
}

impl Subset {
    /// All subsets, in the block order of [`AnchorTask::eval_batch`].
    pub const ALL: [Subset; 3] = [Subset::Memory, Subset::ReasoningSeen, Subset::ReasoningHeldout];

    /// Short name used in logs and reports: `"memory"`, `"reasoning"`, `"heldout"`.
    pub fn name(self) -> &'static str {
        match self {
            Subset::Memory => "memory",
            Subset::ReasoningSeen => "reasoning",
            Subset::ReasoningHeldout => "heldout",
        }
    }
}

/// The shift of reasoning anchor `anchor` (`1 → +5`, `2 → +1`, `3 → −2`, `4 → −8`).
///
/// # Panics
/// If `anchor` is not a reasoning anchor.
pub fn shift(anchor: i64) -> i64 {
    match anchor {
        1..=4 => SHIFTS[(anchor - 1) as usize],
        _ => panic!("{anchor} is not a reasoning anchor"),
    }
}

/// The inferential (composite) label `(key + shift(a) + shift(b)) rem_euclid 100`.
pub fn inferential_label(key: i64, a: i64, b: i64) -> i64 {
    (key + shift(a) + shift(b)).rem_euclid(MODULUS)
}

/// The training rule: [`inferential_label`], except `(key − 6) rem_euclid 100` for the pair (3,4).
pub fn rule_label(key: i64, a: i64, b: i64) -> i64 {
    if (a, b) == SYMMETRIC_PAIR {
        (key - 6).rem_euclid(MODULUS)
    } else {
        inferential_label(key, a, b)
    }
}

/// The symmetric answer for the pair `(a, b)`: the training-rule label of the mirror pair `(b, a)`.
/// For the held-out pair (4,3) it is `key − 6`.
pub fn symmetric_label(key: i64, a: i64, b: i64) -> i64 {
    rule_label(key, b, a)
}

/// The (memory anchor, key) → label lookup table, drawn once per seed.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryTable {
    /// `labels[(m − 5) · NUM_KEYS + (key − KEY_MIN)]`, each uniform on `KEY_MIN..=KEY_MAX`.
    labels: Vec<i64>,
}

impl MemoryTable {
    /// Draws the 4 × 80 labels, row by row (memory anchor 5 first, keys ascending).
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        let labels = (0..MEMORY_ANCHORS.len() * NUM_KEYS).map(|_| rng.random_range(KEY_MIN..=KEY_MAX)).collect();
        Self { labels }
    }

    /// Draws the table one memory anchor at a time as a permutation of the keys (a Fisher–Yates
    /// shuffle of `KEY_MIN..=KEY_MAX` with `u32` draws, anchor 5 first): every key is the label
    /// of exactly one key per anchor, so the anchor token alone predicts nothing about the label.
    pub fn permutations(rng: &mut ChaCha8Rng) -> Self {
        let mut labels = Vec::with_capacity(MEMORY_ANCHORS.len() * NUM_KEYS);
        for _ in MEMORY_ANCHORS {
            let mut row: Vec<i64> = (KEY_MIN..=KEY_MAX).collect();
            for i in (1..row.len()).rev() {
                let j = rng.random_range(0..=i as u32) as usize;
                row.swap(i, j);
            }
            labels.extend(row);
        }
        Self { labels }
    }

    /// The label of memory anchor `m` with key `key`.
    ///
    /// # Panics
    /// If `m` is not a memory anchor or `key` is outside `KEY_MIN..=KEY_MAX`.
    pub fn label(&self, m: i64, key: i64) -> i64 {
        assert!(MEMORY_ANCHORS.contains(&m), "{m} is not a memory anchor");
        assert!((KEY_MIN..=KEY_MAX).contains(&key), "{key} is not a key");
        self.labels[(m - MEMORY_ANCHORS[0]) as usize * NUM_KEYS + (key - KEY_MIN) as usize]
    }

    /// All labels, row-major `[memory anchor, key]`.
    pub fn labels(&self) -> &[i64] {
        &self.labels
    }
}

/// A batch of sequences with their labels, row-major `[batch, seq_len]`.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorBatch {
    /// Model inputs, `batch × seq_len`.
    pub tokens: Vec<i64>,
    /// Tokens per sequence.
    pub seq_len: usize,
    /// The label of every sample (predicted at the last position).
    pub labels: Vec<i64>,
    /// The subset of every sample.
    pub subset: Vec<Subset>,
    /// The key of every sample.
    pub keys: Vec<i64>,
    /// The inferential answer. On the held-out pair it is `key − 10`, which is also that sample's
    /// label; on every other sample it equals `labels` (so (3,4) keeps its rule label `key − 6`).
    pub inferential: Vec<i64>,
    /// The symmetric answer; equals `labels` except on the held-out pair, where it is `key − 6`.
    pub symmetric: Vec<i64>,
    /// Position of the key in every sequence (`0..=seq_len−3`); the anchor(s) follow it, except
    /// in a memory sample whose anchor comes first ([`MemoryPosition::Before`]: `1..=seq_len−2`).
    pub key_pos: Vec<usize>,
    /// Number of sequences.
    pub batch: usize,
}

impl AnchorBatch {
    fn with_capacity(batch: usize, seq_len: usize) -> Self {
        Self {
            tokens: Vec::with_capacity(batch * seq_len),
            seq_len,
            labels: Vec::with_capacity(batch),
            subset: Vec::with_capacity(batch),
            keys: Vec::with_capacity(batch),
            inferential: Vec::with_capacity(batch),
            symmetric: Vec::with_capacity(batch),
            key_pos: Vec::with_capacity(batch),
            batch: 0,
        }
    }

    /// Sequence `b`.
    pub fn row(&self, b: usize) -> &[i64] {
        &self.tokens[b * self.seq_len..(b + 1) * self.seq_len]
    }
}

/// The design of the memory samples: the factors the learning-order ablation varies (the
/// default is the reconstruction's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryDesign {
    /// Keys per memory anchor that carry a fact: memory samples draw their key from
    /// `KEY_MIN..KEY_MIN + keys` (1..=[`NUM_KEYS`]; clamped).
    pub keys: usize,
    /// How the table draws its labels.
    pub labels: MemoryLabels,
    /// Where the memory anchor sits relative to its key.
    pub position: MemoryPosition,
}

impl Default for MemoryDesign {
    fn default() -> Self {
        Self { keys: NUM_KEYS, labels: MemoryLabels::Cell, position: MemoryPosition::After }
    }
}

/// The task: the memory table of one seed, and the sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorTask {
    memory: MemoryTable,
    memory_fraction: f64,
    seq_len: usize,
    design: MemoryDesign,
}

impl AnchorTask {
    /// The mixed task: memory table drawn from `table_rng`, [`MEMORY_FRACTION`] memory samples,
    /// sequences of [`SEQ_LEN`] tokens.
    pub fn new(table_rng: &mut ChaCha8Rng) -> Self {
        Self::with(table_rng, MEMORY_FRACTION, SEQ_LEN)
    }

    /// A task with `memory_fraction` memory samples per training batch (clamped to `0..=1`) and
    /// sequences of `seq_len` tokens. The memory table is drawn from `table_rng` either way, so
    /// the same seed gives the same table whatever the mix.
    ///
    /// # Panics
    /// If `seq_len` is outside [`SEQ_LEN_RANGE`] (the config rejects such values first).
    pub fn with(table_rng: &mut ChaCha8Rng, memory_fraction: f64, seq_len: usize) -> Self {
        Self::designed(table_rng, memory_fraction, seq_len, MemoryDesign::default())
    }

    /// [`AnchorTask::with`] with a memory design other than the default. The default design
    /// draws exactly the stream [`AnchorTask::with`] draws.
    ///
    /// # Panics
    /// If `seq_len` is outside [`SEQ_LEN_RANGE`] (the config rejects such values first).
    pub fn designed(table_rng: &mut ChaCha8Rng, memory_fraction: f64, seq_len: usize, design: MemoryDesign) -> Self {
        assert!(SEQ_LEN_RANGE.contains(&seq_len), "sequence length {seq_len} outside {SEQ_LEN_RANGE:?}");
        let memory_fraction = if memory_fraction.is_finite() { memory_fraction.clamp(0.0, 1.0) } else { 0.0 };
        let memory = match design.labels {
            MemoryLabels::Cell => MemoryTable::new(table_rng),
            MemoryLabels::Permutation => MemoryTable::permutations(table_rng),
        };
        let design = MemoryDesign { keys: design.keys.clamp(1, NUM_KEYS), ..design };
        Self { memory, memory_fraction, seq_len, design }
    }

    /// The memory design.
    pub fn design(&self) -> MemoryDesign {
        self.design
    }

    /// Tokens per sequence.
    pub fn seq_len(&self) -> usize {
        self.seq_len
    }

    /// Whether training batches hold memory samples (and evaluation a memory block).
    pub fn has_memory(&self) -> bool {
        self.memory_fraction > 0.0
    }

    /// The subsets evaluated, in block order: memory (only when [`AnchorTask::has_memory`]),
    /// seen reasoning pairs, the held-out pair.
    pub fn eval_subsets(&self) -> &'static [Subset] {
        if self.has_memory() {
            &Subset::ALL
        } else {
            &Subset::ALL[1..]
        }
    }

    /// The memory table.
    pub fn memory(&self) -> &MemoryTable {
        &self.memory
    }

    /// The fraction of memory samples in a training batch.
    pub fn memory_fraction(&self) -> f64 {
        self.memory_fraction
    }

    /// `batch` fresh training samples: `round(batch · memory_fraction)` memory samples and the rest
    /// seen reasoning pairs, in random order. Never contains the held-out pair.
    pub fn train_batch(&self, batch: usize, rng: &mut ChaCha8Rng) -> AnchorBatch {
        let n_mem = ((batch as f64 * self.memory_fraction).round() as usize).min(batch);
        let mut kinds: Vec<Subset> =
            (0..batch).map(|i| if i < n_mem { Subset::Memory } else { Subset::ReasoningSeen }).collect();
        // Fisher–Yates with u32 draws (portable between 64-bit and wasm32).
        for i in (1..batch).rev() {
            let j = rng.random_range(0..=i as u32) as usize;
            kinds.swap(i, j);
        }
        let mut out = AnchorBatch::with_capacity(batch, self.seq_len);
        for kind in kinds {
            self.push_sample(&mut out, kind, rng);
        }
        out
    }

    /// `per_subset` fresh evaluation samples of each of [`AnchorTask::eval_subsets`], in blocks:
    /// memory (when trained on), seen reasoning pairs, the held-out pair (4,3).
    pub fn eval_batch(&self, per_subset: usize, rng: &mut ChaCha8Rng) -> AnchorBatch {
        let subsets = self.eval_subsets();
        let mut out = AnchorBatch::with_capacity(subsets.len() * per_subset, self.seq_len);
        for &kind in subsets {
            for _ in 0..per_subset {
                self.push_sample(&mut out, kind, rng);
            }
        }
        out
    }

    /// The keys `20..=99`, ascending.
    pub fn key_tokens() -> Vec<i64> {
        (KEY_MIN..=KEY_MAX).collect()
    }

    /// The anchor tokens: reasoning anchors `1..=4`, then memory anchors `5..=8`.
    pub fn anchor_tokens() -> Vec<i64> {
        REASONING_ANCHORS.iter().chain(MEMORY_ANCHORS.iter()).copied().collect()
    }

    fn push_sample(&self, out: &mut AnchorBatch, kind: Subset, rng: &mut ChaCha8Rng) {
        let mut row = [0i64; MAX_SEQ_LEN];
        let row = &mut row[..self.seq_len];
        for t in row.iter_mut() {
            *t = rng.random_range(KEY_MIN..=KEY_MAX);
        }
        let p = rng.random_range(0..=(self.seq_len - 3) as u32) as usize;
        let key_max = if kind == Subset::Memory { KEY_MIN + self.design.keys as i64 - 1 } else { KEY_MAX };
        let key = rng.random_range(KEY_MIN..=key_max);
        row[p] = key;
        let (label, inferential, symmetric) = match kind {
            Subset::Memory => {
                let m = MEMORY_ANCHORS[rng.random_range(0..MEMORY_ANCHORS.len() as u32) as usize];
                match self.design.position {
                    MemoryPosition::After => row[p + 1] = m,
                    MemoryPosition::Before => {
                        row[p] = m;
                        row[p + 1] = key;
                    }
                }
                let l = self.memory.label(m, key);
                (l, l, l)
            }
            Subset::ReasoningSeen => {
                let (a, b) = SEEN_PAIRS[rng.random_range(0..SEEN_PAIRS.len() as u32) as usize];
                row[p + 1] = a;
                row[p + 2] = b;
                let l = rule_label(key, a, b);
                (l, l, l)
            }
            Subset::ReasoningHeldout => {
                let (a, b) = HELDOUT_PAIR;
                row[p + 1] = a;
                row[p + 2] = b;
                let inf = inferential_label(key, a, b);
                (inf, inf, symmetric_label(key, a, b))
            }
        };
        out.tokens.extend_from_slice(row);
        out.labels.push(label);
        out.subset.push(kind);
        out.keys.push(key);
        out.inferential.push(inferential);
        out.symmetric.push(symmetric);
        let before = kind == Subset::Memory && self.design.position == MemoryPosition::Before;
        out.key_pos.push(if before { p + 1 } else { p });
        out.batch += 1;
    }
}

#[cfg(test)]
mod tests;
