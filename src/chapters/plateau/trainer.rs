//! Chapter 1's trainer: the paper's transformer on moving-window sum or prefix sum, trained with
//! Adam at a constant rate on the next-token loss over all `2n` positions, with the optional mask
//! of strength c on Ω.
//!
//! Each step of the one [`Trainer`] draws training batch `s` from the `Train` stream; at an
//! evaluation step it records a [`MetricRow`] (training loss and accuracy of this batch, and the
//! held-out metrics: teacher-forced losses, APM, hidden-state cosines and greedy decoding of a
//! fresh `Eval` batch) and, at the snapshot cadence, a [`Snapshot`].

use super::data::{self, Batch, VOCAB};
use super::metrics as m;
use super::rows::{MetricRow, Sample, Snapshot};
use crate::config::RunConfig;
use crate::model::init::Init;
use crate::model::transformer::{Sees, Transformer, TransformerConfig};
use crate::rng::{stream, Stream};
use crate::tensor::{cross_entropy, int_tensor, read_f32, read_i64};
use crate::train::{Chapter, Forward, Observed, Part, Trainer};
use burn::tensor::{Device, Tensor, TensorData};

/// Chapter 1 for the one [`Trainer`]: the task's batches, the paper's init and Adam, the mask
/// on Ω, and the paper's metrics.
pub struct Plateau {
    /// The run's task.
    task: data::SumTask,
    /// The multiplicative mask matrix for the strength in force (c, built once per (c, n) and
    /// kept while c stays the same).
    mask: Option<(f64, Vec<f32>)>,
}

/// Chapter 1's trainer.
pub type PlateauTrainer = Trainer<Plateau>;

/// The transformer shape a chapter 1 config asks for.
pub fn model_config(cfg: &RunConfig) -> TransformerConfig {
    TransformerConfig::sized(
        cfg,
        VOCAB,
        super::data::input_positions(cfg.plateau.n),
        cfg.plateau.attention,
        Sees::Earlier,
    )
}

/// The mask strength in force at step `s` (1 when off).
pub fn mask_c(cfg: &RunConfig, s: usize) -> f64 {
    if s >= cfg.plateau.c_from {
        cfg.plateau.c
    } else {
        1.0
    }
}

impl Plateau {
    /// The mask in force at step `s` on `device` (`None` when c = 1). The host matrix is built
    /// once per (c, n) and reused while c stays the same.
    fn mask(&mut self, cfg: &RunConfig, s: usize, device: &Device) -> Option<Tensor<2>> {
        let c = mask_c(cfg, s);
        if c == 1.0 {
            return None;
        }
        let t = 2 * cfg.plateau.n;
        if self.mask.as_ref().is_none_or(|(cached, _)| *cached != c) {
            self.mask = Some((c, data::mask_matrix(self.task, cfg.plateau.n, c as f32)));
        }
        let values = self.mask.as_ref().expect("just set").1.clone();
        Some(Tensor::from_data(TensorData::new(values, [t, t]), device))
    }
}

/// What chapter 1's evaluation takes from the training step: the batch and its logits.
pub struct PlateauBatch {
    batch: Batch,
    logits: Tensor<3>,
}

impl Chapter for Plateau {
    type Model = Transformer;
    type Row = MetricRow;
    type Snapshot = Snapshot;
    type Batch = PlateauBatch;
    type Carry = ();

    fn build(cfg: &RunConfig, device: &Device) -> (Plateau, Transformer) {
        let model = model_config(cfg).init(Init::Paper, cfg.seed, device);
        // Run::of_chapter builds this chapter for chapter 1's tasks only.
        let task = data::SumTask::try_from(cfg.experiment).expect("chapter 1 trains chapter 1's tasks");
        (Plateau { task, mask: None }, model)
    }

    fn optimizer(_cfg: &RunConfig) -> crate::train::Optim {
        crate::train::adam()
    }

    fn lr(cfg: &RunConfig, _s: usize) -> f64 {
        cfg.lr
    }

    async fn forward(
        &mut self,
        model: &Transformer,
        cfg: &RunConfig,
        s: usize,
        part: Part,
        device: &Device,
    ) -> Forward<PlateauBatch> {
        let (n, t) = (cfg.plateau.n, 2 * cfg.plateau.n);
        let batch = data::generate(self.task, n, cfg.batch, &mut stream(cfg.seed, Stream::Train, s as u64));
        let mask = self.mask(cfg, s, device);
        let inputs = part.slice(int_tensor(batch.inputs(), cfg.batch, t, device), cfg.batch);
        let targets = part.slice(int_tensor(batch.targets(), cfg.batch, t, device), cfg.batch);
        let fwd = model.forward(inputs, mask.as_ref());
        let loss = cross_entropy(fwd.logits.clone(), targets);
        Forward { objective: loss.clone(), watch: vec![loss], batch: PlateauBatch { batch, logits: fwd.logits } }
    }

    fn diverged(cfg: &RunConfig, s: usize, loss: f64) -> String {
        format!(
            "Training diverged at step {s}: the loss became {loss}. Lower the learning rate \
             (now {}) or move c toward 1 (now {}), then reset.",
            cfg.lr, cfg.plateau.c
        )
    }

