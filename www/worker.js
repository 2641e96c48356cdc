// @ts-check
// Training worker: owns the engine Session and runs it in bounded chunks so that commands
// from the page (pause, step, set, reset) are handled between chunks. The engine it trains on is
// loaded by www/worker-engine.js; the shard workers that share a sharded step are driven by
// www/worker-shards.js.
//
// Protocol (page → worker):
//   {type:'prefetch', query}          first: the page's URL query; its backend= chooses the engine,
//                                      fetched at once
//   {type:'start', run, config, backend, seeds, workers, cores, runs}  new run ("webgpu" | "cpu" | "race" | "" = choose;
//                                      a hardware adapter, or "race", times both backends on the
//                                      run's model and trains on the faster, see src/race.rs);
//                                      autoplay; run: the page's id for it, echoed in 'backend',
//                                      'chunk' and 'band'; seeds: the seed band's other seeds,
//                                      trained one after another once the run finishes;
//                                      workers (0 = auto), cores (the browser's) and runs (how
//                                      many train side by side): how many workers share its
//                                      steps' shards (workersFor; shard-worker.js)
//   {type:'pause'} {type:'resume'} {type:'step'}
//   {type:'set', key, value}           live parameter (c, c-from, lr, …); recorded with the step
//                                      it was made at, so the band's seeds replay it there
//   {type:'seeds', seeds}              the seed band's seeds from now on
//   {type:'save'}                      the run as one model file (see 'saved')
//   {type:'checkpoint'}                a host copy of the run now, if it moved since the last one
//                                      (see 'host-copy')
//   {type:'inspect', bytes}            what a model file holds (see 'model-info')
//   {type:'start', …, bytes}           with bytes: continue the run saved in that model file
//   {type:'test', what}                fault injection for the end-to-end tests:
//                                      'diverge' (infinite learning rate), 'panic' (a panic
//                                      inside the engine), 'device-loss' (destroys the WebGPU
//                                      device the run uses) or 'shard-panic' (a panic inside
//                                      the first shard worker)
// Protocol (worker → page):
//   {type:'ready'}                     the view's wasm loaded (the engine follows at the first start)
//   {type:'racing', run}               timing both backends before the run starts
//   {type:'backend', run, backend, reason, params, omega, reference, race, workers}   reference:
//                                      chapter 4's reference levels (lmReference), null in other
//                                      chapters; race: {webgpu_ms, cpu_ms, cached} when a race
//                                      decided; workers: {count, reason}, the workers that train
//   {type:'chunk', run, step, steps, status, message, rows, snapshots, events}
//   {type:'band', run, seed, step, steps, status, rows}   rows of a band seed (no snapshots)
//   {type:'state', running}
//   {type:'saved', run, bytes, step, experiment}   a model file of the run (Uint8Array)
//   {type:'host-copy', run, step, ms, count, total_ms, bytes, file}   a host copy was taken
//                                      (file: the model file; bytes: its size)
//   {type:'model-info', info, error}   info: {experiment, step, steps, config}; or why not
//   {type:'error', message, fatal}     fatal: the engine trapped (a Rust panic); this worker
//                                      is unusable from now on and the page replaces it
import { loadCorpus } from './corpus.js';
import { E, choose, errText, engineKind, forgetChoice, prefetch, useEngine, viewLoaded } from './worker-engine.js';
import { dropHelpers, helpers, shardedChunk, startHelpers, tellHelpers } from './worker-shards.js';

const CHUNK_MS = 30; // longest stretch of training between two looks at the message queue
// The worker keeps a host copy of the run (a model file: one read of every weight and moment),
// posted to the page, which autosaves it (www/autosave.js) so that a reload or a failed worker
// continues from it, and which a WebGPU device loss continues from on the CPU instead of from
// step 0. The cadence is set by measurement: a copy is taken at the end of a chunk once the time
// since the last copy is at least HOST_COPY_RATIO times what that copy took, so copies cost at
// most 1/HOST_COPY_RATIO (5 %) of the training time whatever the model and the backend, and at
// least HOST_COPY_GAP_MS (a few seconds of training at most are lost). The page asks for one at
// once ('checkpoint') when the tab is hidden; the run's last step gets one when it finishes.
const HOST_COPY_RATIO = 20;
const HOST_COPY_GAP_MS = 3000;

/** @typedef {import('./pkg/plateau.js').Session} Session */
/** A message from the page (www/messages.d.ts). @typedef {ToWorker} Msg */
/** A live change of the run. @typedef {{step: number, key: string, value: string}} Change */

