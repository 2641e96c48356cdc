// @ts-check
// The page's state: the config of the next reset and of the run on screen, the rows and snapshots the
// worker sent, timing; the chapter on screen; messages to the worker.

/**
 * A run's config as the engine writes it (`parseQuery(...).config`): every schema key, kebab-case
 * where the schema's key is.
 * @typedef {{experiment: string, preset: string, seed: number, steps: number, lr: number,
 *   [key: string]: any}} Config
 * A metric row of the run's chapter (the engine's `MetricRow`, `AnchorRow`, `SyntaxRow` or `LmRow`).
 * @typedef {{step: number, [column: string]: any}} Row
 * A snapshot of the run's chapter (the engine's `Snapshot`, `AnchorSnapshot` or `SyntaxSnapshot`).
 * @typedef {{step: number, [field: string]: any}} Snap
 * @typedef {{cfg: Config, rows: Row[], headline: string | undefined}} Pinned
 * @typedef {{id: number, cfg: Config, headline: string | undefined}} PastRun
 */

/**
 * @type {{chapters: {number: number, alias: string, title: string, label: string, tasks: string[], csv: string}[],
 *   markers: {x: number, label: string}[],
 *   schema: import('./controls.js').Param[], cfg: Config, runCfg: Config | null, rows: Row[], events: any,
 *   snaps: Snap[], steps: number, step: number, running: boolean,
 *   holds: Set<import('./holds.js').Hold>, wantRunning: boolean, readyForHost: boolean,
 *   runDone: boolean, mainDone: boolean,
 *   band: {seeds: number[], rows: Map<number, Row[]>, done: Set<number>}, scrub: number | null, runMs: number, runSince: number | null,
 *   rate: {step: number, t: number, value: number | null, open?: boolean}, drawPending: boolean, drawAgain: boolean,
 *   lastDraw: number, run: number, worker: Worker | null, recovering: boolean, backendOverride: string,
 *   pendingModel: {bytes: Uint8Array, name: string, saved?: import('./autosave.js').Saved & {held: boolean}} | null,
 *   continueFrom: {file: Uint8Array, companion: Uint8Array | null, band: [number, any[]][], clock: import('./autosave.js').Clock} | null, continues: number, fitWatch: boolean,
 *   page: {hide: string[], controls: string[] | null, autoplay: boolean, only: string[] | null, seeds: number, compare: number | null, compare_steps: number | null, workers: number},
 *   workerRunning: boolean,
 *   companion: {worker: Worker | null, ready: boolean, started: boolean, running: boolean, backend: string | null,
 *     cfg: Config | null, rows: Row[], events: any, step: number, done: boolean, message: string, seconds: Map<number, number>,
 *     bytes?: Uint8Array | null},
 *   pinned: Pinned | null,
 *   runs: PastRun[], rowSeconds: Map<number, number>}}
 */
