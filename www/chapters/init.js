// @ts-check
// Chapter 2, small initialization (Yao et al.): its line charts, the PCA, cosine and attention
// maps, the held-out answer's marker and the verdict note; and its compare view: the same
// configuration at another γ beside the run on screen (a companion run, www/companion.js, in a
// second colour), the Compare control and the verdict line that says how each run answers the
// held-out pair.
import { companionSteps, drawScatter, rowsCsv, seriesSummary } from '../pkg-view/plateau.js';
import { scheduleDraw } from '../charts.js';
import { $, canvasById, C, darkScheme, download, setHidden, setText } from '../dom.js';
import { companionActive, companionSeries, startCompanion } from '../companion.js';
import { col, currentSnap, draw, fit, fixed, forget, last, lineChart, range, say, scrubSnap } from '../draw.js';
import { noteDone, syncHolds } from '../holds.js';
import { syncUrl } from '../pageflags.js';
import { runConfig, stampRows, state } from '../state.js';
import { groupsOf, heroChart, measuredLastRows, measuredSeries, noteMeasured, secondsAt, shownConfig, yRange } from '../hero.js';

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

// ---- the compare view ------------------------------------------------------------------

/** The compare view's config beside a run of `cfg`: the same configuration at the comparison γ
 * (the page key `compare`), trained to the comparison's own steps (`compare-steps`: the engine's
 * `companionSteps`). @param {import('../state.js').Config} cfg @returns {import('../state.js').Config} */
function companionConfig(cfg) {
  const steps = companionSteps(cfg, state.page.compare_steps ?? undefined);
  return { ...cfg, gamma: /** @type {number} */ (state.page.compare), steps };
}

/** The companion beside a run of `cfg`: compare on, another γ. @param {import('../state.js').Config} cfg */
const companionOf = (cfg) => (state.page.compare !== null && state.page.compare !== cfg.gamma ? companionConfig(cfg) : null);

/** At the end of the companion's run: `window.plateauCompareVerdict = {gamma, answer, step, seconds}`
 * for the bench (its time to verdict on the page's training clock, beside the run on screen's). */
function noteCompareVerdict() {
  const c = state.companion;
  const v = c.events;
  if (!v) return;
  const seconds = v.step === undefined || v.step === null ? null : c.seconds.get(v.step) ?? null;
  window.plateauCompareVerdict = { gamma: c.cfg?.gamma ?? null, answer: v.answer, step: v.step ?? null, seconds };
}

/** One run's answer on the held-out pair, in words, from the engine's events `{answer, step}`:
 * "by the rule (key − 10) since step 275 (final)", "as the mirror pair (key − 6) since …",
 * "neither answer by the end (step 800)", "no answer yet (last checked at step 100)".
 * @param {any} v @param {any[]} rows @param {boolean} done */
function answerText(v, rows, done) {
  if (!rows.length) v = null;
  if (!v) return 'no evaluation yet';
  const at = `step ${rows[rows.length - 1].step}`;
  if (v.answer === 'neither') return done ? `neither answer by the end (${at})` : `no answer yet (last checked at ${at})`;
  const how = v.answer === 'inferential' ? 'by the rule (key − 10)' : 'as the mirror pair (key − 6)';
  return `${how} since step ${v.step}${done ? ' (final)' : ` (so far, at ${at})`}`;
}

function drawCompareVerdict() {
  const el = $('compare-verdict');
  const c = state.companion;
  const on = !!c.cfg;
  setHidden(el, !on);
  setHidden($('compare-csv'), !on || !c.rows.length);
  if (!on) return;
  const g = runConfig().gamma;
  const o = /** @type {number} */ (state.page.compare);
  // The legend names each run's γ; here the init alone ("small init"), or the γ where both are equal.
  const who = (/** @type {number} */ a, /** @type {number} */ b) => role(a, b).replace(/ \(γ [^)]*\)$/, '');
  const mine = `${who(g, o)}: ${answerText(state.events, state.rows, state.mainDone)}`;
  const other = `${who(o, g)}: ${c.message || answerText(c.events, c.rows, c.done)}`;
  setText(el, `The unseen pair (4, 3) — ${mine}; ${other}.`);
}

