//! The transformer of every chapter: minGPT-style, pre-LN, learned absolute positions.
//!
//! `x += Attn(LN(x)); x += MLP(LN(x))`, a final LayerNorm and an untied LM head without bias,
//! as in Gopalani & Hu's code. Attention is either the paper's *linear* attention
//! (`A = causal0(q·kᵀ/√d_head)`, no softmax) or softmax attention, causal (decoder) or
//! bidirectional (encoder). An optional multiplicative mask `M` multiplies the attention
//! weights elementwise before `A·V` (Gopalani & Hu's attention bias `c`).
//!
//! The forward pass returns the logits, every layer's attention weights and the final-LN
//! hidden states, so that metrics read exactly what the model computed.

use super::init::{Init, Initializer, Role};
use crate::rng::{stream, Stream};
use burn::module::{Module, ModuleVisitor, Param};
use burn::nn::{LayerNorm, LayerNormConfig, Linear};
use burn::tensor::activation::softmax;
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};

/// Shape and kind of a transformer.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformerConfig {
    /// Vocabulary size (18 for moving-window sum).
    pub vocab: usize,
    /// Number of positions (input length; 32 for the paper).
    pub positions: usize,
    /// Layers (paper: 1).
    pub layers: usize,
    /// Heads per layer (paper: 1).
    pub heads: usize,
    /// Residual width (paper: 256).
    pub d_model: usize,
    /// MLP hidden width (paper: 1024).
    pub d_ff: usize,
    /// `true`: softmax attention; `false`: the paper's linear attention.
    pub softmax: bool,
    /// `true`: causal (decoder); `false`: bidirectional (encoder).
    pub causal: bool,
}

/// Which positions a token attends to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sees {
    /// Itself and the earlier ones (a decoder).
    Earlier,
    /// Every position (an encoder).
    All,
}

/// One pre-LN block: attention then MLP, each with a residual connection.
#[derive(Module, Debug)]
pub struct Block {
    ln1: LayerNorm,
    query: Linear,
    key: Linear,
    value: Linear,
    out: Linear,
    ln2: LayerNorm,
    fc: Linear,
    proj: Linear,
    heads: usize,
    softmax: bool,
    causal: bool,
}

/// The model.
#[derive(Module, Debug)]
pub struct Transformer {
    tok_emb: Param<Tensor<2>>,
    pos_emb: Param<Tensor<2>>,
    blocks: Vec<Block>,
    ln_f: LayerNorm,
    head: Param<Tensor<2>>,
}

/// What a forward pass computed.
pub struct Forward {
    /// `[batch, seq, vocab]`.
    pub logits: Tensor<3>,
    /// One `[batch, heads, seq, seq]` tensor per layer: the weights that multiply `V`
    /// (after the causal mask, softmax if any, and the multiplicative mask).
    pub attention: Vec<Tensor<4>>,
    /// Output of the final LayerNorm, `[batch, seq, d_model]`.
    pub hidden: Tensor<3>,
}

fn linear(init: &mut Initializer, d_in: usize, d_out: usize, bias: bool, role: Role) -> Linear {
    Linear { weight: init.linear_weight(d_in, d_out, role), bias: bias.then(|| init.constant(d_out, 0.0)) }
}

impl TransformerConfig {
    /// The shape a run's config asks for (its layers, heads, `d_model` and `d_ff`) with a
    /// chapter's vocabulary, number of positions, kind of attention and which positions a token
    /// sees.
    pub fn sized(
        cfg: &crate::config::RunConfig,
        vocab: usize,
        positions: usize,
        attention: crate::config::Attention,
        sees: Sees,
    ) -> Self {
        TransformerConfig {
            vocab,
            positions,
            layers: cfg.layers,
            heads: cfg.heads,
            d_model: cfg.d_model,
            d_ff: cfg.d_ff,
            softmax: attention == crate::config::Attention::Softmax,
            causal: sees == Sees::Earlier,
        }
    }

    /// Builds the model with weights drawn from the run's `Init` stream of `seed`.
    ///
    /// Draw order (fixed): token embedding, position embedding, then per block Q, K, V, out,
    /// fc, proj, then the head.
    pub fn init(&self, scheme: Init, seed: u64, device: &Device) -> Transformer {
        assert!(self.d_model % self.heads == 0, "heads must divide d_model");
        let mut rng = stream(seed, Stream::Init, 0);
        let mut init = Initializer { init: scheme, layers: self.layers, rng: &mut rng, device };
        let d = self.d_model;
        let tok_emb = init.embedding(self.vocab, d);
        let pos_emb = init.embedding(self.positions, d);
        let blocks = (0..self.layers)
            .map(|_| Block {
                ln1: LayerNormConfig::new(d).init(device),
                query: linear(&mut init, d, d, true, Role::QueryKey),
                key: linear(&mut init, d, d, true, Role::QueryKey),
                value: linear(&mut init, d, d, true, Role::Plain),
                out: linear(&mut init, d, d, true, Role::OutputProj),
                ln2: LayerNormConfig::new(d).init(device),
                fc: linear(&mut init, d, self.d_ff, true, Role::Plain),
                proj: linear(&mut init, self.d_ff, d, true, Role::OutputProj),
                heads: self.heads,
                softmax: self.softmax,
                causal: self.causal,
            })
            .collect();
        let head = init.linear_weight(d, self.vocab, Role::Plain);
        Transformer { tok_emb, pos_emb, blocks, ln_f: LayerNormConfig::new(d).init(device), head }
    }
}

