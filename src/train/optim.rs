//! The optimizer of every chapter: burn's own [`Adam`] or [`AdamW`] step, applied parameter by
//! parameter, with the per-parameter state (the adaptive moments and the step count) kept here,
//! where a checkpoint can read it asynchronously.
//!
//! burn's `ModuleOptimizer` keeps that state private and serializes it only with synchronous reads,
//! which never complete on WebGPU in the browser (the map callback needs the event loop), so a
//! trained model on WebGPU could be neither saved nor carried over to the CPU after a device loss.
//! [`Optim::step`] does what `ModuleOptimizer::step` does for one group without clipping (the
//! same burn `Optimizer::step` on each parameter, in module order: the numbers are bit for bit
//! the same, which the golden rows hold); [`Optim::read`] reads weights and moments back in one
//! [`Transaction`]; [`Optim::restore`] puts them on any device.
//!
//! The state travels in burn's own optimizer record format (burnpack: tensors
//! `{id}.momentum.moment_1|moment_2`, scalars `{id}.momentum.time` and `{id}.__rank`, the module
//! path as metadata `{id}`), so checkpoints written by earlier versions through
//! `ModuleOptimizer::into_bytes` load here, and these load there.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, ParamId};
use burn::optim::{
    Adam, AdamConfig, AdamState, AdamW, AdamWConfig, AdamWState, AdaptiveMomentumState, DynState, GradientsParams,
    Optimizer,
};
use burn::tensor::{Device, Tensor, TensorData, Transaction};
use std::collections::HashMap;

/// Which update rule.
#[derive(Clone)]
enum Rule {
    Adam(Adam),
    AdamW(AdamW),
}

/// Adam or AdamW over a whole module, its state readable (see the module doc).
#[derive(Clone)]
pub struct Optim {
    rule: Rule,
    state: HashMap<ParamId, DynState>,
}

impl Optim {
    /// burn's Adam with this config.
    pub fn adam(config: &AdamConfig) -> Optim {
        Optim { rule: Rule::Adam(config.build()), state: HashMap::new() }
    }
    /// burn's AdamW with this config.
    pub fn adamw(config: &AdamWConfig) -> Optim {
        Optim { rule: Rule::AdamW(config.build()), state: HashMap::new() }
    }

    /// One update of every parameter of `module` that has a gradient in `grads`, at rate `lr`.
    pub fn step<M: Module>(&mut self, lr: f64, module: M, mut grads: GradientsParams) -> M {
        module.map(&mut Stepper { rule: &self.rule, state: &mut self.state, grads: &mut grads, lr })
    }

    /// The weights of `model` and this optimizer's state, read back in one transaction (one wait
    /// for the device; on WebGPU the only way that completes in the browser). Call it between two
    /// steps: the tensors are taken before the first await.
    pub async fn read<M: Module>(&self, model: &M) -> Result<Saved, String> {
        let mut g = Gather { path: vec![], tx: Some(Transaction::default()), state: &self.state, plan: vec![] };
        model.visit(&mut g);
        let datas = g.tx.take().expect("the transaction").execute_async().await.map_err(|e| format!("{e:?}"))?;
        let mut datas = datas.into_iter();
        let mut next = || datas.next().ok_or_else(|| "the transaction returned too few tensors".to_string());
        let (mut weights, mut optim) = (vec![], vec![]);
        let mut scalars = vec![];
        let mut paths = vec![];
        for entry in g.plan {
            match entry {
                Entry::Weight(path, id) => weights.push(pack(path, id.val(), next()?)),
                Entry::Moments { id, path, time, rank } => {
                    optim.push(pack(format!("{id}.momentum.moment_1"), id, next()?));
                    optim.push(pack(format!("{id}.momentum.moment_2"), id, next()?));
                    scalars.push((format!("{id}.momentum.time"), burn_pack::Scalar::from(time)));
                    scalars.push((format!("{id}.__rank"), burn_pack::Scalar::from(rank)));
                    paths.push((id.to_string(), path));
                }
            }
        }
        let model = burn_pack::Writer::new(weights).into_bytes().map_err(|e| format!("model record: {e}"))?.to_vec();
        let mut w = burn_pack::Writer::new(optim);
        for (k, v) in &scalars {
            w = w.with_scalar(k, *v);
        }
        for (k, v) in &paths {
            w = w.with_metadata(k, v);
        }
        let optimizer = w.into_bytes().map_err(|e| format!("optimizer record: {e}"))?.to_vec();
        Ok(Saved { model, optimizer })
    }

    /// Restores the state from [`Saved::optimizer`] bytes (this format or burn's
    /// `ModuleOptimizer::into_bytes`) onto `device` (a plain device: the moments never carry
    /// autodiff), each parameter's shape checked against `model`'s.
    pub fn restore<M: Module>(&mut self, bytes: Vec<u8>, model: &M, device: &Device) -> Result<(), String> {
        let reader = burn_pack::Reader::from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
            .map_err(|e| format!("optimizer record: {e}"))?;
        let scalars = reader.scalars().clone();
        let mut tensors: HashMap<String, TensorData> = HashMap::new();
        for t in reader.into_tensors().map_err(|e| format!("optimizer record: {e}"))? {
            let (name, dtype, shape, _, bytes) = t.into_parts().map_err(|e| format!("optimizer record: {e}"))?;
            tensors.insert(name, TensorData::from_bytes(bytes, shape, dtype));
        }
        let mut r = Restore { scalars, tensors, device: device.clone(), state: HashMap::new(), error: None };
        model.visit(&mut r);
        if let Some(e) = r.error {
            return Err(e);
        }
        self.state = r.state;
        Ok(())
    }
}

