//! Checkpoints: a trainer's whole state between two steps, for the CLI to write to disk and
//! resume from (`plateau reproduce --resume`), and for the page to save as one file (*Save model*),
//! load again (*Load model*) and keep as a host copy on WebGPU, from which a run continues on the
//! CPU after a device loss.
//!
//! A [`Checkpoint`] holds the model's weights and the optimizer's moments as burnpack bytes (with
//! the parameter ids that key the optimizer state), and the rest as [`CheckpointState`]: config,
//! step, history and the chapter's [`Chapter::Carry`]. Nothing else is needed to continue bit for
//! bit: every batch is drawn from the seed's stream at the step's index ([`crate::rng::stream`]),
//! never from a running generator, and each chapter's fixed tables are drawn again from the seed.
//! [`Trainer::checkpoint_async`] reads the tensors back in one transaction, so it works on WebGPU
//! in the browser; natively [`Trainer::checkpoint`] waits for it.
//!
//! [`Checkpoint::to_file`] packs the three parts into one file (see [`FILE_MAGIC`]);
//! [`crate::run::Run::from_file`] reads it back for whichever chapter it holds.

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
    /// Whether the run had finished (its last step evaluated); absent in older files, which the
    /// CLI wrote of running trainers only.
    #[serde(default)]
    pub finished: bool,
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
    /// The run's whole state, to continue it later with [`Trainer::from_checkpoint`]: weights and
    /// moments read back in one transaction (on WebGPU, one wait for the GPU). A running or
    /// finished run has one (a finished one continues when `steps` grows); a diverged run has
    /// nothing worth continuing.
    pub async fn checkpoint_async(&self) -> Result<Checkpoint<C>, String> {
        if let Status::Diverged(_) = self.status {
            return Err("a diverged run cannot be saved (its weights are not finite); reset it".to_string());
        }
        // Everything is taken before the first await: the tensors are cloned handles.
        let state = CheckpointState {
            config: self.cfg.clone(),
            step: self.step,
            history: self.history.clone(),
            carry: self.chapter.carry(),
            finished: self.status == Status::Finished,
        };
        let saved = self.optim.read(&self.model).await?;
        Ok(Checkpoint { model: saved.model, optimizer: saved.optimizer, state })
    }

    /// [`Trainer::checkpoint_async`], waited for (natively). Only a running trainer: the CLI
    /// checkpoints runs it will continue.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn checkpoint(&self) -> Result<Checkpoint<C>, String> {
        if self.status != Status::Running {
            return Err(format!("only a running trainer can be checkpointed (this one is {:?})", self.status));
        }
        crate::tensor::block_on(self.checkpoint_async())
    }

    /// Continues a run from a [`Checkpoint`] on `device` (any backend, whichever it was saved
    /// on): the next [`Trainer::advance`] computes exactly what the checkpointed trainer's next
    /// call would have (tests hold the rows equal). A checkpoint at the last step gives a
    /// finished run, which continues when `steps` grows.
    pub fn from_checkpoint(cp: Checkpoint<C>, device: &burn::tensor::Device) -> Result<Trainer<C>, String> {
        use burn::store::ModuleRecord;
        use burn::tensor::Bytes;
        let CheckpointState { config, step, history, carry, finished } = cp.state;
        if step > config.steps {
            return Err(format!("the checkpoint is at step {step}, but the run has only {} steps", config.steps));
        }
        check_record(&cp.model, "model", true)?;
        check_record(&cp.optimizer, "optimizer", false)?;
        let mut t = Trainer::<C>::new(config, device).map_err(|e| e.to_string())?;
        let record =
            ModuleRecord::from_bytes(Bytes::from_bytes_vec(cp.model)).map_err(|e| format!("model record: {e}"))?;
        t.model = t.model.try_load_record(record).map_err(|e| format!("model record: {e}"))?;
        let plain = t.device.clone().inner();
        t.optim.restore(cp.optimizer, &t.model, &plain)?;
        t.step = step;
        if finished {
            t.status = Status::Finished;
        }
        t.history = history;
        t.chapter.restore(carry);
        Ok(t)
    }
}

