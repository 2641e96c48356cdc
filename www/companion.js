// @ts-check
// A companion run: a second run beside the run on screen, trained at the same time in a worker of
// its own (so a machine with two cores trains both at full speed). Which config it trains, if
// any, is the chapter's: its page module's `companion` hooks (chapter 2's compare view: the same
// configuration at another init scale, on the same data stream). The companion follows the run on
// screen: it starts, pauses, resumes, steps and takes live changes with it; it has no seed band and
// no snapshots. This module only routes rows: every number comes from the engine (the events sent
// with each chunk), and what the rows mean is the chapter module's.
import { chapterView, scheduleDraw } from './charts.js';
import { notice } from './dom.js';
import { noteDone, showRunning } from './holds.js';
import { chapter, state, workerShare } from './state.js';
import { copied } from './autosave.js';

/**
 * @typedef {{config: (cfg: import('./state.js').Config) => import('./state.js').Config | null,
 *   label: (cfg: import('./state.js').Config) => string, finished?: () => void, changed?: () => void}} CompanionHooks
 * A chapter's companion: `config`, the companion's config beside a run of `cfg` (null: none);
 * `label`, how notices name it ("γ = 0.4"); `finished`, told when it finished or diverged;
 * `changed`, told when it started, stopped or failed (its rows are in `state.companion`).
 */

/** The hooks of the chapter on screen, if it has a companion. @returns {CompanionHooks | undefined} */
const hooks = () => chapterView(chapter()).companion;

/** The companion config of the run on screen, or null when it has none. */
export function companionFor() {
  const h = hooks();
  return h && state.runCfg ? h.config(state.runCfg) : null;
}

/** Whether the charts draw the companion: it trains beside the run on screen and has rows. */
export const companionActive = () => !!state.companion.cfg && state.companion.rows.length > 0 && !!companionFor();

/** How notices name the companion. */
const label = () => {
  const c = state.companion;
  const h = hooks();
  return h && c.cfg ? h.label(c.cfg) : 'the comparison run';
};

/** The start message of the companion for the run on screen (with `bytes`: it continues the run
 * saved in that model file). @param {Uint8Array} [bytes] */
function startMessage(bytes) {
  return {
    bytes,
    type: 'start',
    run: state.run,
    config: /** @type {import('./state.js').Config} */ (state.companion.cfg),
    backend: state.companion.backend,
    autoplay: state.wantRunning,
    seeds: [],
    ...workerShare(2),
  };
}

/** A new run on screen: its companion starts beside it (its worker is created the first time),
 * or stops when the new run has none (or trains `alone`: a loaded model file); with `bytes` (its
 * autosaved model file) it continues from there. @param {boolean} alone @param {Uint8Array} [bytes] */
export function startCompanion(alone, bytes) {
  const c = state.companion;
  c.bytes = bytes ?? null;
  c.rows = [];
  c.events = null;
  c.running = false;
  c.done = false;
  c.message = '';
  c.seconds = new Map();
  c.cfg = alone ? null : companionFor();
  if (!c.cfg) {
    c.done = true;
    if (c.worker && c.ready) c.worker.postMessage({ type: 'pause' });
    hooks()?.changed?.();
    return;
  }
  // The companion trains on the run's backend: the URL's, or the one the run's worker chose (its
  // race decides once, for both; see `companionBackend`).
  c.backend = state.backendOverride || null;
  c.started = false;
  if (!c.worker) {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = onCompanionMessage;
    worker.onerror = (e) => stopCompanion(`its worker failed (${e.message || 'it could not start'})`);
    c.worker = worker;
    c.ready = false;
  } else {
    startWhenReady();
  }
  hooks()?.changed?.();
}

/** Posts the companion's start once its worker is up and its backend known. */
function startWhenReady() {
  const c = state.companion;
  if (c.worker && c.ready && c.backend && !c.done && !c.started) {
    c.started = true;
    c.worker.postMessage(startMessage(c.bytes ?? undefined));
  }
}

/** The run on screen's worker chose its backend (`msg.backend` of its 'backend' message): the
 * companion trains on the same one. @param {string} backend */
export function companionBackend(backend) {
  const c = state.companion;
  if (c.backend) return;
  c.backend = backend;
  startWhenReady();
}

/** The run on screen's engine failed: the companion pauses and counts as done. */
export function haltCompanion() {
  state.companion.worker?.postMessage({ type: 'pause' });
  state.companion.done = true;
}

/** The companion cannot go on: its worker goes, the run on screen is not affected. @param {string} why */
function stopCompanion(why) {
  const c = state.companion;
  const name = label();
  if (c.worker) c.worker.terminate();
  c.worker = null;
  c.ready = false;
  c.running = false;
  c.done = true;
  c.message = `stopped: ${why}`;
  notice(`The comparison run (${name}) stopped: ${why}. The run on screen goes on; Reset starts both again.`);
  noteDone();
  hooks()?.changed?.();
  scheduleDraw(false);
}

/** Messages of the companion's worker (see www/worker.js): only its rows and failures matter.
 * @param {MessageEvent} e */
function onCompanionMessage(e) {
  const msg = /** @type {FromWorker} */ (e.data);
  const c = state.companion;
  switch (msg.type) {
    case 'ready':
      c.ready = true;
      startWhenReady();
      break;
    case 'chunk': {
      if (msg.run !== state.run) break;
      const resent = msg.rows.length && c.rows.length && msg.rows[0].step <= c.rows[c.rows.length - 1].step;
      if (resent) c.rows = msg.rows; else c.rows.push(...msg.rows);
      c.events = msg.events ?? null;
      const ms = state.runMs + (state.runSince !== null ? performance.now() - state.runSince : 0);
      for (const r of msg.rows) if (!c.seconds.has(r.step)) c.seconds.set(r.step, ms / 1000);
      c.step = msg.step;
      if (msg.status !== 'running') {
        c.done = true;
        c.message = msg.status === 'diverged' ? `diverged: ${msg.message}` : '';
        hooks()?.finished?.();
        showRunning();
      }
      noteDone();
      scheduleDraw(false);
      break;
    }
    case 'state':
      c.running = msg.running;
      showRunning();
      break;
    case 'notice': notice(`Comparison run (${label()}): ${msg.message}`); break;
    case 'host-copy': copied(msg.run, msg.file, msg.step, true); break;
    case 'error':
      if (msg.fatal) stopCompanion(msg.message);
      else notice(`Comparison run (${label()}): ${msg.message}`);
      noteDone();
      scheduleDraw(false);
      break;
    default: break;
  }
}

/** The companion's curves for a line chart: each `[label, key, dashed]` of its rows, in `color`,
 * each label after `prefix`. The points carry no key, so a seed band leaves them as they are.
 * @param {string} prefix @param {string} color
 * @param {[string, string | ((r: any) => number), boolean][]} curves */
export function companionSeries(prefix, color, curves) {
  const rows = state.companion.rows;
  return curves.map(([name, key, dashed]) => ({
    label: `${prefix}${name}`,
    color,
    dashed,
    points: rows.map((r) => [r.step, typeof key === 'function' ? key(r) : r[key]]),
  }));
}
