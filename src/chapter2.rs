//! Chapter 2 engine: train a transformer or an Emb-MLP on the anchor task with γ-init and AdamW,
//! and record per-subset losses, the held-out pair's answers and the embedding structure.
//!
//! One call to [`AnchorTrainer::advance`] handles step `s` (the model after `s` updates), like
//! chapter 1's [`crate::train::Trainer`]: draw training batch `s` (the `Train` stream), take the
//! loss on the last position, evaluate at the cadence on a fresh evaluation batch (`Eval` stream,
//! `eval-batch` samples of each subset), snapshot the embeddings at the snapshot cadence, then one
//! AdamW step unless `s` is the last. The memory table is drawn once from the `Table` stream.

use crate::config::{ConfigError, ModelKind, RunConfig};
use crate::data::anchors::{AnchorBatch, AnchorTask, VOCAB};
use crate::history::{AtStep, History};
use crate::metrics::anchors as m;
use crate::model::emb_mlp::{EmbMlp, EmbMlpConfig};
use crate::model::init::Init;
use crate::model::transformer::{Transformer, TransformerConfig};
use crate::rng::{stream, Stream};
use crate::train::{int_tensor, read_f32, Status};
use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::{Deserialize, Serialize};

/// The CSV columns of a chapter 2 row, in order. The first ten are a contract (other tools read
/// them), and so are the five `key_cos_*` columns; the rest are extra.
pub const CSV_COLUMNS: &[&str] = &[
    "step",
    "loss",
    "loss_memory",
    "loss_reasoning",
    "loss_heldout",
    "acc_memory",
    "acc_reasoning",
    "acc_heldout",
    "acc_inferential",
    "acc_symmetric",
    "train_acc",
    "key_order_corr",
    "reasoning_anchor_cos",
    "memory_anchor_cos",
    "prefix_avg",
    "key_cos_d1",
    "key_cos_d2",
    "key_cos_d3_5",
    "key_cos_d6_19",
    "key_cos_d20plus",
];

/// Metrics of one evaluated step (the model after `step` updates).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorRow {
    /// Updates done.
    pub step: usize,
    /// Last-token cross-entropy on this step's training batch.
    pub loss: f64,
    /// Last-token cross-entropy on the evaluation samples of the memory subset.
    pub loss_memory: f64,
    /// The same on fresh samples of the 15 seen reasoning pairs.
    pub loss_reasoning: f64,
    /// The same on the held-out pair (4,3), against its inferential label `key − 10`.
    pub loss_heldout: f64,
    /// Argmax accuracy on the memory subset.
    pub acc_memory: f64,
    /// Argmax accuracy on the seen reasoning pairs.
    pub acc_reasoning: f64,
    /// Argmax accuracy on the held-out pair (against the inferential label).
    pub acc_heldout: f64,
    /// Fraction of held-out samples answered with the inferential answer `key − 10`.
    pub acc_inferential: f64,
    /// Fraction of held-out samples answered with the symmetric answer `key − 6`.
    pub acc_symmetric: f64,
    /// Argmax accuracy on this step's training batch.
    pub train_acc: f64,
    /// Pearson correlation between key distance |k_i − k_j| and the cosine of their embeddings
    /// (negative: an ordered structure, neighbouring keys similar).
    pub key_order_corr: f64,
    /// Mean pairwise embedding cosine of the reasoning anchors 1..4.
    pub reasoning_anchor_cos: f64,
    /// Mean pairwise embedding cosine of the memory anchors 5..8 (NaN when the task has none).
    pub memory_anchor_cos: f64,
    /// How close layer 1's attention is to a prefix average (1 = exactly; NaN for Emb-MLP).
    pub prefix_avg: f64,
    /// Mean key-embedding cosine by key distance |i − j| = 1, 2, 3–5, 6–19, ≥ 20
    /// ([`m::cosine_by_distance`]).
    pub key_cos_by_distance: [f64; 5],
}

