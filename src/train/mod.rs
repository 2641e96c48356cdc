//! The one training loop. A chapter says what its data, model, loss and metrics are (the
//! [`Chapter`] trait); [`Trainer`] does the rest, the same way for every chapter:
//!
//! One call to [`Trainer::advance`] handles step `s` (the model after `s` updates):
//! 1. the chapter's training forward on batch `s` ([`Chapter::forward`]: the batch comes from the
//!    seed's `Train` stream at index `s`, so the cadence of evaluations never changes the data);
//! 2. if `s` is an evaluation step ([`Chapter::due`]: `eval-every`, `snapshot-every` or a
//!    chapter's own schedule, and always the last step), the forward's loss (and whatever else
//!    the chapter watches, [`Forward::watch`]) is read back: a non-finite value stops the run with
//!    the chapter's message ([`Status::Diverged`]) and the history recorded so far stays;
//!    otherwise the chapter's metrics on the model without autodiff ([`Chapter::evaluate`]) give
//!    a row and, at the snapshot cadence, a snapshot;
//! 4. unless `s` is the last step, backpropagate the objective and take one optimizer step at
//!    [`Chapter::lr`].
//!
//! With `shards` S > 1 ([`shards`]) step `s`'s update is instead the sum of S slices' gradients,
//! each computed by its own forward and backward on a slice of the batch ([`Part`]) and read
//! back as one payload, added in slice order on the host; the row of an evaluation step comes
//! from a forward on the whole batch. That is what lets the page's workers share a step with the
//! same rows for any number of them.
//!
//! With one shard, nothing is read back between evaluations: on WebGPU a step is queued without waiting for the
//! GPU. A divergence between two evaluations is found at the next one, or earlier when the
//! caller settles ([`Trainer::settle`], which the page does at the end of each chunk of steps,
//! so the GPU never runs far ahead of it). Rows are the same either way: only evaluation steps
//! have rows.
//!
//! Values are read back with `into_data_async`, so the same code runs on WebGPU in the browser;
//! natively, [`crate::tensor::block_on`] drives it. A running trainer can be saved and resumed bit
//! for bit on any backend, the page's WebGPU included ([`checkpoint`]; the optimizer's state is
//! the project's own, [`optim`], so that it can be read asynchronously).

pub mod checkpoint;
pub mod optim;
pub mod shards;

use crate::config::{ConfigError, LiveChange, RunConfig};
use crate::history::{AtStep, History};
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor};
pub use optim::Optim;

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

/// Applies a live change ([`LiveChange`], parsed at the engine's boundary) to a running config,
/// and resumes a finished run when `steps` grows past `step`.
pub fn apply_live(cfg: &mut RunConfig, status: &mut Status, step: usize, change: LiveChange) {
    change.apply(cfg);
    if *status == Status::Finished && step < cfg.steps {
        *status = Status::Running;
    }
}

/// Adam as chapter 1 uses it (the paper's code): betas (0.9, 0.999), ε 1e-8, no weight decay.
pub fn adam() -> Optim {
    Optim::adam(&AdamConfig::new().with_beta_1(0.9).with_beta_2(0.999).with_epsilon(1e-8))
}

/// AdamW as chapters 2 and 3 use it: betas (0.9, 0.999), ε 1e-8 (PyTorch's defaults), the
/// config's weight decay, constant learning rate, no clipping.
pub fn adamw(cfg: &RunConfig) -> Optim {
    Optim::adamw(
        &burn::optim::AdamWConfig::new()
            .with_beta_1(0.9)
            .with_beta_2(0.999)
            .with_epsilon(1e-8)
            .with_weight_decay(cfg.weight_decay as f32),
    )
}