/// The tanh-approximate GELU of minGPT / GPT-2, `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`,
/// computed as the identical `x · σ(2z)` with `z = √(2/π)·(x + 0.044715·x³)`:
/// `x / (1 + exp(−2z))`, with `z` clamped to `[−20, 20]` (where `σ(2z)` is already 0 or 1 in f32)
/// so `exp` cannot overflow. burn's `gelu_approximate` computes `x³` with `powf` and `tanh` in
/// f64 (and recomputes it in the backward pass); this form uses only multiplications, one `exp`
/// and one division, and agrees with it to float rounding (tested).
pub fn gelu_tanh<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    const SQRT_2_OVER_PI: f64 = 0.797_884_560_802_865_4;
    let x3 = x.clone() * x.clone() * x.clone();
    let z = (x.clone() + x3 * 0.044715) * SQRT_2_OVER_PI;
    let e = z.clamp(-20.0, 20.0).mul_scalar(-2.0).exp();
    x / (e + 1.0)
}

/// The lower-triangular (diagonal included) 0/1 matrix `[t, t]`.
pub fn causal_ones(t: usize, device: &Device) -> Tensor<2> {
    let data: Vec<f32> = (0..t * t).map(|i| if i % t <= i / t { 1.0 } else { 0.0 }).collect();
    Tensor::from_data(TensorData::new(data, [t, t]), device)
}

impl Block {
    /// `x: [batch, seq, d]`, `mask: [seq, seq]` multiplicative (or `None`), `pad: [batch, seq]`
    /// true at padding keys (softmax attention only: they get weight 0).
    fn forward(&self, x: Tensor<3>, mask: Option<&Tensor<2>>, pad: Option<&Tensor<4, Bool>>) -> (Tensor<3>, Tensor<4>) {
        let [b, t, d] = x.dims();
        let h = self.heads;
        let dh = d / h;
        let device = x.device();
        let ln = self.ln1.forward(x.clone()); // [b, t, d]
        let split = |y: Tensor<3>| y.reshape([b, t, h, dh]).swap_dims(1, 2); // [b, h, t, dh]
        let q = split(self.query.forward(ln.clone()));
        let k = split(self.key.forward(ln.clone()));
        let v = split(self.value.forward(ln));
        let mut scores = q.matmul(k.swap_dims(2, 3)).div_scalar((dh as f64).sqrt()); // [b, h, t, t]
        if let (Some(pad), true) = (pad, self.softmax) {
            scores = scores.mask_fill(pad.clone(), f32::NEG_INFINITY);
        }
        let mut att = match (self.softmax, self.causal) {
            (false, true) => scores.mul(causal_ones(t, &device).unsqueeze::<4>()),
            (false, false) => scores,
            (true, true) => {
                let upper: Tensor<2, Bool> = causal_ones(t, &device).equal_elem(0.0);
                softmax(scores.mask_fill(upper.unsqueeze::<4>(), f32::NEG_INFINITY), 3)
            }
            (true, false) => softmax(scores, 3),
        };
        if let Some(m) = mask {
            att = att.mul(m.clone().unsqueeze::<4>()); // [b, h, t, t]
        }
        let y = att.clone().matmul(v).swap_dims(1, 2).reshape([b, t, d]); // [b, t, d]
        let x = x + self.out.forward(y);
        let m = self.proj.forward(gelu_tanh(self.fc.forward(self.ln2.forward(x.clone())))); // [b, t, d]
        (x + m, att)
    }
}

impl Transformer {
    /// `tokens: [batch, seq]` → logits, attention maps, final-LN hidden states.
    pub fn forward(&self, tokens: Tensor<2, Int>, mask: Option<&Tensor<2>>) -> Forward {
        self.forward_padded(tokens, mask, None)
    }

