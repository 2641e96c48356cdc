// @ts-check
// The charts: a redraw is a list of jobs (one chart each, one per animation frame); each chapter's
// line charts and maps, drawn by the engine's Rust chart code. No metric is computed here.
import { drawLines, drawHeatmap, drawScatter, drawArcs, chartSvg, seriesSummary, syntaxWords, configQuery, runHeadline } from './pkg-view/plateau.js';
import { compareActive, companionSeries, drawCompareVerdict } from './compare.js';
import { $, canvasById, field, keepChildren, notice, C, darkScheme, reducedMotion, setAttr, setClass, setHidden, setText } from './dom.js';

/** Sets the text of the element with this id, only when it differs. @param {string} id @param {string} text */
const say = (id, text) => setText($(id), text);
import { bandActive, drawBand, withBands } from './seeds.js';
import { chapter, chapterOf, state } from './state.js';


/** What each canvas showed last: its chart kind and spec (for the vector export), and for a map the
 * key of that drawing (its pixel size and spec). */
const lastDrawn = new Map();

/**
 * Draws a chart with the engine's chart code and remembers what was drawn.
 * @param {'lines' | 'heatmap' | 'scatter' | 'arcs'} kind @param {HTMLCanvasElement} canvas @param {object} spec
 */
function draw(kind, canvas, spec) {
  // A map shows a snapshot, which changes every few evaluations, while the page redraws several
  // times a second: a map drawn already with the same spec at the same pixel size is left as it is.
  const key = kind === 'lines' ? null : `${canvas.width}x${canvas.height} ${JSON.stringify(spec)}`;
  const last = lastDrawn.get(canvas.id);
  if (key !== null && last && last.key === key) return;
  ({ lines: drawLines, heatmap: drawHeatmap, scatter: drawScatter, arcs: drawArcs })[kind](canvas, spec);
  lastDrawn.set(canvas.id, { kind, spec, key }); // after the draw: one that threw is tried again
}

/**
 * The chart on `canvas` as an SVG document, drawn by the same Rust code at the canvas's CSS size
 * (scale 1), or null before it was first drawn.
 * @param {HTMLCanvasElement} canvas
 * @returns {string | null}
 */
export function chartAsSvg(canvas) {
  const last = lastDrawn.get(canvas.id);
  if (!last) return null;
  const w = Math.max(50, Math.round(canvas.clientWidth || canvas.width));
  const h = Math.max(50, Math.round(canvas.clientHeight || canvas.height));
  return chartSvg(last.kind, { ...last.spec, scale: 1 }, w, h);
}

// A redraw is split into jobs, one chart per animation frame, so that no main-thread task is
// long (each plotters draw takes a few milliseconds). A job runs in a task of its own just after
// a frame, not inside the frame's callback: the frame's rendering (style, layout, paint, and the
// commit of a redrawn canvas, 5–15 ms in software) is a task of its own too. On this 2-core machine,
// as training starts, the worker trains and the browser compiles the engine's hot code on its
// thread pool, and the main thread gets a third of a core: a job and a rendering in one task took
// 35–65 ms of wall time for 12–20 ms of its own CPU time.
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
        notice(`Part of the page could not be drawn: ${err.message || err}`);
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

/** The backing store a canvas's box calls for (at most 2× device pixels), and that scale. @param {HTMLCanvasElement} canvas */
function fitSize(canvas) {
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  return { w: Math.max(50, Math.round(canvas.clientWidth * dpr)), h: Math.max(50, Math.round(canvas.clientHeight * dpr)), dpr };
}

/** Sizes a canvas's backing store to its box (at most 2× device pixels); returns the scale. @param {HTMLCanvasElement} canvas */
export function fit(canvas) {
  const { w, h, dpr } = fitSize(canvas);
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  return dpr;
}

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

/** `[[step, value]]` of one row field; the array remembers its key (for the pinned overlay and the seed band). */
export const col = (key) => Object.assign(state.rows.map((r) => [r.step, r[key]]), { key });

/** Markers of the run's events (the engine's, sent with each chunk: `state.events`): chapter 1's
 * drop, chapter 2's held-out answer, chapter 3's onsets, chapter 4's collapse and recovery. */