/// A trainer's weights and optimizer state as burnpack bytes (see [`Optim::read`]).
pub struct Saved {
    /// The model record: loads with `ModuleRecord::from_bytes` and `Module::try_load_record`.
    pub model: Vec<u8>,
    /// The optimizer record: loads with [`Optim::restore`].
    pub optimizer: Vec<u8>,
}

fn pack(name: String, id: u64, data: TensorData) -> burn_pack::Tensor {
    let (bytes, shape, dtype) = data.into_parts();
    burn_pack::Tensor::new(name, dtype, shape, Some(id), bytes)
}

struct Stepper<'a> {
    rule: &'a Rule,
    state: &'a mut HashMap<ParamId, DynState>,
    grads: &'a mut GradientsParams,
    lr: f64,
}

impl ModuleMapper for Stepper<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (id, tensor, mapper) = param.consume();
        let Some(grad) = self.grads.remove::<D>(id) else {
            return Param::from_mapped_value(id, tensor, mapper);
        };
        let device = grad.device();
        // As burn's `ModuleOptimizer`: the parameter's flags are restored on the updated tensor.
        let require_grad = tensor.is_require_grad();
        let checkpointing = tensor.gradient_checkpointing_strategy();
        let tensor = if tensor.device() != device { tensor.to_device(&device) } else { tensor };
        // Each id's state is stored at its parameter's rank, so the downcast cannot fail.
        let moments = self.state.remove(&id).map(|s| s.downcast::<AdaptiveMomentumState<D>>().to_device(&device));
        let (updated, moments) = match self.rule {
            Rule::Adam(o) => {
                let (t, s) = o.step(self.lr, tensor.inner(), grad, moments.map(AdamState::new));
                (t, s.map(|s| s.momentum))
            }
            Rule::AdamW(o) => {
                let (t, s) = o.step(self.lr, tensor.inner(), grad, moments.map(AdamWState::new));
                (t, s.map(|s| s.momentum))
            }
        };
        if let Some(m) = moments {
            self.state.insert(id, DynState::create(m, D));
        }
        let mut t = Tensor::from_inner(updated);
        if let Some(s) = checkpointing {
            t = t.with_gradient_checkpointing_strategy(s);
        }
        if require_grad {
            t = t.require_grad();
        }
        Param::from_mapped_value(id, t, mapper)
    }
}

enum Entry {
    Weight(String, ParamId),
    Moments { id: u64, path: String, time: usize, rank: usize },
}

/// Registers every weight (as burn's module record names it: the module path joined by dots)
/// and its moments in one transaction, and notes what each registered tensor is.
struct Gather<'a> {
    path: Vec<String>,
    tx: Option<Transaction>,
    state: &'a HashMap<ParamId, DynState>,
    plan: Vec<Entry>,
}

impl ModuleVisitor for Gather<'_> {
    fn enter_module(&mut self, name: &str, _container_type: &str) {
        self.path.push(name.to_string());
    }
    fn exit_module(&mut self, _name: &str, _container_type: &str) {
        self.path.pop();
    }
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let path = self.path.join(".");
        let mut tx = self.tx.take().expect("the transaction").register(param.transform_for_save().val().inner());
        self.plan.push(Entry::Weight(path.clone(), param.id));
        if let Some(m) = self.state.get(&param.id).map(|s| s.downcast_ref::<AdaptiveMomentumState<D>>()) {
            tx = tx.register(m.moment_1.clone()).register(m.moment_2.clone());
            self.plan.push(Entry::Moments { id: param.id.val(), path, time: m.time, rank: D });
        }
        self.tx = Some(tx);
    }
}

/// Rebuilds each parameter's moments from a record, checking shapes against the model.
struct Restore {
    scalars: std::collections::BTreeMap<String, burn_pack::Scalar>,
    tensors: HashMap<String, TensorData>,
    device: Device,
    state: HashMap<ParamId, DynState>,
    error: Option<String>,
}

impl ModuleVisitor for Restore {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let id = param.id.val();
        let (m1, m2) = (
            self.tensors.remove(&format!("{id}.momentum.moment_1")),
            self.tensors.remove(&format!("{id}.momentum.moment_2")),
        );
        let time = self.scalars.get(&format!("{id}.momentum.time")).and_then(|s| usize::try_from(*s).ok());
        let (Some(m1), Some(m2), Some(time)) = (m1, m2, time) else {
            // No state for this parameter (it had no update yet): it starts fresh, as in burn.
            return;
        };
        let dims = param.val().dims().to_vec();
        if m1.shape().as_slice() != dims.as_slice() || m2.shape().as_slice() != dims.as_slice() {
            self.error.get_or_insert(format!(
                "optimizer record: parameter {id} has moments of shape {:?}, the model {dims:?}",
                m1.shape().as_slice()
            ));
            return;
        }
        let m = AdaptiveMomentumState {
            time,
            moment_1: Tensor::<D>::from_data(m1, &self.device),
            moment_2: Tensor::<D>::from_data(m2, &self.device),
            max_moment_2: None,
        };
        self.state.insert(param.id, DynState::create(m, D));
    }
}
