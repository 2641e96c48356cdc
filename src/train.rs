//! The one training loop, backend-agnostic: the CLI and the page both drive a [`Trainer`].
//!
//! One call to [`Trainer::advance`] handles step `s` (the model after `s` updates):
//! 1. draw training batch `s` from the `Train` stream and run the forward pass;
//! 2. if `s` is an evaluation step, record a [`MetricRow`] (training loss and accuracy of this
//!    batch, and the held-out metrics of [`Trainer::evaluate`]) and, at the snapshot cadence, a
//!    [`Snapshot`];
//! 3. unless `s` is the last step, backpropagate and take one Adam step.
//!
//! Values are read back with `into_data_async`, so the same code runs on WebGPU in the browser;
//! natively, [`block_on`] drives it. A non-finite loss stops the run with a message; the history
//! recorded so far stays.

use crate::config::{Attention, ConfigError, RunConfig};
use crate::data::mws::{self, Batch, VOCAB};
use crate::history::{History, MetricRow, Sample, Snapshot};
use crate::metrics::plateau as m;
use crate::model::init::Init;
use crate::model::transformer::{Transformer, TransformerConfig};
use crate::rng::{stream, Stream};
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// Runs a future to completion on the current thread (native only; the page awaits instead).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures_lite::future::block_on(f)
}

/// Where a run stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// More steps to go.
    Running,
    /// All steps done.
    Finished,
    /// Stopped: the loss became NaN or infinite. The message says what to change.
    Diverged(String),
}

/// Reads a float tensor back to the host.
pub async fn read_f32<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    let data = t.into_data_async().await.expect("tensor readback failed");
    data.convert::<f32>().try_to_vec::<f32>().expect("f32 data")
}

/// Reads an int tensor back to the host.
pub async fn read_i64<const D: usize>(t: Tensor<D, Int>) -> Vec<i64> {
    let data = t.into_data_async().await.expect("tensor readback failed");
    data.convert::<i64>().try_to_vec::<i64>().expect("i64 data")
}

/// A `[rows, cols]` int tensor.
pub fn int_tensor(values: Vec<i64>, rows: usize, cols: usize, device: &Device) -> Tensor<2, Int> {
    Tensor::from_data(TensorData::new(values, [rows, cols]), device)
}

/// Mean next-token cross-entropy of `logits: [b, t, v]` against `targets: [b, t]` (in the graph).
pub fn cross_entropy(logits: Tensor<3>, targets: Tensor<2, Int>) -> Tensor<1> {
    let logp = log_softmax(logits, 2); // [b, t, v]
    let picked = logp.gather(2, targets.unsqueeze_dim::<3>(2)); // [b, t, 1]
    picked.mean().neg()
}

/// Sets a live parameter of a running config (the schema's `live` keys), and resumes a finished
/// run when `steps` grows past `step`. Keys that need a reset are refused with a message.
pub fn set_live_param(
    cfg: &mut RunConfig,
    status: &mut Status,
    step: usize,
    key: &str,
    value: &str,
) -> Result<(), ConfigError> {
    match crate::config::spec(key) {
        Some(spec) if spec.live => {
            cfg.set(key, value)?;
            if *status == Status::Finished && step < cfg.steps {
                *status = Status::Running;
            }
            Ok(())
        }
        _ => Err(ConfigError {
            key: key.to_string(),
            value: value.to_string(),
            allowed: format!(
                "a live parameter ({}); others apply at reset",
                crate::config::PARAMS.iter().filter(|p| p.live).map(|p| p.key).collect::<Vec<_>>().join(", ")
            ),
            safe: Some(cfg.get(key).unwrap_or_default()),
        }),
    }
}

/// AdamW as chapters 2 and 3 use it: betas (0.9, 0.999), ε 1e-8 (PyTorch's defaults), the
/// config's weight decay, constant learning rate, no clipping.
pub fn adamw(cfg: &RunConfig) -> ModuleOptimizer {
    burn::optim::AdamWConfig::new()
        .with_beta_1(0.9)
        .with_beta_2(0.999)
        .with_epsilon(1e-8)
        .with_weight_decay(cfg.weight_decay as f32)
        .init()
}

/// A chapter 1 run's whole state between two steps, for the CLI to write to disk and resume
/// from (`plateau reproduce --resume`): the model's weights and the Adam moments as burn
/// records (burnpack bytes, with the parameter ids that key the optimizer state), and the rest as
/// [`CheckpointState`]. Nothing else is needed to continue bit for bit: every batch is drawn from
/// the seed's stream at the step's index ([`crate::rng::stream`]), never from a running generator.
/// Native only: the records are read back synchronously, which WebGPU cannot do.
#[cfg(not(target_arch = "wasm32"))]
pub struct Checkpoint {
    /// The model's record ([`Module::into_record`]) as burnpack bytes.
    pub model: Vec<u8>,
    /// The optimizer's record ([`ModuleOptimizer::to_record`]) as burnpack bytes.
    pub optimizer: Vec<u8>,
    /// Config, step and history.
    pub state: CheckpointState,
}

