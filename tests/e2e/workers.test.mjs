// End-to-end tests of the page's data-parallel training (issue 38) in headless Chromium, on the
// built page: with shards = 4, the run's steps are shared by N workers (the training worker and
// N - 1 shard workers, www/shard-worker.js), and
//   1. the rows are the same for N = 1, 2 and 4, and equal to the CLI's golden rows of that
//      configuration (tests/golden/anchors-shards4-seed0-12.csv, written by the native engine);
//   2. a live change made between two steps reaches every replica, and a shard worker that
//      fails mid-run (a wasm trap inside it) leaves the rows unchanged: the training worker
//      computes its slices from then on, and the page says so.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { REPO_ROOT, e2eSuite } from './helpers.mjs';

const TEST_TIMEOUT = 5 * 60_000;
const suite = e2eSuite('workers', { waitMs: 180_000, before, after });
const { openPage, waitFn } = suite;

// The golden sharded run (tests/common/mod.rs: chapter 2's golden run with shards = 4).
const GOLDEN = '?v=3&experiment=anchors&gamma=0.8&steps=12&batch=32&eval-batch=16&eval-every=4&snapshot-every=4&warmup=4&shards=4&backend=cpu&compare=off';
const TOLERANCE = 5e-6; // tests/common/mod.rs's, for the browser against the native engine

/** The rows of the run on screen, as the page's Download CSV writes them. */
async function csvOf(page) {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#csv')]);
  return readFileSync(await d.path(), 'utf8');
}

/** The largest absolute difference between two CSVs of the same columns (NaN equals NaN). */
function difference(a, b) {
  const [ha, ...ra] = a.trim().split('\n');
  const [hb, ...rb] = b.trim().split('\n');
  assert.equal(ha, hb, 'the same columns');
  assert.equal(ra.length, rb.length, 'the same rows');
  let worst = 0;
  ra.forEach((row, i) => {
    const x = row.split(',');
    const y = rb[i].split(',');
    x.forEach((v, j) => {
      const [p, q] = [Number(v), Number(y[j])];
      if (Number.isNaN(p) && Number.isNaN(q)) return;
      if (Number.isNaN(p) || Number.isNaN(q)) { if (v !== y[j]) worst = Infinity; return; }
      worst = Math.max(worst, Math.abs(p - q));
    });
  });
  return worst;
}

const workersOf = (page) => page.$eval('#worker-note', (el) => ({ count: Number(el.dataset.workers), text: el.textContent }));

test('one, two and four workers train the same rows as the CLI', { timeout: TEST_TIMEOUT }, async (t) => {
  const golden = readFileSync(join(REPO_ROOT, 'tests', 'golden', 'anchors-shards4-seed0-12.csv'), 'utf8');
  const csvs = [];
  for (const n of [1, 2, 4]) {
    const { page, run } = await openPage(`golden-${n}`, { query: `${GOLDEN}&workers=${n}` });
    await run(async () => {
      await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
      const w = await workersOf(page);
      t.diagnostic(`${n}: ${w.text}`);
      assert.equal(w.count, n);
      assert.equal(w.text, n === 1
        ? 'Workers: One worker computes each step\'s 4 shards (workers=1); the rows are the same for any number of workers.'
        : `Workers: ${n} workers share each step's 4 shards (workers=${n}); the rows are the same for any number of workers.`);
      const csv = await csvOf(page);
      const worst = difference(csv, golden);
      t.diagnostic(`${n} workers: largest difference from the CLI's rows ${worst}`);
      assert.ok(worst < TOLERANCE, `${n} workers: ${worst}`);
      csvs.push(csv);
    });
  }
  assert.equal(csvs[1], csvs[0], 'two workers: the rows of one, bit for bit');
  assert.equal(csvs[2], csvs[0], 'four workers: the rows of one, bit for bit');
});

