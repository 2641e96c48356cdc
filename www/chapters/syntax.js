// @ts-check
// Chapter 3, syntax arrives suddenly (Chen et al.): its line charts in the language's own words,
// the best head's arcs and every head's UAS, the onsets' markers and the status note.
import { drawArcs, seriesSummary, syntaxWords } from '../pkg-view/plateau.js';
import { $, canvasById, C, darkScheme } from '../dom.js';
import { col, currentSnap, draw, fit, fixed, last, lineChart, range, say, scrubSnap } from '../draw.js';
import { axisSteps, stampRows, state, trainingSeconds } from '../state.js';
import { groupsOf, heroChart, measuredSeries, noteMeasured, plateauSpans, secondsAt, shownConfig, yRange } from '../hero.js';

/** The run's event markers: the verb loss's drop and the onsets the engine found; events at the
 * same step share one marker and one label ("verb-loss drop, subject→verb onset 425"), so the
 * label strip above the plot keeps one line for them.
 * @param {any} o the engine's events (its `Onsets`) */
function markers(o) {
  const w = words();
  /** @type {Map<number, string[]>} */
  const byStep = new Map();
  const at = (/** @type {number | null | undefined} */ x, /** @type {string} */ label) => { if (x !== undefined && x !== null) byStep.set(x, [...(byStep.get(x) || []), label]); };
  at(o.drop, 'verb-loss drop');
  at(o.subject_onset, 'subject→verb onset');
  at(o.structure, 'non-adjacent onset');
  at(o.number_drop, w.onset);
  return [...byStep].map(([x, labels]) => ({ x, label: `${labels.join(', ')} ${x}` }));
}

/** The training time at which each row arrived, and the verb loss's drop and the subject → verb
 * head's onset as the engine's events (its `Onsets`) find them in the rows so far (the markers'
 * steps: a later evaluation can move them, since the rule weighs the curve's own noise), each with
 * the training time at which its row arrived, in the status line; `window.plateauSyntax = {drop,
 * subject}` (each `{step, seconds}` or null) for the bench. @param {any[]} rows */
function note(rows) {
  stampRows(rows);
  const o = state.events ?? {};
  const now = trainingSeconds();
  const at = (/** @type {number | null | undefined} */ step) => (step === undefined || step === null ? null : { step, seconds: state.rowSeconds.get(step) ?? now });
  window.plateauSyntax = { drop: at(o.drop), subject: at(o.subject_onset) };
  const { drop, subject } = window.plateauSyntax;
  $('syntax-at').hidden = !drop;
  if (!drop) return;
  const w = words();
  $('syntax-at').textContent = `${w.target}: loss drop at step ${drop.step} after ${drop.seconds.toFixed(1)} s${subject ? `, ${w.arc} onset at step ${subject.step}` : ''}`;
}

/** How the engine names the measures of the run's language (`syntaxWords`), e.g. the nested
 * language's "selection part". @returns {{target: string, part: string, accuracy: string, pair: string, onset: string, arc: string}} */
function words() {
  return syntaxWords(grammar());
}

/** The run's language (its config's `grammar`; '' before there is one). */
function grammar() {
  return String((state.runCfg && state.runCfg.grammar) || (state.cfg && state.cfg.grammar) || '');
}

/** Shows the chapter's lede for the run's language: the copy-agreement language's own where the
 * run trains it (`data-grammar="copy"`), else the default's (`data-grammar=""`). */
function lede() {
  const g = grammar();
  const own = document.querySelector(`[data-chapter="3"] .watch[data-grammar="${g}"]`) ? g : '';
  for (const el of document.querySelectorAll('[data-chapter="3"] .watch[data-grammar]')) {
    /** @type {HTMLElement} */ (el).hidden = el.getAttribute('data-grammar') !== own;
  }
}

/** Chapter 3's hero: the loss on far-subject verbs on a linear axis (its plateau shaded, its drop
 * marked with the seconds it took) above the subject → verb head's UAS with its best fixed-offset
 * guess, on the same steps; the runs measured at this configuration faint behind them.
 * @returns {import('../charts.js').ChapterChart[]} */
