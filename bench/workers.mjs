#!/usr/bin/env node
// The browser side of `plateau bench --suite workers`: the page's data-parallel training
// (issue 38) in headless Chromium (the system /usr/bin/chromium, driven by playwright-core, as
// in the end-to-end tests), measured on the page itself: its training worker, its shard workers
// and its main thread drawing the charts, as a reader has them.
//
//   node bench/workers.mjs '{"cases":[{"name":..,"query":..,"workers":N}],"warmup_s":S,"window_s":S,
//                            "phenomena":[{"name":..,"query":..,"workers":N,"kind":K}]}'
//
// Prints one JSON line (see `bench::workers::WorkersBrowser`):
//   {browser, cores, cases:[{name, query, workers, chosen, steps, seconds, ms_per_step,
//    sharding:{steps, own_ms, wait_ms, sum_ms}|null, error}],
//    phenomena:[{name, query, workers, kind, chosen, events:[{label, step, seconds}], error}]}
// A phenomenon's kind names the page's marks it waits for: 'drop' (chapter 1's window.plateauDrop),
// 'compare' (chapter 2's two answers, window.plateauVerdict and window.plateauCompareVerdict, the
// compare view on), 'syntax' (chapter 3's window.plateauSyntax.drop), 'lm' (chapter 4's
// window.plateauLm.recovered); it gives up when the run finishes without them (chapter 2: when
// both runs have finished).
// `chosen` is the number of workers the page trained with (#worker-note's data-workers);
// `sharding` the sharded steps' split of the window (ms per step: this worker's own engine calls,
// waiting for the other workers' slices, summing and sending), from the page's
// window.plateauSharding. Needs www/pkg (scripts/build-web.sh). Progress goes to stderr.

import { launch, startServer } from '../tests/e2e/helpers.mjs';

const spec = JSON.parse(process.argv[2] || '{"cases":[],"verdicts":[]}');
const log = (...a) => console.error('workers:', ...a);
const out = { browser: '', cores: 0, cases: [], phenomena: [] };

const server = await startServer();
const browser = await launch();
try {
  out.browser = browser.version();
  for (const c of spec.cases || []) {
    log(`${c.name}: ${c.workers} worker(s), ${c.query}`);
    const r = await measureRate(c);
    log(`  ${JSON.stringify(r)}`);
    out.cases.push(r);
  }
  for (const v of spec.phenomena || []) {
    log(`${v.name}: ${v.workers} worker(s), time to its phenomenon (${v.kind}), ${v.query}`);
    const r = await measurePhenomenon(v);
    log(`  ${JSON.stringify(r)}`);
    out.phenomena.push(r);
  }
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
console.log(JSON.stringify(out));

/** Opens the page at `query` with `workers` (the compare view off unless `compare`); resolves to
 * the page, its context, and the worker count it chose. */
async function open(query, workers, compare = false) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await ctx.newPage();
  const q = [query, `workers=${workers}`, compare ? '' : 'compare=off', 'backend=cpu'].filter(Boolean).join('&');
  await p.goto(`${server.url}?${q}`, { waitUntil: 'load' });
  await p.waitForFunction(() => document.querySelector('#worker-note').dataset.workers !== undefined, null, { timeout: 120_000, polling: 100 });
  const chosen = Number(await p.$eval('#worker-note', (el) => el.dataset.workers));
  if (!out.cores) out.cores = await p.evaluate(() => navigator.hardwareConcurrency);
  return { ctx, p, chosen };
}

/** Steps per second of one configuration: after `warmup_s` seconds of training, the steps the
 * page reports over `window_s` seconds (read from #step, the worker's chunks), and the split of
 * the sharded steps' time over the same window. */
