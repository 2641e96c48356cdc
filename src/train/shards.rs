//! Sharded steps (`shards` S > 1): each step's batch is split into S equal slices ([`Part`]);
//! the gradient of each slice is computed separately, read back to the host as one flat vector
//! (a [`payload`](Trainer::shard_gradient)), the S vectors are summed in shard order
//! ([`sum`]) and every replica applies the same optimizer update with the sum
//! ([`Trainer::apply_gradient`]).
//!
//! Because S and the order of the sum do not depend on who computes which slice, the page's
//! workers (each holding a replica of the run, each computing some of the slices) and the CLI
//! (computing the S slices one after another, [`Trainer::advance`]) give the same rows, bit for
//! bit, for any number of workers. Against one shard (S = 1) the update differs only by
//! rounding: each slice's objective is its mean loss times 1/S, so the sum is the gradient of
//! the whole batch's mean loss, added in another order.
//!
//! A payload is `[k, presence × P, watched × k, gradients]`: `k` the number of watched values,
//! then for each of the model's P parameters (in module order) 1 if the slice gave it a gradient,
//! 0 if not, then the slice's watched values (its training loss first, unscaled), then every
//! parameter's gradient flattened in module order (zeros where it had none). The sum of
//! payloads keeps that layout (the presences add up: a parameter is updated when any slice gave
//! it a gradient, as the whole batch's backward would).

use super::{Chapter, Part, Status, Trainer};
use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Gradients, Tensor, TensorData};

/// Sums payloads elementwise in the order given (the shard order: `((p0 + p1) + p2) + …` in
/// `f32`), so the result never depends on which worker computed which payload; the header `k`
/// is kept, not added. Refuses an empty list and payloads of different lengths or headers.
pub fn sum(parts: &[&[f32]]) -> Result<Vec<f32>, String> {
    let (first, rest) = parts.split_first().ok_or("no shard gradients to sum")?;
    let mut out = first.to_vec();
    for p in rest {
        if p.len() != out.len() || p.first() != out.first() {
            return Err(format!("shard gradients of different layouts ({} and {} values)", out.len(), p.len()));
        }
        for (o, v) in out.iter_mut().zip(p.iter()).skip(1) {
            *o += *v;
        }
    }
    Ok(out)
}

/// The parameter count of `model` and its number of parameters (tensors), in module order.
fn sizes<M: Module>(model: &M) -> (usize, usize) {
    struct Sizes(usize, usize);
    impl ModuleVisitor for Sizes {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            self.0 += param.val().shape().num_elements();
            self.1 += 1;
        }
    }
    let mut v = Sizes(0, 0);
    model.visit(&mut v);
    (v.0, v.1)
}

/// Each parameter's gradient flattened (zeros where there is none, on `device`) and whether
/// there was one, in module order.
fn flat_gradients<M: Module>(model: &M, grads: &Gradients, device: &Device) -> (Vec<Tensor<1>>, Vec<bool>) {
    struct Flat<'a>(&'a Gradients, &'a Device, Vec<Tensor<1>>, Vec<bool>);
    impl ModuleVisitor for Flat<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            match param.val().grad(self.0) {
                Some(g) => {
                    self.2.push(g.flatten::<1>(0, D - 1));
                    self.3.push(true);
                }
                None => {
                    self.2.push(Tensor::zeros([param.val().shape().num_elements()], self.1));
                    self.3.push(false);
                }
            }
        }
    }
    let mut v = Flat(grads, device, vec![], vec![]);
    model.visit(&mut v);
    (v.2, v.3)
}

/// The gradients of a summed payload (`presence` per parameter, `flat` every gradient in module
/// order), registered per parameter of `model` for [`super::Optim::step`], on `device`.
fn register<M: Module>(model: &M, presence: &[f32], flat: &[f32], device: &Device) -> GradientsParams {
    struct Reg<'a> {
        presence: &'a [f32],
        flat: &'a [f32],
        device: &'a Device,
        at: usize,
        index: usize,
        out: GradientsParams,
    }
    impl ModuleVisitor for Reg<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let shape = param.val().shape();
            let n = shape.num_elements();
            if self.presence[self.index] > 0.0 {
                let data = TensorData::new(self.flat[self.at..self.at + n].to_vec(), shape);
                self.out.register::<D>(param.id, Tensor::<D>::from_data(data, self.device));
            }
            self.at += n;
            self.index += 1;
        }
    }
    let mut v = Reg { presence, flat, device, at: 0, index: 0, out: GradientsParams::new() };
    model.visit(&mut v);
    v.out
}

