// @ts-check
// The charts' scheduler: a redraw is a list of jobs (one chart each, one per animation frame): the
// status line, the pinned comparison, the seed band, then the charts of the chapter on screen,
// which its page module (www/chapters/) draws with the engine's Rust chart code; the warm-up that
// compiles that code at load. No metric is computed here.
import { drawLines, drawHeatmap, seriesSummary, configQuery, runHeadline } from './pkg-view/plateau.js';
import { $, C, canvasById, errText, notice, reducedMotion, setHidden } from './dom.js';
import { currentSnap, fitSize, say } from './draw.js';
import { drawBand } from './seeds.js';
import { noteExpected } from './hero.js';
import { chapter, chapterOf, runConfig, state } from './state.js';

/** The chapters' page modules in page order, each with its number from the engine's chapter list
 * ([`registerChapters`]). @type {ChapterView[]} */
const VIEWS = [];

export { chartAsSvg } from './draw.js';

// A redraw is split into jobs, one chart per animation frame, so that no main-thread task is
// long (each plotters draw takes a few milliseconds). A job runs in a task of its own just after
// a frame, not inside the frame's callback: the frame's rendering (style, layout, paint, and the
// commit of a redrawn canvas, 5–15 ms in software) is a task of its own too. On this 2-core machine,
// as training starts, the worker trains and the browser compiles the engine's hot code on its
// thread pool, and the main thread gets a third of a core: a job and a rendering in one task took
// 35–65 ms of wall time for 12–20 ms of its own CPU time.
/** @param {boolean} now */
export function scheduleDraw(now) {
  if (state.drawPending) { state.drawAgain = true; return; }
  state.drawPending = true;
  const minGap = reducedMotion.matches ? 1000 : 200;
  const wait = now ? 0 : Math.max(0, minGap - (performance.now() - state.lastDraw));
  setTimeout(() => {
    state.drawAgain = false; // the jobs below read the state as it is from now on
    const jobs = drawJobs();
    const next = () => {
      const job = jobs.shift();
      if (!job) {
        state.drawPending = false;
        state.lastDraw = performance.now();
        if (state.drawAgain) scheduleDraw(false); // state changed after the chain had begun
        return;
      }
      const t0 = performance.now();
      try {
        job();
      } catch (err) {
        notice(`Part of the page could not be drawn: ${errText(err)}`);
      } finally {
        // The chain goes on, so one failing job never freezes the rest.
        window.plateauLongestDrawMs = Math.max(window.plateauLongestDrawMs, performance.now() - t0);
        afterFrame(next);
      }
    };
    afterFrame(next);
  }, wait);
}

/** Runs `f` in a task of its own right after the next animation frame. @param {() => void} f */
const afterFrame = (f) => requestAnimationFrame(() => setTimeout(f, 0));

/**
 * Redraws when a canvas's box stops matching its backing store, whatever changed the box: a
 * window resize, or a card that appears after it was drawn while it had no box (hidden, or in a
 * layout in progress): that canvas was drawn on the 50-pixel floor of `fit` and would show it
 * stretched, blurred, until the next redraw, which never comes once a run has finished.
 */
export function redrawOnResize() {
  const stale = (/** @type {HTMLCanvasElement} */ c) => {
    if (!c.isConnected || c.clientWidth === 0) return false;
    const { w, h } = fitSize(c);
    return c.width !== w || c.height !== h;
  };
  const ro = new ResizeObserver((entries) => {
    if (entries.some((e) => stale(/** @type {HTMLCanvasElement} */ (e.target)))) scheduleDraw(true);
  });
  for (const c of document.querySelectorAll('canvas')) ro.observe(c);
}

export function drawStatus() {
  const now = performance.now();
  say('step', String(state.step));
  say('steps', String(state.steps));
  const ms = state.runMs + (state.runSince !== null ? now - state.runSince : 0);
  say('elapsed', (ms / 1000).toFixed(1));
  say('rate', state.rate.value === null ? '–' : state.rate.value.toFixed(1));
  noteExpected();
}