/** Shows the Compare control's value (the select lists the γ values; another value from the URL
 * becomes an extra option). */
function showCompare() {
  const sel = /** @type {HTMLSelectElement} */ ($('compare-gamma'));
  const v = state.page.compare === null ? 'off' : String(state.page.compare);
  if (![...sel.options].some((o) => o.value === v)) sel.append(new Option(v, v));
  sel.value = v;
}

/** The reader picked another γ to compare with (or none): the URL keeps it, and the comparison
 * run starts again from step 0 beside the run on screen. @param {string} value */
function setCompare(value) {
  state.page.compare = value === 'off' ? null : Number(value);
  syncUrl();
  if (!state.runCfg) return;
  startCompanion(false);
  noteDone();
  if (!state.runDone) syncHolds(true);
  scheduleDraw(true);
}

// The Compare control and the comparison run's CSV (the engine's `rowsCsv`: the CLI's columns,
// from the rows the page holds).
$('compare-gamma').addEventListener('change', () => setCompare(/** @type {HTMLSelectElement} */ ($('compare-gamma')).value));
$('compare-csv').addEventListener('click', () => download(
  `plateau-anchors-gamma${state.companion.cfg?.gamma ?? state.page.compare}-metrics.csv`,
  rowsCsv(state.companion.cfg, state.companion.rows),
  'text/csv',
));

/**
 * Chapter 2's compare view: a chart's two curves for the run on screen (blue) and the same two of
 * the comparison run (orange), solid and dashed, labelled with each run's γ; `null` when there is
 * no comparison run. @param {[string, string | ((r: any) => number), boolean][]} curves
 */
function compared(curves) {
  if (!companionActive()) return null;
  const mine = curves.map(([label, key, dashed]) => ({
    label: `γ ${runConfig().gamma}: ${label}`,
    color: C.blue,
    dashed,
    points: typeof key === 'function' ? Object.assign(state.rows.map((r) => [r.step, key(r)]), { get: key }) : col(key),
  }));
  return [...mine, ...companionSeries(`γ ${state.page.compare}: `, C.orange, curves)];
}

/** The key-distance bins of the rows' `key_cos_by_distance` and of the CSV's `key_cos_d*`
 * columns, each at a representative distance on the hero's log axis (1, 2, 3–5, 6–19, ≥ 20). */
const BINS = [[1, 'key_cos_d1'], [2, 'key_cos_d2'], [4, 'key_cos_d3_5'], [11, 'key_cos_d6_19'], [40, 'key_cos_d20plus']];

/** The companion's config (chapter 2's compare view), or null. */
const companionCfg = () => (state.page.compare !== null && shownConfig() ? companionConfig(shownConfig()) : null);

/** Which init a run of `gamma` is beside the other run's `other` γ (larger γ, smaller weights),
 * or its γ alone without a comparison. @param {number} gamma @param {number | null} other */
function role(gamma, other) {
  if (other === null || other === undefined || Number(other) === Number(gamma)) return `γ ${gamma}`;
  return Number(gamma) > Number(other) ? `small init (γ ${gamma})` : `large init (γ ${gamma})`;
}

/** A verdict marker in words: "small init answers by the rule · step 275 · 41.0 s", or "… as the
 * mirror pair …". @param {any} v @param {string} who @param {Map<number, number> | null} seconds */
function verdictMarker(v, who, seconds) {
  if (!v || v.answer === 'neither' || v.step === undefined || v.step === null) return [];
  const s = seconds ? seconds.get(v.step) : undefined;
  const how = v.answer === 'inferential' ? 'starts answering by the rule' : 'answers as the mirror pair';
  return [{ x: v.step, label: `${who.replace(/ \(γ [^)]*\)$/, '')} ${how} · step ${v.step}${seconds ? (s === undefined ? '' : ` · ${s.toFixed(1)} s`) : secondsAt(v.step)}` }];
}

/** Chapter 2's hero: both runs' answers on the held-out pair over training (left), and the mean
 * cosine of key embeddings by key distance at the latest evaluation (right): an ordered line of
 * keys (near keys alike, far keys not) falls from left to right; none stays flat. The runs
 * measured at each configuration are drawn faint. @returns {import('../charts.js').ChapterChart[]} */
