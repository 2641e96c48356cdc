// The bench's TensorFlow.js peer: the model of bench/torch_bench.py (and src/model/transformer.rs)
// written with TensorFlow.js ops, timed in the same headless Chromium run as the engine, on
// TensorFlow.js's wasm backend (SIMD; one thread, as the page is not cross-origin isolated) and,
// where an adapter exists, its WebGPU backend. www/bench-tfjs.html loads the UMD builds of
// @tensorflow/tfjs (core with its gradients), -backend-wasm and -backend-webgpu
// (bench/tfjs/package.json, installed by scripts/bench.sh with `npm ci`) and then this file,
// which sets `window.plateauTfjs`.
//
// A timed step is the engine's: a fresh batch (random tokens of the case's shape: the data
// generators are not reimplemented, as in torch_bench.py for chapters 2 and 3), forward, the
// loss, backward and one Adam update; the loss is read back once at the end of the timed steps.
// Differences from the engine, none of which changes the work of a step by much: Adam without
// weight decay (TensorFlow.js has no AdamW; the decay is one multiply-add per weight), random
// tokens for chapter 1 too, no key-padding mask for the masked-LM loss, and the embedding lookup
// as a one-hot matrix product (tf.gather's gradient is missing from the wasm backend; it adds
// 2·batch·seq·vocab·d_model FLOPs forward: with chapter 1's 18 tokens 4 % of the interactive
// step's matrix products and 0.6 % of the paper step's, which is why the bench runs TensorFlow.js
// on chapter 1 only: chapter 4's 1024 tokens would add 38 %).
/* global tf */
(function () {
  const normal = (shape) => tf.variable(tf.randomNormal(shape, 0, 0.02, 'float32'));
  const zeros = (shape) => tf.variable(tf.zeros(shape));
  const ones = (shape) => tf.variable(tf.ones(shape));

  function build(s) {
    const d = s.d_model;
    const layers = [];
    for (let l = 0; l < s.layers; l += 1) {
      layers.push({
        ln1g: ones([d]), ln1b: zeros([d]),
        wq: normal([d, d]), bq: zeros([d]), wk: normal([d, d]), bk: zeros([d]),
        wv: normal([d, d]), bv: zeros([d]), wo: normal([d, d]), bo: zeros([d]),
        ln2g: ones([d]), ln2b: zeros([d]),
        wfc: normal([d, s.d_ff]), bfc: zeros([s.d_ff]), wproj: normal([s.d_ff, d]), bproj: zeros([d]),
      });
    }
    return { tok: normal([s.vocab, d]), pos: normal([s.seq, d]), layers, lnfg: ones([d]), lnfb: zeros([d]), head: normal([d, s.vocab]) };
  }

  function layerNorm(x, g, b) {
    const mean = tf.mean(x, -1, true);
    const c = tf.sub(x, mean);
    const v = tf.mean(tf.square(c), -1, true);
    return tf.add(tf.mul(tf.div(c, tf.sqrt(tf.add(v, 1e-5))), g), b);
  }

  function gelu(x) {
    const k = Math.sqrt(2 / Math.PI);
    return tf.mul(tf.mul(x, 0.5), tf.add(1, tf.tanh(tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), k))));
  }

  function forward(m, s, tokens, masks) {
    const [b, t, d, h] = [s.batch, s.seq, s.d_model, s.heads];
    const dh = d / h;
    // The embedding lookup as a one-hot product: the gradient of tf.gather needs
    // UnsortedSegmentSum, which the wasm backend does not have.
    const emb = tf.matMul(tf.oneHot(tf.reshape(tokens, [b * t]), s.vocab), m.tok);
    let x = tf.add(tf.reshape(emb, [b, t, d]), tf.expandDims(m.pos, 0)); // [b, t, d]
    for (const p of m.layers) {
      const ln = tf.reshape(layerNorm(x, p.ln1g, p.ln1b), [b * t, d]);
      const split = (w, bias) => tf.transpose(tf.reshape(tf.add(tf.matMul(ln, w), bias), [b, t, h, dh]), [0, 2, 1, 3]);
      const q = split(p.wq, p.bq);
      const k = split(p.wk, p.bk);
      const v = split(p.wv, p.bv);
      const scores = tf.div(tf.matMul(q, k, false, true), Math.sqrt(dh)); // [b, h, t, t]
      let att;
      if (!s.softmax) att = s.causal ? tf.mul(scores, masks.tril) : scores;
      else att = tf.softmax(s.causal ? tf.add(scores, masks.upper) : scores, -1);
      const y = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [b * t, d]);
      x = tf.add(x, tf.reshape(tf.add(tf.matMul(y, p.wo), p.bo), [b, t, d]));
      const ln2 = tf.reshape(layerNorm(x, p.ln2g, p.ln2b), [b * t, d]);
      const mlp = tf.add(tf.matMul(gelu(tf.add(tf.matMul(ln2, p.wfc), p.bfc)), p.wproj), p.bproj);
      x = tf.add(x, tf.reshape(mlp, [b, t, d]));
    }
    const out = tf.reshape(layerNorm(x, m.lnfg, m.lnfb), [b * t, d]);
    return tf.reshape(tf.matMul(out, m.head), [b, t, s.vocab]);
  }

  function batch(s) {
    const n = s.batch * s.seq;
    const tokens = new Int32Array(n);
    for (let i = 0; i < n; i += 1) tokens[i] = Math.floor(Math.random() * s.vocab);
    const targets = new Int32Array(s.loss === 'last' ? s.batch : n);
    for (let i = 0; i < targets.length; i += 1) targets[i] = Math.floor(Math.random() * s.vocab);
    // mlm: ~15 % of the positions carry a target, at least the first of each sequence.
    const weights = new Float32Array(s.loss === 'mlm' ? n : 0);
    for (let i = 0; i < weights.length; i += 1) weights[i] = i % s.seq === 0 || Math.random() < 0.15 ? 1 : 0;
    return { tokens, targets, weights };
  }

  function loss(m, s, data, masks) {
    const tokens = tf.tensor2d(data.tokens, [s.batch, s.seq], 'int32');
    const logits = forward(m, s, tokens, masks);
    if (s.loss === 'last') {
      const last = tf.reshape(tf.slice(logits, [0, s.seq - 1, 0], [s.batch, 1, s.vocab]), [s.batch, s.vocab]);
      return tf.losses.softmaxCrossEntropy(tf.oneHot(tf.tensor1d(data.targets, 'int32'), s.vocab), last);
    }
    const flat = tf.reshape(logits, [s.batch * s.seq, s.vocab]);
    const onehot = tf.oneHot(tf.tensor1d(data.targets, 'int32'), s.vocab);
    if (s.loss === 'mlm') return tf.losses.softmaxCrossEntropy(onehot, flat, tf.tensor1d(data.weights));
    return tf.losses.softmaxCrossEntropy(onehot, flat);
  }

  /** Milliseconds per training step of the case `shape` ({vocab, seq, layers, heads, d_model,
   * d_ff, batch, softmax, causal, loss, lr}) on TensorFlow.js's `backend` ('wasm' | 'webgpu'):
   * `warmup` untimed steps, then `steps` timed ones. Returns {ms, backend, version, simd}. */
  async function time(shape, steps, warmup, backend) {
    if (!(await tf.setBackend(backend))) throw new Error(`TensorFlow.js could not start its ${backend} backend`);
    await tf.ready();
    const s = shape;
    const m = build(s);
    const t = s.seq;
    const masks = tf.tidy(() => ({
      tril: tf.keep(tf.linalg.bandPart(tf.ones([t, t]), -1, 0)),
      upper: tf.keep(tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([t, t]), -1, 0)), -1e9)),
    }));
    const opt = tf.train.adam(s.lr, 0.9, 0.999, 1e-8);
    const step = () => {
      const data = batch(s);
      return opt.minimize(() => loss(m, s, data, masks), true);
    };
    try {
      for (let i = 0; i < warmup; i += 1) {
        const c = step();
        await c.data();
        c.dispose();
      }
      const t0 = performance.now();
      let last = null;
      for (let i = 0; i < steps; i += 1) {
        if (last) last.dispose();
        last = step();
      }
      await last.data();
      last.dispose();
      const ms = (performance.now() - t0) / steps;
      const simd = backend === 'wasm' ? await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') : null;
      return { ms, backend, version: tf.version_core, simd };
    } finally {
      opt.dispose();
      tf.dispose([masks.tril, masks.upper, m.tok, m.pos, m.lnfg, m.lnfb, m.head, ...m.layers.flatMap((p) => Object.values(p))]);
    }
  }

  tf.wasm.setWasmPaths(new URL('node_modules/@tensorflow/tfjs-backend-wasm/dist/', document.currentScript.src).href);
  window.plateauTfjs = { time };
}());
