// @ts-check
// The worker protocol: starting a run, the messages the worker sends (backend, state, chunks of
// rows and snapshots, notices, errors), and what the page notes from them (the rate, the runs
// table; each chapter's module notes its events); a new worker when the engine in the old one failed.
import { configQuery, rowsCsv, runHeadline } from './pkg-view/plateau.js';
import { chapterView, chapterViews, scheduleDraw } from './charts.js';
import { markPending, setControls } from './controls.js';
import { $, download, notice, setText, showError } from './dom.js';
import { syncUrl } from './pageflags.js';
import { noteDone, showRunning, syncHolds } from './holds.js';
import { drawBand, onBandChunk, resetBand } from './seeds.js';
import { companionBackend, companionFor, haltCompanion, startCompanion } from './companion.js';
import { chapter, chapterInfo, chapterOf, send, state, workerShare } from './state.js';
import { claim, clockUpTo, copied, findSaved, forget, forgetOwn, latestCopy, newRun, runKey } from './autosave.js';

/** `n` with commas between groups of three digits (233216 → "233,216"). `toLocaleString` would
 * do the same, but its first call loads the locale data: 40–70 ms of main-thread time here.
 * @param {number} n */
export const thousands = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A run's chapter as the run table names it ("2 · init"), from the engine's chapter list.
 * @param {string} experiment */
function chapterLabel(experiment) {
  const n = chapterOf(experiment);
  return `${n} · ${chapterInfo(n).label}`;
}

/** Shows chapter `n`'s text, controls and views, and moves the shared scrubber into its maps. @param {number} n */
export function showChapter(n) {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-chapter]'))) el.hidden = Number(el.dataset.chapter) !== n;
  // A control of several chapters (e.g. Shards: 1, 2 and 4) lists them all.
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-chapters]'))) el.hidden = !(el.dataset.chapters ?? '').split(' ').includes(String(n));
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.chapter'))) b.setAttribute('aria-current', String(chapterOf(b.dataset.experiment ?? '') === n));
  $(`maps-${n}`).prepend($('scrub-box'));
  // The stage's try-this steps follow (www/try.js listens: it imports this module, not the reverse).
  document.dispatchEvent(new CustomEvent('plateau:chapter', { detail: n }));
}

/** Records the run on screen in the runs table (before a reset replaces it). */
export function recordRun() {
  if (!state.runCfg || !state.rows.length) return;
  const headline = runHeadline(state.runCfg.experiment, state.rows);
  state.runs.unshift({ id: state.run, cfg: { ...state.runCfg }, headline });
  state.runs = state.runs.slice(0, 8);
  drawRuns();
}

