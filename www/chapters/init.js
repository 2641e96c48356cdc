// @ts-check
// Chapter 2, small initialization (Yao et al.): its line charts (with the compare view's second
// run), the PCA, cosine and attention maps, the held-out answer's marker and the verdict note.
import { drawScatter, seriesSummary } from '../pkg-view/plateau.js';
import { canvasById, C, darkScheme } from '../dom.js';
import { compareActive, companionSeries } from '../compare.js';
import { col, currentSnap, draw, fit, fixed, forget, last, lineChart, range, say, scrubSnap } from '../draw.js';
import { stampRows, state } from '../state.js';

/** The run's event markers: the step since which the held-out pair is answered the way it is now.
 * @param {any} e the engine's events */
function markers(e) {
  return e.answer !== 'neither' && e.step !== undefined && e.step !== null ? [{ x: e.step, label: `(4,3) ${e.answer} from ${e.step}` }] : [];
}

/** The training time at which each row arrived, and at the end of the run the held-out answer
 * (the engine's events `{answer, step}`) with the training time of the step since which it held:
 * `window.plateauVerdict = {answer, step, seconds}` for the bench (time to verdict).
 * @param {any[]} rows @param {string} status */
function note(rows, status) {
  stampRows(rows);
  if (status !== 'finished') return;
  const v = state.events;
  if (!v) return;
  const seconds = v.step === undefined || v.step === null ? null : state.rowSeconds.get(v.step) ?? null;
  window.plateauVerdict = { answer: v.answer, step: v.step ?? null, seconds };
}

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

/** Chapter 2's line charts. @returns {import('../charts.js').ChapterChart[]} */
function anchorJobs() {
  // Without memory anchors (the default task) the memory columns are NaN: leave them out.
  const mem = () => state.rows.some((r) => Number.isFinite(r.loss_memory));
  return [
    { canvases: ['chart-subloss'], draw: () => {
      // Compared with memory anchors, the question is which subset each run learns first.
      const pair = mem()
        ? [['reasoning loss', 'loss_reasoning', false], ['memory loss', 'loss_memory', true]]
        : [['reasoning loss', 'loss_reasoning', false], ['held-out (4,3) loss', 'loss_heldout', true]];
      const series = compared(/** @type {[string, string, boolean][]} */ (pair)) || [
        ...(mem() ? [{ label: 'memory', color: C.orange, points: col('loss_memory') }] : []),
        { label: 'reasoning (seen pairs)', color: C.blue, points: col('loss_reasoning') },
        { label: 'held-out pair (4,3)', color: C.verm, points: col('loss_heldout'), dashed: true },
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 1, 1);
      lineChart('chart-subloss', series, { y_min: Math.max(0.002, lmin * 0.8), y_max: lmax * 1.15, y_log: true, y_label: 'cross-entropy (log)', legend: 'll' });
      say('sum-subloss', `${mem() ? `${seriesSummary('memory loss', col('loss_memory'), 2)} ` : ''}${seriesSummary('reasoning loss', col('loss_reasoning'), 2)} ${seriesSummary('held-out loss', col('loss_heldout'), 2)}`);
    } },
    { canvases: ['chart-subacc'], draw: () => {
      const pair = mem()
        ? [['reasoning', 'acc_reasoning', false], ['memory', 'acc_memory', true]]
        : [['(4,3) inferential', 'acc_inferential', false], ['(4,3) symmetric', 'acc_symmetric', true]];
      lineChart('chart-subacc', compared(/** @type {[string, string, boolean][]} */ (pair)) || [
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
    { canvases: ['chart-emb'], draw: () => {
      const hasMemory = state.rows.some((r) => Number.isFinite(r.memory_anchor_cos));
      lineChart('chart-emb', compared([['key distance–cosine corr.', 'key_order_corr', false], ['reasoning anchors cos', 'reasoning_anchor_cos', true]]) || [
        { label: 'key distance–cosine corr.', color: C.blue, points: col('key_order_corr') },
        { label: 'reasoning anchors cos', color: C.green, points: col('reasoning_anchor_cos') },
        ...(hasMemory ? [{ label: 'memory anchors cos', color: C.orange, points: col('memory_anchor_cos') }] : []),
      ], { y_min: -1, y_max: 1, y_label: 'correlation / cosine', legend: 'll' });
      say('sum-emb', `${seriesSummary('key order correlation', col('key_order_corr'), 2)} ${seriesSummary('reasoning-anchor cosine', col('reasoning_anchor_cos'), 2)}${hasMemory ? ` ${seriesSummary('memory-anchor cosine', col('memory_anchor_cos'), 2)}` : ''}`);
    } },
    { canvases: ['chart-keydist'], draw: () => {
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
    forget(canvas);
    const ctx = canvas.getContext('2d');
    fit(canvas);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    say('sum-att2', 'The Emb-MLP has no attention.');
  }
}


/** @type {import('../charts.js').ChapterView} */
export const view = {
  number: 2,
  markers,
  charts: [
    ...anchorJobs(),
    { canvases: ['map-pca'], draw: drawAnchorPca },
    { canvases: ['map-embcos'], draw: drawAnchorCos },
    { canvases: ['map-att2'], draw: drawAnchorAtt },
  ],
  note,
  warm: [(canvas) => drawScatter(canvas, { points: [[0, 0], [1, 1], [0.5, -1]], values: [20, 50, 99], vmin: 20, vmax: 99, x_label: 'x', y_label: 'y', color_label: 'key', labeled: [[0, '20']], scale: 1, dark: false })],
};
