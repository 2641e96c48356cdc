// @ts-check
// Compare γ (chapter 2): a second run of the same configuration at another init scale, trained at
// the same time in a worker of its own (so a machine with two cores trains both at full speed),
// on the same data stream (the data depend on the seed, not on γ). Its rows go into the same
// charts in a second colour, and the verdict line says how each run answers the held-out pair.
// The companion follows the run on screen: it starts, pauses, resumes, steps and takes live
// changes with it; it has no seed band and no snapshots. Every number comes from the engine
// (the events sent with each chunk); this module only routes rows.
import { companionSteps, rowsCsv } from './pkg-view/plateau.js';
import { scheduleDraw } from './charts.js';
import { $, notice, setHidden, setText } from './dom.js';
import { syncUrl } from './pageflags.js';
import { noteDone, showRunning, syncHolds } from './holds.js';
import { runConfig, state, workerShare } from './state.js';

/** Whether the run on screen has a companion: chapter 2, compare on, another γ. */
export const compareWanted = () => !!state.runCfg && state.runCfg.experiment === 'anchors'
  && state.page.compare !== null && state.page.compare !== state.runCfg.gamma;

/** Whether the charts draw the companion: it has rows of the run on screen. */
export const compareActive = () => compareWanted() && !!state.companion.cfg && state.companion.rows.length > 0;

/** The companion's config: `cfg` (the run on screen's) at the comparison γ, trained to the
 * comparison's own steps (`compare-steps`: the engine's `companionSteps`). @param {import('./state.js').Config} cfg @returns {import('./state.js').Config} */
export function companionConfig(cfg) {
  const steps = companionSteps(cfg, state.page.compare_steps ?? undefined);
  return { ...cfg, gamma: /** @type {number} */ (state.page.compare), steps };
}

/** The companion's config for the run on screen. */
const c0 = () => companionConfig(/** @type {import('./state.js').Config} */ (state.runCfg));

/** The start message of the companion for the run on screen (its config: γ replaced). */
function startMessage() {
  return {
    type: 'start',
    run: state.run,
    config: c0(),
    backend: state.companion.backend,
    autoplay: state.wantRunning,
    seeds: [],
    ...workerShare(2),
  };
}

/** A new run on screen: the companion starts beside it (its worker is created the first time),
 * or stops when the new run has none (or trains `alone`: a loaded model file). @param {boolean} alone */
export function startCompanion(alone) {
  const c = state.companion;
  c.rows = [];
  c.events = null;
  c.running = false;
  c.done = false;
  c.message = '';
  c.seconds = new Map();
  window.plateauCompareVerdict = null;
  c.cfg = null;
  if (alone || !compareWanted()) {
    c.done = true;
    if (c.worker && c.ready) c.worker.postMessage({ type: 'pause' });
    drawCompareVerdict();
    return;
  }
  c.cfg = c0();
  // The comparison trains on the run's backend: the URL's, or the one the run's worker chose
  // (its race decides once, for both; see `companionBackend`).
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
  drawCompareVerdict();
}

/** Posts the companion's start once its worker is up and its backend known. */
function startWhenReady() {
  const c = state.companion;
  if (c.worker && c.ready && c.backend && !c.done && !c.started) {
    c.started = true;
    c.worker.postMessage(startMessage());
  }
}

/** The run on screen's worker chose its backend (`msg.backend` of its 'backend' message): the
 * comparison run trains on the same one. @param {string} backend */
export function companionBackend(backend) {
  const c = state.companion;
  if (c.backend) return;
  c.backend = backend;
  startWhenReady();
}

/** The comparison run cannot go on: its worker goes, the run on screen is not affected. @param {string} why */
function stopCompanion(why) {
  const c = state.companion;
  if (c.worker) c.worker.terminate();
  c.worker = null;
  c.ready = false;
  c.running = false;
  c.done = true;
  c.message = `stopped: ${why}`;
  notice(`The comparison run (γ = ${state.page.compare}) stopped: ${why}. The run on screen goes on; Reset starts both again.`);
  noteDone();
  scheduleDraw(false);
}