export function drawRuns() {
  const body = $('runs-body');
  body.replaceChildren(...state.runs.map((r) => {
    const tr = document.createElement('tr');
    for (const text of [String(r.id), chapterLabel(r.cfg.experiment), configQuery(r.cfg).replace(/^v=\d+&?/, '') || '(defaults)', r.headline || '–']) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  $('runs').hidden = state.runs.length === 0 && !state.pinned;
}

/**
 * Starts a new run of `state.cfg`; with `bytes` (a model file whose config `state.cfg` now is),
 * the run saved in it continues. A loaded model file trains alone; a run that continues from its
 * autosave or its last copy (`more`) brings its comparison run's file (which continues too, or
 * starts over when there is none) and its seed band's finished seeds, and is not a new row of the
 * runs table (`more.same`). Its training clock goes on from `more.clock` (the seconds trained,
 * and when each row and each comparison row arrived), so the times of its events stay true.
 * @param {Uint8Array} [bytes]
 * @param {{companion: Uint8Array | null, band: [number, any[]][], same?: boolean, clock?: import('./autosave.js').Clock}} [more]
 */
export function startRun(bytes, more) {
  if (!more?.same) { recordRun(); state.continues = 0; }
  if (!more) $('resumed').hidden = true;
  markPending(false);
  state.rows = [];
  state.events = null;
  state.snaps = [];
  state.scrub = null;
  state.step = 0;
  state.runMs = 0;
  state.runSince = null;
  state.rate = { step: 0, t: performance.now(), value: null };
  state.rowSeconds = new Map();
  // Each chapter forgets what it noted of the last run (its events' times, its status notes).
  for (const v of chapterViews()) v.start?.();
  state.runCfg = { ...state.cfg };
  syncUrl();
  state.steps = state.cfg.steps;
  showChapter(chapterOf(state.runCfg.experiment));
  $('steps').textContent = String(state.steps);
  $('run-state').textContent = 'starting';
  state.run += 1;
  newRun(state.run);
  claim(runKey(state.runCfg));
  if (state.page.autoplay) state.holds.delete('user');
  else state.holds.add('user');
  state.runDone = false;
  state.mainDone = false;
  resetBand();
  state.wantRunning = state.holds.size === 0;
  // A loaded model file continues one run: it trains alone.
  const alone = !!bytes && !more;
  const runs = !alone && companionFor() ? 2 : 1;
  send({ type: 'start', run: state.run, config: state.runCfg, backend: state.backendOverride, autoplay: state.wantRunning, seeds: state.band.seeds, bytes, ...workerShare(runs) });
  startCompanion(alone, more?.companion ?? undefined);
  if (more) keepBand(more.band);
  if (more?.clock) {
    state.runMs = more.clock.ms;
    state.rowSeconds = new Map(more.clock.rows);
    state.companion.seconds = new Map(more.clock.companion);
  }
  syncHolds();
  scheduleDraw(true);
}

// ---- worker messages -----------------------------------------------------------------

/** The workers that train the run on screen ({count, reason}, from the worker): the count in
 * `data-workers`, the reason in the backend line when the run's steps are sharded or the URL
 * asked for workers (one worker on one shard is the usual case, not worth a sentence). */
/** @param {{count: number, reason: string}} w */
function showWorkers(w) {
  const el = $('worker-note');
  el.dataset.workers = String(w.count);
  const shown = state.runCfg && (state.runCfg.shards > 1 || state.page.workers > 0);
  el.textContent = shown ? `Workers: ${w.reason}` : '';
  el.hidden = !shown;
  // The status line: how many workers train, the reason on hover and in the settings.
  const at = $('workers-at');
  setText($('workers-n'), w.count === 1 ? '1 worker' : `${w.count} workers`);
  at.title = w.reason;
  at.hidden = !shown;
}

/** @param {MessageEvent} e */
export function onMessage(e) {
  const msg = /** @type {FromWorker} */ (e.data);
  switch (msg.type) {
    case 'ready': {
      $('boot').hidden = true;
      const then = state.continueFrom;
      state.continueFrom = null;
      // A worker started after the engine failed continues the run from its last copy; without
      // one it waits for Reset, and the failed run stays on screen.
      if (state.recovering) {
        state.recovering = false;
        if (then) startRun(then.file, { companion: then.companion, band: then.band, same: true, clock: then.clock });
        else $('reset').classList.add('pending');
        break;
      }
      resumeOrStart();
      break;
    }
    case 'racing':
      if (msg.run !== state.run) break;
      $('backend').textContent = 'Backend: timing both backends on this model (a few training steps each)…';
      break;
    case 'backend':
      if (msg.run !== state.run) break;
      $('backend').textContent = `Backend: ${msg.backend === 'webgpu' ? 'WebGPU' : 'CPU (WebAssembly)'} — ${msg.reason} Model: ${thousands(msg.params)} parameters.`;
      $('backend').dataset.backend = msg.backend;
      showWorkers(msg.workers);
      // The race's figures (ms per training step), for readers' tools and the GPU check.
      for (const k of ['webgpu', 'cpu']) {
        const v = msg.race ? msg.race[k === 'webgpu' ? 'webgpu_ms' : 'cpu_ms'] : null;
        if (v == null) delete $('backend').dataset[`race${k === 'webgpu' ? 'Webgpu' : 'Cpu'}Ms`];
        else $('backend').dataset[`race${k === 'webgpu' ? 'Webgpu' : 'Cpu'}Ms`] = String(v);
      }
      chapterView(chapter()).backend?.(msg);
      companionBackend(msg.backend);
      break;
    case 'state':
      state.workerRunning = msg.running;
      showRunning();
      break;
    case 'chunk': {
      if (msg.run !== state.run) break; // posted by the previous run before the worker saw the reset
      // When the engine thins its bounded history it resends what it kept from the start: replace
      // instead of appending, so the page holds no more than the engine's bound.
      const resent = (/** @type {import('./state.js').Row[]} */ mine, /** @type {import('./state.js').Row[]} */ got) => got.length && mine.length && got[0].step <= mine[mine.length - 1].step;
      if (resent(state.rows, msg.rows)) state.rows = msg.rows; else state.rows.push(...msg.rows);
      // The run's events in all its rows so far, found by the engine in the worker.
      state.events = msg.events ?? null;
      if (resent(state.snaps, msg.snapshots)) { state.snaps = msg.snapshots; state.scrub = null; } else state.snaps.push(...msg.snapshots);
      state.step = msg.step;
      state.steps = msg.steps;
      // Where the sharded steps' time went (the workers' bench reads it).
      if (msg.sharding) window.plateauSharding = msg.sharding;
      // When the page's first trained step arrived, in ms since navigation (the engines' bench).
      if (msg.step >= 1 && window.plateauFirstStepAt === undefined) window.plateauFirstStepAt = performance.now();
      // The step counter moves with the run state (the rest of the status line waits for the
      // next frame), so "finished" never shows beside an older step.
      $('step').textContent = String(msg.step);
      $('steps').textContent = String(msg.steps);
      if (msg.status === 'diverged') { $('run-state').textContent = 'diverged'; notice(msg.message); }
      else if (msg.status === 'finished') $('run-state').textContent = 'finished';
      if (msg.status !== 'running') state.mainDone = true;
      noteDone();
      updateRate();
      // The chapter's status note (the drop, the verdict, the onsets, the collapse) from the events.
      chapterView(chapter()).note(msg.rows, msg.status);
      scheduleDraw(false);
      break;
    }
    case 'band':
      if (msg.run !== state.run) break;
      onBandChunk(msg);
      noteDone();
      scheduleDraw(false);
      break;
    case 'workers':
      if (msg.run === state.run) showWorkers(msg);
      break;
    case 'notice': notice(msg.message); break;
    case 'host-copy':
      if (msg.run !== state.run) break;
      // What the run's host copies cost (for readers' tools, the tests and the bench); the copy
      // itself is autosaved.
      window.plateauHostCopy = { step: msg.step, ms: msg.ms, count: msg.count, totalMs: msg.total_ms, bytes: msg.bytes };
      copied(msg.run, msg.file, msg.step);
      break;
    case 'saved':
      if (msg.run !== state.run) break;
      download(`plateau-${msg.experiment}-step${msg.step}.plateau`, msg.bytes, 'application/octet-stream');
      break;
    case 'model-info': {
      // The answer about the file chosen under "Load model": continue its run, or say why not
      // (nothing on the page changes then).
      const pending = state.pendingModel;
      state.pendingModel = null;
      if (!pending) break;
      if (pending.saved) { resumeSaved(pending.saved, msg); break; }
      if (msg.error) { notice(`Could not load ${pending.name}: ${msg.error}`); break; }
      state.cfg = msg.info.config;
      setControls(state.cfg);
      startRun(pending.bytes);
      notice(`Loaded ${pending.name}: the run continues from step ${msg.info.step} of ${msg.info.steps}.`);
      break;
    }
    case 'error':
      if (msg.fatal) engineFailed(msg.message);
      else showError(msg.message);
      break;
    default: break;
  }
}

/**
 * The run on screen's worker is unusable (its engine trapped, or the worker itself failed): a
 * fresh worker continues the run from its last copy (twice in a run at most: a failure that comes
 * back each time is not retried). Without a copy the rows stay on the charts and in Download CSV
 * (written from the page's rows), a fresh worker starts, and Reset trains again.
 * @param {string} message
 */
function engineFailed(message) {
  const copy = latestCopy();
  if (copy && state.continues < 2) {
    state.continues += 1;
    state.continueFrom = { file: copy.file, companion: copy.companion, band: doneBand(), clock: clockUpTo(copy.step, copy.companionStep) };
    notice(`${message}. The engine failed at step ${state.step}; a fresh worker continues the run from step ${copy.step}, its last copy.`);
    haltCompanion();
    startWorker();
    return;
  }
  showError(`${message}. The engine failed; the rows so far stay on the charts and in Download CSV. Press Reset to train again.`);
  $('run-state').textContent = 'stopped';
  state.mainDone = true;
  state.band.seeds.forEach((s) => state.band.done.add(s));
  haltCompanion();
  noteDone();
  startWorker();
}

/** Starts the training worker (again, after an engine failure: the old one is terminated). */
export function startWorker() {
  if (state.worker) { state.worker.terminate(); state.recovering = true; }
  // The first time, the worker www/worker-early.js started while the page loaded (it has been
  // told the URL's backend); a replacement, or a page without it, starts one here.
  const early = state.worker ? undefined : window.plateauEarlyWorker;
  window.plateauEarlyWorker = undefined;
  const worker = early ? early.worker : new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  // A worker that fails once it has trained (out of memory, say) is replaced like a trapped
  // engine; one that cannot start says so.
  const failed = (/** @type {ErrorEvent} */ e) => {
    if (state.worker === worker && latestCopy()) engineFailed(`The training worker failed (${e.message || 'it stopped'})`);
    else showError(`The training worker failed: ${e.message || 'it could not start'}.`);
  };
  worker.onmessage = onMessage;
  worker.onerror = failed;
  // The address at once: the worker reads its backend (`queryBackend`), chooses and fetches its
  // engine while the page sets up the first run.
  if (!early) worker.postMessage({ type: 'prefetch', query: window.location.search });
  state.worker = worker;
  if (early) {
    early.errors.forEach(failed);
    early.messages.forEach(onMessage);
  }
}

/** The CSV of the run on screen, from the rows the page holds (the engine's `rowsCsv`: the CLI's
 * columns and number format). */
export function runCsv() {
  return rowsCsv(state.runCfg, state.rows);
}

/** The reader changed the number of seeds: the band's seeds follow, the URL keeps it, and a finished
 * run trains the seeds it lacks. @param {number} n */
export function setSeeds(n) {
  state.page.seeds = n;
  syncUrl();
  if (!state.runCfg) return;
  const keep = state.band;
  resetBand();
  for (const s of state.band.seeds) {
    const kept = keep.rows.get(s);
    if (kept) state.band.rows.set(s, kept);
    if (keep.done.has(s)) state.band.done.add(s);
  }
  send({ type: 'seeds', seeds: state.band.seeds, done: [...state.band.done] });
  noteDone();
  if (!state.runDone) syncHolds(true);
  drawBand();
  scheduleDraw(true);
}

/** Steps per second over the last half second or more of training. The first window opens at
 * the first step that arrives, not at the run's start: the engine's loading and the first steps'
 * compiling would otherwise read as a slow rate for the first seconds. */
export function updateRate() {
  const now = performance.now();
  if (state.rate.value === null && state.rate.step === 0 && state.step > 0 && !state.rate.open) {
    state.rate = { step: state.step, t: now, value: null, open: true };
    return;
  }
  const dt = now - state.rate.t;
  if (dt > 500) {
    const ds = state.step - state.rate.step;
    state.rate.value = ds >= 0 ? (ds * 1000) / dt : null;
    state.rate = { step: state.step, t: now, value: state.rate.value, open: true };
  }
}

// ---- continuing a run -------------------------------------------------------------------

/** The seed band's finished seeds and their rows (what a continued run keeps). @returns {[number, any[]][]} */
const doneBand = () => [...state.band.done].map((s) => [s, state.band.rows.get(s) ?? []]);

/** A continued run keeps its seed band's finished seeds (of the seeds it has now) and trains the rest.
 * @param {[number, any[]][]} band */
function keepBand(band) {
  const kept = band.filter(([s]) => state.band.seeds.includes(s));
  if (!kept.length) return;
  for (const [s, rows] of kept) { state.band.rows.set(s, rows); state.band.done.add(s); }
  send({ type: 'seeds', seeds: state.band.seeds, done: [...state.band.done] });
  drawBand();
  noteDone();
}

/** The first run of the page: the run saved for this address continues (the worker reads its file
 * first), else a new run starts. */
async function resumeOrStart() {
  const key = runKey(state.cfg);
  const saved = await findSaved(key);
  if (!saved) { startRun(); return; }
  state.pendingModel = { bytes: saved.file, name: 'the saved run', saved: { ...saved, held: await claim(key) } };
  send({ type: 'inspect', bytes: saved.file });
}

/** The worker read the saved run's file (`msg`): it continues, or it is removed with the reason.
 * @param {import('./autosave.js').Saved & {held: boolean}} saved @param {any} msg */
function resumeSaved(saved, msg) {
  if (msg.error) {
    if (saved.held) forget(saved.key);
    notice(`The run saved for this address could not be continued, so a new run starts (${msg.error}).`);
    startRun();
    return;
  }
  state.cfg = msg.info.config;
  setControls(state.cfg);
  startRun(saved.file, { companion: saved.companion, band: saved.band, same: true, clock: saved.clock });
  const line = $('resumed');
  const other = saved.held ? '' : ' Another tab is training this address: this tab continues its own copy and does not save it.';
  setText($('resumed-text'), `Continued from step ${msg.info.step}, where this address was left.${other}`);
  line.hidden = false;
}

/** "Start over": the saved run of the address is removed and a new run starts. */
export function startOver() {
  $('resumed').hidden = true;
  forgetOwn();
  startRun();
}