export function eventMarkers() {
  const markers = [];
  const e = state.events;
  if (!e) return markers;
  if (chapter() === 1) {
    const drop = e.drop;
    if (drop !== undefined && drop !== null) markers.push({ x: drop, label: `drop ${drop}` });
  } else if (chapter() === 2) {
    const v = e;
    if (v.answer !== 'neither' && v.step !== undefined && v.step !== null) markers.push({ x: v.step, label: `(4,3) ${v.answer} from ${v.step}` });
  } else if (chapter() === 3) {
    const o = e;
    const w = words();
    if (o.drop !== undefined && o.drop !== null) markers.push({ x: o.drop, label: `verb-loss drop ${o.drop}` });
    if (o.subject_onset !== undefined && o.subject_onset !== null) markers.push({ x: o.subject_onset, label: `subject→verb onset ${o.subject_onset}` });
    if (o.structure !== undefined && o.structure !== null) markers.push({ x: o.structure, label: `non-adjacent onset ${o.structure}` });
    if (o.number_drop !== undefined && o.number_drop !== null) markers.push({ x: o.number_drop, label: `${w.onset} ${o.number_drop}` });
  } else if (chapter() === 4) {
    const c = e;
    if (c.collapsed !== undefined && c.collapsed !== null) markers.push({ x: c.collapsed, label: `collapse ${c.collapsed}` });
    if (c.recovered !== undefined && c.recovered !== null) markers.push({ x: c.recovered, label: `recovered ${c.recovered}` });
  }
  return markers;
}

export function lineChart(id, series, opts) {
  const canvas = canvasById(id);
  const scale = fit(canvas);
  const markers = eventMarkers();
  const p = state.pinned;
  if (p && chapterOf(p.cfg.experiment) === chapter() && series.length) {
    // The pinned run's first curve of this chart, dashed grey, for comparison.
    const { key } = series[0].points;
    if (key) series = [...series, { label: `pinned: ${series[0].label}`, color: C.grey, dashed: true, points: p.rows.map((r) => [r.step, r[key]]) }];
  }
  // A seed band: the curves become medians over the seeds, their ranges shaded; the event
  // markers stay those of the run on screen, and say so.
  const banded = withBands(series);
  if (bandActive()) for (const m of markers) m.label = `seed ${state.runCfg.seed}: ${m.label}`;
  const snap = currentSnap();
  if (state.scrub !== null && snap) markers.push({ x: snap.step, label: '' });
  // Fixed shaded ranges of the chart (a paper's figure) go under the seed bands.
  const { reference_bands: fixedBands = [], ...rest } = opts;
  draw('lines', canvas, { x_max: Math.max(state.steps, 1), series: banded.series, bands: [...fixedBands, ...banded.bands], markers, scale, dark: darkScheme.matches, ...rest });
}

export function range(values, lo, hi) {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return [lo, hi];
  return [Math.min(lo, ...finite), Math.max(hi, ...finite)];
}

export function currentSnap() {
  if (!state.snaps.length) return null;
  return state.snaps[state.scrub === null ? state.snaps.length - 1 : Math.min(state.scrub, state.snaps.length - 1)];
}

export function drawStatus() {
  const now = performance.now();
  say('step', String(state.step));
  say('steps', String(state.steps));
  const ms = state.runMs + (state.runSince !== null ? now - state.runSince : 0);
  say('elapsed', (ms / 1000).toFixed(1));
  say('rate', state.rate.value === null ? '–' : state.rate.value.toFixed(1));
}

/** The comparison sentence: the pinned run's key numbers against the run on screen's. */
export function drawCompare() {
  const now = state.rows.length ? runHeadline(state.runCfg.experiment, state.rows) : null;
  const p = state.pinned;
  say('compare', p
    ? `Pinned run (${configQuery(p.cfg).replace(/^v=\d+&?/, '') || 'defaults'}): ${p.headline || '–'}. This run (${configQuery(state.runCfg).replace(/^v=\d+&?/, '') || 'defaults'}): ${now || '–'}.${chapterOf(p.cfg.experiment) === chapter() ? ' The pinned run is drawn dashed grey in the charts.' : ' (Another chapter: not overlaid.)'}`
    : '');
  setHidden($('runs'), state.runs.length === 0 && !p);
}

/**
 * @typedef {{chapter: number, canvases: string[], draw: () => void}} Chart
 */

/** The drawing jobs of a redraw: the status line, the comparison, the seed band, then the
 * chapter's charts, each drawn on its own (see [`drawChart`]). */
export function drawJobs() {
  const jobs = [drawStatus, drawCompare, drawBand, drawCompareVerdict, ...CHARTS.filter((c) => c.chapter === chapter()).map((c) => () => drawChart(c))];
  // The generations of chapters 1 and 4 (a few hundred token elements to lay out) are a job of their own.
  const samples = { 1: drawSamples, 4: drawLmSamples }[chapter()];
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
    msg.textContent = `This chart could not be drawn (${err.message || err}); the other charts keep updating.`;
  }
}

