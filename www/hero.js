// @ts-check
// The hero figures' shared parts (each chapter's module draws its own hero charts with them): the
// runs measured by the command-line tool at the configuration on screen (www/measured.js, matched
// by the engine) as faint lines under the live run, the line that names them and says whether the
// live run agrees with its measured seed, the plateau's shaded stretch (the engine's
// `plateauSpan`), and a line chart with explicit markers. No number is computed here.
import { measuredEvent, plateauSpan } from './pkg-view/plateau.js';
import { measuredAgreementFor, measuredGroups } from './measured.js';
import { $, canvasById, darkScheme, setHidden, setText } from './dom.js';
import { currentSnap, draw, fit } from './draw.js';
import { axisSteps, state } from './state.js';

/**
 * A measured group of www/measured.json (see `plateau measured`).
 * @typedef {{experiment: string, preset: string, source: string, command?: string, query: string,
 *   columns: string[], runs: {seed: number, wall_s?: number, rows: (number | null)[][]}[], cut?: number}} Group
 */

/** The run on screen's config (the next reset's before the first run). */
export const shownConfig = () => state.runCfg || state.cfg;

/** The measured groups of `cfg` (none before the file has loaded, or without it). @param {any} cfg
 * @returns {Group[]} */
export function groupsOf(cfg) {
  if (!cfg) return [];
  try {
    return measuredGroups(cfg) || [];
  } catch (err) {
    return [];
  }
}

/**
 * One faint line per measured run of `group`: the column `column` against the step, in `color`;
 * only the first carries a legend label. @param {Group} group @param {string} column
 * @param {string} color @param {string} label @param {boolean} [dashed]
 */
export function measuredSeries(group, column, color, label, dashed = false) {
  const s = group.columns.indexOf('step');
  const k = group.columns.indexOf(column);
  if (s < 0 || k < 0) return [];
  return group.runs.map((run, i) => ({
    label: i === 0 ? label : '',
    color,
    faint: true,
    dashed,
    points: run.rows.map((r) => [r[s], r[k] === null ? NaN : r[k]]),
  }));
}

/** The last row of each run of `group`, as `{column: value}`. @param {Group} group */
export function measuredLastRows(group) {
  return group.runs.map((run) => {
    const r = run.rows[run.rows.length - 1] || [];
    return Object.fromEntries(group.columns.map((c, i) => [c, r[i] === null || r[i] === undefined ? NaN : r[i]]));
  });
}

/** The seeds of a group, as a short list ("0, 1, 2"). @param {Group} g */
const seedList = (g) => g.runs.map((r) => r.seed).join(', ');

/** Agreement of the live rows with a measured run of the same seed, cached by row count. */
const agreeCache = new Map();

/**
 * The hero's note: on the first screen a few plain words about the faint lines ("Faint: 9
 * measured runs."); under "How this was measured" which runs they are (seeds, the
 * command that wrote them), and, when the live seed is one of them, whether the live run agrees
 * with it so far (the engine's `measuredAgreement`, at the golden tolerance). `shown`:
 * `[label, group, rows]` for each run on screen (chapter 2 has two).
 * @param {number} n the chapter @param {[string, Group | undefined, any[]][]} shown
 */
export function noteMeasured(n, shown) {
  const el = $(`measured-${n}`);
  if (!el) return;
  const parts = [];
  let count = 0;
  for (const [label, g, rows] of shown) {
    if (!g) {
      parts.push(`${label}no runs measured at this configuration: only the live run is drawn.`);
      continue;
    }
    count += g.runs.length;
    const by = g.command ? ` (${g.command})` : ` (${g.source})`;
    // Runs trained for more steps stand for this budget up to its last step (the engine's `matching`).
    const cut = g.cut ? `, their first ${g.cut} steps` : '';
    let text = `${label}faint lines: ${g.runs.length} runs measured by the command-line tool, seeds ${seedList(g)}${cut}${by}.`;
    const seed = shownConfig()?.seed;
    if (rows.length && g.runs.some((r) => r.seed === seed)) {
      const key = `${g.query}|${seed}|${rows.length}`;
      let a = agreeCache.get(key);
      if (a === undefined) {
        try { a = measuredAgreementFor(g, seed, rows); } catch (err) { a = null; }
        agreeCache.clear();
        agreeCache.set(key, a);
      }
      if (a && a.compared > 0) {
        const apart = Number(a.max_abs_diff).toPrecision(2);
        const TOLERANCE_TEXT = Number(a.tolerance).toExponential(0); // the engine's golden tolerance
        text += a.agree
          ? ` Seed ${seed} is one of them: the live run equals it so far (every value within ${TOLERANCE_TEXT}).`
          : a.agree_until === null || a.agree_until === undefined
            ? ` Seed ${seed} is one of them: the live run differs from it (by up to ${apart}).`
            : ` Seed ${seed} is one of them: the live run equals it (within ${TOLERANCE_TEXT}) up to step ${a.agree_until}; from there the last-bit rounding differences between this browser and the command-line tool's machine, amplified by training, part them (by up to ${apart} so far).`;
      }
    }
    parts.push(text);
  }
  setText(el, count ? `Faint: ${count} measured runs.` : 'No runs measured here yet: only the live run is drawn.');
  const more = $(`measured-${n}-more`);
  if (more) setText(more, parts.join(' '));
  // When the measured runs were first drawn in a hero on screen (the bench's and the tests' mark).
  if (shown.some(([, g]) => g) && window.plateauMeasuredAt === undefined && el.offsetParent !== null) window.plateauMeasuredAt = performance.now();
}