function heroJobs() {
  return [
    { canvases: ['hero-verb'], draw: () => {
      lede();
      const w = words();
      const g = groupsOf(shownConfig())[0];
      const o = state.events ?? {};
      const series = [...(g ? measuredSeries(g, 'verb_loss', C.purple, 'measured runs') : []), { label: 'this run', color: C.purple, points: col('verb_loss') }];
      const [, hi] = yRange(series, 0, 0);
      heroChart('hero-verb', series, { y_min: 0, y_max: hi, y_label: `loss on ${w.target}` }, heroEvents(o), plateauSpans(state.rows, 'verb_loss', false, C.grey));
      say('sum-hero-verb', seriesSummary(`${w.target} loss`, col('verb_loss'), 3));
      noteMeasured(3, [['', g, state.rows]]);
    } },
    { canvases: ['hero-uas'], draw: () => {
      const g = groupsOf(shownConfig())[0];
      const o = state.events ?? {};
      // The head in its own colour (green), so that the loss and the head read apart; the
      // fixed-offset guess is a baseline across the whole chart (its latest value).
      const offset = col('offset_uas_subject').filter((p) => Number.isFinite(p[1]));
      const base = offset.length ? offset[offset.length - 1][1] : NaN;
      const end = axisSteps(state.steps || shownConfig()?.steps || 1);
      const series = [
        ...(g ? measuredSeries(g, 'uas_subject', C.green, 'measured runs') : []),
        { label: 'this run', color: C.green, points: col('uas_subject') },
        ...(Number.isFinite(base) ? [{ label: 'a fixed-offset guess', color: C.grey, points: [[0, base], [end, base]], dashed: true }] : []),
      ];
      heroChart('hero-uas', series, { y_min: 0, y_max: 1.05, y_label: 'verbs whose head points to the subject', legend: 'ul' }, heroEvents(o));
      say('sum-hero-uas', seriesSummary(`${words().arc} UAS`, col('uas_subject'), 2));
    } },
  ];
}

/** The hero's annotations, the same on both charts: "the head forms" at the subject → verb head's
 * onset and "the loss follows" at the loss's fall, each with its step and seconds; "(so far)"
 * while the run trains, since a later evaluation can still move them (the rule weighs the
 * curve's own noise). @param {any} o the engine's events (its `Onsets`) */
function heroEvents(o) {
  const lastStep = state.rows.length ? state.rows[state.rows.length - 1].step : 0;
  const sofar = lastStep >= state.steps && state.steps > 0 ? '' : ' (so far)';
  const at = (/** @type {number | null | undefined} */ x, /** @type {string} */ what) => (x === undefined || x === null ? [] : [{ x, label: `${what} · step ${x}${secondsAt(x)}${sofar}` }]);
  return [...at(o.subject_onset, 'the head forms'), ...at(o.drop, 'the loss follows')];
}

/** Chapter 3's line charts. @returns {import('../charts.js').ChapterChart[]} */
function syntaxJobs() {
  return [
    { canvases: ['chart-mlm'], draw: () => {
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
    { canvases: ['chart-uas'], draw: () => {
      lineChart('chart-uas', [
        // The subject → verb head green, as in the hero; the other arcs in their own colours.
        { label: 'all arcs: best head', color: C.sky, points: col('uas') },
        { label: 'all arcs: offset guess', color: C.sky, points: col('offset_uas'), dashed: true },
        { label: 'subject→verb: best head', color: C.green, points: col('uas_subject') },
        { label: 'subject→verb: offset guess', color: C.green, points: col('offset_uas_subject'), dashed: true },
        { label: 'non-adjacent arcs: best head', color: C.verm, points: col('uas_nonadjacent') },
        { label: 'non-adjacent arcs: offset guess', color: C.verm, points: col('offset_uas_nonadjacent'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'UAS', legend: 'ur' });
      const r = last();
      say('sum-uas', r
        ? `Step ${r.step}: UAS ${fixed(r.uas, 2)} (layer ${r.best_layer + 1}, head ${r.best_head + 1}, ${r.best_direction}); best offset guess ${fixed(r.offset_uas, 2)}. Subject→verb arc: ${fixed(r.uas_subject, 2)} (offset guess ${fixed(r.offset_uas_subject, 2)}). Non-adjacent arcs: ${fixed(r.uas_nonadjacent, 2)} (offset guess ${fixed(r.offset_uas_nonadjacent, 2)}).`
        : '');
    } },
    { canvases: ['chart-agree'], draw: () => {
      const w = words();
      lineChart('chart-agree', [{ label: w.accuracy, color: C.purple, points: col('agreement_acc') }], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'lr' });
      say('sum-agree', `${seriesSummary(w.accuracy, col('agreement_acc'), 2)} Each pair sets ${w.pair} (chance 0.5).`);
    } },
    { canvases: ['chart-reg'], draw: () => {
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


/** @type {import('../charts.js').ChapterModule} */
export const view = {
  keys: ['lambda'],
  tries: [
    { set: { experiment: 'syntax', lambda: '0.1' }, look: 'Suppress the syntactic head (λ = 0.1): does the plateau end?' },
    { set: { experiment: 'syntax', lambda: '0.1', 'lambda-until': '200' }, look: 'Suppress it briefly (until step 200), then let go.' },
    { set: { experiment: 'syntax' }, look: 'No regularizer (λ = 0): the plateau, then the ramp.' },
  ],
  markers,
  charts: [
    ...heroJobs(),
    ...syntaxJobs(),
    { canvases: ['map-arcs'], draw: drawSyntaxArcs },
    { canvases: ['map-heads'], draw: drawSyntaxHeads },
  ],
  note,
  start: () => { window.plateauSyntax = null; $('syntax-at').hidden = true; },
  warm: [(canvas) => drawArcs(canvas, { words: ['the', 'dog', 'runs'], gold: [1, 2, -1], pred: [1, 2, 1], weight: [0.5, 0.7, 0.2], scale: 1, dark: false })],
};
