//! Parameter initialization, drawn on the host from the run's seeded stream so that every
//! backend starts from bit-identical weights.

use crate::rng::normal_vec;
use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};
use rand_chacha::ChaCha8Rng;

/// How weights are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init {
    /// Gopalani & Hu / minGPT: every Linear and Embedding weight N(0, 0.02²), the two output
    /// projections of each block (attention out, MLP down) N(0, (0.02/√(2·layers))²), biases 0,
    /// LayerNorm weight 1 and bias 0.
    Paper,
    /// Yao et al. / Zhang et al.: every weight W ∈ R^{d_out×d_in} ~ N(0, (d_in^−γ)²), biases 0.
    /// For embeddings, d_in is the embedding width (PyTorch's `weight.shape[1]`), as in the
    /// anchor-function code this follows.
    Gamma(f64),
    /// The paper's scheme with two of its parts set apart, for chapter 3's copy-agreement search
    /// (issue 52): `flat_out` draws the two output projections N(0, 0.02²) like every other
    /// weight (the reference toy's "weights N(0, 0.02)"), and the query and key weights are drawn
    /// with `qk · 0.02`. `PaperWith { flat_out: false, qk: 1.0 }` draws exactly what `Paper` does.
    PaperWith {
        /// Output projections N(0, 0.02²) instead of N(0, (0.02/√(2·layers))²).
        flat_out: bool,
        /// Multiplier of the std of W_q and W_k.
        qk: f64,
    },
}

/// What a weight is for, where a scheme draws it differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Any weight without a role of its own (value, MLP input, LM head, ...).
    Plain,
    /// The query or key projection of an attention layer.
    QueryKey,
    /// A block's output projection (attention out, MLP down).
    OutputProj,
}

/// Draws parameters in a fixed order from one stream.
pub struct Initializer<'a> {
    /// The scheme.
    pub init: Init,
    /// Number of layers (for the paper's output-projection scaling).
    pub layers: usize,
    /// The stream weights are drawn from.
    pub rng: &'a mut ChaCha8Rng,
    /// Where tensors are created.
    pub device: &'a Device,
}

impl Initializer<'_> {
    /// A weight of shape `[d_in, d_out]` (burn's Linear layout) for `role` (the paper scales
    /// the output projections by 1/√(2·layers)).
    pub fn linear_weight(&mut self, d_in: usize, d_out: usize, role: Role) -> Param<Tensor<2>> {
        let scaled = 0.02 / (2.0 * self.layers as f64).sqrt();
        let std = match (self.init, role) {
            (Init::Paper, Role::OutputProj) => scaled,
            (Init::Paper, Role::Plain | Role::QueryKey) => 0.02,
            (Init::PaperWith { flat_out, .. }, Role::OutputProj) => {
                if flat_out {
                    0.02
                } else {
                    scaled
                }
            }
            (Init::PaperWith { qk, .. }, Role::QueryKey) => 0.02 * qk,
            (Init::PaperWith { .. }, Role::Plain) => 0.02,
            (Init::Gamma(g), _) => (d_in as f64).powf(-g),
        };
        self.matrix(d_in, d_out, std)
    }

    /// An embedding table `[rows, width]`.
    pub fn embedding(&mut self, rows: usize, width: usize) -> Param<Tensor<2>> {
        let std = match self.init {
            Init::Paper | Init::PaperWith { .. } => 0.02,
            Init::Gamma(g) => (width as f64).powf(-g),
        };
        self.matrix(rows, width, std)
    }

    fn matrix(&mut self, rows: usize, cols: usize, std: f64) -> Param<Tensor<2>> {
        let data = normal_vec(self.rng, rows * cols, std);
        Param::from_tensor(Tensor::from_data(TensorData::new(data, [rows, cols]), self.device))
    }

    /// A vector filled with `value` (biases 0, LayerNorm weights 1).
    pub fn constant(&self, len: usize, value: f32) -> Param<Tensor<1>> {
        Param::from_tensor(Tensor::from_data(TensorData::new(vec![value; len], [len]), self.device))
    }
}