/// Refuses a burnpack record (`what`: the model's or the optimizer's) that burnpack's reader takes
/// but the engine cannot use: burn panics on a tensor that is not f32 (an integer, bool,
/// quantized or `Flex32` one where a float parameter is) or whose data does not start on a 4-byte
/// boundary (burnpack aligns it to 256 bytes); and with `unique_ids` (the model's record, whose
/// ids the parameters take), two tensors with one parameter id would share the optimizer's state
/// and gradients, which panics at the next step. The engine writes aligned f32 tensors, one id
/// each. A header or metadata that does not parse is left to burnpack's reader, whose error says
/// why.
fn check_record(bytes: &[u8], what: &str, unique_ids: bool) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Descriptor {
        dtype: burn_pack::DType,
        data_offsets: (u64, u64),
        #[serde(default)]
        param_id: Option<u64>,
    }
    #[derive(Deserialize)]
    struct Metadata {
        tensors: std::collections::BTreeMap<String, Descriptor>,
    }
    let Some(header) = bytes.get(..burn_pack::HEADER_SIZE).and_then(|h| burn_pack::Header::from_bytes(h).ok()) else {
        return Ok(());
    };
    let end = burn_pack::HEADER_SIZE.saturating_add(header.metadata_size as usize);
    let Some(metadata) = bytes.get(burn_pack::HEADER_SIZE..end).and_then(|m| {
        ciborium::de::from_reader_with_recursion_limit::<Metadata, _>(m, burn_pack::MAX_CBOR_RECURSION_DEPTH).ok()
    }) else {
        return Ok(());
    };
    let mut ids = std::collections::HashMap::new();
    for (name, t) in &metadata.tensors {
        if t.dtype != burn_pack::DType::F32 {
            return Err(format!("{what} record: tensor {name} is stored as {:?}; Plateau reads f32 tensors", t.dtype));
        }
        if t.data_offsets.0 % 4 != 0 {
            return Err(format!(
                "{what} record: tensor {name}'s data starts at byte {} of the data section, not on a 4-byte boundary",
                t.data_offsets.0
            ));
        }
        if let Some(id) = t.param_id.filter(|_| unique_ids) {
            if let Some(other) = ids.insert(id, name) {
                return Err(format!("{what} record: tensors {other} and {name} have the same parameter id {id}"));
            }
        }
    }
    Ok(())
}

/// The first bytes of a checkpoint file. The file is: this magic, then the format version (u32,
/// little-endian), then four sections, each a u64 little-endian length and its bytes — a JSON
/// header ([`FileHeader`]), the model record, the optimizer record, the CBOR
/// [`CheckpointState`] — then the FNV-1a 64 hash of everything before it (u64 LE), so a cut or
/// damaged file is refused rather than loaded wrong.
pub const FILE_MAGIC: &[u8; 16] = b"PLATEAU-MODEL\0\0\0";

/// The version of the checkpoint file format.
pub const FILE_VERSION: u32 = 1;

/// What a checkpoint file says of itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileHeader {
    /// The engine that wrote it (`CARGO_PKG_VERSION`): another version's file is refused, as its
    /// model or rows may differ.
    pub engine: String,
    /// The run's experiment (`mws`, `anchors`, …: the URL value), which picks the chapter.
    pub experiment: String,
    /// Updates done.
    pub step: usize,
    /// The run's length.
    pub steps: usize,
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl<C: Chapter> Checkpoint<C> {
    /// The whole checkpoint as one file (see [`FILE_MAGIC`]).
    pub fn to_file(&self) -> Vec<u8> {
        let header = FileHeader {
            engine: env!("CARGO_PKG_VERSION").to_string(),
            experiment: self.state.config.experiment.name().to_string(),
            step: self.state.step,
            steps: self.state.config.steps,
        };
        let mut out = FILE_MAGIC.to_vec();
        out.extend_from_slice(&FILE_VERSION.to_le_bytes());
        let header = serde_json::to_vec(&header).expect("plain JSON");
        for part in [&header[..], &self.model, &self.optimizer, &self.state.to_bytes()] {
            out.extend_from_slice(&(part.len() as u64).to_le_bytes());
            out.extend_from_slice(part);
        }
        let hash = fnv1a(&out);
        out.extend_from_slice(&hash.to_le_bytes());
        out
    }

    /// Reads [`Checkpoint::to_file`]'s bytes of this chapter back.
    pub fn from_file(bytes: &[u8]) -> Result<Checkpoint<C>, String> {
        let (_, [model, optimizer, state]) = read_file(bytes)?;
        Ok(Checkpoint { model, optimizer, state: CheckpointState::from_bytes(&state)? })
    }
}