test('chapter 2 at its defaults trains its 4 shards on every core, with the CLI\'s rows', { timeout: TEST_TIMEOUT }, async (t) => {
  // No shards= and no workers= in the URL: the preset's shards (4 since URL version 4) and
  // workers=auto (the browser's cores). Alone (compare=off) the run takes both of this machine's
  // cores; beside its comparison each run takes its share.
  const golden = readFileSync(join(REPO_ROOT, 'tests', 'golden', 'anchors-shards4-seed0-12.csv'), 'utf8');
  const defaults = GOLDEN.replace('&shards=4', '').replace('v=3', 'v=4');
  const { page, run } = await openPage('defaults', { query: defaults });
  await run(async () => {
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const w = await workersOf(page);
    t.diagnostic(`${cores} cores: ${w.text}`);
    assert.equal(w.count, Math.min(cores, 4), w.text);
    assert.match(await page.$eval('#workers-n', (el) => el.textContent), new RegExp(`^${w.count} workers?$`), 'the status line says how many');
    const worst = difference(await csvOf(page), golden);
    t.diagnostic(`largest difference from the CLI's rows at 4 shards: ${worst}`);
    assert.ok(worst < TOLERANCE, String(worst));
  });
});

test('a live change reaches every replica, and a failed shard worker leaves the rows unchanged', { timeout: TEST_TIMEOUT }, async (t) => {
  const csvs = [];
  for (const n of [1, 2]) {
    const { page, run } = await openPage(`live-${n}`, {
      query: `${GOLDEN.replace('steps=12', 'steps=16').replace('eval-every=4', 'eval-every=2')}&workers=${n}&autoplay=0`,
      allowConsole: /test hook: a panic inside the engine|RuntimeError|unreachable|panicked/,
    });
    await run(async () => {
      await waitFn(page, () => document.querySelector('#worker-note').dataset.workers !== undefined);
      assert.equal((await workersOf(page)).count, n);
      for (let s = 1; s <= 3; s += 1) {
        await page.click('#stepbtn');
        await waitFn(page, (k) => document.querySelector('#step').textContent === String(k), s);
      }
      // A live change at step 3: the learning rate, on the slider.
      await page.$eval('#lr', (el) => {
        el.value = String(Number(el.min) + 0.8 * (Number(el.max) - Number(el.min)));
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      });
      for (let s = 4; s <= 5; s += 1) {
        await page.click('#stepbtn');
        await waitFn(page, (k) => document.querySelector('#step').textContent === String(k), s);
      }
      // Shard worker 1 traps (nothing happens with one worker: there is none).
      await page.evaluate(() => window.plateauTest('shard-panic'));
      await page.click('#play');
      await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
      if (n === 2) {
        const notices = await page.$eval('#notices', (el) => el.textContent);
        t.diagnostic(notices);
        assert.match(notices, /A shard worker stopped \(.+\); this worker computes every shard from now on, with the same rows\./);
        assert.equal((await workersOf(page)).count, 1);
      }
      csvs.push(await csvOf(page));
    });
  }
  assert.equal(csvs[1], csvs[0], 'the live change and the failure: the rows of one worker, bit for bit');
});

test('the Shards control shows in chapters 1, 2 and 4, and 4 shards on reset train on the cores', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('control', { query: '?v=3&experiment=syntax&autoplay=0&compare=off' });
  await run(async () => {
    await waitFn(page, () => document.querySelector('#worker-note').dataset.workers !== undefined);
    const shown = () => page.$eval('#shards', (el) => !el.closest('.control').hidden);
    assert.equal(await shown(), false, 'chapter 3 trains as one shard: no control');
    for (const experiment of ['mws', 'anchors', 'lm']) {
      await page.click(`.chapter[data-experiment="${experiment}"]`);
      await waitFn(page, (e) => document.querySelector(`.chapter[data-experiment="${e}"]`).getAttribute('aria-current') === 'true', experiment);
      assert.equal(await shown(), true, `${experiment}: the control shows`);
    }
    // Chapter 4 now: one shard, one worker, and no line about it.
    await waitFn(page, () => document.querySelector('#worker-note').dataset.workers === '1');
    assert.equal(await page.$eval('#worker-note', (el) => el.hidden), true);
    await page.selectOption('#shards', '4');
    await page.click('#reset');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const n = Math.min(4, cores);
    await waitFn(page, (k) => document.querySelector('#worker-note').dataset.workers === String(k), n);
    const note = await page.$eval('#worker-note', (el) => el.textContent);
    t.diagnostic(note);
    assert.equal(note, `Workers: ${n === 1 ? 'One worker computes' : `${n} workers share`} each step's 4 shards (this browser reports ${cores} core${cores === 1 ? '' : 's'}); the rows are the same for any number of workers.`);
    assert.match(await page.evaluate(() => window.location.search), /shards=4/, 'the address carries the shards');
  });
});
