// @ts-check
// Drawing a chart: the engine's Rust chart code on a canvas (remembered for the SVG export), a
// canvas sized to its box, a line chart with the run's event markers, the pinned run and the seed
// band, the snapshot the scrubber shows, token rows. What every chapter's module (www/chapters/)
// draws with; no metric is computed here.
import { drawLines, drawHeatmap, drawScatter, drawArcs, chartSvg } from './pkg-view/plateau.js';
import { $, canvasById, field, keepChildren, C, darkScheme, setAttr, setClass, setText } from './dom.js';
import { bandActive, withBands } from './seeds.js';
import { axisSteps, chapter, chapterOf, runConfig, state } from './state.js';

/** Sets the text of the element with this id, only when it differs. @param {string} id @param {string} text */
export const say = (id, text) => setText($(id), text);

/** What each canvas showed last: its chart kind and spec (for the vector export), and for a map the
 * key of that drawing (its pixel size and spec). */
const lastDrawn = new Map();

/**
 * Draws a chart with the engine's chart code and remembers what was drawn.
 * @param {'lines' | 'heatmap' | 'scatter' | 'arcs'} kind @param {HTMLCanvasElement} canvas @param {object} spec
 */
export function draw(kind, canvas, spec) {
  // A map shows a snapshot, which changes every few evaluations, while the page redraws several
  // times a second: a map drawn already with the same spec at the same pixel size is left as it is.
  const key = kind === 'lines' ? null : `${canvas.width}x${canvas.height} ${JSON.stringify(spec)}`;
  const last = lastDrawn.get(canvas.id);
  if (key !== null && last && last.key === key) return;
  ({ lines: drawLines, heatmap: drawHeatmap, scatter: drawScatter, arcs: drawArcs })[kind](canvas, spec);
  lastDrawn.set(canvas.id, { kind, spec, key }); // after the draw: one that threw is tried again
}

// The spec a canvas was last drawn with (a copy): the e2e tests read the legends and the runs'
// colours from it.
window.plateauDrawnSpec = (/** @type {string} */ id) => {
  const l = lastDrawn.get(id);
  return l ? JSON.parse(JSON.stringify(l.spec)) : null;
};

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

/** Forgets what `canvas` showed (it was cleared by hand), so the next draw on it happens.
 * @param {HTMLCanvasElement} canvas */
export function forget(canvas) {
  lastDrawn.delete(canvas.id);
}

/** The backing store a canvas's box calls for (at most 2× device pixels), and that scale. @param {HTMLCanvasElement} canvas */
export function fitSize(canvas) {
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

/** `[[step, value]]` of one row field; the array remembers its key (for the pinned overlay and the seed band). */
export const col = (/** @type {string} */ key) => Object.assign(state.rows.map((r) => [r.step, r[key]]), { key });

/**
 * A line chart of the run's rows with the run's event markers (`state.markers`, the chapter's
 * markers of `state.events`), the pinned run's first curve dashed grey and a seed band's ranges.
 * @param {string} id @param {any[]} series @param {any} opts
 */
export function lineChart(id, series, opts) {
  const canvas = canvasById(id);
  const scale = fit(canvas);
  const markers = [...state.markers];
  const p = state.pinned;
  if (p && chapterOf(p.cfg.experiment) === chapter() && series.length) {
    // The pinned run's first curve of this chart, dashed grey, for comparison.
    const { key } = series[0].points;
    if (key) series = [...series, { label: `pinned: ${series[0].label}`, color: C.grey, dashed: true, points: p.rows.map((r) => [r.step, r[key]]) }];
  }
  // A seed band: the curves become medians over the seeds, their ranges shaded; the event
  // markers stay those of the run on screen, and say so.
  const banded = withBands(series);
  if (bandActive()) for (const m of markers) m.label = `seed ${runConfig().seed}: ${m.label}`;
  const snap = currentSnap();
  if (state.scrub !== null && snap) markers.push({ x: snap.step, label: '' });
  // Fixed shaded ranges of the chart (a paper's figure) go under the seed bands.
  const { reference_bands: fixedBands = [], ...rest } = opts;
  draw('lines', canvas, { x_max: axisSteps(state.steps), series: banded.series, bands: [...fixedBands, ...banded.bands], markers, scale, dark: darkScheme.matches, ...rest });
}

/** A cosine-similarity map (`values`: an `n` × `n` matrix, row-major, in [0, 1]) on canvas `id`,
 * both axes named `axis`; returns the lowest and highest cosine below the diagonal from index
 * `first` on, for the caption (the engine's values, only read here).
 * @param {string} id @param {number[]} values @param {number} n @param {string} axis @param {number} [first] */
export function cosineMap(id, values, n, axis, first = 0) {
  const canvas = canvasById(id);
  draw('heatmap', canvas, {
    values, rows: n, cols: n, signed: false, vmin: 0, vmax: 1, label_offset: 1,
    x_label: axis, y_label: axis, scale: fit(canvas), dark: darkScheme.matches,
  });
  const below = [];
  for (let i = first; i < n; i += 1) for (let j = first; j < i; j += 1) below.push(values[i * n + j]);
  return [Math.min(...below), Math.max(...below)];
}

/** The range of the finite `values`, widened to include `lo` and `hi`. @param {number[]} values @param {number} lo @param {number} hi */
export function range(values, lo, hi) {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return [lo, hi];
  return [Math.min(lo, ...finite), Math.max(hi, ...finite)];
}

/** The snapshot the scrubber shows (the latest while it follows the run), or null. */
export function currentSnap() {
  if (!state.snaps.length) return null;
  return state.snaps[state.scrub === null ? state.snaps.length - 1 : Math.min(state.scrub, state.snaps.length - 1)];
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

export const fixed = (/** @type {number} */ v, /** @type {number} */ d) => (Number.isFinite(v) ? v.toFixed(d) : '–');

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