/// Which slice of a step's batch a training forward computes: slice `index` of `count` equal
/// slices (the config's `shards`; see [`shards`]). [`Part::WHOLE`] is the whole batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Which slice, from 0.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl Part {
    /// The whole batch.
    pub const WHOLE: Part = Part { index: 0, count: 1 };

    /// The rows of a batch of `batch` samples this slice holds: the `index`-th run of
    /// `batch / count` consecutive rows.
    ///
    /// ```
    /// use plateau::train::Part;
    /// assert_eq!(Part { index: 1, count: 4 }.rows(512), 128..256);
    /// assert_eq!(Part::WHOLE.rows(64), 0..64);
    /// ```
    pub fn rows(self, batch: usize) -> std::ops::Range<usize> {
        let n = batch / self.count;
        self.index * n..(self.index + 1) * n
    }

    /// `t` (a batch-major tensor of `batch` rows) cut to this slice's rows; the tensor itself
    /// for the whole batch.
    pub fn slice<const D: usize, K: burn::tensor::kind::Basic>(self, t: Tensor<D, K>, batch: usize) -> Tensor<D, K> {
        if self.count == 1 {
            return t;
        }
        let r = self.rows(batch);
        t.narrow(0, r.start, r.len())
    }
}

/// The result of a chapter's training forward at one step.
pub struct Forward<B> {
    /// What is backpropagated (the loss, plus any regularizer term).
    pub objective: Tensor<1>,
    /// The values a row records from this step, each a one-element tensor, the training loss
    /// first (chapter 3 adds its regularizer). They are read back only at evaluation steps and
    /// when the trainer settles, all in one read; any non-finite one stops the run.
    pub watch: Vec<Tensor<1>>,
    /// What the evaluation needs from this step (the batch, its logits).
    pub batch: B,
}

/// A training forward at an evaluation step, its watched values read back.
pub struct Observed<B> {
    /// The training loss (`values[0]`).
    pub loss: f64,
    /// Every watched value, in [`Forward::watch`]'s order.
    pub values: Vec<f64>,
    /// The forward's [`Forward::batch`].
    pub batch: B,
}

/// Reads `watch` back in one read (one host synchronization): the values, in order.
async fn read_watch(watch: Vec<Tensor<1>>) -> Vec<f64> {
    if watch.is_empty() {
        return vec![];
    }
    let all = if watch.len() == 1 { watch.into_iter().next().unwrap() } else { Tensor::cat(watch, 0) };
    crate::tensor::read_f32(all).await.into_iter().map(f64::from).collect()
}

/// What a chapter supplies to the one [`Trainer`].
#[allow(async_fn_in_trait)] // the page runs on one thread: the futures need not be `Send`
pub trait Chapter: Sized {
    /// The network.
    type Model: Module;
    /// One metric row, with its chapter's view of the rows ([`crate::view::View`]).
    type Row: crate::view::View;
    /// One snapshot of the maps.
    type Snapshot: AtStep + Clone + serde::Serialize + serde::de::DeserializeOwned;
    /// What [`Chapter::forward`] hands to [`Chapter::evaluate`].
    type Batch;
    /// State beyond the seed's fixed tables that a resumed run needs (saved in checkpoints).
    type Carry: Clone + Default + serde::Serialize + serde::de::DeserializeOwned;

    /// The chapter's fixed state (tables, held-out sets, drawn from the seed) and its network
    /// (weights from the seed's `Init` stream) on `device` (an autodiff device).
    fn build(cfg: &RunConfig, device: &Device) -> (Self, Self::Model);
    /// The optimizer ([`adamw`] unless the paper says otherwise).
    fn optimizer(cfg: &RunConfig) -> Optim {
        adamw(cfg)
    }
    /// The learning rate of the update after step `s` (the config's linear warm-up by default).
    fn lr(cfg: &RunConfig, s: usize) -> f64 {
        crate::config::warmup_lr(cfg.lr, cfg.warmup, s)
    }
    /// Whether step `s` is evaluated and whether it records a snapshot too (the last step always
    /// does both): by default every `eval-every` and every `snapshot-every` steps.
    fn due(cfg: &RunConfig, s: usize) -> (bool, bool) {
        let snapshot = s % cfg.snapshot_every == 0;
        (snapshot || s % cfg.eval_every == 0, snapshot)
    }
    /// Training forward of step `s` on `device` (autodiff), on slice `part` of the step's batch
    /// (the batch drawn as always, then cut to [`Part::rows`]; its objective the mean over the
    /// slice, which the trainer scales by 1/S). Only [`Part::WHOLE`]'s batch is evaluated.
    async fn forward(
        &mut self,
        model: &Self::Model,
        cfg: &RunConfig,
        s: usize,
        part: Part,
        device: &Device,
    ) -> Forward<Self::Batch>;
    /// The metrics of the model after `s` updates (`model` without autodiff, on the plain
    /// `device`), and a snapshot when `snapshot`.
    async fn evaluate(
        &mut self,
        model: &Self::Model,
        cfg: &RunConfig,
        s: usize,
        train: Observed<Self::Batch>,
        snapshot: bool,
        device: &Device,
    ) -> (Self::Row, Option<Self::Snapshot>);
    /// What a diverged run says: the step, the loss and what to change.
    fn diverged(cfg: &RunConfig, s: usize, loss: f64) -> String;
    /// The state to save in a checkpoint.
    fn carry(&self) -> Self::Carry {
        Self::Carry::default()
    }
    /// Restores [`Chapter::carry`]'s state.
    fn restore(&mut self, _carry: Self::Carry) {}
}

