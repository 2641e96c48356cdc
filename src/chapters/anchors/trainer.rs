//! Chapter 2's trainer: a transformer or an Emb-MLP on the anchor task with γ-init and AdamW.
//!
//! Each step of the one [`Trainer`] draws training batch `s` (the `Train` stream) and takes the
//! loss on the last position; at the cadence it evaluates on a fresh evaluation batch (`Eval`
//! stream, `eval-batch` samples of each subset: per-subset losses, the held-out pair's answers,
//! the embedding structure) and snapshots the embeddings. The memory table is drawn once from
//! the `Table` stream.

use super::data::{AnchorBatch, AnchorTask, MemoryDesign, VOCAB};
use super::metrics as m;
use super::rows::{AnchorRow, AnchorSnapshot};
use crate::config::{Attention, ModelKind, RunConfig};
use crate::model::emb_mlp::{EmbMlp, EmbMlpConfig};
use crate::model::init::Init;
use crate::model::transformer::{Sees, Transformer, TransformerConfig};
use crate::rng::{stream, Stream};
use crate::tensor::{int_tensor, read_f32};
use crate::train::{Chapter, Forward, Observed, Part, Trainer};
use burn::module::Module;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};

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

/// Chapter 2 for the one [`Trainer`]: the anchor task (its memory table drawn once from the
/// seed's `Table` stream), the γ-initialized network, the last-token loss and AdamW with the
/// config's warm-up.
pub struct Anchors {
    task: AnchorTask,
    /// The previous snapshot's key PCA, so that each snapshot's axes keep their signs.
    prev_pca: Option<m::Pca2>,
}

/// Chapter 2's trainer.
pub type AnchorTrainer = Trainer<Anchors>;

impl Anchors {
    /// The task (for its memory table).
    pub fn task(&self) -> &AnchorTask {
        &self.task
    }
}

fn batch_tensors(b: &AnchorBatch, device: &Device) -> (Tensor<2, Int>, Tensor<1, Int>) {
    let tokens = int_tensor(b.tokens.clone(), b.batch, b.seq_len, device);
    let labels = Tensor::from_data(TensorData::new(b.labels.clone(), [b.batch]), device);
    (tokens, labels)
}

/// What chapter 2's evaluation takes from the training step: the batch and its last-token logits.
pub struct TrainBatch {
    batch: AnchorBatch,
    logits: Tensor<2>,
}

impl Chapter for Anchors {
    type Model = AnchorNet;
    type Row = AnchorRow;
    type Snapshot = AnchorSnapshot;
    type Batch = TrainBatch;
    type Carry = Option<m::Pca2>;

    fn build(cfg: &RunConfig, device: &Device) -> (Anchors, AnchorNet) {
        let design = MemoryDesign {
            keys: cfg.anchors.memory_keys,
            labels: cfg.anchors.memory_labels,
            position: cfg.anchors.memory_position,
        };
        let task = AnchorTask::designed(
            &mut stream(cfg.seed, Stream::Table, 0),
            cfg.anchors.memory,
            cfg.anchors.seq_len,
            design,
        );
        let init = Init::Gamma(cfg.anchors.gamma);
        let net = match cfg.anchors.model {
            ModelKind::Transformer => AnchorNet::Transformer(
                TransformerConfig::sized(cfg, VOCAB, cfg.anchors.seq_len, Attention::Softmax, Sees::Earlier)
                    .init(init, cfg.seed, device),
            ),
            ModelKind::EmbMlp => AnchorNet::EmbMlp(
                EmbMlpConfig { vocab: VOCAB, d_model: cfg.d_model, d_ff: cfg.d_ff }.init(init, cfg.seed, device),
            ),
        };
        (Anchors { task, prev_pca: None }, net)
    }

    async fn forward(
        &mut self,
        net: &AnchorNet,
        cfg: &RunConfig,
        s: usize,
        part: Part,
        device: &Device,
    ) -> Forward<TrainBatch> {
        let batch = self.task.train_batch(cfg.batch, &mut stream(cfg.seed, Stream::Train, s as u64));
        let (tokens, labels) = batch_tensors(&batch, device);
        let (tokens, labels) = (part.slice(tokens, cfg.batch), part.slice(labels, cfg.batch));
        let (logits, _) = net.forward(tokens);
        let loss = last_token_loss(logits.clone(), labels);
        Forward { objective: loss.clone(), watch: vec![loss], batch: TrainBatch { batch, logits } }
    }

    fn diverged(cfg: &RunConfig, s: usize, loss: f64) -> String {
        format!(
            "Training diverged at step {s}: the loss became {loss}. Lower the learning rate (now {}) \
             or raise γ (now {}: a smaller init), then reset.",
            cfg.lr, cfg.anchors.gamma
        )
    }

    fn carry(&self) -> Option<m::Pca2> {
        self.prev_pca.clone()
    }

    fn restore(&mut self, carry: Option<m::Pca2>) {
        self.prev_pca = carry;
    }

    async fn evaluate(
        &mut self,
        net: &AnchorNet,
        cfg: &RunConfig,
        s: usize,
        train: Observed<TrainBatch>,
        snapshot: bool,
        plain: &Device,
    ) -> (AnchorRow, Option<AnchorSnapshot>) {
        let (loss, batch) = (train.loss, &train.batch.batch);
        let train_logits = &read_f32(train.batch.logits).await;
        let train_pred = crate::metrics::argmax_rows(train_logits, VOCAB);
        let train_acc =
            train_pred.iter().zip(&batch.labels).filter(|(p, l)| p == l).count() as f64 / batch.batch.max(1) as f64;

        let eval = self.task.eval_batch(cfg.eval_batch, &mut stream(cfg.seed, Stream::Eval, s as u64));
        let (tokens, _) = batch_tensors(&eval, plain);
        let (logits, att) = net.forward(tokens);
        let logits = read_f32(logits).await;
        let pred = crate::metrics::argmax_rows(&logits, VOCAB);
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

        let d = cfg.d_model;
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
        let mut snap = None;
        if snapshot {
            let key_rows: Vec<f32> =
                keys.iter().flat_map(|&k| emb[k as usize * d..(k as usize + 1) * d].iter().copied()).collect();
            let mut pca = m::pca2(&key_rows, keys.len(), d);
            if let Some(prev) = &self.prev_pca {
                pca = pca.aligned_to(prev);
            }
            snap = Some(AnchorSnapshot {
                step: s,
                tokens: anchors.iter().chain(&keys).copied().collect(),
                cosine: cos.iter().map(|&c| c as f32).collect(),
                embeddings: rows.iter().flat_map(|&t| emb[t * d..(t + 1) * d].iter().copied()).collect(),
                d,
                pca: pca.coords.iter().map(|c| [c[0] as f32, c[1] as f32]).collect(),
                explained: pca.explained,
                attention: if attention.is_empty() { vec![] } else { crate::metrics::batch_mean_map(&attention, seq) },
                seq,
            });
            self.prev_pca = Some(pca);
        }
        (row, snap)
    }
}

fn or_nan(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}