/// The plain part of a [`Checkpoint`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CheckpointState {
    /// The config in force (live changes included).
    pub config: RunConfig,
    /// Updates done: the next [`Trainer::advance`] handles this step.
    pub step: usize,
    /// Everything recorded so far.
    pub history: History,
}

#[cfg(not(target_arch = "wasm32"))]
impl CheckpointState {
    /// CBOR bytes, every float bit for bit.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![];
        ciborium::into_writer(self, &mut out).expect("writing to a Vec cannot fail");
        out
    }
    /// Reads [`CheckpointState::to_bytes`] back.
    pub fn from_bytes(bytes: &[u8]) -> Result<CheckpointState, String> {
        ciborium::from_reader(bytes).map_err(|e| format!("checkpoint state: {e}"))
    }
}

/// A training run.
pub struct Trainer {
    cfg: RunConfig,
    device: Device,
    model: Transformer,
    optim: ModuleOptimizer,
    step: usize,
    status: Status,
    /// Everything recorded so far.
    pub history: History,
}

impl Trainer {
    /// Builds the model (weights from the seed's `Init` stream) on `device` (a plain device;
    /// autodiff is added here). Rejects configs that fail the schema.
    pub fn new(cfg: RunConfig, device: &Device) -> Result<Trainer, ConfigError> {
        cfg.validate_for_training()?;
        let device = device.clone().autodiff();
        let model = Self::model_config(&cfg).init(Init::Paper, cfg.seed, &device);
        let optim = AdamConfig::new().with_beta_1(0.9).with_beta_2(0.999).with_epsilon(1e-8).init();
        Ok(Trainer { cfg, device, model, optim, step: 0, status: Status::Running, history: History::default() })
    }