/// The embedding structure at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorSnapshot {
    /// Updates done.
    pub step: usize,
    /// Tokens of the cosine matrix rows, in order: the 8 anchors, then the 80 keys ascending.
    pub tokens: Vec<i64>,
    /// Cosine matrix of their embeddings, `[tokens, tokens]` row-major.
    pub cosine: Vec<f32>,
    /// Their embedding vectors, `[tokens, d_model]` row-major.
    pub embeddings: Vec<f32>,
    /// Embedding width.
    pub d: usize,
    /// 2-D PCA of the key embeddings: `[x, y]` per key (keys ascending), signs aligned with the
    /// previous snapshot so the animation does not flip.
    pub pca: Vec<[f32; 2]>,
    /// Fraction of the key embeddings' variance on each of the two components.
    pub explained: [f64; 2],
    /// Batch-mean attention of layer 1 on the evaluation batch, `[seq, seq]` (empty for
    /// Emb-MLP).
    pub attention: Vec<f32>,
    /// Sequence length of the attention map.
    pub seq: usize,
}

impl AtStep for AnchorSnapshot {
    fn step(&self) -> usize {
        self.step
    }
}

/// The network of a chapter 2 run.
#[derive(Module, Debug)]
pub enum AnchorNet {
    /// 2-layer softmax decoder.
    Transformer(Transformer),
    /// Embedding → mean → MLP.
    EmbMlp(EmbMlp),
}

impl AnchorNet {
    /// Logits at the last position `[b, vocab]` and, for the transformer, the attention of layer 1.
    fn forward(&self, tokens: Tensor<2, Int>) -> (Tensor<2>, Option<Tensor<4>>) {
        match self {
            AnchorNet::Transformer(t) => {
                let f = t.forward(tokens, None);
                let [b, s, v] = f.logits.dims();
                let last = f.logits.slice([0..b, s - 1..s, 0..v]).reshape([b, v]);
                (last, f.attention.into_iter().next())
            }
            AnchorNet::EmbMlp(e) => (e.forward(tokens), None),
        }
    }

    fn embeddings(&self) -> Tensor<2> {
        match self {
            AnchorNet::Transformer(t) => t.token_embeddings(),
            AnchorNet::EmbMlp(e) => e.embeddings(),
        }
    }
}

/// Mean cross-entropy of `logits: [b, v]` against `labels: [b]` (in the graph).
fn last_token_loss(logits: Tensor<2>, labels: Tensor<1, Int>) -> Tensor<1> {
    log_softmax(logits, 1).gather(1, labels.unsqueeze_dim::<2>(1)).mean().neg()
}

/// A chapter 2 training run.
pub struct AnchorTrainer {
    cfg: RunConfig,
    device: Device,
    task: AnchorTask,
    net: AnchorNet,
    optim: ModuleOptimizer,
    step: usize,
    status: Status,
    prev_pca: Option<m::Pca2>,
    /// Everything recorded so far.
    pub history: History<AnchorRow, AnchorSnapshot>,
}

impl AnchorTrainer {
    /// Builds the task (memory table from the seed's `Table` stream) and the network (γ-init from
    /// the `Init` stream) on `device` (autodiff is added here).
    pub fn new(cfg: RunConfig, device: &Device) -> Result<AnchorTrainer, ConfigError> {
        cfg.validate_for_training()?;
        let device = device.clone().autodiff();
        let task = AnchorTask::with(&mut stream(cfg.seed, Stream::Table, 0), cfg.memory, cfg.seq_len);
        let init = Init::Gamma(cfg.gamma);
        let net = match cfg.model {
            ModelKind::Transformer => AnchorNet::Transformer(
                TransformerConfig {
                    vocab: VOCAB,
                    positions: cfg.seq_len,
                    layers: cfg.layers,
                    heads: cfg.heads,
                    d_model: cfg.d_model,
                    d_ff: cfg.d_ff,
                    softmax: true,
                    causal: true,
                }
                .init(init, cfg.seed, &device),
            ),
            ModelKind::EmbMlp => AnchorNet::EmbMlp(
                EmbMlpConfig { vocab: VOCAB, d_model: cfg.d_model, d_ff: cfg.d_ff }.init(init, cfg.seed, &device),
            ),
        };
        let optim = crate::train::adamw(&cfg);
        Ok(AnchorTrainer {
            cfg,
            device,
            task,
            net,
            optim,
            step: 0,
            status: Status::Running,
            prev_pca: None,
            history: History::default(),
        })
    }

