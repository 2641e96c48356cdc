// @ts-check
// Chapter 1, the plateau (Gopalani & Hu): its line charts, its attention and hidden-cosine maps,
// the decoded samples, the drop's marker and status note. The engine computes every number.
import { seriesSummary } from '../pkg-view/plateau.js';
import { $, canvasById, keepChildren, C, darkScheme, setAttr } from '../dom.js';
import { col, cosineMap, currentSnap, draw, fillTokenRow, fit, lineChart, range, say, scrubSnap } from '../draw.js';
import { state, trainingSeconds } from '../state.js';
import { groupsOf, heroChart, measuredSeries, noteMeasured, shownConfig, yRange } from '../hero.js';

/** The run's event markers: the drop. @param {any} e the engine's events */
function markers(e) {
  return e.drop !== undefined && e.drop !== null ? [{ x: e.drop, label: `drop ${e.drop}` }] : [];
}

/** What chapter 1 notes of the run on screen: when the drop first showed, and the mask's Ω
 * entries of its config (the worker's backend message, from the engine's `omega`).
 * @type {{dropAt: {step: number, seconds: number} | null, omega: number[][]}} */
const noted = { dropAt: null, omega: [] };

/** When the drop (the engine's event `drop`) first shows, remember the training time it took and
 * show it in the status line; `window.plateauDrop` holds it for the bench. */
function note() {
  if (noted.dropAt) return;
  const step = state.events?.drop;
  if (step === undefined || step === null) return;
  noted.dropAt = { step, seconds: trainingSeconds() };
  window.plateauDrop = noted.dropAt;
  $('drop-step').textContent = String(step);
  $('drop-s').textContent = noted.dropAt.seconds.toFixed(1);
  $('drop-at').hidden = false;
}

/** A new run: no drop yet. */
function start() {
  noted.dropAt = null;
  window.plateauDrop = null;
  $('drop-at').hidden = true;
}

/** The hero's marker: the drop at its step, with the training seconds it took. */
function heroMarkers() {
  const d = state.events?.drop;
  if (d === undefined || d === null) return [];
  return [{ x: d, label: `the drop · step ${d}${noted.dropAt ? ` · ${noted.dropAt.seconds.toFixed(1)} s` : ''}` }];
}

/** The plateau as chapter 1 names it: the stretch before the drop (the engine's event `drop`:
 * test accuracy ≥ 0.5 at last), shaded from the first evaluation to the drop, or to the latest
 * evaluation while it lasts. */
function beforeDrop() {
  if (state.rows.length < 2) return [];
  const d = state.events?.drop;
  const ended = d !== undefined && d !== null;
  return [{ from: state.rows[0].step, to: ended ? d : state.rows[state.rows.length - 1].step, color: C.grey, label: ended ? 'plateau' : 'plateau (so far)' }];
}

/** Chapter 1's hero: the output loss (its plateau shaded) above the test accuracy, the runs
 * measured at this configuration faint behind both. @returns {import('../charts.js').ChapterChart[]} */
function heroJobs() {
  return [
    { canvases: ['hero-loss'], draw: () => {
      const g = groupsOf(shownConfig())[0];
      const live = col('output_loss');
      const series = [...(g ? measuredSeries(g, 'output_loss', C.orange, 'measured runs') : []), { label: 'this run', color: C.orange, points: live }];
      const [, hi] = yRange(series, 0, 0);
      heroChart('hero-loss', series, { y_min: 0, y_max: hi, y_label: 'loss on the answers' }, heroMarkers(), beforeDrop());
      say('sum-hero-loss', seriesSummary('output loss', live, 3));
      noteMeasured(1, [['', g, state.rows]]);
    } },
    { canvases: ['hero-acc'], draw: () => {
      const g = groupsOf(shownConfig())[0];
      const series = [
        ...(g ? measuredSeries(g, 'test_acc', C.orange, 'measured runs') : []),
        { label: 'all answers right', color: C.orange, points: col('test_acc') },
        { label: 'first answer (a copy of the first input)', color: C.orange, points: col('first_token_acc'), dashed: true },
      ];
      heroChart('hero-acc', series, { y_min: 0, y_max: 1.05, y_label: 'accuracy on new inputs', legend: 'ul' }, heroMarkers());
      say('sum-hero-acc', `${seriesSummary('test accuracy', col('test_acc'), 2)} ${seriesSummary('first-output accuracy', col('first_token_acc'), 2)}`);
    } },
  ];
}