async function measureRate(c) {
  const base = { name: c.name, query: c.query, workers: c.workers };
  let opened;
  try {
    // Long enough that no preset finishes inside the window (steps is a live key: a step costs
    // the same whatever the total).
    opened = await open(`${c.query}${c.query ? '&' : ''}steps=20000`, c.workers);
    const { p, chosen } = opened;
    const read = () => p.evaluate(() => ({
      step: Number(document.querySelector('#step').textContent),
      t: performance.now(),
      sharding: window.plateauSharding ? { ...window.plateauSharding } : null,
      state: document.querySelector('#run-state').textContent,
    }));
    await p.waitForFunction(() => Number(document.querySelector('#step').textContent) >= 1, null, { timeout: 300_000, polling: 100 });
    await p.waitForTimeout(1000 * spec.warmup_s);
    // The window runs from one change of the step counter to another (polled every 50 ms), over
    // at least window_s seconds and 4 changes (a slow preset's step takes seconds), at most 180 s.
    const first = await read();
    let a = first;
    while (a.step === first.step) { await p.waitForTimeout(50); a = await read(); }
    let b = a;
    let changes = 0;
    for (let last = a; (b.t - a.t < 1000 * spec.window_s || changes < 4) && b.t - a.t < 180_000;) {
      await p.waitForTimeout(50);
      const now = await read();
      if (now.step !== last.step) { b = now; changes += 1; }
      last = now;
      if (/finished|diverged|stopped/.test(now.state)) throw new Error(`the run stopped (${now.state}) inside the window`);
    }
    const steps = b.step - a.step;
    const seconds = (b.t - a.t) / 1000;
    let sharding = null;
    if (a.sharding && b.sharding && b.sharding.steps > a.sharding.steps) {
      const n = b.sharding.steps - a.sharding.steps;
      const per = (k) => (b.sharding[k] - a.sharding[k]) / n;
      sharding = { steps: n, own_ms: per('own_ms'), wait_ms: per('wait_ms'), sum_ms: per('sum_ms') };
    }
    return { ...base, chosen, steps, seconds, ms_per_step: steps > 0 ? (1000 * seconds) / steps : null, sharding, error: null };
  } catch (e) {
    return { ...base, chosen: opened ? opened.chosen : null, steps: null, seconds: null, ms_per_step: null, sharding: null, error: String(e.message || e).split('\n')[0] };
  } finally {
    await opened?.ctx.close();
  }
}

/** The events of a phenomenon of `kind` the page has marked so far, or null while it waits
 * (each `{label, step, seconds}`; see the header). Runs in the page. @param {string} kind */
function marked(kind) {
  const finished = /finished|diverged|stopped/.test(document.querySelector('#run-state').textContent);
  const w = /** @type {any} */ (window);
  /** @type {{label: string, step: number | null, seconds: number | null}[] | null} */
  let events = null;
  if (kind === 'drop' && w.plateauDrop) events = [{ label: 'drop', ...w.plateauDrop }];
  if (kind === 'compare' && w.plateauVerdict && w.plateauCompareVerdict) {
    const gamma = document.querySelector('#gamma-out').textContent;
    const v = w.plateauVerdict;
    const c = w.plateauCompareVerdict;
    events = [
      { label: `γ ${gamma} ${v.answer}`, step: v.step, seconds: v.answer === 'neither' ? null : v.seconds },
      { label: `γ ${c.gamma} ${c.answer}`, step: c.step, seconds: c.answer === 'neither' ? null : c.seconds },
    ];
  }
  if (kind === 'syntax' && w.plateauSyntax && w.plateauSyntax.drop) events = [{ label: 'verb-loss drop', ...w.plateauSyntax.drop }];
  if (kind === 'lm' && w.plateauLm && w.plateauLm.recovered) {
    events = [{ label: 'collapse', ...w.plateauLm.collapsed }, { label: 'recovered', ...w.plateauLm.recovered }];
  }
  // Chapter 2's compare run trains longer than the run on screen (its own budget): the run on
  // screen finishing is not the end of the wait.
  if (kind === 'compare' && finished && w.plateauVerdict && !w.plateauCompareVerdict) return null;
  return events ?? (finished ? [] : null);
}

/** A chapter's page at its defaults trained until its phenomenon shows (`marked`), at most 30
 * minutes: the events with the training seconds until the page had each. */
async function measurePhenomenon(v) {
  const base = { name: v.name, query: v.query, workers: v.workers, kind: v.kind };
  let opened;
  try {
    opened = await open(v.query, v.workers, v.kind === 'compare');
    const { p, chosen } = opened;
    const events = await (await p.waitForFunction(marked, v.kind, { timeout: 1_800_000, polling: 250 })).jsonValue();
    return { ...base, chosen, events, error: null };
  } catch (e) {
    return { ...base, chosen: opened ? opened.chosen : null, events: [], error: String(e.message || e).split('\n')[0] };
  } finally {
    await opened?.ctx.close();
  }
}