/** The comparison sentence: the pinned run's key numbers against the run on screen's. */
export function drawCompare() {
  const p = state.pinned;
  // The run's headline crosses its whole history into wasm: only when a pinned run needs it.
  const now = p && state.rows.length ? runHeadline(runConfig().experiment, state.rows) : null;
  say('compare', p
    ? `Pinned run (${configQuery(p.cfg).replace(/^v=\d+&?/, '') || 'defaults'}): ${p.headline || '–'}. This run (${configQuery(runConfig()).replace(/^v=\d+&?/, '') || 'defaults'}): ${now || '–'}.${chapterOf(p.cfg.experiment) === chapter() ? ' The pinned run is drawn dashed grey in the charts.' : ' (Another chapter: not overlaid.)'}`
    : '');
  setHidden($('runs'), state.runs.length === 0 && !p);
}

/**
 * @typedef {{chapter: number, canvases: string[], draw: () => void}} Chart
 * @typedef {{canvases: string[], draw: () => void}} ChapterChart
 * @typedef {{number: number, markers: (events: any) => {x: number, label: string}[],
 *   charts: ChapterChart[], samples?: (snap: any) => void, jobs?: (() => void)[],
 *   note: (rows: any[], status: string) => void, warm: ((canvas: HTMLCanvasElement) => void)[],
 *   logSteps?: boolean, keys: string[], tries: import('./try.js').Step[],
 *   start?: () => void, backend?: (msg: any) => void, showPageKeys?: () => void,
 *   companion?: import('./companion.js').CompanionHooks}} ChapterView
 * @typedef {Omit<ChapterView, 'number'>} ChapterModule
 * A chapter's page module (`www/chapters/<alias>.js`, the alias of the engine's chapter list,
 * which gives it its number: the module's own `view` has none, [`ChapterModule`]): its event
 * markers (from the engine's events), its charts (the canvases each job draws, the job; its hero
 * figure's first), its generations (a job of their own), the other jobs of its redraws (text, no
 * canvas), its status note after each chunk, the extra chart kinds its warm-up compiles, the ids
 * of its key controls (shown on the stage beside the hero) and its try-this steps. Its hooks:
 * `start` when a run starts (of any chapter: it forgets what it noted of the last one),
 * `backend` with the worker's backend message for a run of this chapter (what the engine sends
 * with it), `showPageKeys` when the page keys were read (its controls of page keys show them),
 * `companion` when a run of this chapter may train a second run beside it (www/companion.js).
 * Everything a chapter notes of a run lives in its module, not in the page's state.
 */

/** Every chapter's view, in page order. */
export const chapterViews = () => VIEWS;

/** The drawing jobs of a redraw: the status line, the comparison, the seed band, the chapter's
 * own jobs, then its charts, each drawn on its own (see [`drawChart`]). */
export function drawJobs() {
  const view = chapterView(chapter());
  // The run's event markers, once per redraw: every line chart of the chapter draws them.
  state.markers = state.events ? view.markers(state.events) : [];
  const jobs = [drawStatus, drawCompare, drawBand, ...(view.jobs || []), ...CHARTS.filter((c) => c.chapter === view.number).map((c) => () => drawChart(c))];
  // The generations of chapters 1 and 4 (a few hundred token elements to lay out) are a job of their own.
  const samples = view.samples;
  if (samples) jobs.push(() => { const s = currentSnap(); if (s) samples(s); });
  return jobs;
}

/**
 * Draws one chart; a chart that fails says so in its own card and the others keep drawing.
 * (`window.plateauBreakChart = 'chart-apm'` makes that chart fail, for the end-to-end test.)
 * @param {Chart} c
 */
function drawChart(c) {
  const fig = canvasById(c.canvases[0]).closest('figure');
  let msg = fig ? fig.querySelector('.chart-error') : null;
  try {
    if (window.plateauBreakChart && c.canvases.includes(window.plateauBreakChart)) throw new Error('told to fail by the test hook');
    c.draw();
    if (msg) msg.remove();
  } catch (err) {
    if (!fig) throw err;
    if (!msg) {
      msg = document.createElement('p');
      msg.className = 'chart-error';
      msg.setAttribute('role', 'alert');
      fig.append(msg);
    }
    msg.textContent = `This chart could not be drawn (${errText(err)}); the other charts keep updating.`;
  }
}

/**
 * Every chart of the page, in page order: its chapter, the canvases its job draws, the job (from
 * each chapter's module). The page's markup has exactly these canvases (an end-to-end test holds
 * them equal), and a redraw runs the jobs of the chapter on screen.
 * @type {Chart[]}
 */