    /// [`Transformer::forward`] with padding: `pad: [batch, seq]` is true at padding positions,
    /// which no query attends to (softmax attention; an all-padding row cannot occur because a
    /// sentence has at least one word).
    pub fn forward_padded(
        &self,
        tokens: Tensor<2, Int>,
        mask: Option<&Tensor<2>>,
        pad: Option<Tensor<2, Bool>>,
    ) -> Forward {
        let pad = pad.map(|p| {
            let [b, t] = p.dims();
            p.reshape([b, 1, 1, t]).expand([b, self.blocks.first().map_or(1, |bl| bl.heads), t, t])
        });
        let [_, t] = tokens.dims();
        let device = tokens.device();
        let tok = burn::tensor::module::embedding(self.tok_emb.val(), tokens); // [b, t, d]
        #[allow(clippy::single_range_in_vec_init)] // burn slices take one range per dimension
        let pos = self.pos_emb.val().slice([0..t]).unsqueeze::<3>(); // [1, t, d]
        let _ = device;
        let mut x = tok + pos;
        let mut attention = Vec::with_capacity(self.blocks.len());
        for block in &self.blocks {
            let (nx, att) = block.forward(x, mask, pad.as_ref());
            x = nx;
            attention.push(att);
        }
        let hidden = self.ln_f.forward(x); // [b, t, d]
        let logits = hidden.clone().matmul(self.head.val().unsqueeze::<3>()); // [b, t, vocab]
        Forward { logits, attention, hidden }
    }