/** The measured event of a group (the engine's `measuredEvent`), cached by the group's query. */
const eventCache = new Map();

/**
 * The status line's expectation while the live run has not reached the step at which the runs
 * measured at its configuration reached the chapter's event: "earlier runs: the drop at step
 * 225, about 6 s in", the seconds from this page's own rate so far (none before
 * the rate is known). Hidden once the live run has passed that step, and where nothing was measured.
 */
export function noteExpected() {
  const el = $('expect');
  if (!el) return;
  const g = groupsOf(shownConfig())[0];
  let ev = null;
  if (g) {
    if (!eventCache.has(g.query)) {
      try { eventCache.set(g.query, measuredEvent(g)); } catch (err) { eventCache.set(g.query, null); }
    }
    ev = eventCache.get(g.query);
  }
  const show = !!ev && state.step < ev.step;
  setHidden(el, !show);
  if (!show) return;
  const rate = state.rate.value;
  const about = rate && rate > 0 ? `, about ${Math.max(1, Math.round(ev.step / rate))} s in` : '';
  setText(el, `earlier runs: ${ev.what} at step ${ev.step}${about}`);
}

/**
 * The plateau of one column of `rows` as a shaded span (`plateau (so far)` while it lasts), or none.
 * @param {any[]} rows @param {string} key @param {boolean} rising @param {string} color
 */
export function plateauSpans(rows, key, rising, color) {
  if (rows.length < 2) return [];
  const p = plateauSpan(Float64Array.from(rows, (r) => r.step), Float64Array.from(rows, (r) => (Number.isFinite(r[key]) ? r[key] : NaN)), rising);
  if (!p) return [];
  return [{ from: p.start, to: p.end, color, label: p.event === null || p.event === undefined ? 'plateau (so far)' : 'plateau' }];
}

/** The y range of the finite values of `series`, padded, always including `lo` and `hi`.
 * @param {any[]} series @param {number} lo @param {number} hi */
export function yRange(series, lo, hi) {
  const v = series.flatMap((s) => s.points.map((/** @type {number[]} */ p) => p[1])).filter(Number.isFinite);
  const min = Math.min(lo, ...v);
  const max = Math.max(hi, ...v);
  const pad = (max - min) * 0.05 || 0.05;
  return [min - (min < lo ? pad : 0), max + pad];
}

/**
 * A hero line chart: like the chapter's line charts, with the hero's own markers (labelled with
 * the step and the seconds it took) and spans, and the scrubber's position.
 * @param {string} id @param {any[]} series @param {any} opts @param {{x: number, label: string}[]} markers
 * @param {any[]} [spans]
 */
export function heroChart(id, series, opts, markers, spans = []) {
  const canvas = canvasById(id);
  const scale = fit(canvas);
  const all = [...markers];
  const snap = currentSnap();
  if (state.scrub !== null && snap && !opts.x_label) all.push({ x: snap.step, label: '' }); // a step axis only
  // The step axis spans the run's budget (the config's, before its first chunk arrives).
  const steps = state.steps || shownConfig()?.steps || 1;
  draw('lines', canvas, { x_max: axisSteps(steps), series, markers: all, spans, scale, dark: darkScheme.matches, legend: 'ur', ...opts });
}

/** Training seconds at which a row of this step arrived (`state.rowSeconds`), as " · 7.8 s". @param {number} step */
export function secondsAt(step) {
  const s = state.rowSeconds.get(step);
  return s === undefined ? '' : ` · ${s.toFixed(1)} s`;
}