impl<C: Chapter> Trainer<C> {
    /// The first half of a sharded step `s` = [`Trainer::step`]: at an evaluation step (and the
    /// last) the chapter's forward on the whole batch, its watched values read back and the
    /// row recorded, as [`Trainer::advance`] does with one shard; at the last step the run
    /// finishes. `Running` means the step's gradient is wanted next
    /// ([`Trainer::shard_gradient`] for each slice, [`sum`], [`Trainer::apply_gradient`]).
    pub async fn begin_step(&mut self) -> Status {
        if self.status != Status::Running {
            return self.status.clone();
        }
        let s = self.step;
        let last = s >= self.cfg.steps;
        let (eval, snapshot) = C::due(&self.cfg, s);
        if eval || last {
            let fwd = self.chapter.forward(&self.model, &self.cfg, s, Part::WHOLE, &self.device).await;
            if let Some(status) = self.record(s, fwd, snapshot || last).await {
                return status;
            }
        }
        if last {
            self.status = Status::Finished;
        }
        self.status.clone()
    }

    /// The payload (see the module doc) of slice `index` of [`RunConfig::shards`] of step
    /// [`Trainer::step`]'s batch, on the weights as they are: its forward, backward of its
    /// objective times 1/S, and one read of its watched values and gradients.
    ///
    /// [`RunConfig::shards`]: crate::config::RunConfig::shards
    pub async fn shard_gradient(&mut self, index: usize) -> Vec<f32> {
        let count = self.cfg.shards;
        let part = Part { index, count };
        let fwd = self.chapter.forward(&self.model, &self.cfg, self.step, part, &self.device).await;
        let objective = fwd.objective.mul_scalar(1.0 / count as f64);
        let grads = objective.backward();
        let plain = self.device.clone().inner();
        let (flat, presence) = flat_gradients(&self.model, &grads, &plain);
        let k = fwd.watch.len();
        let mut all: Vec<Tensor<1>> = fwd.watch.into_iter().map(Tensor::inner).collect();
        all.extend(flat);
        let values = crate::tensor::read_f32(Tensor::cat(all, 0)).await;
        let mut out = Vec::with_capacity(1 + presence.len() + values.len());
        out.push(k as f32);
        out.extend(presence.iter().map(|&p| if p { 1.0 } else { 0.0 }));
        out.extend(values);
        out
    }

    /// The second half of a sharded step: `sum` is the [`sum`] of the step's S payloads in shard
    /// order. When a watched value is not finite the run stops (diverged, at this step, with no
    /// update); otherwise every parameter that had a gradient is updated at [`Chapter::lr`] and
    /// the step advances. A sum of the wrong length for this model is refused.
    pub async fn apply_gradient(&mut self, sum: &[f32]) -> Result<Status, String> {
        if self.status != Status::Running {
            return Ok(self.status.clone());
        }
        let (total, count) = sizes(&self.model);
        let k = sum.first().copied().unwrap_or(-1.0);
        let k = if k >= 0.0 && k.fract() == 0.0 { k as usize } else { usize::MAX };
        if k == usize::MAX || sum.len() != 1 + count + k + total {
            return Err(format!(
                "a shard gradient of length {} does not fit this model ({count} parameters, {total} values)",
                sum.len()
            ));
        }
        let (presence, rest) = sum[1..].split_at(count);
        let (watch, flat) = rest.split_at(k);
        if watch.iter().any(|v| !v.is_finite()) || flat.iter().any(|v| !v.is_finite()) {
            let loss = watch.first().map_or(f64::NAN, |&v| v as f64 / self.cfg.shards as f64);
            self.status = Status::Diverged(C::diverged(&self.cfg, self.step, loss));
            return Ok(self.status.clone());
        }
        let plain = self.device.clone().inner();
        let grads = register(&self.model, presence, flat, &plain);
        let s = self.step;
        self.model = self.optim.step(C::lr(&self.cfg, s), self.model.clone(), grads);
        self.step += 1;
        Ok(Status::Running)
    }

    /// One sharded step computed here, slice after slice (what the CLI does, and the page with
    /// one worker): [`Trainer::begin_step`], each [`Trainer::shard_gradient`] in order, their
    /// [`sum`], [`Trainer::apply_gradient`].
    pub(super) async fn advance_sharded(&mut self) -> Status {
        let status = self.begin_step().await;
        if status != Status::Running {
            return status;
        }
        let mut parts = Vec::with_capacity(self.cfg.shards);
        for index in 0..self.cfg.shards {
            parts.push(self.shard_gradient(index).await);
        }
        let refs: Vec<&[f32]> = parts.iter().map(Vec::as_slice).collect();
        let total = sum(&refs).expect("payloads of one model have one length");
        self.apply_gradient(&total).await.expect("a sum of this model's payloads fits it")
    }
}
