// @ts-check
// A shard worker: a replica of the training worker's run on the CPU backend that computes the
// gradients of some of each step's slices (the run's `shards`, see src/train/shards.rs) and
// applies the summed gradient the training worker sends back, so its weights stay equal to the
// training worker's, bit for bit. It records no rows: the training worker evaluates.
//
// Protocol (training worker → shard worker), handled one message at a time, in order:
//   {type:'start', config, bytes, engine}   a replica of the run: a new one of config, or the run
//                                      saved in bytes (a model file) when the run was loaded, on
//                                      the training worker's engine ('webgpu': www/pkg, 'cpu':
//                                      www/pkg-cpu; both train it on the CPU backend)
//   {type:'grad', step, parts}         the payloads of slices `parts` of step `step`
//   {type:'apply', sum}                the step's summed payload: one optimizer update
//   {type:'set', key, value}           a live change, at the same point of the run as the
//                                      training worker made it
//   {type:'test', what}                fault injection: 'panic' (a trap inside this engine)
// Protocol (shard worker → training worker):
//   {type:'ready'}                     the replica is built
//   {type:'grad', step, parts, payloads}   one Float32Array per slice of parts (transferred)
//   {type:'error', message}            anything that went wrong; the training worker then
//                                      computes every slice itself
import { loadCorpus } from './corpus.js';

/** @type {any} */
let session = null;
let chain = Promise.resolve();
/** @type {typeof import('./pkg/plateau.js') | null} */
let E = null;

/** @param {any} msg */
async function handle(msg) {
  switch (msg.type) {
    case 'start': {
      if (session) { session.free(); session = null; }
      // The training worker's engine, loaded once (a replica's rows must be its own).
      if (!E) {
        /** @type {typeof import('./pkg/plateau.js')} */
        const m = await import(msg.engine === 'webgpu' ? './pkg/plateau.js' : './pkg-cpu/plateau.js');
        await m.default();
        E = m;
      }
      if (msg.config.experiment === 'lm') await loadCorpus(E);
      session = await (msg.bytes ? E.Session.load(msg.bytes, 'cpu') : E.Session.create(msg.config, 'cpu'));
      self.postMessage({ type: 'ready' });
      break;
    }
    case 'grad': {
      if (!session) throw new Error('no replica to compute on');
      if (session.step !== msg.step) throw new Error(`the replica is at step ${session.step}, not ${msg.step}`);
      const payloads = [];
      for (const j of msg.parts) payloads.push(await session.shardGradient(j));
      self.postMessage({ type: 'grad', step: msg.step, parts: msg.parts, payloads }, payloads.map((p) => p.buffer));
      break;
    }
    case 'apply':
      if (!session) throw new Error('no replica to update');
      await session.applyGradient(msg.sum);
      break;
    case 'set':
      if (session) session.setParam(msg.key, String(msg.value));
      break;
    case 'test': // fault injection for the end-to-end tests: a panic inside this replica's engine
      if (session) session.testHook(msg.what);
      break;
    default:
      throw new Error(`unknown command ${msg.type}`);
  }
}

self.onmessage = (e) => {
  chain = chain.then(() => handle(e.data)).catch((err) => {
    self.postMessage({ type: 'error', message: String(err && err.message ? err.message : err) });
  });
};
