// @ts-check
// Step timing for `plateau bench` (driven by bench/browser.mjs through window.plateauBench).
// It runs the engine on the main thread: nothing else happens on this page, and the timing of a
// step is the same as in the page's worker.
// `?pkg=NAME`: another build of the same engine in www/pkg-NAME, e.g. `names` (function names
// kept, which scripts/bench.sh builds so that a CPU profile can say which Rust functions a step
// spends its time in).
const variant = new URLSearchParams(location.search).get('pkg');
const pkg = variant && /^[a-z]+$/.test(variant) ? `./pkg-${variant}/plateau.js` : './pkg/plateau.js';
const { default: init, parseQuery, chooseBackend, Session, installCorpus, timingConfig } = await import(pkg);

const wasm = await init();
// Chapter 4's corpus, as the page's worker hands it over.
installCorpus(await (await fetch('../data/moby-dick.txt')).text());
/** The session `open` built (the engine's `Session`, from whichever build `pkg` named). @type {any} */
let held = null;

/** Config of a page query with evaluation and snapshots off, as the page's backend race and
 * the native bench time it (race::timing_config). @param {string} query */
function benchConfig(query) {
  return timingConfig(parseQuery(query).config);
}

// The WebGPU calls the engine makes, counted by wrapping the API's prototypes: compute
// dispatches (kernel launches), queue submissions, and buffer maps (host reads: each one waits
// for the GPU to finish what was queued before it).
/** @typedef {'dispatches' | 'submits' | 'maps'} Counter */
/** @type {Record<Counter, number>} */
const calls = { dispatches: 0, submits: 0, maps: 0 };
const G = /** @type {any} */ (globalThis);
/** @param {string} cls @param {string} method @param {Counter} counter */
function wrap(cls, method, counter) {
  const proto = G[cls] && G[cls].prototype;
  if (!proto || typeof proto[method] !== 'function') return;
  const orig = proto[method];
  proto[method] = function counted(/** @type {any[]} */ ...args) { calls[counter] += 1; return orig.apply(this, args); };
}
wrap('GPUComputePassEncoder', 'dispatchWorkgroups', 'dispatches');
wrap('GPUComputePassEncoder', 'dispatchWorkgroupsIndirect', 'dispatches');
wrap('GPUQueue', 'submit', 'submits');
wrap('GPUBuffer', 'mapAsync', 'maps');

window.plateauBench = {
  /** The WebGPU probe's answer (`chooseBackend('')`). */
  probe: () => chooseBackend(''),

  /** Milliseconds per step of `query` on `backend` ('cpu' | 'webgpu', or a named CPU backend of
   * this build: 'ndarray', 'flex'): `warmup` untimed steps,
   * then `steps` timed ones. @param {string} query @param {number} steps @param {number} warmup
   * @param {string} backend */
  async time(query, steps, warmup, backend) {
    const session = await Session.create(benchConfig(query), backend);
    try {
      await session.runFor(1e12, warmup);
      const t0 = performance.now();
      await session.runFor(1e12, steps);
      return (performance.now() - t0) / steps;
    } finally {
      session.free();
    }
  },

  /** WebGPU calls per training step of `query` after `warmup` untimed steps, over `steps` steps
   * taken either in one chunk (`settle` false: the loss is read back once, at its end, as the
   * page's worker does) or one step per chunk (`settle` true: a read after every step, as the
   * engine did before it stopped reading the loss back at every step). Returns {ms, dispatches,
   * submits, maps}, each per step. @param {string} query @param {number} steps @param {number} warmup
   * @param {boolean} settle */
  async calls(query, steps, warmup, settle) {
    const session = await Session.create(benchConfig(query), 'webgpu');
    try {
      await session.runFor(1e12, warmup);
      const before = { ...calls };
      const t0 = performance.now();
      if (settle) for (let i = 0; i < steps; i += 1) await session.runFor(0, 1);
      else await session.runFor(1e12, steps);
      const ms = (performance.now() - t0) / steps;
      const per = (/** @type {Counter} */ k) => (calls[k] - before[k]) / steps;
      return { ms, dispatches: per('dispatches'), submits: per('submits'), maps: per('maps') };
    } finally {
      session.free();
    }
  },

  /** For a profile of the timed steps alone: `open` builds a session of `query` on `backend` (a
   * CPU backend: 'cpu', 'ndarray' or, in a build with it, 'flex') and takes `warmup` untimed
   * steps, `run` times `steps` more (ms/step), `close` frees it.
   * @param {string} query @param {number} warmup @param {string} [backend] */
  async open(query, warmup, backend = 'cpu') {
    held = await Session.create(benchConfig(query), backend);
    await held.runFor(1e12, warmup);
  },
  /** @param {number} steps */
  async run(steps) {
    const t0 = performance.now();
    await held.runFor(1e12, steps);
    return (performance.now() - t0) / steps;
  },
  close() {
    held?.free();
    held = null;
  },

  /** Size of the wasm linear memory (bytes) at 10 %, 50 % and 100 % of a `steps`-step run of the
   * chapter 1 interactive preset with its default evaluation and snapshots (on the CPU backend).
   * @param {number} steps */
  async memory(steps) {
    const { config } = parseQuery('');
    const session = await Session.create({ ...config, steps }, 'cpu');
    /** @type {[number, number][]} */
    const out = [];
    try {
      for (const mark of [Math.floor(steps / 10), Math.floor(steps / 2), steps]) {
        /** @type {number} */
        let step = out.length ? out[out.length - 1][0] : 0;
        while (step < mark) {
          const r = await session.runFor(1e12, mark - step);
          step = r.step;
          if (r.status !== 'running') break;
        }
        out.push([step, wasm.memory.buffer.byteLength]);
      }
    } finally {
      session.free();
    }
    return out;
  },
};
/** @type {HTMLElement} */ (document.getElementById('ready')).hidden = false;

export {}; // a module: top-level await