/** @type {Session | null} */
let session = null;
let running = false;
/** @type {Msg[]} */
let queue = [];
/** @type {(() => void) | null} */
let wake = null;
let run = 0; // the page's id of the current run, echoed in 'backend' and 'chunk'
/** @type {StartRun | null} */
let current = null; // the start message of the current run (config and backend), for a restart
let mainDone = false; // the run on screen stopped (finished or diverged)
let mainStep = 0; // the step the run on screen has reached
/** @type {Change[]} */
let schedule = []; // the live changes of the run: {step, key, value}, in order
let replayed = schedule.length; // after a restart on the CPU, how many of them the new session has applied
/** @type {{bytes: Uint8Array, step: number, ms: number, at: number} | null} */
let hostCopy = null; // {bytes, step, ms, at}, the run's latest model file (see HOST_COPY_RATIO)
let hostCopies = { count: 0, ms: 0 }; // the copies of this run: how many, their total time
// The seed band: the seeds still to train, the session of the one training, how many of the
// schedule's changes it has applied.
/** @type {{seeds: number[], session: Session | null, seed: number | null, applied: number, step: number}} */
let band = { seeds: [], session: null, seed: null, applied: 0, step: 0 };
// The races run so far: cost key (costKey: chapter, model shape, batch) → verdict. A new run of
// a model already timed keeps its verdict; another chapter, preset or width races again.
const races = new Map();

// Every GPUDevice the engine requests, so a test can destroy it (a real device loss).
/** @type {any[]} */
const devices = [];
// (WebGPU's types are not in TypeScript's libraries: the adapter class is looked up untyped.)
const GpuAdapter = /** @type {any} */ (self).GPUAdapter;
if (GpuAdapter && GpuAdapter.prototype.requestDevice) {
  const request = GpuAdapter.prototype.requestDevice;
  GpuAdapter.prototype.requestDevice = async function requestDevice(/** @type {any[]} */ ...args) {
    const device = await request.apply(this, args);
    devices.push(device);
    return device;
  };
}

/** @param {FromWorker} msg */
function post(msg) { self.postMessage(msg); }

/** A shard worker stopped mid-step: this worker computes every slice from now on. @param {unknown} err */
function helperLost(err) {
  post({ type: 'notice', message: `A shard worker stopped (${err instanceof Error ? err.message : String(err)}); this worker computes every shard from now on, with the same rows.` });
  post({ type: 'workers', run, count: 1, reason: 'One worker computes each step\'s shards: the others stopped.' });
}

self.onmessage = (e) => {
  // The page's first message: the URL's query, whose backend chooses the engine, fetched at once.
  if (e.data.type === 'prefetch') { prefetch(e.data.query); return; }
  queue.push(e.data);
  if (wake) { const w = wake; wake = null; w(); }
};

// A macrotask boundary: lets queued messages arrive.
const tick = () => new Promise((/** @type {(v?: unknown) => void} */ resolve) => { const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(); ch.port2.postMessage(0); });

function dropBandSession() {
  if (band.session) { try { band.session.free(); } catch (e) { /* already unusable */ } }
  band.session = null;
  band.seed = null;
}

/** Milliseconds per training step of `config` on `backend`, as the race times it
 * (src/race.rs): the warm-up steps untimed, then one step, then as many more as fit the budget.
 * @param {any} config @param {string} backend @param {{warmup: number, budgetMs: number, maxSteps: number}} st */
async function timeSteps(config, backend, st) {
  const s = await E.Session.create(E.timingConfig(config), backend);
  try {
    await guarded(s.runFor(1e12, st.warmup));
    const t0 = performance.now();
    await guarded(s.runFor(0, 1));
    let steps = 1;
    let ms = performance.now() - t0;
    if (ms < st.budgetMs / 2) {
      const more = Math.max(1, Math.min(st.maxSteps - 1, Math.floor((st.budgetMs - ms) / ms)));
      const t1 = performance.now();
      await guarded(s.runFor(1e12, more));
      steps += more;
      ms += performance.now() - t1;
    }
    return ms / steps;
  } finally {
    try { s.free(); } catch (e) { /* a failed WebGPU session may be unusable */ }
  }
}

/** Times `config` on WebGPU and on the CPU; the verdict ({backend, reason, webgpu_ms, cpu_ms}).
 * @param {any} config */
async function race(config) {
  const st = E.raceSettings();
  let gpu;
  let gpuError;
  try {
    gpu = await timeSteps(config, 'webgpu', st);
  } catch (err) {
    gpuError = errText(err);
    devices.length = 0;
    E.forgetWebgpu();
  }
  const cpu = await timeSteps(config, 'cpu', st);
  return E.raceVerdict(gpu, gpuError, cpu);
}