    /// Evaluates the model after `s` updates: training-batch metrics from `train_logits`, and on a
    /// fresh held-out batch (the `Eval` stream at index `s`) the teacher-forced losses, APM, the
    /// hidden-state cosines and greedy decoding of the `n` outputs from the `n+1`-token prompt.
    async fn evaluate(
        &mut self,
        model: &Transformer,
        cfg: &RunConfig,
        s: usize,
        train: Observed<PlateauBatch>,
        snapshot: bool,
        plain: &Device,
    ) -> (MetricRow, Option<Snapshot>) {
        let (loss, batch) = (train.loss, &train.batch.batch);
        let train_logits = &read_f32(train.batch.logits).await;
        let (n, t, d) = (cfg.plateau.n, 2 * cfg.plateau.n, cfg.d_model);
        let outputs = n..t;
        let targets = batch.targets();
        let output_loss = m::cross_entropy(train_logits, &targets, t, VOCAB, outputs.clone());
        let train_pred = crate::metrics::argmax_rows(train_logits, VOCAB);
        let pick =
            |v: &[i64], rows: usize| -> Vec<i64> { (0..rows).flat_map(|b| v[b * t + n..b * t + t].to_vec()).collect() };
        let train_acc = m::accuracy(&pick(&train_pred, cfg.batch), &pick(&targets, cfg.batch));
        let first = |v: &[i64]| -> Vec<i64> { (0..cfg.batch).map(|b| v[b * t + n]).collect() };
        let train_first_acc = m::accuracy(&first(&train_pred), &first(&targets));

        let mask = self.mask(cfg, s, plain);
        let eb = cfg.eval_batch;
        let held = data::generate(self.task, n, eb, &mut stream(cfg.seed, Stream::Eval, s as u64));
        let held_targets = held.targets();
        let fwd = model.forward(int_tensor(held.inputs(), eb, t, plain), mask.as_ref());
        let logits = read_f32(fwd.logits).await;
        let test_loss = m::cross_entropy(&logits, &held_targets, t, VOCAB, 0..t);
        let test_output_loss = m::cross_entropy(&logits, &held_targets, t, VOCAB, outputs);
        let attention = read_f32(fwd.attention[0].clone().mean_dim(1)).await; // [eb, t, t]
        let hidden = read_f32(fwd.hidden).await; // [eb, t, d]
        let omega = data::omega(self.task, n);
        let apm = m::apm(&attention, t, n, &omega);
        let cos = m::hidden_cosine_matrix(&hidden, t, d, n);
        let hidden_cos = m::mean_hidden_cosine(&cos, n);

        let generated = greedy_decode(model, &held, mask.as_ref(), plain).await; // [eb, n]
        let truth: Vec<i64> = (0..eb).flat_map(|b| held.outputs(b).to_vec()).collect();
        let position_acc = m::per_position_accuracy(&generated, &truth, n);
        let row = MetricRow {
            step: s,
            loss,
            output_loss,
            train_acc,
            test_acc: m::accuracy(&generated, &truth),
            first_token_acc: position_acc[0],
            repetition: m::repetition_frequency(&generated, n),
            data_repetition: m::repetition_frequency(&truth, n),
            apm,
            hidden_cos,
            test_loss,
            test_output_loss,
            mask_c: mask_c(cfg, s),
            train_first_acc,
            position_acc,
        };
        let snap = snapshot.then(|| Snapshot {
            step: s,
            seq: t,
            attention: m::batch_mean_map(&attention, t),
            n,
            hidden_cos: cos,
            samples: (0..eb.min(4))
                .map(|b| Sample {
                    inputs: held.row(b)[..n].to_vec(),
                    truth: held.outputs(b).to_vec(),
                    generated: generated[b * n..(b + 1) * n].to_vec(),
                })
                .collect(),
        });
        (row, snap)
    }
}

/// Greedy decoding: from the prompt `[x_1..x_n, SEP]`, generate `ŷ_1..ŷ_n` one token at a time,
/// each the argmax of the logits at the last position of the prefix generated so far (prefixes of
/// length `n+1 .. 2n`). Returns `[batch, n]`.
pub async fn greedy_decode(model: &Transformer, held: &Batch, mask: Option<&Tensor<2>>, device: &Device) -> Vec<i64> {
    let (n, t, b) = (held.n, 2 * held.n, held.batch);
    let mut tokens = held.inputs(); // [b, t]; positions > n are overwritten before they are read
    let mut out = vec![0i64; b * n];
    for j in 0..n {
        let len = n + 1 + j;
        let prefix: Vec<i64> = (0..b).flat_map(|row| tokens[row * t..row * t + len].to_vec()).collect();
        let mask = mask.map(|m| m.clone().slice([0..len, 0..len]));
        let fwd = model.forward(int_tensor(prefix, b, len, device), mask.as_ref());
        let [bb, _, v] = fwd.logits.dims();
        let next = read_i64(fwd.logits.slice([0..bb, len - 1..len, 0..v]).argmax(2)).await; // [b, 1]
        for row in 0..b {
            out[row * n + j] = next[row];
            if len < t {
                tokens[row * t + len] = next[row];
            }
        }
    }
    out
}