export const state = {
  chapters: [], // the engine's chapter list (chapterList()): number, alias, title, label, tasks
  schema: [], // the engine's parameter schema (paramSchema())
  cfg: /** @type {Config} */ (/** @type {unknown} */ (null)), // the config the next reset uses (set at boot, before any use)
  runCfg: null, // the config of the run on screen
  rows: [],
  events: null, // the run's events in its rows so far (the engine's View::events, sent with each chunk)
  markers: [], // those events as the chapter marks them on its line charts (set once per redraw)
  snaps: [],
  steps: 0,
  step: 0,
  running: false, // anything trains: the run on screen or chapter 2's comparison run
  holds: new Set(), // why the run waits (www/holds.js); it trains when this is empty
  wantRunning: true,
  readyForHost: false,
  runDone: false, // the run on screen finished or diverged, and so did its seed band's runs
  mainDone: false, // the run on screen finished or diverged
  band: { seeds: [], rows: new Map(), done: new Set() }, // the other seeds of a seed band (www/seeds.js)
  scrub: null, // snapshot index, or null to follow the run
  runMs: 0,
  runSince: null,
  rate: { step: 0, t: 0, value: null },
  drawPending: false,
  drawAgain: false, // a draw was requested while one was in progress
  lastDraw: 0,
  run: 0, // id of the run on screen; the worker tags its chunks with it
  worker: null,
  recovering: false, // a new worker replaces one whose engine failed; it waits for Reset
  pendingModel: null, // a model file chosen under "Load model" (or the autosaved run), until the worker says what it holds
  continueFrom: null, // after the engine failed: the last copy the fresh worker continues from
  continues: 0, // how many times the run on screen continued after a failure
  fitWatch: false, // an only= figure of fixed height follows its status panel's height (www/app.js)
  backendOverride: '',
  page: { hide: [], controls: null, autoplay: true, only: null, seeds: 1, compare: null, compare_steps: null, workers: 0 }, // page-only URL keys
  // The companion run beside the run on screen, in a worker of its own (www/companion.js; chapter
  // 2's compare view).
  workerRunning: false, // the run on screen's worker is training (see showRunning in www/protocol.js)
  companion: { worker: null, ready: false, started: false, running: false, backend: null, cfg: null, rows: [], events: null, step: 0, done: true, message: '', seconds: new Map() },
  pinned: null, // {cfg, rows, headline} of the run pinned for comparison
  runs: [], // recent runs: {id, cfg, headline}
  rowSeconds: new Map(), // training seconds at which each row's step arrived (the chapters' event times)
};

/** The chapter of an experiment, from the engine's chapter list (`chapterList()`). Every
 * experiment the page holds comes from the engine, which knows only its chapters' tasks: one
 * that no chapter trains is a defect, thrown rather than shown as another chapter.
 * @param {string} experiment @returns {number} */
export function chapterOf(experiment) {
  const c = state.chapters.find((x) => x.tasks.includes(experiment));
  if (!c) throw new Error(`No chapter trains the experiment "${experiment}" (the engine's chapterList()).`);
  return c.number;
}

/** The config of the run on screen; calling it before a run started is a page bug, thrown.
 * @returns {Config} */
export function runConfig() {
  if (!state.runCfg) throw new Error('No run has started yet.');
  return state.runCfg;
}

/** Chapter `n`'s entry of the engine's chapter list. @param {number} n */
export function chapterInfo(n) {
  const c = state.chapters.find((x) => x.number === n);
  if (!c) throw new Error(`No chapter ${n} in the engine's chapterList().`);
  return c;
}

/** Seconds of training of the run on screen so far (paused time not counted). */
export const trainingSeconds = () => (state.runMs + (state.runSince !== null ? performance.now() - state.runSince : 0)) / 1000;

/** Remembers the training time at which each of these rows arrived (the first time it did).
 * @param {Row[]} rows */
export function stampRows(rows) {
  const s = trainingSeconds();
  for (const r of rows) if (!state.rowSeconds.has(r.step)) state.rowSeconds.set(r.step, s);
}

/** The chapter on screen. */
export const chapter = () => chapterOf((state.runCfg || state.cfg).experiment);

/** Posts a message to the worker (none before it has started). Pause, resume, step and live
 * changes go to the companion run too (www/companion.js), so it keeps pace with the run on
 * screen. @param {ToWorker} msg */
export function send(msg) {
  if (state.worker) state.worker.postMessage(msg);
  const c = state.companion;
  if (c.worker && c.started && !c.done && ['pause', 'resume', 'step', 'set'].includes(msg.type)) c.worker.postMessage(msg);
}

/** The start message's worker fields: the `workers=` key (0 = auto), the browser's cores, and how
 * many runs train side by side (`runs`: 2 in chapter 2's compare view, which share the cores).
 * The worker decides with the engine's `workersFor`. @param {number} runs */
export function workerShare(runs) {
  return { workers: state.page.workers, cores: navigator.hardwareConcurrency || 1, runs };
}

/** The steps a step axis spans: the run's budget, or the companion's when it trains longer (chapter
 * 2's comparison has a budget of its own) and has rows. @param {number} steps the run's */
export function axisSteps(steps) {
  const c = state.companion;
  return Math.max(steps, 1, c.cfg && c.rows.length ? c.cfg.steps : 0);
}