    /// The run's whole state, to continue it later with [`Trainer::from_checkpoint`]. Only a
    /// running trainer has one (a finished or diverged run has nothing left to continue).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn checkpoint(&self) -> Result<Checkpoint, String> {
        if self.status != Status::Running {
            return Err(format!("only a running trainer can be checkpointed (this one is {:?})", self.status));
        }
        let model = self.model.clone().into_record().into_bytes().map_err(|e| format!("model record: {e}"))?;
        let optimizer = self.optim.into_bytes().map_err(|e| format!("optimizer record: {e}"))?;
        Ok(Checkpoint {
            model: model.to_vec(),
            optimizer: optimizer.to_vec(),
            state: CheckpointState { config: self.cfg.clone(), step: self.step, history: self.history.clone() },
        })
    }

    /// Continues a run from a [`Checkpoint`] on `device`: the next [`Trainer::advance`] computes
    /// exactly what the checkpointed trainer's next call would have (a test holds the rows
    /// equal). burn materializes the optimizer state on its default device (the `BURN_DEVICE`
    /// variable picks it) and moves it to `device` on the first update; the CLI sets
    /// `BURN_DEVICE` to the run's backend.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_checkpoint(cp: Checkpoint, device: &Device) -> Result<Trainer, String> {
        use burn::store::ModuleRecord;
        use burn::tensor::Bytes;
        let CheckpointState { config, step, history } = cp.state;
        if step >= config.steps {
            return Err(format!("the checkpoint is at step {step}, but the run has only {} steps", config.steps));
        }
        let mut t = Trainer::new(config, device).map_err(|e| e.to_string())?;
        let record =
            ModuleRecord::from_bytes(Bytes::from_bytes_vec(cp.model)).map_err(|e| format!("model record: {e}"))?;
        t.model = t.model.try_load_record(record).map_err(|e| format!("model record: {e}"))?;
        t.optim =
            t.optim.from_bytes(Bytes::from_bytes_vec(cp.optimizer)).map_err(|e| format!("optimizer record: {e}"))?;
        t.step = step;
        t.history = history;
        Ok(t)
    }

    /// The transformer shape a config asks for.
    pub fn model_config(cfg: &RunConfig) -> TransformerConfig {
        TransformerConfig {
            vocab: VOCAB,
            positions: 2 * cfg.n,
            layers: cfg.layers,
            heads: cfg.heads,
            d_model: cfg.d_model,
            d_ff: cfg.d_ff,
            softmax: cfg.attention == Attention::Softmax,
            causal: true,
        }
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
        self.model.num_params()
    }

    /// Changes a live parameter (`c`, `c-from`, `lr`, `steps`, `eval-every`, `snapshot-every`)
    /// without losing the run. Other keys need a new `Trainer`.
    pub fn set_live(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        set_live_param(&mut self.cfg, &mut self.status, self.step, key, value)
    }

    /// Fault-injection hook for tests: sets the learning rate without validation (an infinite
    /// rate makes the next update non-finite, which the next step must detect).
    #[doc(hidden)]
    pub fn force_lr(&mut self, lr: f64) {
        self.cfg.lr = lr;
    }

    /// The mask strength in force at step `s` (1 when off).
    pub fn mask_c(&self, s: usize) -> f64 {
        if s >= self.cfg.c_from {
            self.cfg.c
        } else {
            1.0
        }
    }

    fn mask(&self, s: usize, device: &Device) -> Option<Tensor<2>> {
        let c = self.mask_c(s);
        (c != 1.0).then(|| {
            let t = 2 * self.cfg.n;
            Tensor::from_data(
                TensorData::new(mws::mask_matrix(self.cfg.experiment, self.cfg.n, c as f32), [t, t]),
                device,
            )
        })
    }

    /// Handles step `s` = [`Trainer::step`]: forward, record if due, update unless last.
    pub async fn advance(&mut self) -> Status {
        if self.status != Status::Running {
            return self.status.clone();
        }
        let s = self.step;
        let cfg = &self.cfg;
        let (n, t) = (cfg.n, 2 * cfg.n);
        let batch = mws::generate(cfg.experiment, n, cfg.batch, &mut stream(cfg.seed, Stream::Train, s as u64));
        let mask = self.mask(s, &self.device);
        let inputs = int_tensor(batch.inputs(), cfg.batch, t, &self.device);
        let targets = int_tensor(batch.targets(), cfg.batch, t, &self.device);
        let fwd = self.model.forward(inputs, mask.as_ref());
        let loss = cross_entropy(fwd.logits.clone(), targets);
        let loss_value = read_f32(loss.clone()).await[0] as f64;
        if !loss_value.is_finite() {
            self.status = Status::Diverged(format!(
                "Training diverged at step {s}: the loss became {loss_value}. Lower the learning rate \
                 (now {}) or move c toward 1 (now {}), then reset.",
                self.cfg.lr, self.cfg.c
            ));
            return self.status.clone();
        }
        let last = s >= self.cfg.steps;
        if s % self.cfg.eval_every == 0 || s % self.cfg.snapshot_every == 0 || last {
            let logits = read_f32(fwd.logits.clone()).await;
            let snapshot = s % self.cfg.snapshot_every == 0 || last;
            let (row, snap) = self.evaluate(s, loss_value, &logits, &batch, snapshot).await;
            self.history.push_row(row);
            if let Some(snap) = snap {
                self.history.push_snapshot(snap);
            }
        }
        if last {
            self.status = Status::Finished;
            return self.status.clone();
        }
        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        self.model = self.optim.step(self.cfg.lr, self.model.clone(), grads);
        self.step += 1;
        Status::Running
    }

    /// Evaluates the model after `s` updates: training-batch metrics from `train_logits`, and on a
    /// fresh held-out batch (the `Eval` stream at index `s`) the teacher-forced losses, APM, the
    /// hidden-state cosines and greedy decoding of the `n` outputs from the `n+1`-token prompt.
    async fn evaluate(
        &self,
        s: usize,
        loss: f64,
        train_logits: &[f32],
        batch: &Batch,
        snapshot: bool,
    ) -> (MetricRow, Option<Snapshot>) {
        let cfg = &self.cfg;
        let (n, t, d) = (cfg.n, 2 * cfg.n, cfg.d_model);
        let outputs = n..t;
        let targets = batch.targets();
        let output_loss = m::cross_entropy(train_logits, &targets, t, VOCAB, outputs.clone());
        let train_pred = m::argmax_last(train_logits, VOCAB);
        let pick =
            |v: &[i64], rows: usize| -> Vec<i64> { (0..rows).flat_map(|b| v[b * t + n..b * t + t].to_vec()).collect() };
        let train_acc = m::accuracy(&pick(&train_pred, cfg.batch), &pick(&targets, cfg.batch));

        let model = self.model.valid();
        let plain = self.device.clone().inner();
        let mask = self.mask(s, &plain);
        let eb = cfg.eval_batch;
        let held = mws::generate(cfg.experiment, n, eb, &mut stream(cfg.seed, Stream::Eval, s as u64));
        let held_targets = held.targets();
        let fwd = model.forward(int_tensor(held.inputs(), eb, t, &plain), mask.as_ref());
        let logits = read_f32(fwd.logits).await;
        let test_loss = m::cross_entropy(&logits, &held_targets, t, VOCAB, 0..t);
        let test_output_loss = m::cross_entropy(&logits, &held_targets, t, VOCAB, outputs);
        let attention = read_f32(fwd.attention[0].clone().mean_dim(1)).await; // [eb, t, t]
        let hidden = read_f32(fwd.hidden).await; // [eb, t, d]
        let omega = mws::omega(cfg.experiment, n);
        let apm = m::apm(&attention, t, n, &omega);
        let cos = m::hidden_cosine_matrix(&hidden, t, d, n);
        let hidden_cos = m::mean_hidden_cosine(&cos, n);

        let generated = greedy_decode(&model, &held, mask.as_ref(), &plain).await; // [eb, n]
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
            mask_c: self.mask_c(s),
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