function heroJobs() {
  return [
    { canvases: ['hero-answers'], draw: () => {
      const cfg = shownConfig();
      const other = companionCfg();
      const g = groupsOf(cfg)[0];
      const go = other ? groupsOf(other)[0] : undefined;
      const c = state.companion;
      const gamma = cfg ? cfg.gamma : '';
      // Legend: one entry per run in its colour (the live run blue, the comparison orange), one
      // for the measured runs (faint), and two grey keys for what solid and dashed mean: the
      // rule's answer on the held-out pair (key − 10) and the mirror pair's memorized one (key − 6).
      const me = role(gamma, other ? other.gamma : null);
      const them = other ? role(other.gamma, gamma) : '';
      const series = [
        ...(g ? [...measuredSeries(g, 'acc_inferential', C.blue, 'measured runs'), ...measuredSeries(g, 'acc_symmetric', C.blue, '', true)] : []),
        ...(go ? [...measuredSeries(go, 'acc_inferential', C.orange, g ? '' : 'measured runs'), ...measuredSeries(go, 'acc_symmetric', C.orange, '', true)] : []),
        { label: me, color: C.blue, points: col('acc_inferential') },
        { label: '', color: C.blue, points: col('acc_symmetric'), dashed: true },
        ...(other && c.rows.length ? [
          { label: them, color: C.orange, points: c.rows.map((r) => [r.step, r.acc_inferential]) },
          { label: '', color: C.orange, points: c.rows.map((r) => [r.step, r.acc_symmetric]), dashed: true },
        ] : []),
        { label: 'by the rule: key − 10', color: C.grey, points: [] },
        { label: 'as the mirror pair: key − 6', color: C.grey, points: [], dashed: true },
      ];
      // The step axis spans both budgets (the comparison trains to its own, `compare-steps`); where
      // the run on screen stops earlier, its budget is marked.
      const own = state.steps || cfg?.steps || 1;
      const steps = Math.max(own, other ? other.steps : 0);
      const budget = steps > own ? [{ x: own, label: `${me.replace(/ \(γ [^)]*\)$/, '')} stops · step ${own}` }] : [];
      const markers = [...verdictMarker(state.events, me, null), ...(other ? verdictMarker(c.events, them, c.seconds) : []), ...budget];
      heroChart('hero-answers', series, { x_max: steps, y_min: 0, y_max: 1.05, y_label: 'answers to the unseen pair', legend: 'ul' }, markers);
      const r = last();
      say('sum-hero-answers', r ? `Step ${r.step}: γ ${gamma} answers the held-out pair inferentially in ${fixed(r.acc_inferential, 2)}, symmetrically in ${fixed(r.acc_symmetric, 2)}.` : '');
      noteMeasured(2, [[`γ ${gamma}: `, g, state.rows], ...(other ? /** @type {[string, any, any[]][]} */ ([[`γ ${other.gamma}: `, go, c.rows]]) : [])]);
    } },
    { canvases: ['hero-keys'], draw: () => {
      const cfg = shownConfig();
      const other = companionCfg();
      const g = groupsOf(cfg)[0];
      const go = other ? groupsOf(other)[0] : undefined;
      const profile = (/** @type {any} */ r) => BINS.map(([x], k) => [x, r && r.key_cos_by_distance ? r.key_cos_by_distance[k] : NaN]);
      const measured = (/** @type {any} */ grp, /** @type {string} */ color, /** @type {string} */ label) => (grp ? measuredLastRows(grp).map((row, i) => ({
        label: i === 0 ? label : '', color, faint: true, points: BINS.map(([x, key]) => [x, row[key]]),
      })) : []);
      const mine = last();
      const theirs = state.companion.rows[state.companion.rows.length - 1];
      const series = [
        ...measured(g, C.blue, 'measured runs, at their end'),
        ...measured(go, C.orange, g ? '' : 'measured runs, at their end'),
        ...(mine ? [{ label: `${role(cfg.gamma, other ? other.gamma : null)}, step ${mine.step}`, color: C.blue, points: profile(mine) }] : []),
        ...(other && theirs ? [{ label: `${role(other.gamma, cfg.gamma)}, step ${theirs.step}`, color: C.orange, points: profile(theirs) }] : []),
      ];
      const [lo, hi] = yRange(series, 0, 0.05);
      heroChart('hero-keys', series, { x_max: 60, x_log: true, x_label: 'how far apart two keys are (log)', y_min: lo, y_max: hi, y_label: 'how alike their embeddings are', legend: 'ur' }, []);
      say('sum-hero-keys', mine && mine.key_cos_by_distance
        ? `Step ${mine.step}, γ ${cfg.gamma}: keys 1 apart have mean cosine ${fixed(mine.key_cos_by_distance[0], 2)}, keys 20 or more apart ${fixed(mine.key_cos_by_distance[4], 2)}.`
        : '');
    } },
  ];
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
      const get = (/** @type {number} */ k) => (/** @type {import('../state.js').Row} */ r) => (r.key_cos_by_distance ? r.key_cos_by_distance[k] : NaN);
      const bin = (/** @type {number} */ k) => Object.assign(state.rows.map((r) => [r.step, get(k)(r)]), { get: get(k) });
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

/** Chapter 2's cosine map of the token embeddings: the diagonal (each token with itself, 1)
 * masked and the colours scaled to the largest off-diagonal |cosine|, so the band of neighbouring
 * keys shows (the engine's values; only their range is read here). */
function drawAnchorCos() {
  const snap = currentSnap();
  if (!snap) return;
  const canvas = canvasById('map-embcos');
  const n = snap.tokens.length;
  let vabs = 1e-6;
  for (let i = 0; i < n; i += 1) for (let j = 0; j < n; j += 1) if (i !== j && Number.isFinite(snap.cosine[i * n + j])) vabs = Math.max(vabs, Math.abs(snap.cosine[i * n + j]));
  draw('heatmap', canvas, {
    values: snap.cosine, rows: n, cols: n, signed: true, vmin: -vabs, vmax: vabs, separators: [8], mask_diagonal: true,
    tick_labels: snap.tokens.map(String), x_label: 'token', y_label: 'token', scale: fit(canvas), dark: darkScheme.matches,
  });
  const r = state.rows.find((x) => x.step === snap.step) || last();
  say('sum-embcos', r ? `Step ${snap.step}: key distance–cosine correlation ${fixed(r.key_order_corr, 2)} (0 = no order); colours span ±${vabs.toFixed(2)}, the largest off-diagonal |cosine|.` : '');
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
    ctx?.clearRect(0, 0, canvas.width, canvas.height);
    say('sum-att2', 'The Emb-MLP has no attention.');
  }
}


