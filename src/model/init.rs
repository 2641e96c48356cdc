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
    /// A weight of shape `[d_in, d_out]` (burn's Linear layout). `output_proj` marks the
    /// projections the paper scales by 1/√(2·layers).
    pub fn linear_weight(&mut self, d_in: usize, d_out: usize, output_proj: bool) -> Param<Tensor<2>> {
        let std = match self.init {
            Init::Paper if output_proj => 0.02 / (2.0 * self.layers as f64).sqrt(),
            Init::Paper => 0.02,
            Init::Gamma(g) => (d_in as f64).powf(-g),
        };
        self.matrix(d_in, d_out, std)
    }

    /// An embedding table `[rows, width]`.
    pub fn embedding(&mut self, rows: usize, width: usize) -> Param<Tensor<2>> {
        let std = match self.init {
            Init::Paper => 0.02,
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
