//! Checkpoints: a running trainer's whole state between two steps, for the CLI to write to disk
//! and resume from (`plateau reproduce --resume`). Native only: the records are read back
//! synchronously, which WebGPU cannot do.
//!
//! A [`Checkpoint`] holds the model's weights and the optimizer's moments as burn records
//! (burnpack bytes, with the parameter ids that key the optimizer state), and the rest as
//! [`CheckpointState`]: config, step, history and the chapter's [`Chapter::Carry`]. Nothing else
//! is needed to continue bit for bit: every batch is drawn from the seed's stream at the step's
//! index ([`crate::rng::stream`]), never from a running generator, and each chapter's fixed
//! tables are drawn again from the seed.

use super::{Chapter, Status, Trainer};
use crate::config::RunConfig;
use crate::history::History;
use burn::module::Module;
use serde::{Deserialize, Serialize};

/// A running trainer's whole state (see the module doc).
pub struct Checkpoint<C: Chapter> {
    /// The model's record ([`Module::into_record`]) as burnpack bytes.
    pub model: Vec<u8>,
    /// The optimizer's record as burnpack bytes.
    pub optimizer: Vec<u8>,
    /// Config, step, history and the chapter's carried state.
    pub state: CheckpointState<C::Row, C::Snapshot, C::Carry>,
}

/// The plain part of a [`Checkpoint`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckpointState<R, S, K> {
    /// The config in force (live changes included).
    pub config: RunConfig,
    /// Updates done: the next [`Trainer::advance`] handles this step.
    pub step: usize,
    /// Everything recorded so far.
    pub history: History<R, S>,
    /// The chapter's carried state ([`Chapter::carry`]; absent in chapter 1's older files).
    #[serde(default)]
    pub carry: K,
}

impl<
        R: Serialize + serde::de::DeserializeOwned,
        S: Serialize + serde::de::DeserializeOwned,
        K: Serialize + serde::de::DeserializeOwned + Default,
    > CheckpointState<R, S, K>
{
    /// CBOR bytes, every float bit for bit.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = vec![];
        ciborium::into_writer(self, &mut out).expect("writing to a Vec cannot fail");
        out
    }
    /// Reads [`CheckpointState::to_bytes`] back.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        ciborium::from_reader(bytes).map_err(|e| format!("checkpoint state: {e}"))
    }
}

impl<C: Chapter> Trainer<C> {
    /// The run's whole state, to continue it later with [`Trainer::from_checkpoint`]. Only a
    /// running trainer has one (a finished or diverged run has nothing left to continue).
    pub fn checkpoint(&self) -> Result<Checkpoint<C>, String> {
        if self.status != Status::Running {
            return Err(format!("only a running trainer can be checkpointed (this one is {:?})", self.status));
        }
        let model = self.model.clone().into_record().into_bytes().map_err(|e| format!("model record: {e}"))?;
        let optimizer = self.optim.into_bytes().map_err(|e| format!("optimizer record: {e}"))?;
        Ok(Checkpoint {
            model: model.to_vec(),
            optimizer: optimizer.to_vec(),
            state: CheckpointState {
                config: self.cfg.clone(),
                step: self.step,
                history: self.history.clone(),
                carry: self.chapter.carry(),
            },
        })
    }

    /// Continues a run from a [`Checkpoint`] on `device`: the next [`Trainer::advance`] computes
    /// exactly what the checkpointed trainer's next call would have (tests hold the rows equal).
    /// burn materializes the optimizer state on its default device (the `BURN_DEVICE` variable
    /// picks it) and moves it to `device` on the first update; the CLI sets `BURN_DEVICE` to the
    /// run's backend.
    pub fn from_checkpoint(cp: Checkpoint<C>, device: &burn::tensor::Device) -> Result<Trainer<C>, String> {
        use burn::store::ModuleRecord;
        use burn::tensor::Bytes;
        let CheckpointState { config, step, history, carry } = cp.state;
        if step >= config.steps {
            return Err(format!("the checkpoint is at step {step}, but the run has only {} steps", config.steps));
        }
        let mut t = Trainer::<C>::new(config, device).map_err(|e| e.to_string())?;
        let record =
            ModuleRecord::from_bytes(Bytes::from_bytes_vec(cp.model)).map_err(|e| format!("model record: {e}"))?;
        t.model = t.model.try_load_record(record).map_err(|e| format!("model record: {e}"))?;
        t.optim =
            t.optim.from_bytes(Bytes::from_bytes_vec(cp.optimizer)).map_err(|e| format!("optimizer record: {e}"))?;
        t.step = step;
        t.history = history;
        t.chapter.restore(carry);
        Ok(t)
    }
}