/** @type {import('../charts.js').ChapterModule} */
export const view = {
  keys: ['gamma', 'compare-gamma'],
  tries: [
    { set: { experiment: 'anchors' }, compare: '0.4', look: 'Small init (γ 0.7) against large init (γ 0.4): which answer, and which keys line up?' },
    // The learning-order ablation's configuration: one shard, both runs its 800 steps (its runs).
    { set: { experiment: 'anchors', gamma: '1', memory: '0.3125', shards: '1' }, compare: '0.4', compareSteps: 'same', look: 'Add memory samples: which is learned first, the rule or the lookup table?' },
  ],
  markers,
  charts: [
    ...heroJobs(),
    ...anchorJobs(),
    { canvases: ['map-pca'], draw: drawAnchorPca },
    { canvases: ['map-embcos'], draw: drawAnchorCos },
    { canvases: ['map-att2'], draw: drawAnchorAtt },
  ],
  note,
  jobs: [drawCompareVerdict],
  start: () => { window.plateauVerdict = null; window.plateauCompareVerdict = null; },
  showPageKeys: showCompare,
  companion: { config: companionOf, label: (cfg) => `γ = ${cfg.gamma}`, finished: noteCompareVerdict, changed: drawCompareVerdict },
  warm: [(canvas) => drawScatter(canvas, { points: [[0, 0], [1, 1], [0.5, -1]], values: [20, 50, 99], vmin: 20, vmax: 99, x_label: 'x', y_label: 'y', color_label: 'key', labeled: [[0, '20']], scale: 1, dark: false })],
};