/** Chapter 1's line charts, one job each. @returns {Chart[]} */
function plateauJobs() {
  return [
    { chapter: 1, canvases: ['chart-loss'], draw: () => {
      const loss = col('loss');
      const outLoss = col('output_loss');
      const [lmin, lmax] = range([...loss, ...outLoss].map((p) => p[1]), 1, 1);
      lineChart('chart-loss', [
        { label: 'loss (all positions)', color: C.blue, points: loss },
        { label: 'loss (outputs)', color: C.orange, points: outLoss },
      ], { y_min: Math.max(0.005, lmin * 0.8), y_max: lmax * 1.15, y_log: true, y_label: 'cross-entropy (log)', legend: 'll' });
      say('sum-loss', `${seriesSummary('output loss', outLoss, 3)} ${seriesSummary('loss on all positions', loss, 3)}`);
    } },
    { chapter: 1, canvases: ['chart-acc'], draw: () => {
      lineChart('chart-acc', [
        { label: 'test accuracy', color: C.blue, points: col('test_acc') },
        { label: 'first token', color: C.orange, points: col('first_token_acc') },
        { label: 'train (teacher-forced)', color: C.green, points: col('train_acc'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'ul' });
      say('sum-acc', `${seriesSummary('test accuracy', col('test_acc'), 2)} ${seriesSummary('first-token accuracy', col('first_token_acc'), 2)}`);
    } },
    { chapter: 1, canvases: ['chart-rep'], draw: () => {
      lineChart('chart-rep', [
        { label: 'model', color: C.verm, points: col('repetition') },
        { label: 'data', color: C.grey, points: col('data_repetition'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'repetition' });
      const last = state.rows[state.rows.length - 1];
      say('sum-rep', `${seriesSummary('repetition', col('repetition'), 2)} (data: ${last ? last.data_repetition.toFixed(2) : '–'})`);
    } },
    { chapter: 1, canvases: ['chart-apm'], draw: () => {
      lineChart('chart-apm', [{ label: 'APM', color: C.purple, points: col('apm') }], { y_min: 0, y_max: 1.05, y_label: 'APM', legend: 'ul' });
      say('sum-apm', seriesSummary('APM', col('apm'), 2));
    } },
    { chapter: 1, canvases: ['chart-cos'], draw: () => {
      const cos = col('hidden_cos');
      const [cmin] = range(cos.map((p) => p[1]), 0, 1);
      lineChart('chart-cos', [{ label: 'mean cosine', color: C.blue, points: cos }], { y_min: cmin, y_max: 1.05, y_label: 'cosine', legend: 'll' });
      say('sum-cos', seriesSummary('mean hidden cosine', cos, 2));
    } },
  ];
}

/** Syncs the scrubber with the snapshots; returns the snapshot to show (or null). */
export function scrubSnap() {
  const snap = currentSnap();
  const scrub = field('scrub');
  const max = String(Math.max(0, state.snaps.length - 1));
  if (scrub.max !== max) scrub.max = max;
  if (state.scrub === null && scrub.value !== max) scrub.value = max;
  say('scrub-out', snap ? String(snap.step) : '–');
  return snap;
}

export const last = () => state.rows[state.rows.length - 1];

export const fixed = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : '–');

// ---- chapter 2 ----

/**
 * Chapter 2's compare view: a chart's two curves for the run on screen (blue) and the same two of
 * the comparison run (orange), solid and dashed, labelled with each run's γ; `null` when there is
 * no comparison run. @param {[string, string | ((r: any) => number), boolean][]} curves
 */
function compared(curves) {
  if (!compareActive()) return null;
  const mine = curves.map(([label, key, dashed]) => ({
    label: `γ ${state.runCfg.gamma}: ${label}`,
    color: C.blue,
    dashed,
    points: typeof key === 'function' ? Object.assign(state.rows.map((r) => [r.step, key(r)]), { get: key }) : col(key),
  }));
  return [...mine, ...companionSeries(C.orange, curves)];
}

/** Chapter 2's line charts. @returns {Chart[]} */
function anchorJobs() {
  // Without memory anchors (the default task) the memory columns are NaN: leave them out.
  const mem = () => state.rows.some((r) => Number.isFinite(r.loss_memory));
  return [
    { chapter: 2, canvases: ['chart-subloss'], draw: () => {
      const series = compared([['reasoning loss', 'loss_reasoning', false], ['held-out (4,3) loss', 'loss_heldout', true]]) || [
        ...(mem() ? [{ label: 'memory', color: C.orange, points: col('loss_memory') }] : []),
        { label: 'reasoning (seen pairs)', color: C.blue, points: col('loss_reasoning') },
        { label: 'held-out pair (4,3)', color: C.verm, points: col('loss_heldout'), dashed: true },
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 1, 1);
      lineChart('chart-subloss', series, { y_min: Math.max(0.002, lmin * 0.8), y_max: lmax * 1.15, y_log: true, y_label: 'cross-entropy (log)', legend: 'll' });
      say('sum-subloss', `${mem() ? `${seriesSummary('memory loss', col('loss_memory'), 2)} ` : ''}${seriesSummary('reasoning loss', col('loss_reasoning'), 2)} ${seriesSummary('held-out loss', col('loss_heldout'), 2)}`);
    } },
    { chapter: 2, canvases: ['chart-subacc'], draw: () => {
      lineChart('chart-subacc', compared([['(4,3) inferential', 'acc_inferential', false], ['(4,3) symmetric', 'acc_symmetric', true]]) || [
        ...(mem() ? [{ label: 'memory', color: C.orange, points: col('acc_memory') }] : []),
        { label: 'reasoning', color: C.blue, points: col('acc_reasoning') },
        { label: '(4,3) inferential', color: C.green, points: col('acc_inferential') },
        { label: '(4,3) symmetric', color: C.purple, points: col('acc_symmetric'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'ul' });
      const r = last();
      say('sum-subacc', r
        ? `Step ${r.step}: ${mem() ? `memory ${fixed(r.acc_memory, 2)}, ` : ''}reasoning ${fixed(r.acc_reasoning, 2)}; on the held-out pair ${fixed(r.acc_inferential, 2)} inferential, ${fixed(r.acc_symmetric, 2)} symmetric.`
        : '');
    } },
    { chapter: 2, canvases: ['chart-emb'], draw: () => {
      const hasMemory = state.rows.some((r) => Number.isFinite(r.memory_anchor_cos));
      lineChart('chart-emb', compared([['key distance–cosine corr.', 'key_order_corr', false], ['reasoning anchors cos', 'reasoning_anchor_cos', true]]) || [
        { label: 'key distance–cosine corr.', color: C.blue, points: col('key_order_corr') },
        { label: 'reasoning anchors cos', color: C.green, points: col('reasoning_anchor_cos') },
        ...(hasMemory ? [{ label: 'memory anchors cos', color: C.orange, points: col('memory_anchor_cos') }] : []),
      ], { y_min: -1, y_max: 1, y_label: 'correlation / cosine', legend: 'll' });
      say('sum-emb', `${seriesSummary('key order correlation', col('key_order_corr'), 2)} ${seriesSummary('reasoning-anchor cosine', col('reasoning_anchor_cos'), 2)}${hasMemory ? ` ${seriesSummary('memory-anchor cosine', col('memory_anchor_cos'), 2)}` : ''}`);
    } },
    { chapter: 2, canvases: ['chart-keydist'], draw: () => {
      const bins = ['1', '2', '3–5', '6–19', '≥ 20'];
      const colors = [C.verm, C.orange, C.green, C.blue, C.purple];
      const get = (k) => (r) => (r.key_cos_by_distance ? r.key_cos_by_distance[k] : NaN);
      const bin = (k) => Object.assign(state.rows.map((r) => [r.step, get(k)(r)]), { get: get(k) });
      const series = compared([['|i − j| 1', get(0), false], ['|i − j| ≥ 20', get(4), true]])
        || bins.map((label, k) => ({ label: `|i − j| ${label}`, color: colors[k], points: bin(k) }));
      lineChart('chart-keydist', series, { y_min: -1, y_max: 1, y_label: 'mean key cosine', legend: 'll' });
      const r = last();
      say('sum-keydist', r && r.key_cos_by_distance
        ? `Step ${r.step}: mean cosine of keys at distance 1: ${fixed(r.key_cos_by_distance[0], 2)}, 2: ${fixed(r.key_cos_by_distance[1], 2)}, 3–5: ${fixed(r.key_cos_by_distance[2], 2)}, 6–19: ${fixed(r.key_cos_by_distance[3], 2)}, 20 and more: ${fixed(r.key_cos_by_distance[4], 2)}.`
        : '');
    } },
  ];
}

// Each snapshot map is a job of its own: as training starts, one job that drew chapter 2's three
// maps took 18 ms of main-thread CPU and 54 ms of wall time on 2 cores (see `scheduleDraw`).

/** Chapter 2's PCA of the key embeddings (the first of its snapshot jobs: it syncs the scrubber). */
function drawAnchorPca() {
  const snap = scrubSnap();
  if (!snap) return;
  const keys = snap.tokens.slice(8);
  const canvas = canvasById('map-pca');
  draw('scatter', canvas, {
    points: snap.pca, values: keys, vmin: 20, vmax: 99, x_label: `PC1 (${(100 * snap.explained[0]).toFixed(0)} %)`,
    y_label: `PC2 (${(100 * snap.explained[1]).toFixed(0)} %)`, color_label: 'key', scale: fit(canvas), dark: darkScheme.matches,
    labeled: [[0, '20'], [keys.length - 1, '99']],
  });
  say('sum-pca', `Step ${snap.step}: the first two components hold ${(100 * snap.explained[0]).toFixed(0)} % and ${(100 * snap.explained[1]).toFixed(0)} % of the key embeddings' variance.`);
}

/** Chapter 2's cosine map of the token embeddings. */
function drawAnchorCos() {
  const snap = currentSnap();
  if (!snap) return;
  const canvas = canvasById('map-embcos');
  const n = snap.tokens.length;
  draw('heatmap', canvas, {
    values: snap.cosine, rows: n, cols: n, signed: true, vmin: -1, vmax: 1, separators: [8],
    tick_labels: snap.tokens.map(String), x_label: 'token', y_label: 'token', scale: fit(canvas), dark: darkScheme.matches,
  });
  const r = state.rows.find((x) => x.step === snap.step) || last();
  say('sum-embcos', r ? `Step ${snap.step}: key distance–cosine correlation ${fixed(r.key_order_corr, 2)} (0 = no order).` : '');
}

/** Chapter 2's attention map (empty for the Emb-MLP, which has none). */
function drawAnchorAtt() {
  const snap = currentSnap();
  if (!snap) return;
  const canvas = canvasById('map-att2');
  const r = state.rows.find((x) => x.step === snap.step) || last();
  if (snap.attention.length) {
    draw('heatmap', canvas, {
      values: snap.attention, rows: snap.seq, cols: snap.seq, signed: false, vmin: 0, vmax: Math.max(1e-9, ...snap.attention),
      mask_upper: true, x_label: 'key position', y_label: 'query position', scale: fit(canvas), dark: darkScheme.matches,
    });
    say('sum-att2', r ? `Step ${snap.step}: closeness to a prefix average ${fixed(r.prefix_avg, 2)} (1 = exactly).` : '');
  } else {
    lastDrawn.delete(canvas.id);
    const ctx = canvas.getContext('2d');
    fit(canvas);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    say('sum-att2', 'The Emb-MLP has no attention.');
  }
}

// ---- chapter 3 ----

/** How the engine names the measures of the run's language (`syntaxWords`), e.g. the nested
 * language's "selection part". @returns {{target: string, part: string, accuracy: string, pair: string, onset: string}} */
function words() {
  return syntaxWords(String((state.runCfg && state.runCfg.grammar) || (state.cfg && state.cfg.grammar) || ''));
}

/** Chapter 3's line charts. @returns {Chart[]} */
function syntaxJobs() {
  return [
    { chapter: 3, canvases: ['chart-mlm'], draw: () => {
      const w = words();
      const series = [
        { label: 'train', color: C.blue, points: col('loss') },
        { label: 'held-out', color: C.orange, points: col('heldout_loss') },
        { label: `${w.target} (held-out)`, color: C.purple, points: col('verb_loss') },
        { label: `their ${w.part} only`, color: C.purple, points: col('verb_number_loss'), dashed: true },
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 1, 1);
      lineChart('chart-mlm', series, { y_min: Math.max(0.01, lmin * 0.85), y_max: lmax * 1.1, y_log: true, y_label: 'MLM loss (log)', legend: 'ur' });
      say('sum-mlm', `${seriesSummary('held-out MLM loss', col('heldout_loss'), 3)} ${seriesSummary(`${w.target}' loss`, col('verb_loss'), 3)} ${seriesSummary(`its ${w.part}`, col('verb_number_loss'), 3)}`);
    } },
    { chapter: 3, canvases: ['chart-uas'], draw: () => {
      lineChart('chart-uas', [
        { label: 'all arcs: best head', color: C.green, points: col('uas') },
        { label: 'all arcs: offset guess', color: C.green, points: col('offset_uas'), dashed: true },
        { label: 'subject→verb: best head', color: C.purple, points: col('uas_subject') },
        { label: 'subject→verb: offset guess', color: C.purple, points: col('offset_uas_subject'), dashed: true },
        { label: 'non-adjacent arcs: best head', color: C.verm, points: col('uas_nonadjacent') },
        { label: 'non-adjacent arcs: offset guess', color: C.verm, points: col('offset_uas_nonadjacent'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'UAS', legend: 'ur' });
      const r = last();
      say('sum-uas', r
        ? `Step ${r.step}: UAS ${fixed(r.uas, 2)} (layer ${r.best_layer + 1}, head ${r.best_head + 1}, ${r.best_direction}); best offset guess ${fixed(r.offset_uas, 2)}. Subject→verb arc: ${fixed(r.uas_subject, 2)} (offset guess ${fixed(r.offset_uas_subject, 2)}). Non-adjacent arcs: ${fixed(r.uas_nonadjacent, 2)} (offset guess ${fixed(r.offset_uas_nonadjacent, 2)}).`
        : '');
    } },
    { chapter: 3, canvases: ['chart-agree'], draw: () => {
      const w = words();
      lineChart('chart-agree', [{ label: w.accuracy, color: C.purple, points: col('agreement_acc') }], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'lr' });
      say('sum-agree', `${seriesSummary(w.accuracy, col('agreement_acc'), 2)} Each pair sets ${w.pair} (chance 0.5).`);
    } },
    { chapter: 3, canvases: ['chart-reg'], draw: () => {
      const reg = col('sas_reg');
      const [, rmax] = range(reg.map((p) => p[1]), 0, 1);
      lineChart('chart-reg', [{ label: 'R (held-out)', color: C.verm, points: reg }], { y_min: 0, y_max: rmax * 1.1, y_label: 'R', legend: 'lr' });
      say('sum-reg', seriesSummary('R', reg, 2));
    } },
  ];
}

/** Chapter 3's arcs of the best head on one sentence (the first of its snapshot jobs: it syncs the scrubber). */
function drawSyntaxArcs() {
  const snap = scrubSnap();
  if (!snap) return;
  const canvas = canvasById('map-arcs');
  draw('arcs', canvas, { words: snap.words, gold: snap.heads, pred: snap.pred, weight: snap.pred_weight, scale: fit(canvas), dark: darkScheme.matches });
  say('sum-arcs', `Step ${snap.step}: layer ${snap.best_layer + 1}, head ${snap.best_head + 1} (${snap.transposed ? 'head → dependent' : 'dependent → head'}) points to the gold head for ${snap.sample_right} of ${snap.sample_scored} words of “${snap.words.join(' ')}”.`);
}

/** Chapter 3's UAS of every head. */
function drawSyntaxHeads() {
  const snap = currentSnap();
  if (!snap) return;
  const canvas = canvasById('map-heads');
  const rows = snap.layers * snap.n_heads;
  draw('heatmap', canvas, {
    values: snap.head_uas, rows, cols: 2, signed: false, vmin: 0, vmax: 1,
    row_labels: Array.from({ length: rows }, (_, k) => `L${Math.floor(k / snap.n_heads) + 1} H${(k % snap.n_heads) + 1}`),
    col_labels: ['dep→head', 'head→dep'], y_label: 'layer, head', scale: fit(canvas), dark: darkScheme.matches,
  });
  const top = Math.max(...snap.head_uas);
  say('sum-heads', `Step ${snap.step}: UAS per head ranges ${Math.min(...snap.head_uas).toFixed(2)}–${top.toFixed(2)}.`);
}

/** The attention map of the current snapshot (one draw job; the cosine map is the next). */
export function drawSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const softmax = state.runCfg && state.runCfg.attention === 'softmax';
  const att = snap.attention;
  const vmax = Math.max(1e-9, ...att.map(Math.abs));
  const canvas = canvasById('map-att');
  draw('heatmap', canvas, {
    values: att, rows: snap.seq, cols: snap.seq, signed: !softmax, vmin: softmax ? 0 : -vmax, vmax,
    mask_upper: true, outline: state.omega, x_label: 'key position', y_label: 'query position', scale: fit(canvas), dark: darkScheme.matches,
  });
  say('sum-att', `Step ${snap.step}: largest |attention| ${vmax.toPrecision(3)}; Ω outlined (${state.omega.length} entries).`);
}

/** The hidden-state cosine map of the current snapshot (the generations are the next job). */
export function drawSnapshotCos() {
  const snap = currentSnap();
  if (!snap) return;
  const canvas = canvasById('map-cos');
  draw('heatmap', canvas, {
    values: snap.hidden_cos, rows: snap.n, cols: snap.n, signed: false, vmin: 0, vmax: 1, label_offset: 1,
    x_label: 'output position', y_label: 'output position', scale: fit(canvas), dark: darkScheme.matches,
  });
  const offdiag = [];
  for (let i = 1; i < snap.n; i += 1) for (let j = 1; j < i; j += 1) offdiag.push(snap.hidden_cos[i * snap.n + j]);
  say('sum-mapcos', `Step ${snap.step}: cosines between output positions range ${Math.min(...offdiag).toFixed(2)}–${Math.max(...offdiag).toFixed(2)}.`);
}

/**
 * Fills a row of tokens in place: its label, then one span per token, coloured against `truth`
 * when given (right, wrong, and boxed when it repeats the token before).
 * @param {HTMLElement} row @param {string} label @param {number[]} tokens @param {number[]} [truth]
 */
export function fillTokenRow(row, label, tokens, truth) {
  const [head, ...spans] = keepChildren(row, tokens.length + 1, () => document.createElement('span'));
  setClass(head, 'toklabel');
  setText(head, label);
  tokens.forEach((t, j) => {
    let cls = 'tok';
    let title = null;
    if (truth) {
      cls += t === truth[j] ? ' right' : ' wrong';
      if (j > 0 && t === tokens[j - 1]) { cls += ' repeat'; title = 'same as the token before'; }
    }
    setClass(spans[j], cls);
    setText(spans[j], String(t));
    setAttr(spans[j], 'title', title);
  });
}

/** Chapter 1's decoded samples (inputs, truth, generation), updated in place. */
export function drawSamples(snap) {
  $('samples').querySelector('.placeholder')?.remove();
  const boxes = keepChildren($('samples'), snap.samples.length, () => {
    const div = document.createElement('div');
    div.className = 'sample';
    for (let k = 0; k < 3; k += 1) {
      const row = document.createElement('div');
      row.className = 'tokrow';
      div.append(row);
    }
    return div;
  });
  snap.samples.forEach((s, i) => {
    const div = boxes[i];
    setAttr(div, 'aria-label', `sample ${i + 1}: ${s.generated.filter((t, j) => t === s.truth[j]).length} of ${s.truth.length} outputs right`);
    const [x, y, yhat] = /** @type {HTMLElement[]} */ ([...div.children]);
    fillTokenRow(x, 'x', s.inputs);
    fillTokenRow(y, 'y', s.truth);
    fillTokenRow(yhat, 'ŷ', s.generated, s.truth);
  });
}

// ---- chapter 4 ----

/** Chapter 4's charts share the log step axis option. */
const lmAxis = () => ({ x_log: /** @type {HTMLInputElement} */ ($('lm-logx')).checked });

/** A flat reference line across the run's steps (a paper's figure or the unigram loss). */
const level = (label, value, color, dashed = true) => ({ label, color, dashed, points: [[0, value], [Math.max(state.steps, 1), value]] });

/** Chapter 4's line charts. @returns {Chart[]} */
function lmJobs() {
  return [
    { chapter: 4, canvases: ['chart-lmloss'], draw: () => {
      const ref = state.reference;
      const series = [
        { label: 'train', color: C.blue, points: col('loss') },
        { label: 'held-out', color: C.orange, points: col('heldout_loss') },
        ...(ref ? [level('word frequencies only', ref.unigram_loss, C.grey)] : []),
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 4, 4);
      lineChart('chart-lmloss', series, { y_min: lmin * 0.95, y_max: lmax * 1.03, y_label: 'cross-entropy (nats)', legend: 'll', ...lmAxis() });
      say('sum-lmloss', `${seriesSummary('held-out loss', col('heldout_loss'), 3)}${ref ? ` Word frequencies alone give ${ref.unigram_loss.toFixed(3)}.` : ''}`);
    } },
    { chapter: 4, canvases: ['chart-lmcos'], draw: () => {
      const ref = state.reference;
      const end = Math.max(state.steps, 1);
      const refs = ref ? [
        level(`Pythia after a few steps (> ${ref.collapsed})`, ref.collapsed, C.grey),
        level(`OLMo-2 7B at step ${ref.olmo2[1][0]} (${ref.olmo2[1][1]})`, ref.olmo2[1][1], C.purple),
      ] : [];
      // Pythia at initialization: the shaded range.
      const init = ref ? [{ color: C.grey, lo: [[0, ref.pythia_init[0]], [end, ref.pythia_init[0]]], hi: [[0, ref.pythia_init[1]], [end, ref.pythia_init[1]]] }] : [];
      lineChart('chart-lmcos', [{ label: 'this model', color: C.blue, points: col('hidden_cos') }, ...refs], { y_min: 0, y_max: 1.05, y_label: 'mean pairwise cosine', legend: 'ur', reference_bands: init, ...lmAxis() });
      const c = state.events;
      say('sum-lmcos', c
        ? `Step ${state.rows[0].step}: ${c.init.toFixed(2)}; highest ${c.peak[0].toFixed(3)} at step ${c.peak[1]}; ${c.collapsed === undefined || c.collapsed === null ? 'not above 0.9 yet' : `above 0.9 from step ${c.collapsed}`}; ${c.recovered === undefined || c.recovered === null ? 'not fallen back by half yet' : `fallen back by half its rise by step ${c.recovered}`}; now ${c.last[0].toFixed(2)} at step ${c.last[1]}.`
        : '');
    } },
    { chapter: 4, canvases: ['chart-lmrep'], draw: () => {
      lineChart('chart-lmrep', [
        { label: 'repetition', color: C.verm, points: col('repetition') },
        { label: 'top token share', color: C.orange, points: col('top_share'), dashed: true },
        { label: 'distinct-1', color: C.green, points: col('distinct_1') },
        { label: 'distinct-2', color: C.blue, points: col('distinct_2'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'share', legend: 'ur', ...lmAxis() });
      say('sum-lmrep', `${seriesSummary('repetition', col('repetition'), 2)} ${seriesSummary('distinct-1', col('distinct_1'), 3)}`);
    } },
  ];
}

/** Chapter 4's generations of a snapshot, updated in place. */
function drawLmSamples(snap) {
  $('lm-samples').querySelector('.placeholder')?.remove();
  const boxes = keepChildren($('lm-samples'), snap.samples.length, () => {
    const div = document.createElement('div');
    div.className = 'lm-sample';
    const prompt = document.createElement('span');
    prompt.className = 'prompt';
    div.append(prompt);
    return div;
  });
  snap.samples.forEach((s, i) => {
    const div = boxes[i];
    const repeats = s.ids.filter((t, j) => j > 0 && t === s.ids[j - 1]).length;
    setAttr(div, 'aria-label', `passage ${i + 1}: “${s.prompt}”, then ${s.pieces.map((p) => p.replace(/▁/g, ' ')).join('').trim()} (${repeats} of ${s.ids.length - 1} tokens repeat the one before)`);
    const [prompt, ...spans] = keepChildren(div, s.pieces.length + 1, () => document.createElement('span'));
    setText(prompt, `…${s.prompt}`);
    s.pieces.forEach((piece, j) => {
      const repeat = j > 0 && s.ids[j] === s.ids[j - 1];
      setClass(spans[j], repeat ? 'tok repeat' : 'tok');
      setText(spans[j], piece.replace(/▁/g, ' '));
      setAttr(spans[j], 'title', repeat ? 'same token as the one before' : null);
    });
  });
}

/** Chapter 4's snapshot: the similarity matrix of the generated tokens (the generations are the next job). */
export function drawLmSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const canvas = canvasById('map-lmcos');
  draw('heatmap', canvas, {
    values: snap.hidden_cos, rows: snap.k, cols: snap.k, signed: false, vmin: 0, vmax: 1, label_offset: 1,
    x_label: 'generated token', y_label: 'generated token', scale: fit(canvas), dark: darkScheme.matches,
  });
  const off = [];
  for (let i = 0; i < snap.k; i += 1) for (let j = 0; j < i; j += 1) off.push(snap.hidden_cos[i * snap.k + j]);
  // The mean is the engine's `hidden_cos` of the same step (never averaged here).
  const r = state.rows.find((x) => x.step === snap.step);
  say('sum-lmcos-map', `Step ${snap.step}: cosines between generated tokens range ${Math.min(...off).toFixed(2)}–${Math.max(...off).toFixed(2)}${r ? ` (mean pairwise cosine ${fixed(r.hidden_cos, 2)})` : ''}.`);
}

/**
 * Every chart of the page, in page order: its chapter, the canvases its job draws, the job. The
 * page's markup has exactly these canvases (an end-to-end test holds them equal), and a redraw
 * runs the jobs of the chapter on screen.
 * @type {Chart[]}
 */
export const CHARTS = [
  ...plateauJobs(),
  { chapter: 1, canvases: ['map-att'], draw: drawSnapshot },
  { chapter: 1, canvases: ['map-cos'], draw: drawSnapshotCos },
  ...anchorJobs(),
  { chapter: 2, canvases: ['map-pca'], draw: drawAnchorPca },
  { chapter: 2, canvases: ['map-embcos'], draw: drawAnchorCos },
  { chapter: 2, canvases: ['map-att2'], draw: drawAnchorAtt },
  ...syntaxJobs(),
  { chapter: 3, canvases: ['map-arcs'], draw: drawSyntaxArcs },
  { chapter: 3, canvases: ['map-heads'], draw: drawSyntaxHeads },
  ...lmJobs(),
  { chapter: 4, canvases: ['map-lmcos'], draw: drawLmSnapshot },
];

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
  const lines = (xLog) => drawLines(canvas, {
    x_max: 20, y_min: 0.01, y_max: 3, y_log: !xLog, x_log: xLog, y_label: 'warm-up', legend: 'll', scale: 1, dark: false,
    series: [{ label: 'a', color: C.blue, points: pts }, { label: 'b', color: C.orange, dashed: true, points: pts }],
    bands: [{ color: C.grey, lo: pts, hi: pts }], markers: [{ x: 10, label: 'marker 10' }, { x: 5, label: '' }],
  });
  const heat = (signed) => drawHeatmap(canvas, {
    values: Array.from({ length: 16 }, (_, i) => (signed ? (i % 5) / 2 - 1 : (i % 5) / 4)), rows: 4, cols: 4, signed, vmin: signed ? -1 : 0, vmax: 1,
    mask_upper: true, outline: [[1, 0], [2, 1]], label_offset: 1, separators: [2], x_label: 'x', y_label: 'y', scale: 1, dark: false,
  });
  /** @type {(() => void)[]} */
  const jobs = [() => lines(n === 4), () => heat(true), () => heat(false), () => seriesSummary('warm-up', pts, 2)];
  if (n === 2) {
    jobs.push(() => drawScatter(canvas, { points: [[0, 0], [1, 1], [0.5, -1]], values: [20, 50, 99], vmin: 20, vmax: 99, x_label: 'x', y_label: 'y', color_label: 'key', labeled: [[0, '20']], scale: 1, dark: false }));
  }
  if (n === 3) jobs.push(() => drawArcs(canvas, { words: ['the', 'dog', 'runs'], gold: [1, 2, -1], pred: [1, 2, 1], weight: [0.5, 0.7, 0.2], scale: 1, dark: false }));
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
      done.failed.push(String(err && err.message ? err.message : err)); // the real draw reports its own
    }
    setTimeout(next, 0);
  };
  setTimeout(next, 0);
}