export const CHARTS = [];

/**
 * Registers each chapter's page module (`www/chapters/<alias>.js`, loaded by www/app.js from the
 * engine's chapter list, `chapterList()`, the Rust registry declared once by `chapters!`): that
 * list is the manifest, and a module takes its number from it. Fills the page's chapter views and
 * [`CHARTS`] in page order. (The loading is the app's, so that this module, which the chapter
 * modules import through others, imports none of them: no circle, not even through `import()`.)
 * @param {{number: number, alias: string}[]} chapters @param {{view: ChapterModule}[]} modules
 */
export function registerChapters(chapters, modules) {
  VIEWS.length = 0;
  chapters.forEach((c, i) => VIEWS.push({ ...modules[i].view, number: c.number }));
  CHARTS.length = 0;
  CHARTS.push(...VIEWS.flatMap((v) => v.charts.map((c) => ({ chapter: v.number, ...c }))));
  // For the end-to-end tests: which modules the manifest loaded.
  window.plateauChapterModules = chapters.map((c, i) => ({ number: c.number, alias: c.alias, charts: VIEWS[i].charts.length }));
}

/** The page module of chapter `n`; a chapter without one is a defect (a test holds the modules
 * equal to the engine's chapter list), thrown rather than drawn as another chapter.
 * @param {number} n @returns {ChapterView} */
export function chapterView(n) {
  const view = VIEWS.find((v) => v.number === n);
  if (!view) throw new Error(`Chapter ${n} has no page module (www/chapters/).`);
  return view;
}

/**
 * Compiles the drawing code before training starts, while the worker loads the engine and the main
 * thread has nothing to do. The browser compiles a WebAssembly function the first time it runs, on
 * the thread that calls it, so the page's first line chart and first heatmap each took 40–80 ms
 * longer than every later one: long main-thread tasks in the first second of training. This draws
 * one made-up chart of each kind the chapter shows, with the options its charts use (log axes,
 * dashed lines, bands, markers, a legend; signed and masked heatmaps with labels and outlines),
 * onto a canvas that is never attached to the page, so nothing of it is ever seen; one chart per
 * task, so that no task holds the thread for more than one compile.
 * @param {number} n the chapter
 */
export function warmUp(n) {
  const canvas = document.createElement('canvas');
  canvas.width = 640;
  canvas.height = 400;
  const pts = [[0, 2], [5, 1.5], [10, 0.4], [20, 0.05]];
  const lines = (/** @type {boolean} */ xLog) => drawLines(canvas, {
    x_max: 20, y_min: 0.01, y_max: 3, y_log: !xLog, x_log: xLog, y_label: 'warm-up', legend: 'll', scale: 1, dark: false,
    series: [{ label: 'a', color: C.blue, points: pts }, { label: 'b', color: C.orange, dashed: true, points: pts }],
    bands: [{ color: C.grey, lo: pts, hi: pts }], markers: [{ x: 10, label: 'marker 10' }, { x: 5, label: '' }],
  });
  const heat = (/** @type {boolean} */ signed) => drawHeatmap(canvas, {
    values: Array.from({ length: 16 }, (_, i) => (signed ? (i % 5) / 2 - 1 : (i % 5) / 4)), rows: 4, cols: 4, signed, vmin: signed ? -1 : 0, vmax: 1,
    mask_upper: true, outline: [[1, 0], [2, 1]], label_offset: 1, separators: [2], x_label: 'x', y_label: 'y', scale: 1, dark: false,
  });
  const view = chapterView(n);
  /** @type {(() => void)[]} */
  const jobs = [() => lines(!!view.logSteps), () => heat(true), () => heat(false), () => seriesSummary('warm-up', pts, 2), ...view.warm.map((w) => () => w(canvas))];
  // What it did, for the end-to-end tests: a chart that fails here would fail on the page too.
  const done = { jobs: jobs.length, drawn: 0, failed: /** @type {string[]} */ ([]) };
  window.plateauWarmUp = done;
  const next = () => {
    const job = jobs.shift();
    if (!job) return;
    try {
      job();
      done.drawn += 1;
    } catch (err) {
      done.failed.push(errText(err)); // the real draw reports its own
    }
    setTimeout(next, 0);
  };
  setTimeout(next, 0);
}