    /// The config in force.
    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }
    /// Updates done.
    pub fn step(&self) -> usize {
        self.step
    }
    /// Where the run stands.
    pub fn status(&self) -> &Status {
        &self.status
    }
    /// Number of parameters.
    pub fn param_count(&self) -> usize {
        self.net.num_params()
    }
    /// The task (for its memory table).
    pub fn task(&self) -> &AnchorTask {
        &self.task
    }

    /// Fault-injection hook for tests: sets the learning rate without validation (an infinite
    /// rate makes the next update non-finite, which the next step must detect).
    #[doc(hidden)]
    pub fn force_lr(&mut self, lr: f64) {
        self.cfg.lr = lr;
    }

    /// Changes a live parameter (`lr`, `steps`, `eval-every`, `snapshot-every`).
    pub fn set_live(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        crate::train::set_live_param(&mut self.cfg, &mut self.status, self.step, key, value)
    }

    fn batch_tensors(&self, b: &AnchorBatch, device: &Device) -> (Tensor<2, Int>, Tensor<1, Int>) {
        let tokens = int_tensor(b.tokens.clone(), b.batch, b.seq_len, device);
        let labels = Tensor::from_data(TensorData::new(b.labels.clone(), [b.batch]), device);
        (tokens, labels)
    }

    /// Handles step `s` = [`AnchorTrainer::step`]: forward, record if due, update unless last.
    pub async fn advance(&mut self) -> Status {
        if self.status != Status::Running {
            return self.status.clone();
        }
        let s = self.step;
        let batch = self.task.train_batch(self.cfg.batch, &mut stream(self.cfg.seed, Stream::Train, s as u64));
        let (tokens, labels) = self.batch_tensors(&batch, &self.device);
        let (logits, _) = self.net.forward(tokens);
        let loss = last_token_loss(logits.clone(), labels);
        let loss_value = read_f32(loss.clone()).await[0] as f64;
        if !loss_value.is_finite() {
            self.status = Status::Diverged(format!(
                "Training diverged at step {s}: the loss became {loss_value}. Lower the learning rate (now {}) \
                 or raise γ (now {}: a smaller init), then reset.",
                self.cfg.lr, self.cfg.gamma
            ));
            return self.status.clone();
        }
        let last = s >= self.cfg.steps;
        if s % self.cfg.eval_every == 0 || s % self.cfg.snapshot_every == 0 || last {
            let train_logits = read_f32(logits).await;
            let snapshot = s % self.cfg.snapshot_every == 0 || last;
            let row = self.evaluate(s, loss_value, &train_logits, &batch, snapshot).await;
            self.history.push_row(row);
        }
        if last {
            self.status = Status::Finished;
            return self.status.clone();
        }
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let lr = crate::config::warmup_lr(self.cfg.lr, self.cfg.warmup, s);
        self.net = self.optim.step(lr, self.net.clone(), grads);
        self.step += 1;
        Status::Running
    }

    async fn evaluate(
        &mut self,
        s: usize,
        loss: f64,
        train_logits: &[f32],
        batch: &AnchorBatch,
        snapshot: bool,
    ) -> AnchorRow {
        let train_pred = m::argmax_rows(train_logits, VOCAB);
        let train_acc =
            train_pred.iter().zip(&batch.labels).filter(|(p, l)| p == l).count() as f64 / batch.batch.max(1) as f64;

        let net = self.net.valid();
        let plain = self.device.clone().inner();
        let eval = self.task.eval_batch(self.cfg.eval_batch, &mut stream(self.cfg.seed, Stream::Eval, s as u64));
        let (tokens, _) = self.batch_tensors(&eval, &plain);
        let (logits, att) = net.forward(tokens);
        let logits = read_f32(logits).await;
        let pred = m::argmax_rows(&logits, VOCAB);
        let losses = m::subset_losses(&logits, VOCAB, &eval.labels, &eval.subset);
        let accs = m::subset_accuracies(&pred, &eval.labels, &eval.subset);
        let (acc_inferential, acc_symmetric) =
            m::inferential_symmetric_accuracy(&pred, &eval.inferential, &eval.symmetric, &eval.subset);
        let attention = match att {
            Some(a) => read_f32(a.mean_dim(1)).await, // [b, t, t]
            None => vec![],
        };
        let seq = eval.seq_len;
        let prefix_avg =
            if attention.is_empty() { f64::NAN } else { m::prefix_average_closeness(&attention, eval.batch, seq) };

        let d = self.cfg.d_model;
        let emb = read_f32(net.embeddings()).await; // [VOCAB, d]
        let anchors = AnchorTask::anchor_tokens();
        let keys = AnchorTask::key_tokens();
        let rows: Vec<usize> = anchors.iter().chain(&keys).map(|&t| t as usize).collect();
        let cos = m::cosine_matrix(&emb, d, &rows);
        let r = rows.len();
        let key_cos: Vec<f64> = (0..keys.len())
            .flat_map(|i| (0..keys.len()).map(move |j| (i, j)))
            .map(|(i, j)| cos[(8 + i) * r + 8 + j])
            .collect();
        let key_order_corr = m::distance_cosine_correlation(&key_cos, &keys);
        let mean_pair_cos = |idx: std::ops::Range<usize>| {
            let mut sum = 0.0;
            let mut count = 0;
            for i in idx.clone() {
                for j in idx.start..i {
                    sum += cos[i * r + j];
                    count += 1;
                }
            }
            sum / count as f64
        };
        let row = AnchorRow {
            step: s,
            loss,
            loss_memory: or_nan(losses[0]),
            loss_reasoning: or_nan(losses[1]),
            loss_heldout: or_nan(losses[2]),
            acc_memory: or_nan(accs[0]),
            acc_reasoning: or_nan(accs[1]),
            acc_heldout: or_nan(accs[2]),
            acc_inferential,
            acc_symmetric,
            train_acc,
            key_order_corr,
            reasoning_anchor_cos: mean_pair_cos(0..4),
            memory_anchor_cos: if self.task.has_memory() { mean_pair_cos(4..8) } else { f64::NAN },
            prefix_avg,
            key_cos_by_distance: m::cosine_by_distance(&key_cos, &keys),
        };
        if snapshot {
            let key_rows: Vec<f32> =
                keys.iter().flat_map(|&k| emb[k as usize * d..(k as usize + 1) * d].iter().copied()).collect();
            let mut pca = m::pca2(&key_rows, keys.len(), d);
            if let Some(prev) = &self.prev_pca {
                pca = pca.aligned_to(prev);
            }
            let snap = AnchorSnapshot {
                step: s,
                tokens: anchors.iter().chain(&keys).copied().collect(),
                cosine: cos.iter().map(|&c| c as f32).collect(),
                embeddings: rows.iter().flat_map(|&t| emb[t * d..(t + 1) * d].iter().copied()).collect(),
                d,
                pca: pca.coords.iter().map(|c| [c[0] as f32, c[1] as f32]).collect(),
                explained: pca.explained,
                attention: if attention.is_empty() {
                    vec![]
                } else {
                    crate::metrics::plateau::batch_mean_map(&attention, seq)
                },
                seq,
            };
            self.prev_pca = Some(pca);
            self.history.push_snapshot(snap);
        }
        row
    }

    /// The whole history as CSV ([`CSV_COLUMNS`]).
    pub fn csv(&self) -> String {
        to_csv(&self.history.rows)
    }
}