/// Splits a checkpoint file into its header and its three byte sections, checking the magic, the
/// format version, the engine version, every length and the hash; each refusal says why.
pub fn read_file(bytes: &[u8]) -> Result<(FileHeader, [Vec<u8>; 3]), String> {
    if bytes.len() < FILE_MAGIC.len() + 4 || &bytes[..FILE_MAGIC.len()] != FILE_MAGIC {
        return Err("not a Plateau model file (it does not start as one)".to_string());
    }
    if bytes.len() < FILE_MAGIC.len() + 4 + 8 {
        return Err("the file is damaged (it is cut short)".to_string());
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    if fnv1a(body) != u64::from_le_bytes(tail.try_into().expect("8 bytes")) {
        return Err("the file is damaged (its checksum does not match its contents)".to_string());
    }
    let version = u32::from_le_bytes(body[16..20].try_into().expect("4 bytes"));
    if version != FILE_VERSION {
        return Err(format!("the file is in format version {version}; this page reads version {FILE_VERSION}"));
    }
    let mut at = 20;
    let mut parts: Vec<Vec<u8>> = vec![];
    for _ in 0..4 {
        let len = body.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let part = len.and_then(|n| body.get(at + 8..(at + 8).checked_add(usize::try_from(n).ok()?)?));
        let Some(part) = part else { return Err("the file is damaged (a section runs past its end)".to_string()) };
        at += 8 + part.len();
        parts.push(part.to_vec());
    }
    if at != body.len() {
        return Err("the file is damaged (bytes after its last section)".to_string());
    }
    let header: FileHeader =
        serde_json::from_slice(&parts[0]).map_err(|e| format!("the file's header is not readable: {e}"))?;
    if header.engine != env!("CARGO_PKG_VERSION") {
        return Err(format!(
            "the file was written by Plateau {}; this is version {}, whose models or rows may differ",
            header.engine,
            env!("CARGO_PKG_VERSION")
        ));
    }
    let state = parts.pop().expect("four parts");
    let optimizer = parts.pop().expect("four parts");
    let model = parts.pop().expect("four parts");
    Ok((header, [model, optimizer, state]))
}

#[cfg(test)]
mod tests {
    use super::check_record;
    use burn_pack::{Bytes, DType};

    /// A burnpack record of one tensor `w` of 2 elements, as burnpack writes it.
    fn written(dtype: DType, bytes: usize) -> Vec<u8> {
        let t = burn_pack::Tensor::new("w".into(), dtype, vec![2usize], None, Bytes::from_bytes_vec(vec![0; bytes]));
        burn_pack::Writer::new(vec![t]).into_bytes().unwrap().to_vec()
    }

    /// A record's header and metadata declaring `tensors` (name, offsets in the data section,
    /// parameter id) of 2 f32 each (the data itself is not read).
    fn declared(tensors: &[(&str, (u64, u64), Option<u64>)]) -> Vec<u8> {
        #[derive(serde::Serialize)]
        struct Descriptor {
            dtype: DType,
            shape: Vec<u64>,
            data_offsets: (u64, u64),
            param_id: Option<u64>,
        }
        #[derive(serde::Serialize)]
        struct Metadata {
            tensors: std::collections::BTreeMap<String, Descriptor>,
        }
        let tensors = tensors
            .iter()
            .map(|&(name, data_offsets, param_id)| {
                (name.to_string(), Descriptor { dtype: DType::F32, shape: vec![2], data_offsets, param_id })
            })
            .collect();
        let mut meta = vec![];
        ciborium::into_writer(&Metadata { tensors }, &mut meta).unwrap();
        let mut out = burn_pack::Header::new(meta.len() as u32).into_bytes().to_vec();
        out.extend(meta);
        out
    }

    /// Found by `tests/fuzz_model.rs`: a record whose tensors burnpack reads fine but the engine
    /// cannot use (another dtype, data off a 4-byte boundary, two parameters with one id) made
    /// loading a model file, or its next step, panic.
    #[test]
    fn records_the_engine_cannot_use_are_refused_with_the_reason() {
        assert_eq!(check_record(&written(DType::F32, 8), "model", true), Ok(()));
        let (a, b) = (("a", (0, 8), Some(7)), ("b", (256, 264), Some(8)));
        assert_eq!(check_record(&declared(&[a, b]), "model", true), Ok(()));
        let e = check_record(&written(DType::I32, 8), "model", true).unwrap_err();
        assert!(e.contains("model record: tensor w is stored as I32"), "{e}");
        let e =
            check_record(&written(DType::Bool(burn::tensor::BoolStore::Native), 2), "optimizer", false).unwrap_err();
        assert!(e.contains("optimizer record: tensor w is stored as Bool"), "{e}");
        let e = check_record(&declared(&[("w", (1, 9), None)]), "optimizer", false).unwrap_err();
        assert!(e.contains("tensor w's data starts at byte 1 of the data section, not on a 4-byte boundary"), "{e}");
        // One id for two parameters: refused in the model's record; the optimizer's record keeps
        // two moments under each parameter's id.
        let twins = declared(&[a, ("b", (256, 264), Some(7))]);
        let e = check_record(&twins, "model", true).unwrap_err();
        assert!(e.contains("model record: tensors a and b have the same parameter id 7"), "{e}");
        assert_eq!(check_record(&twins, "optimizer", false), Ok(()));
        // What burnpack itself refuses is left to it: not a record, or cut inside its metadata.
        assert_eq!(check_record(b"not a record", "model", true), Ok(()));
        assert_eq!(check_record(&declared(&[("w", (1, 9), None)])[..20], "model", true), Ok(()));
    }
}