/// A training run of chapter `C`.
pub struct Trainer<C: Chapter> {
    cfg: RunConfig,
    device: Device,
    chapter: C,
    model: C::Model,
    optim: Optim,
    step: usize,
    status: Status,
    /// Everything recorded so far.
    pub history: History<C::Row, C::Snapshot>,
    /// When set ([`Trainer::trace_gradients`]), the L2 norm of every parameter's gradient at
    /// each update, in module order (`grad_norms[s]` is step `s`'s).
    pub grad_norms: Option<Vec<Vec<f64>>>,
    /// The watched values of the last step that was not evaluated (without autodiff), not read
    /// back yet: [`Trainer::settle`] reads them.
    unread: Option<(usize, Vec<Tensor<1>>)>,
}

/// The L2 norm of the gradient of every parameter of `model`, in module order (the order of
/// [`Module::visit`]; a parameter without a gradient has norm 0).
pub async fn gradient_norms<M: Module>(model: &M, grads: &burn::tensor::Gradients) -> Vec<f64> {
    struct Norms<'a>(&'a burn::tensor::Gradients, Vec<Option<Tensor<1>>>);
    impl burn::module::ModuleVisitor for Norms<'_> {
        fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
            self.1.push(param.val().grad(self.0).map(|g| (g.clone() * g).sum().sqrt()));
        }
    }
    let mut v = Norms(grads, vec![]);
    model.visit(&mut v);
    let mut out = Vec::with_capacity(v.1.len());
    for g in v.1 {
        out.push(match g {
            Some(t) => crate::tensor::read_f32(t).await[0] as f64,
            None => 0.0,
        });
    }
    out
}

/// Every parameter of `model` in module order: its shape and its values (row-major).
pub async fn parameters<M: Module>(model: &M) -> Vec<(Vec<usize>, Vec<f32>)> {
    struct Collect(Vec<(Vec<usize>, Tensor<1>)>);
    impl burn::module::ModuleVisitor for Collect {
        fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
            let t = param.val();
            self.0.push((t.dims().to_vec(), t.flatten::<1>(0, D - 1)));
        }
    }
    let mut v = Collect(vec![]);
    model.visit(&mut v);
    let mut out = Vec::with_capacity(v.0.len());
    for (shape, t) in v.0 {
        out.push((shape, crate::tensor::read_f32(t).await));
    }
    out
}