    /// Every parameter flattened into one vector, in module order (for comparing backends and
    /// checking determinism).
    pub async fn flat_params(&self) -> Vec<f32> {
        struct Flatten(Vec<Tensor<1>>);
        impl ModuleVisitor for Flatten {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                self.0.push(param.val().flatten::<1>(0, D - 1));
            }
        }
        let mut v = Flatten(vec![]);
        self.visit(&mut v);
        crate::tensor::read_f32(Tensor::cat(v.0, 0)).await
    }

    /// The token embedding table `[vocab, d_model]`.
    pub fn token_embeddings(&self) -> Tensor<2> {
        self.tok_emb.val()
    }

    /// Number of scalar parameters.
    pub fn param_count(&self) -> usize {
        self.num_params()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper_cfg() -> TransformerConfig {
        TransformerConfig {
            vocab: 18,
            positions: 32,
            layers: 1,
            heads: 1,
            d_model: 256,
            d_ff: 1024,
            softmax: false,
            causal: true,
        }
    }

    #[test]
    fn gelu_tanh_matches_burns_gelu_approximate_and_its_gradient() {
        use burn::tensor::activation::gelu_approximate;
        let device = crate::backend::cpu_device();
        let xs: Vec<f32> = (-400..=400).map(|i| i as f32 * 0.05).chain([-1e4, -60.0, 60.0, 1e4]).collect();
        let n = xs.len();
        let t = Tensor::<1>::from_data(TensorData::new(xs.clone(), [n]), &device);
        let a: Vec<f32> = gelu_tanh(t.clone()).into_data().try_to_vec().unwrap();
        let b: Vec<f32> = gelu_approximate(t).into_data().try_to_vec().unwrap();
        for ((x, a), b) in xs.iter().zip(&a).zip(&b) {
            assert!((a - b).abs() <= 2e-6 * (1.0 + b.abs()), "gelu({x}): {a} vs {b}");
        }
        // Hand-computed: gelu(1) = 0.5·(1 + tanh(0.7978846·1.044715)) = 0.8411920.
        assert!((a[420] - 0.841_192).abs() < 1e-6, "gelu(1) = {}", a[420]);
        // Gradients agree too, and stay finite far out.
        let ad = device.clone().autodiff();
        let grad = |f: fn(Tensor<1>) -> Tensor<1>| -> Vec<f32> {
            let x = Tensor::<1>::from_data(TensorData::new(xs.clone(), [n]), &ad).require_grad();
            let g = f(x.clone()).sum().backward();
            x.grad(&g).unwrap().into_data().try_to_vec().unwrap()
        };
        let (ga, gb) = (grad(gelu_tanh::<1>), grad(gelu_approximate::<1>));
        for ((x, a), b) in xs.iter().zip(&ga).zip(&gb) {
            assert!(a.is_finite(), "gelu'({x}) = {a}");
            if x.abs() < 100.0 {
                assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "gelu'({x}): {a} vs {b}");
            }
        }
    }

    #[test]
    fn paper_model_has_0_81_m_parameters() {
        let m = paper_cfg().init(Init::Paper, 0, &crate::backend::cpu_device());
        // 18·256 + 32·256 + 4·(256·256+256) + (256·1024+1024) + (1024·256+256) + 3·512 + 256·18
        assert_eq!(m.param_count(), 807_680);
    }

    #[test]
    fn linear_attention_is_causal_and_unnormalized() {
        let cfg = TransformerConfig { d_model: 16, d_ff: 32, positions: 6, ..paper_cfg() };
        let device = crate::backend::cpu_device();
        let m = cfg.init(Init::Gamma(0.3), 1, &device);
        let tokens = Tensor::<2, Int>::from_data(TensorData::new(vec![1i64, 2, 3, 4, 5, 6], [1, 6]), &device);
        let f = m.forward(tokens, None);
        let a: Vec<f32> = f.attention[0].clone().into_data().try_to_vec().unwrap();
        for q in 0..6 {
            for k in q + 1..6 {
                assert_eq!(a[q * 6 + k], 0.0, "({q},{k}) must be masked");
            }
        }
        let row_sum: f32 = a[6 * 5..].iter().sum();
        assert!((row_sum - 1.0).abs() > 1e-3, "linear attention rows are not normalized");
        assert_eq!(f.logits.dims(), [1, 6, 18]);
        assert_eq!(f.hidden.dims(), [1, 6, 16]);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_future_tokens_do_not_leak() {
        let cfg = TransformerConfig { d_model: 16, d_ff: 32, positions: 6, softmax: true, ..paper_cfg() };
        let device = crate::backend::cpu_device();
        let m = cfg.init(Init::Paper, 2, &device);
        let run = |toks: Vec<i64>| {
            let t = Tensor::<2, Int>::from_data(TensorData::new(toks, [1, 6]), &device);
            let f = m.forward(t, None);
            let a: Vec<f32> = f.attention[0].clone().into_data().try_to_vec().unwrap();
            let l: Vec<f32> = f.logits.into_data().try_to_vec().unwrap();
            (a, l)
        };
        let (a, l1) = run(vec![1, 2, 3, 4, 5, 6]);
        for q in 0..6 {
            let s: f32 = a[q * 6..q * 6 + 6].iter().sum();
            assert!((s - 1.0).abs() < 1e-5);
        }
        let (_, l2) = run(vec![1, 2, 3, 9, 9, 9]);
        assert_eq!(l1[..3 * 18], l2[..3 * 18], "positions 0..2 cannot see tokens 3..5");
    }

    #[test]
    fn multiplicative_mask_scales_the_attention_entry() {
        let cfg = TransformerConfig { d_model: 16, d_ff: 32, positions: 4, ..paper_cfg() };
        let device = crate::backend::cpu_device();
        let m = cfg.init(Init::Paper, 3, &device);
        let t = Tensor::<2, Int>::from_data(TensorData::new(vec![1i64, 2, 3, 4], [1, 4]), &device);
        let mut mask = vec![1.0f32; 16];
        mask[3 * 4 + 1] = 2.5;
        let mask = Tensor::from_data(TensorData::new(mask, [4, 4]), &device);
        let a0: Vec<f32> = m.forward(t.clone(), None).attention[0].clone().into_data().try_to_vec().unwrap();
        let a1: Vec<f32> = m.forward(t, Some(&mask)).attention[0].clone().into_data().try_to_vec().unwrap();
        assert!((a1[13] - 2.5 * a0[13]).abs() < 1e-7);
        assert_eq!(a1[12], a0[12]);
    }

    #[test]
    fn paper_with_changes_only_the_parts_it_names() {
        let cfg = TransformerConfig { d_model: 16, d_ff: 32, positions: 4, layers: 2, ..paper_cfg() };
        let device = crate::backend::cpu_device();
        let w = |m: &Transformer, f: fn(&Block) -> &Linear| -> Vec<f32> {
            f(&m.blocks[1]).weight.val().into_data().try_to_vec().unwrap()
        };
        let paper = cfg.init(Init::Paper, 5, &device);
        let same = cfg.init(Init::PaperWith { flat_out: false, qk: 1.0 }, 5, &device);
        let changed = cfg.init(Init::PaperWith { flat_out: true, qk: 0.1 }, 5, &device);
        let parts: [fn(&Block) -> &Linear; 6] =
            [|b| &b.query, |b| &b.key, |b| &b.value, |b| &b.out, |b| &b.fc, |b| &b.proj];
        for f in parts {
            assert_eq!(w(&paper, f), w(&same, f), "the defaults draw the paper's weights");
        }
        // Q and K at 0.1 × 0.02; the output projections at 0.02 instead of 0.02/√(2·2) = 0.01:
        // the same draws, scaled.
        for (f, ratio) in
            [(parts[0], 0.1), (parts[1], 0.1), (parts[2], 1.0), (parts[3], 2.0), (parts[4], 1.0), (parts[5], 2.0)]
        {
            for (a, b) in w(&paper, f).iter().zip(w(&changed, f)) {
                assert!((b - ratio * a).abs() <= 1e-6 * a.abs().max(1e-6), "{b} vs {ratio} × {a}");
            }
        }
    }
}
