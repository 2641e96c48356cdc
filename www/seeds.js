// @ts-check
// Seed bands. With `seeds=N` (the Seeds control), once the run on screen finishes the worker trains
// the next N − 1 seeds of the same configuration, one after another, replaying the run's live
// changes at the steps they were made. Each line chart then draws every curve as its median over
// the seeds with the min–max band shaded; the maps stay those of the run on screen; the headline
// numbers are reported as median and range. Every number comes from the engine (`seedBand`,
// `seedsSummary`, `seedsCsv`); this module only routes rows.
import { seedBand, seedsCsv, seedsSummary } from './pkg-view/plateau.js';
import { $, setHidden, setText } from './dom.js';
import { runConfig, state } from './state.js';

/** The largest number of seeds the control and `seeds=` accept. */

/** The seeds trained beside the run on screen's seed `seed`: the next `n − 1` (mod 2³²). @param {number} seed @param {number} n */
export function bandSeeds(seed, n) {
  return Array.from({ length: Math.max(0, n - 1) }, (_, i) => (seed + 1 + i) % 4294967296);
}

/** Empties the band for a new run of `state.runCfg` (the seeds from `state.page.seeds`). */
export function resetBand() {
  state.band = { seeds: bandSeeds(state.runCfg ? state.runCfg.seed : 0, state.page.seeds), rows: new Map(), done: new Set() };
}

/** Whether every band seed has finished (true without a band). */
export const bandComplete = () => state.band.seeds.every((s) => state.band.done.has(s));

/** A `{type: 'band'}` message of the worker: rows of one band seed (replaced when resent). @param {any} msg */
export function onBandChunk(msg) {
  const mine = state.band.rows.get(msg.seed) || [];
  const resent = msg.rows.length && mine.length && msg.rows[0].step <= mine[mine.length - 1].step;
  state.band.rows.set(msg.seed, resent ? msg.rows : [...mine, ...msg.rows]);
  if (msg.status !== 'running') state.band.done.add(msg.seed);
}

/** The runs of the band with rows, the run on screen first: `[{seed, rows}]`. */
export function bandRuns() {
  const runs = [{ seed: state.runCfg ? state.runCfg.seed : 0, rows: state.rows }];
  for (const s of state.band.seeds) {
    const rows = state.band.rows.get(s);
    if (rows && rows.length) runs.push({ seed: s, rows });
  }
  return runs;
}

/** Whether the charts draw bands: more than one seed has rows. */
export const bandActive = () => state.page.seeds > 1 && bandRuns().length > 1;

/**
 * The line chart's series over the seeds: each curve that reads a row field becomes its median
 * over the seeds (solid curves also get their min–max band); others stay as they are.
 * @param {any[]} series @returns {{series: any[], bands: any[]}}
 */
export function withBands(series) {
  if (!bandActive()) return { series, bands: [] };
  const runs = bandRuns();
  /** @type {{color: string, lo: number[][], hi: number[][]}[]} */
  const bands = [];
  const out = series.map((s) => {
    const get = s.points.get || (s.points.key ? (/** @type {import('./state.js').Row} */ r) => r[s.points.key] : null);
    if (!get) return s;
    const b = seedBand(runs.map((run) => run.rows.map((r) => [r.step, get(r)])));
    if (!s.dashed) bands.push({ color: s.color, lo: b.lo, hi: b.hi });
    return { ...s, label: `${s.label} (median)`, points: b.median };
  });
  return { series: out, bands };
}

/** The band's line under the status: which seeds, how many finished, the engine's summary. */
export function drawBand() {
  const el = $('band');
  const n = state.page.seeds;
  setHidden(el, n <= 1 || !state.runCfg);
  setHidden($('seeds-csv'), el.hidden);
  if (el.hidden) return;
  const cfg = runConfig();
  const done = state.band.seeds.filter((s) => state.band.done.has(s));
  const finished = [...(state.runDone || state.mainDone ? [cfg.seed] : []), ...done];
  const runs = bandRuns().filter((r) => finished.includes(r.seed));
  const training = state.band.seeds.find((s) => !state.band.done.has(s));
  const head = `${n} seeds (${[cfg.seed, ...state.band.seeds].join(', ')}), ${finished.length} of ${n} finished`;
  const next = !state.mainDone
    ? ' — the other seeds train when this run finishes'
    : training !== undefined ? ` — training seed ${training}` : '';
  const summary = runs.length ? seedsSummary(cfg.experiment, runs.map((r) => r.rows)) : '';
  setText(el, `${head}${next}. ${summary ? `Over the finished seeds: ${summary}.` : ''} Each chart's line is the median over the seeds trained so far, with their range (lowest to highest) shaded; everything else on the page shows seed ${cfg.seed}.`);
}

/** Downloads the band's rows as one CSV with a `seed` column (the text `plateau run --seeds` writes). */
export function seedsCsvText() {
  return seedsCsv(state.runCfg, bandRuns());
}