impl<C: Chapter> Trainer<C> {
    /// Builds the chapter and its model on `device` (a plain device; autodiff is added here).
    /// Rejects configs that fail the schema or the memory budget
    /// ([`RunConfig::validate_for_training`]).
    pub fn new(cfg: RunConfig, device: &Device) -> Result<Trainer<C>, ConfigError> {
        cfg.validate_for_training(<C::Row as crate::view::View>::shape(&cfg))?;
        let device = device.clone().autodiff();
        let (chapter, model) = C::build(&cfg, &device);
        let optim = C::optimizer(&cfg);
        Ok(Trainer {
            cfg,
            device,
            chapter,
            model,
            optim,
            step: 0,
            status: Status::Running,
            history: History::default(),
            grad_norms: None,
            unread: None,
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
        self.model.num_params()
    }
    /// The chapter's fixed state.
    pub fn chapter(&self) -> &C {
        &self.chapter
    }
    /// The network (for parity checks against another implementation).
    pub fn model(&self) -> &C::Model {
        &self.model
    }
    /// Records every update's gradient norms per parameter in [`Trainer::grad_norms`] (for the
    /// parity check; it reads every gradient back, so it slows training).
    pub fn trace_gradients(&mut self) {
        self.grad_norms.get_or_insert_with(Vec::new);
    }

    /// Changes a live parameter (the schema's `live` keys: `lr`, `steps`, the cadences and each
    /// chapter's own) without losing the run. Other keys need a new trainer.
    pub fn set_live(&mut self, change: LiveChange) {
        apply_live(&mut self.cfg, &mut self.status, self.step, change)
    }

    /// Fault-injection hook for tests: sets the learning rate without validation (an infinite
    /// rate makes the next update non-finite, which the next step must detect).
    #[doc(hidden)]
    pub fn force_lr(&mut self, lr: f64) {
        self.cfg.lr = lr;
    }

    /// Handles step `s` = [`Trainer::step`]: forward, record if due, update unless last (see the
    /// module doc). With `shards` S > 1 the update's gradient is the sum of S slices' gradients
    /// ([`shards`]).
    pub async fn advance(&mut self) -> Status {
        if self.status != Status::Running {
            return self.status.clone();
        }
        if self.cfg.shards > 1 {
            return self.advance_sharded().await;
        }
        let s = self.step;
        let fwd = self.chapter.forward(&self.model, &self.cfg, s, Part::WHOLE, &self.device).await;
        let last = s >= self.cfg.steps;
        let objective = fwd.objective.clone();
        let (eval, snapshot) = C::due(&self.cfg, s);
        if eval || last {
            if let Some(status) = self.record(s, fwd, snapshot || last).await {
                return status;
            }
        } else {
            self.unread = Some((s, fwd.watch.into_iter().map(Tensor::inner).collect()));
        }
        if last {
            self.status = Status::Finished;
            return self.status.clone();
        }
        let grads = objective.backward();
        if self.grad_norms.is_some() {
            let norms = gradient_norms(&self.model, &grads).await;
            self.grad_norms.get_or_insert_with(Vec::new).push(norms);
        }
        let grads = GradientsParams::from_grads(grads, &self.model);
        self.model = self.optim.step(C::lr(&self.cfg, s), self.model.clone(), grads);
        self.step += 1;
        Status::Running
    }

    /// Records step `s`'s row from its training forward `fwd` (and a snapshot when `snapshot`):
    /// the watched values read back in one read; a non-finite one stops the run instead
    /// (returned, with no row).
    async fn record(&mut self, s: usize, fwd: Forward<C::Batch>, snapshot: bool) -> Option<Status> {
        self.unread = None; // this read covers it: the weights only got worse since
        let values = read_watch(fwd.watch).await;
        let loss = values.first().copied().unwrap_or(f64::NAN);
        if values.iter().any(|v| !v.is_finite()) || values.is_empty() {
            self.status = Status::Diverged(C::diverged(&self.cfg, s, loss));
            return Some(self.status.clone());
        }
        let plain = self.device.clone().inner();
        let model = self.model.valid();
        let train = Observed { loss, values, batch: fwd.batch };
        let (row, snap) = self.chapter.evaluate(&model, &self.cfg, s, train, snapshot, &plain).await;
        self.history.push_row(row);
        if let Some(snap) = snap {
            self.history.push_snapshot(snap);
        }
        None
    }

    /// Reads back the watched values of the last step not evaluated, if any, and stops the run
    /// when one is not finite (the diverged message names that step, and [`Trainer::step`] goes
    /// back to it, as when [`Trainer::advance`] finds it). One host synchronization:
    /// on WebGPU it waits for the steps queued so far. Rows are unchanged by it (the diverged
    /// step never has a row); only where a divergence is noticed can move earlier.
    pub async fn settle(&mut self) -> Status {
        if let Some((s, watch)) = self.unread.take() {
            if self.status == Status::Running {
                let values = read_watch(watch).await;
                if values.iter().any(|v| !v.is_finite()) {
                    let loss = values.first().copied().unwrap_or(f64::NAN);
                    self.status = Status::Diverged(C::diverged(&self.cfg, s, loss));
                    // As when found by `advance`: the run stops at the step whose loss was not
                    // finite (the updates after it only carried the non-finite weights on).
                    self.step = s;
                }
            }
        }
        self.status.clone()
    }
}