/** Chapter 1's line charts, one job each. @returns {import('../charts.js').ChapterChart[]} */
function plateauJobs() {
  return [
    { canvases: ['chart-loss'], draw: () => {
      const loss = col('loss');
      const outLoss = col('output_loss');
      const [lmin, lmax] = range([...loss, ...outLoss].map((p) => p[1]), 1, 1);
      lineChart('chart-loss', [
        { label: 'loss (all positions)', color: C.blue, points: loss },
        { label: 'loss (outputs)', color: C.orange, points: outLoss },
      ], { y_min: Math.max(0.005, lmin * 0.8), y_max: lmax * 1.15, y_log: true, y_label: 'cross-entropy (log)', legend: 'll' });
      say('sum-loss', `${seriesSummary('output loss', outLoss, 3)} ${seriesSummary('loss on all positions', loss, 3)}`);
    } },
    { canvases: ['chart-acc'], draw: () => {
      lineChart('chart-acc', [
        { label: 'test accuracy', color: C.blue, points: col('test_acc') },
        { label: 'first token', color: C.orange, points: col('first_token_acc') },
        { label: 'train (teacher-forced)', color: C.green, points: col('train_acc'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'ul' });
      say('sum-acc', `${seriesSummary('test accuracy', col('test_acc'), 2)} ${seriesSummary('first-token accuracy', col('first_token_acc'), 2)}`);
    } },
    { canvases: ['chart-rep'], draw: () => {
      lineChart('chart-rep', [
        { label: 'model', color: C.verm, points: col('repetition') },
        { label: 'data', color: C.grey, points: col('data_repetition'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'repetition' });
      const last = state.rows[state.rows.length - 1];
      say('sum-rep', `${seriesSummary('repetition', col('repetition'), 2)} (data: ${last ? last.data_repetition.toFixed(2) : '–'})`);
    } },
    { canvases: ['chart-apm'], draw: () => {
      lineChart('chart-apm', [{ label: 'APM', color: C.purple, points: col('apm') }], { y_min: 0, y_max: 1.05, y_label: 'APM', legend: 'ul' });
      say('sum-apm', seriesSummary('APM', col('apm'), 2));
    } },
    { canvases: ['chart-cos'], draw: () => {
      const cos = col('hidden_cos');
      const [cmin] = range(cos.map((p) => p[1]), 0, 1);
      lineChart('chart-cos', [{ label: 'mean cosine', color: C.blue, points: cos }], { y_min: cmin, y_max: 1.05, y_label: 'cosine', legend: 'll' });
      say('sum-cos', seriesSummary('mean hidden cosine', cos, 2));
    } },
  ];
}

/** The attention map of the current snapshot (one draw job; the cosine map is the next). */
function drawSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const softmax = state.runCfg && state.runCfg.attention === 'softmax';
  const att = snap.attention;
  const vmax = Math.max(1e-9, ...att.map(Math.abs));
  const canvas = canvasById('map-att');
  draw('heatmap', canvas, {
    values: att, rows: snap.seq, cols: snap.seq, signed: !softmax, vmin: softmax ? 0 : -vmax, vmax,
    mask_upper: true, outline: noted.omega, x_label: 'key position', y_label: 'query position', scale: fit(canvas), dark: darkScheme.matches,
  });
  say('sum-att', `Step ${snap.step}: largest |attention| ${vmax.toPrecision(3)}; Ω outlined (${noted.omega.length} entries).`);
}

/** The hidden-state cosine map of the current snapshot (the generations are the next job). */
function drawSnapshotCos() {
  const snap = currentSnap();
  if (!snap) return;
  const [lo, hi] = cosineMap('map-cos', snap.hidden_cos, snap.n, 'output position', 1);
  say('sum-mapcos', `Step ${snap.step}: cosines between output positions range ${lo.toFixed(2)}–${hi.toFixed(2)}.`);
}

/** Chapter 1's decoded samples (inputs, truth, generation), updated in place. */
/** @param {import('../state.js').Snap} snap */
function drawSamples(snap) {
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
  snap.samples.forEach((/** @type {{inputs: number[], generated: number[], truth: number[]}} */ s, /** @type {number} */ i) => {
    const div = boxes[i];
    setAttr(div, 'aria-label', `sample ${i + 1}: ${s.generated.filter((t, j) => t === s.truth[j]).length} of ${s.truth.length} outputs right`);
    const [x, y, yhat] = /** @type {HTMLElement[]} */ ([...div.children]);
    fillTokenRow(x, 'x', s.inputs);
    fillTokenRow(y, 'y', s.truth);
    fillTokenRow(yhat, 'ŷ', s.generated, s.truth);
  });
}


/** @type {import('../charts.js').ChapterModule} */
export const view = {
  keys: ['c'],
  tries: [
    { set: { experiment: 'mws', c: '10' }, look: 'Strong attention mask (c = 10): the plateau nearly vanishes.' },
    { set: { experiment: 'mws', c: '0.5' }, look: 'Weak mask (c = 0.5): the plateau stretches out.' },
    { set: { experiment: 'mws' }, look: 'Back to no mask (c = 1): the plateau, then the drop.' },
  ],
  markers,
  charts: [
    ...heroJobs(),
    ...plateauJobs(),
    { canvases: ['map-att'], draw: drawSnapshot },
    { canvases: ['map-cos'], draw: drawSnapshotCos },
  ],
  samples: drawSamples,
  note,
  start,
  backend: (msg) => { noted.omega = msg.omega; },
  warm: [],
};