/** Starts the run of `msg`. @param {StartRun} msg */
async function start(msg) {
  run = msg.run;
  current = msg;
  if (session) { session.free(); session = null; }
  dropHelpers();
  dropBandSession();
  band.seeds = (msg.seeds || []).slice();
  mainDone = false;
  mainStep = 0;
  schedule = [];
  replayed = 0;
  hostCopy = null;
  hostCopies = { count: 0, ms: 0 };
  const choice = await choose(msg.backend || '');
  forgetChoice(msg.backend || ''); // a later run probes the adapter again, as it may have changed
  // While the WebGPU engine is missing (scripts/serve.sh serves before it is built) or fails to
  // load, the run trains on the CPU engine and says so; the next run tries www/pkg again.
  let missing = '';
  try {
    await useEngine(choice.engine);
  } catch (err) {
    if (choice.engine !== 'webgpu') throw err;
    missing = `The WebGPU engine is not here yet (www/pkg is still being built, or failed to load), so this run trains on the CPU; Reset uses WebGPU once it is there. (${errText(err)})`;
    await useEngine('cpu');
  }
  if (msg.config.experiment === 'lm') await loadCorpus(E);
  let backend = missing ? 'cpu' : choice.backend;
  let reason = missing || msg.reason || choice.reason;
  let raced = null;
  if (choice.race && !msg.reason && !missing) {
    const key = E.costKey(msg.config);
    let verdict = races.get(key);
    const cached = !!verdict;
    if (!verdict) {
      post({ type: 'racing', run });
      verdict = await race(msg.config);
      races.set(key, verdict);
    }
    backend = verdict.backend;
    reason = cached ? `${verdict.reason} (Timed when this model first ran on this page; another chapter, preset or width times again.)` : verdict.reason;
    raced = { webgpu_ms: verdict.webgpu_ms ?? null, cpu_ms: verdict.cpu_ms, cached };
  }
  // A model file continues its run; otherwise a new run of the config.
  const open = (/** @type {string} */ b) => (msg.bytes ? E.Session.load(msg.bytes, b) : E.Session.create(msg.config, b));
  try {
    session = await open(backend);
  } catch (err) {
    if (backend !== 'webgpu') throw err;
    reason = `WebGPU failed to start (${errText(err)}); training runs on the CPU backend instead.`;
    backend = 'cpu';
    session = await open(backend);
  }
  const reference = msg.config.experiment === 'lm' ? E.lmReference() : null;
  let workers = E.workersFor(msg.workers || 0, msg.cores || 1, msg.runs || 1, session.shards, backend !== 'webgpu');
  if (workers.count > 1) {
    try {
      await startHelpers(workers.count, msg.config, msg.bytes, engineKind);
    } catch (err) {
      workers = { count: 1, reason: `One worker computes each step's ${session.shards} shards: the shard workers could not start (${errText(err)}).` };
    }
  }
  post({ type: 'backend', run, backend, reason, params: session.paramCount(), omega: session.omega(), reference, race: raced, workers });
  if (msg.bytes) {
    // The loaded run's history, as one chunk; it goes on from its step.
    const out = session.flush();
    post({ type: 'chunk', run, ...out });
    mainStep = out.step;
    mainDone = out.status !== 'running';
  }
  running = msg.autoplay !== false;
  post({ type: 'state', running });
}

/**
 * Applies the changes of `list` from index `from` that are due at `step` to `sess`; returns the
 * new index and the steps until the next change (Infinity when none is left).
 * @param {Session} sess @param {Change[]} list @param {number} from @param {number} step
 */
function replayDue(sess, list, from, step) {
  let i = from;
  while (i < list.length && list[i].step <= step) {
    try { sess.setParam(list[i].key, list[i].value); } catch (e) { /* refused for the run too: it said so then */ }
    i += 1;
  }
  return { applied: i, until: i < list.length ? list[i].step - step : Infinity };
}

/** After WebGPU fails mid-run: the run continues on the CPU backend from its last host copy
 * (the model file taken every HOST_COPY_EVERY steps), or from step 0 when there is none yet, with
 * its live changes after that step replayed at the steps they were made, and a notice.
 * @param {unknown} err */
