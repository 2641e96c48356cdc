// @ts-check
// The training worker's shard workers (www/shard-worker.js): replicas of the run that compute
// some of each step's slices, so that N workers share a sharded step; the training worker sums
// the slices' gradients in slice order and applies the sum, so the rows are the same for any
// number of workers. Empty when the training worker trains alone.

/**
 * The part of the engine's `Session` a sharded chunk drives.
 * @typedef {{shards: number, step: number, beginStep: () => Promise<boolean>,
 *   shardGradient: (j: number) => Promise<Float32Array>, applyGradient: (sum: Float32Array) => Promise<boolean>,
 *   flush: () => any}} ShardedSession
 * A reply of a shard worker: 'ready', or a step's 'grad' with its slices' payloads.
 * @typedef {{type: string, parts: number[], payloads: Float32Array[]}} Reply
 * @typedef {{resolve: (r: Reply) => void, reject: (e: Error) => void}} Pending
 * @typedef {{worker: Worker, pending: Pending | null, failed: Error | null}} Helper
 */

/** The shard workers of the run. @type {Helper[]} */
export let helpers = [];
// Where the sharded steps' time went, since the run started (posted with each chunk as
// `sharding`, for the bench): steps; ms in this worker's own engine calls (its slices, the row,
// the update); ms waiting for the other workers' slices after its own were done; ms summing.
let sharding = { steps: 0, own_ms: 0, wait_ms: 0, sum_ms: 0 };

/** Stops every shard worker. */
export function dropHelpers() {
  for (const h of helpers) h.worker.terminate();
  helpers = [];
}

/** Posts `msg` to every shard worker (a live change, a test's fault). @param {any} msg */
export function tellHelpers(msg) {
  for (const h of helpers) h.worker.postMessage(msg);
}

/** Posts `msg` to shard worker `h`; resolves with its reply ('ready' or 'grad'), rejects on its
 * 'error' or when it fails. One request at a time per shard worker.
 * @param {Helper} h @param {any} msg @returns {Promise<Reply>} */
function ask(h, msg) {
  if (h.failed) return Promise.reject(h.failed);
  /** @type {Promise<Reply>} */
  const reply = new Promise((resolve, reject) => { h.pending = { resolve, reject }; });
  h.worker.postMessage(msg);
  return reply;
}

/** Starts `count - 1` shard workers, each with a replica of the run (`bytes`: a loaded model
 * file, else a new run of `config`) on the engine `engine` ('webgpu' or 'cpu'); resolves once
 * all are ready, or rejects with the reason (then none is kept).
 * @param {number} count @param {any} config @param {Uint8Array | undefined} bytes @param {string} engine */
export async function startHelpers(count, config, bytes, engine) {
  dropHelpers();
  sharding = { steps: 0, own_ms: 0, wait_ms: 0, sum_ms: 0 };
  /** @type {Helper[]} */
  const started = [];
  for (let k = 1; k < count; k += 1) {
    /** @type {Helper} */
    const h = { worker: new Worker(new URL('./shard-worker.js', import.meta.url), { type: 'module' }), pending: null, failed: null };
    const fail = (/** @type {Error} */ err) => {
      h.failed = h.failed || err;
      if (h.pending) { const p = h.pending; h.pending = null; p.reject(err); }
    };
    h.worker.onmessage = (e) => {
      if (e.data.type === 'error') { fail(new Error(e.data.message)); return; }
      if (h.pending) { const p = h.pending; h.pending = null; p.resolve(e.data); }
    };
    h.worker.onerror = (e) => { e.preventDefault(); fail(new Error(e.message || 'the shard worker failed to load')); };
    started.push(h);
  }
  helpers = started;
  try {
    await Promise.all(helpers.map((h) => ask(h, { type: 'start', config, bytes, engine })));
  } catch (err) {
    dropHelpers();
    throw err;
  }
}

/**
 * Trains up to `maxSteps` sharded steps of `session` for at most `budget` ms with the shard
 * workers: at each step this worker records the row when due, computes slices 0, N, 2N… while
 * shard worker k computes slices k, k+N…, sums all S payloads in slice order (`sum`, the
 * engine's sumGradients) and applies the sum, then sends it to every shard worker to apply too.
 * A shard worker that fails is dropped with the others (`lost` is told why), and this worker
 * computes the missing slices itself: the rows stay the same. Resolves to the chunk ({step,
 * steps, status, …}, with `sharding`).
 * @param {ShardedSession} session @param {number} budget @param {number} maxSteps
 * @param {(payloads: Float32Array[]) => Float32Array} sum @param {(err: unknown) => void} lost
 */
export async function shardedChunk(session, budget, maxSteps, sum, lost) {
  const t0 = performance.now();
  const shards = session.shards;
  let done = 0;
  for (;;) {
    const t1 = performance.now();
    if (!(await session.beginStep())) break;
    const step = session.step;
    const n = helpers.length + 1;
    /** @type {Float32Array[]} */
    const payloads = new Array(shards);
    const asks = helpers.map((h, k) => {
      const parts = [];
      for (let j = k + 1; j < shards; j += n) parts.push(j);
      return ask(h, { type: 'grad', step, parts });
    });
    for (let j = 0; j < shards; j += n) payloads[j] = await session.shardGradient(j);
    const t2 = performance.now();
    try {
      for (const r of await Promise.all(asks)) r.parts.forEach((j, i) => { payloads[j] = r.payloads[i]; });
    } catch (err) {
      dropHelpers();
      lost(err);
    }
    const t3 = performance.now();
    for (let j = 0; j < shards; j += 1) if (!payloads[j]) payloads[j] = await session.shardGradient(j);
    const t4 = performance.now();
    const total = sum(payloads);
    const t5 = performance.now();
    const going = await session.applyGradient(total);
    const t6 = performance.now();
    if (going) tellHelpers({ type: 'apply', sum: total });
    const t7 = performance.now();
    sharding.steps += 1;
    sharding.own_ms += (t2 - t1) + (t4 - t3) + (t6 - t5);
    sharding.wait_ms += t3 - t2;
    sharding.sum_ms += (t5 - t4) + (t7 - t6);
    done += 1;
    if (!going || done >= maxSteps || performance.now() - t0 >= budget) break;
  }
  return { ...session.flush(), sharding: { ...sharding } };
}