/** Messages of the companion's worker (see www/worker.js): only its rows and failures matter. */
/** @param {MessageEvent} e */
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
        noteCompareVerdict();
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
    case 'notice': notice(`Comparison run (γ = ${state.page.compare}): ${msg.message}`); break;
    case 'error':
      if (msg.fatal) stopCompanion(msg.message);
      else notice(`Comparison run (γ = ${state.page.compare}): ${msg.message}`);
      noteDone();
      scheduleDraw(false);
      break;
    default: break;
  }
}

/** At the end of the companion's run: `window.plateauCompareVerdict = {gamma, answer, step, seconds}`
 * for the bench (its time to verdict on the page's training clock, beside the run on screen's). */
function noteCompareVerdict() {
  const c = state.companion;
  const v = c.events;
  if (!v) return;
  const seconds = v.step === undefined || v.step === null ? null : c.seconds.get(v.step) ?? null;
  window.plateauCompareVerdict = { gamma: c.cfg?.gamma ?? null, answer: v.answer, step: v.step ?? null, seconds };
}

/** One run's answer on the held-out pair, in words, from the engine's events `{answer, step}`.
 * @param {any} v @param {any[]} rows @param {boolean} done */
function answerText(v, rows, done) {
  if (!rows.length) v = null;
  if (!v) return 'no evaluation yet';
  const at = `step ${rows[rows.length - 1].step}`;
  if (v.answer === 'neither') return done ? `neither answer by the end (${at})` : `no answer yet (${at})`;
  return `${v.answer} since step ${v.step}${done ? ' (final)' : ` (so far, at ${at})`}`;
}

/** The verdict line under chapter 2's status: both runs' held-out answers side by side. */
export function drawCompareVerdict() {
  const el = $('compare-verdict');
  const on = compareWanted() && !!state.companion.cfg;
  setHidden(el, !on);
  setHidden($('compare-csv'), !on || !state.companion.rows.length);
  if (!on) return;
  const c = state.companion;
  const mine = `γ = ${runConfig().gamma} (this run): ${answerText(state.events, state.rows, state.mainDone)}`;
  const other = c.message
    ? `γ = ${state.page.compare}: ${c.message}`
    : `γ = ${state.page.compare} (beside it, in orange): ${answerText(c.events, c.rows, c.done)}`;
  setText(el, `Held-out pair (4,3) — ${mine}; ${other}. The maps and the sentences under the charts describe this run.`);
}

/** The companion's curves for a line chart: each `[label, key, dashed]` of its rows, orange. The
 * points carry no key, so a seed band leaves them as they are. @param {string} color
 * @param {[string, string | ((r: any) => number), boolean][]} curves */
export function companionSeries(color, curves) {
  const rows = state.companion.rows;
  return curves.map(([label, key, dashed]) => ({
    label: `γ ${state.page.compare}: ${label}`,
    color,
    dashed,
    points: rows.map((r) => [r.step, typeof key === 'function' ? key(r) : r[key]]),
  }));
}

/** Shows the Compare control's value (the select lists the γ values; another value from the URL
 * becomes an extra option). */
export function showCompare() {
  const sel = /** @type {HTMLSelectElement} */ ($('compare-gamma'));
  const v = state.page.compare === null ? 'off' : String(state.page.compare);
  if (![...sel.options].some((o) => o.value === v)) sel.append(new Option(v, v));
  sel.value = v;
}

/** The reader picked another γ to compare with (or none): the URL keeps it, and the comparison
 * run starts again from step 0 beside the run on screen. @param {string} value */
export function setCompare(value) {
  state.page.compare = value === 'off' ? null : Number(value);
  syncUrl();
  if (!state.runCfg) return;
  startCompanion(false);
  noteDone();
  if (!state.runDone) syncHolds(true);
  scheduleDraw(true);
}

/** The comparison run's CSV (the engine's `rowsCsv`: the CLI's columns), from the rows the page
 * holds. */
export function companionCsv() {
  return rowsCsv(state.companion.cfg, state.companion.rows);
}