async function restartOnCpu(err) {
  const copy = hostCopy;
  const was = current;
  if (!was) return;
  const from = copy ? `continues from step ${copy.step} (its last copy on the host)` : 'restarts from step 0';
  post({ type: 'notice', message: `WebGPU stopped working during the run (${errText(err)}); the run ${from} on the CPU backend, with the same settings and live changes.` });
  try { session?.free(); } catch (e) { /* the failed session may be unusable; drop it */ }
  session = null;
  devices.length = 0;
  E.forgetWebgpu();
  const changes = schedule;
  const why = copy ? `WebGPU failed during the run, so it continued from step ${copy.step} on the CPU backend.` : 'WebGPU failed during the run, so it restarted on the CPU backend.';
  await start({ ...was, bytes: copy ? copy.bytes : undefined, backend: 'cpu', autoplay: running, reason: why });
  // The copy's config already holds the changes made up to its step.
  schedule = changes;
  replayed = copy ? changes.filter((c) => c.step <= copy.step).length : 0;
  // A later restart of this run (a reset is a new start) begins again from the copy.
  if (copy) current = { ...was, bytes: copy.bytes };
}

// A failure inside a WebGPU callback (e.g. a lost device) is not a rejection of the pending
// chunk: it surfaces as an uncaught error of the worker and the chunk never settles. While a
// chunk runs, such an error fails the chunk instead, so the run can restart on the CPU.
/** @type {((e: Error) => void) | null} */
let failChunk = null;
/** @param {Event} e @param {unknown} reason */
function uncaught(e, reason) {
  if (!failChunk) return;
  e.preventDefault();
  failChunk(reason instanceof Error ? reason : new Error(String(reason)));
}
self.addEventListener('error', (e) => uncaught(e, e.error || e.message));
self.addEventListener('unhandledrejection', (e) => uncaught(e, e.reason));

/** `promise`, or a rejection when a WebGPU callback fails while it is pending (see above).
 * @template T @param {Promise<T>} promise @returns {Promise<T>} */
async function guarded(promise) {
  try {
    /** @type {Promise<never>} */
    const failed = new Promise((_, reject) => { failChunk = reject; });
    return await Promise.race([promise, failed]);
  } finally {
    failChunk = null;
  }
}

/** Trains the run on screen for up to `budget` ms and `maxSteps` steps, and posts its chunk.
 * @param {number} budget @param {number} maxSteps */
async function chunk(budget, maxSteps) {
  const sess = session;
  if (!sess) return;
  let out;
  // After a restart: the run's live changes, each at its step.
  const due = replayDue(sess, schedule, replayed, mainStep);
  replayed = due.applied;
  try {
    const steps = Math.max(1, Math.min(maxSteps, due.until));
    out = await guarded(helpers.length ? shardedChunk(sess, budget, steps, (p) => E.sumGradients(p), helperLost) : sess.runFor(budget, steps));
  } catch (err) {
    if (session && session.backend === 'webgpu') { await restartOnCpu(err); return; }
    throw err;
  }
  post({ type: 'chunk', run, ...out });
  mainStep = out.step;
  const finished = out.status !== 'running';
  if (finished) mainDone = true;
  if (finished || !hostCopy || performance.now() - hostCopy.at >= Math.max(HOST_COPY_GAP_MS, HOST_COPY_RATIO * hostCopy.ms)) await copyToHost();
  if (finished && !band.seeds.length) { running = false; post({ type: 'state', running }); }
}

/** Takes a host copy of the run on screen (a model file) unless it has not trained yet or the
 * last copy is of this step, and posts it ('host-copy'). On WebGPU a failure continues the run
 * on the CPU. */
async function copyToHost() {
  const sess = session;
  if (!sess || sess.step === 0 || (hostCopy && hostCopy.step === sess.step)) return;
  const t0 = performance.now();
  let bytes;
  try {
    bytes = await guarded(sess.saveModel());
  } catch (err) {
    if (sess.backend === 'webgpu') { await restartOnCpu(err); return; }
    post({ type: 'notice', message: `The run could not be copied for saving: ${errText(err)}` });
    return;
  }
  const t1 = performance.now();
  hostCopy = { bytes, step: sess.step, ms: t1 - t0, at: t1 };
  hostCopies = { count: hostCopies.count + 1, ms: hostCopies.ms + (t1 - t0) };
  post({ type: 'host-copy', run, step: sess.step, ms: t1 - t0, count: hostCopies.count, total_ms: hostCopies.ms, bytes: bytes.length, file: bytes });
}

/** Trains the seed band's next stretch: the first seed left, from the run's start config with its
 * own seed, its live changes applied at the steps the run made them. */
