//! Yao et al.'s simplified **Emb-MLP** model (chapter 2): embedding → aggregation over the
//! sequence → two-layer MLP → logits.
//!
//! `h = (1/T) Σ_t E[x_t]`, `logits = W₂ · gelu(W₁ h + b₁) + b₂` (the tanh-approximate GELU of the transformer's MLP). There is no attention and no
//! position information: the model sees the bag of tokens. It exists to show that the embedding
//! dynamics of chapter 2 (reasoning keys differentiating early and lining up by value under small
//! init, memory keys staying together) come from the embedding and the label distribution alone.
//! Because noise tokens share the key range, a bag of tokens cannot always tell the key from the
//! noise, so its accuracy stays below the transformer's; the embedding structure is the point.
//! Every weight is drawn with γ-init (`N(0, (d_in^−γ)²)`), biases 0.

use super::init::{Init, Initializer, Role};
use crate::rng::{stream, Stream};
use burn::module::{Module, Param};
use burn::nn::Linear;
use burn::tensor::{Device, Int, Tensor};

/// Shape of an Emb-MLP.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbMlpConfig {
    /// Vocabulary size (input and output).
    pub vocab: usize,
    /// Embedding width.
    pub d_model: usize,
    /// Hidden width of the MLP.
    pub d_ff: usize,
}

/// The model.
#[derive(Module, Debug)]
pub struct EmbMlp {
    emb: Param<Tensor<2>>,
    fc: Linear,
    out: Linear,
}

impl EmbMlpConfig {
    /// Builds the model with weights drawn from the run's `Init` stream of `seed`
    /// (draw order: embedding, fc, out).
    pub fn init(&self, scheme: Init, seed: u64, device: &Device) -> EmbMlp {
        let mut rng = stream(seed, Stream::Init, 0);
        let mut init = Initializer { init: scheme, layers: 1, rng: &mut rng, device };
        let emb = init.embedding(self.vocab, self.d_model);
        let fc = Linear {
            weight: init.linear_weight(self.d_model, self.d_ff, Role::Plain),
            bias: Some(init.constant(self.d_ff, 0.0)),
        };
        let out = Linear {
            weight: init.linear_weight(self.d_ff, self.vocab, Role::Plain),
            bias: Some(init.constant(self.vocab, 0.0)),
        };
        EmbMlp { emb, fc, out }
    }
}

impl EmbMlp {
    /// `tokens: [batch, seq]` → logits `[batch, vocab]`.
    pub fn forward(&self, tokens: Tensor<2, Int>) -> Tensor<2> {
        let e = burn::tensor::module::embedding(self.emb.val(), tokens); // [b, t, d]
        let h = e.mean_dim(1).squeeze_dim::<2>(1); // [b, d]
        self.out.forward(super::transformer::gelu_tanh(self.fc.forward(h)))
    }

    /// The embedding table `[vocab, d_model]`.
    pub fn embeddings(&self) -> Tensor<2> {
        self.emb.val()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::TensorData;

    #[test]
    fn bag_of_tokens_ignores_order_and_has_the_right_shape() {
        let device = crate::backend::cpu_device();
        let m = EmbMlpConfig { vocab: 10, d_model: 8, d_ff: 16 }.init(Init::Gamma(0.5), 0, &device);
        let run = |v: Vec<i64>| -> Vec<f32> {
            let t = Tensor::<2, Int>::from_data(TensorData::new(v, [1, 3]), &device);
            m.forward(t).into_data().try_to_vec().unwrap()
        };
        let a = run(vec![1, 2, 3]);
        let b = run(vec![3, 1, 2]);
        assert_eq!(a.len(), 10);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-6, "order must not matter: {x} vs {y}");
        }
        assert_eq!(m.num_params(), 10 * 8 + (8 * 16 + 16) + (16 * 10 + 10));
    }
}