fn or_nan(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// Rows as CSV: [`CSV_COLUMNS`], then one line per row (shortest round-trip floats).
pub fn to_csv(rows: &[AnchorRow]) -> String {
    let mut s = CSV_COLUMNS.join(",");
    s.push('\n');
    for r in rows {
        let v = [
            r.loss,
            r.loss_memory,
            r.loss_reasoning,
            r.loss_heldout,
            r.acc_memory,
            r.acc_reasoning,
            r.acc_heldout,
            r.acc_inferential,
            r.acc_symmetric,
            r.train_acc,
            r.key_order_corr,
            r.reasoning_anchor_cos,
            r.memory_anchor_cos,
            r.prefix_avg,
            r.key_cos_by_distance[0],
            r.key_cos_by_distance[1],
            r.key_cos_by_distance[2],
            r.key_cos_by_distance[3],
            r.key_cos_by_distance[4],
        ];
        s.push_str(&r.step.to_string());
        for x in v {
            s.push(',');
            s.push_str(&x.to_string());
        }
        s.push('\n');
    }
    s
}

/// Embedding snapshots as CSV for `--embeddings`: per snapshot and token (the 8 anchors, then
/// the 80 keys), `step,token,kind,pc1,pc2,e0..e{d-1}`; `kind` is `reasoning-anchor`,
/// `memory-anchor` or `key`; `pc1,pc2` are the key PCA coordinates (empty for anchors).
pub fn embeddings_csv(snaps: &[AnchorSnapshot]) -> String {
    let d = snaps.first().map_or(0, |s| s.d);
    let mut s = String::from("step,token,kind,pc1,pc2");
    for j in 0..d {
        s.push_str(&format!(",e{j}"));
    }
    s.push('\n');
    for snap in snaps {
        for (i, token) in snap.tokens.iter().enumerate() {
            let kind = match i {
                0..4 => "reasoning-anchor",
                4..8 => "memory-anchor",
                _ => "key",
            };
            let (pc1, pc2) = match i.checked_sub(8).and_then(|k| snap.pca.get(k)) {
                Some(p) => (p[0].to_string(), p[1].to_string()),
                None => (String::new(), String::new()),
            };
            s.push_str(&format!("{},{token},{kind},{pc1},{pc2}", snap.step));
            for x in &snap.embeddings[i * snap.d..(i + 1) * snap.d] {
                s.push(',');
                s.push_str(&x.to_string());
            }
            s.push('\n');
        }
    }
    s
}

/// Reads rows back from [`to_csv`]'s text, by column name (columns missing from an older file
/// read as NaN; unknown columns are ignored). `Err` names the first line that does not parse.
pub fn from_csv(text: &str) -> Result<Vec<AnchorRow>, String> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let step_col = col("step").ok_or("no step column")?;
    let cols: Vec<Option<usize>> = CSV_COLUMNS[1..].iter().map(|c| col(c)).collect();
    let mut rows = vec![];
    for (i, line) in lines.enumerate().filter(|(_, l)| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let bad = || format!("line {}: {line:?}", i + 2);
        let step = f.get(step_col).and_then(|v| v.parse::<usize>().ok()).ok_or_else(bad)?;
        let mut v = Vec::with_capacity(cols.len());
        for c in &cols {
            v.push(match c {
                Some(c) => f.get(*c).and_then(|x| x.parse::<f64>().ok()).ok_or_else(bad)?,
                None => f64::NAN,
            });
        }
        rows.push(AnchorRow {
            step,
            loss: v[0],
            loss_memory: v[1],
            loss_reasoning: v[2],
            loss_heldout: v[3],
            acc_memory: v[4],
            acc_reasoning: v[5],
            acc_heldout: v[6],
            acc_inferential: v[7],
            acc_symmetric: v[8],
            train_acc: v[9],
            key_order_corr: v[10],
            reasoning_anchor_cos: v[11],
            memory_anchor_cos: v[12],
            prefix_avg: v[13],
            key_cos_by_distance: [v[14], v[15], v[16], v[17], v[18]],
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips_and_reads_older_files() {
        let row = AnchorRow {
            step: 25,
            loss: 4.5,
            loss_memory: f64::NAN,
            loss_reasoning: 3.25,
            loss_heldout: 4.0,
            acc_memory: f64::NAN,
            acc_reasoning: 0.5,
            acc_heldout: 0.125,
            acc_inferential: 0.125,
            acc_symmetric: 0.75,
            train_acc: 0.5,
            key_order_corr: -0.3,
            reasoning_anchor_cos: 0.2,
            memory_anchor_cos: f64::NAN,
            prefix_avg: 0.9,
            key_cos_by_distance: [0.5, 0.4, 0.3, 0.2, 0.1],
        };
        let text = to_csv(std::slice::from_ref(&row));
        assert_eq!(text.lines().next().unwrap(), CSV_COLUMNS.join(","));
        let back = from_csv(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(to_csv(&back), text, "bit for bit, NaN included");
        // An older file without the key_cos_* columns.
        let old = "step,loss,loss_memory,loss_reasoning,loss_heldout,acc_memory,acc_reasoning,acc_heldout,\
                   acc_inferential,acc_symmetric,train_acc,key_order_corr,reasoning_anchor_cos,memory_anchor_cos,prefix_avg\n\
                   0,4.6,4.6,4.6,4.6,0,0,0,0,0.5,0,0.1,0.2,0.3,1\n";
        let r = &from_csv(old).unwrap()[0];
        assert_eq!((r.step, r.acc_symmetric, r.prefix_avg), (0, 0.5, 1.0));
        assert!(r.key_cos_by_distance.iter().all(|x| x.is_nan()));
        assert!(from_csv("step,loss\nx,1\n").is_err());
        assert!(from_csv("").is_err());
    }
}