async function bandChunk() {
  if (!band.session) {
    if (!current) return;
    band.seed = band.seeds[0];
    band.session = await E.Session.create({ ...current.config, seed: band.seed }, session ? session.backend : 'cpu');
    band.applied = 0;
    band.step = 0;
  }
  const due = replayDue(band.session, schedule, band.applied, band.step);
  band.applied = due.applied;
  const out = await band.session.runFor(CHUNK_MS, Math.max(1, Math.min(1000, due.until)));
  band.step = out.step;
  post({ type: 'band', run, seed: band.seed ?? -1, step: out.step, steps: out.steps, status: out.status, rows: out.rows });
  if (out.status !== 'running') {
    dropBandSession();
    band.seeds.shift();
    if (!band.seeds.length) { running = false; post({ type: 'state', running }); }
  }
}

/** @param {Msg} msg */
async function handle(msg) {
  switch (msg.type) {
    case 'start': await start(msg); break;
    case 'pause': running = false; post({ type: 'state', running }); await copyToHost(); break;
    case 'checkpoint': await copyToHost(); break;
    case 'resume': if (session) { running = true; post({ type: 'state', running }); } break;
    case 'step': if (session) { running = false; post({ type: 'state', running }); await chunk(0, 1); } break;
    case 'set':
      if (session) {
        try {
          session.setParam(msg.key, String(msg.value));
          // The shard workers' replicas change at the same point of the run (messages keep
          // their order: after the last step's sum, before the next step's slices).
          tellHelpers({ type: 'set', key: msg.key, value: String(msg.value) });
          schedule.push({ step: mainStep, key: msg.key, value: String(msg.value) });
          if (replayed === schedule.length - 1) replayed = schedule.length; // applied just now
        }
        catch (err) { post({ type: 'notice', message: errText(err) }); }
      }
      break;
    case 'seeds':
      if (band.seed !== null && !msg.seeds.includes(band.seed)) dropBandSession();
      // The seed training now stays first; seeds the page already has are not trained again.
      band.seeds = band.seed !== null && msg.seeds.includes(band.seed)
        ? [band.seed, ...msg.seeds.filter((/** @type {number} */ s) => s !== band.seed && !msg.done?.includes(s))]
        : msg.seeds.filter((/** @type {number} */ s) => !msg.done?.includes(s));
      break;
    case 'save':
      if (!session) { post({ type: 'notice', message: 'No run to save yet.' }); break; }
      try {
        const bytes = await guarded(session.saveModel());
        post({ type: 'saved', run, bytes, step: session.step, experiment: current?.config.experiment ?? '' });
      } catch (err) {
        post({ type: 'notice', message: `The model could not be saved: ${errText(err)}` });
      }
      break;
    case 'inspect':
      try {
        if (!E) await useEngine('cpu');
        post({ type: 'model-info', info: E.modelFileInfo(msg.bytes) });
      }
      catch (err) { post({ type: 'model-info', error: errText(err) }); }
      break;
    case 'test':
      if (msg.what === 'device-loss') devices.forEach((d) => d.destroy());
      // A trap inside the first shard worker (nothing when this worker trains alone).
      else if (msg.what === 'shard-panic') { if (helpers.length) helpers[0].worker.postMessage({ type: 'test', what: 'panic' }); }
      else if (session) session.testHook(msg.what); // 'panic' throws a RuntimeError: fatal
      break;
    default: post({ type: 'error', message: `unknown command ${msg.type}` });
  }
}

async function main() {
  try {
    await viewLoaded;
  } catch (err) {
    post({ type: 'error', message: `The WebAssembly engine failed to load in the worker: ${errText(err)}` });
    return;
  }
  post({ type: 'ready' });
  for (;;) {
    try {
      for (let msg = queue.shift(); msg; msg = queue.shift()) await handle(msg);
      if (running && session && !mainDone) {
        await chunk(CHUNK_MS, 1000);
        await tick();
      } else if (running && session && band.seeds.length) {
        await bandChunk();
        await tick();
      } else if (running) {
        running = false;
        post({ type: 'state', running });
      } else {
        await new Promise((/** @type {(v?: unknown) => void} */ r) => { wake = r; });
      }
    } catch (err) {
      running = false;
      // A trap (a Rust panic, `unreachable`) leaves the engine's state half-updated: nothing in
      // this instance may be called again, so the page starts a new worker.
      const fatal = err instanceof WebAssembly.RuntimeError;
      post({ type: 'error', message: `Training stopped: ${errText(err)}`, fatal });
      if (fatal) return;
    }
  }
}

main();
