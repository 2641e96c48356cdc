// @ts-check
// Chapter 4, the same collapse in a language model on real text: its line charts on a linear or
// log step axis with the papers' reference levels, the generations and their similarity map, the
// collapse's and recovery's markers and the status note.
import { seriesSummary } from '../pkg-view/plateau.js';
import { $, keepChildren, C, setAttr, setClass, setText } from '../dom.js';
import { col, cosineMap, fixed, lineChart, range, say, scrubSnap } from '../draw.js';
import { stampRows, state, trainingSeconds } from '../state.js';
import { groupsOf, heroChart, measuredSeries, noteMeasured, secondsAt, shownConfig } from '../hero.js';

/** The run's event markers: the collapse and the recovery. @param {any} c the engine's events (its `Course`) */
function markers(c) {
  const out = [];
  if (c.collapsed !== undefined && c.collapsed !== null) out.push({ x: c.collapsed, label: `collapse ${c.collapsed}` });
  if (c.recovered !== undefined && c.recovered !== null) out.push({ x: c.recovered, label: `recovered ${c.recovered}` });
  return out;
}

/** The training time at which each row arrived, and when the collapse (hidden cosine ≥ 0.9) and
 * the recovery (fallen back by half its rise) of the engine's events (its `Course`) first showed,
 * in the status line; `window.plateauLm = {collapsed, recovered}` (each `{step, seconds}` or null)
 * for the bench. @param {any[]} rows */
function note(rows) {
  stampRows(rows);
  const c = state.events;
  if (!c) return;
  const now = trainingSeconds();
  const at = (/** @type {number | null | undefined} */ step) => (step === undefined || step === null ? null : { step, seconds: state.rowSeconds.get(step) ?? now });
  window.plateauLm = { collapsed: at(c.collapsed), recovered: at(c.recovered) };
  const { collapsed, recovered } = window.plateauLm;
  if (!collapsed) return;
  $('lm-at').hidden = false;
  $('lm-at').textContent = `collapse (cosine ≥ 0.9) at step ${collapsed.step} after ${collapsed.seconds.toFixed(1)} s${recovered ? `, recovered by step ${recovered.step} after ${recovered.seconds.toFixed(1)} s` : ''}`;
}

/** What chapter 4 notes of the run on screen: the reference levels the worker sent with its
 * backend (the engine's `lmReference`). @type {{reference: any}} */
const noted = { reference: null };

/** A new run: no collapse yet. */
function start() {
  window.plateauLm = null;
  $('lm-at').hidden = true;
}

/** Chapter 4's charts share the log step axis option. */
const lmAxis = () => ({ x_log: /** @type {HTMLInputElement} */ ($('lm-logx')).checked });

/** A flat reference line across the run's steps (a paper's figure or the unigram loss). */
const level = (/** @type {string} */ label, /** @type {number} */ value, /** @type {string} */ color, dashed = true) => ({ label, color, dashed, points: [[0, value], [Math.max(state.steps, 1), value]] });

/** Chapter 4's hero: the mean pairwise cosine of the generated tokens' hidden states on a log step
 * axis, against Pythia at initialization (shaded) and after a few steps, and OLMo-2 7B; collapse
 * and recovery marked with their seconds; the runs measured at this configuration faint.
 * @returns {import('../charts.js').ChapterChart[]} */
function heroJobs() {
  return [
    { canvases: ['hero-lmcos'], draw: () => {
      const ref = noted.reference;
      const end = Math.max(state.steps, 1);
      const g = groupsOf(shownConfig())[0];
      const refs = ref ? [
        level(`Pythia after a few steps (> ${ref.collapsed})`, ref.collapsed, C.grey),
        level(`OLMo-2 7B, step ${ref.olmo2[1][0]}`, ref.olmo2[1][1], C.purple),
        { label: `Pythia at initialization (${ref.pythia_init[0]}–${ref.pythia_init[1]}, shaded)`, color: C.grey, points: [] },
      ] : [];
      const init = ref ? [{ color: C.grey, lo: [[0, ref.pythia_init[0]], [end, ref.pythia_init[0]]], hi: [[0, ref.pythia_init[1]], [end, ref.pythia_init[1]]] }] : [];
      const c = state.events;
      const at = (/** @type {number | null | undefined} */ step, /** @type {string} */ what) => (step === undefined || step === null ? [] : [{ x: step, label: `${what} · step ${step}${secondsAt(step)}` }]);
      const markers = c ? [...at(c.collapsed, 'collapse'), ...at(c.recovered, 'recovery')] : [];
      const series = [...(g ? measuredSeries(g, 'hidden_cos', C.blue, 'measured runs') : []), { label: 'this model', color: C.blue, points: col('hidden_cos') }, ...refs];
      heroChart('hero-lmcos', series, { y_min: 0, y_max: 1.05, x_log: true, y_label: 'how alike its hidden states are (cosine)', bands: init }, markers);
      say('sum-hero-lmcos', seriesSummary('mean pairwise cosine', col('hidden_cos'), 2));
      noteMeasured(4, [['', g, state.rows]]);
    } },
  ];
}

/** Chapter 4's line charts. @returns {import('../charts.js').ChapterChart[]} */
function lmJobs() {
  return [
    { canvases: ['chart-lmloss'], draw: () => {
      const ref = noted.reference;
      const series = [
        { label: 'train', color: C.blue, points: col('loss') },
        { label: 'held-out', color: C.orange, points: col('heldout_loss') },
        ...(ref ? [level('word frequencies only', ref.unigram_loss, C.grey)] : []),
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 4, 4);
      lineChart('chart-lmloss', series, { y_min: lmin * 0.95, y_max: lmax * 1.03, y_label: 'cross-entropy (nats)', legend: 'll', ...lmAxis() });
      say('sum-lmloss', `${seriesSummary('held-out loss', col('heldout_loss'), 3)}${ref ? ` Word frequencies alone give ${ref.unigram_loss.toFixed(3)}.` : ''}`);
    } },
    { canvases: ['chart-lmcos'], draw: () => {
      const ref = noted.reference;
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
    { canvases: ['chart-lmrep'], draw: () => {
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
/** @param {import('../state.js').Snap} snap */
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
  snap.samples.forEach((/** @type {{prompt: string, ids: number[], pieces: string[]}} */ s, /** @type {number} */ i) => {
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
function drawLmSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const [lo, hi] = cosineMap('map-lmcos', snap.hidden_cos, snap.k, 'generated token');
  // The mean is the engine's `hidden_cos` of the same step (never averaged here).
  const r = state.rows.find((x) => x.step === snap.step);
  say('sum-lmcos-map', `Step ${snap.step}: cosines between generated tokens range ${lo.toFixed(2)}–${hi.toFixed(2)}${r ? ` (mean pairwise cosine ${fixed(r.hidden_cos, 2)})` : ''}.`);
}


/** @type {import('../charts.js').ChapterModule} */
export const view = {
  keys: ['d-model'],
  tries: [
    { set: { experiment: 'lm', 'd-model': '512' }, look: 'Width 512: the hidden states start inside Pythia’s band.' },
    { set: { experiment: 'lm' }, look: 'Back to width 64: collapse, then recovery.' },
  ],
  markers,
  charts: [
    ...heroJobs(),
    ...lmJobs(),
    { canvases: ['map-lmcos'], draw: drawLmSnapshot },
  ],
  samples: drawLmSamples,
  note,
  start,
  backend: (msg) => { noted.reference = msg.reference || null; },
  logSteps: true,
  warm: [],
};
