// The page never loses a reader's run (issue "Reliability, round four"), in real headless Chromium:
//   1. the run on screen is autosaved in IndexedDB; a reload mid-run continues it from the saved
//      step, with the rows a straight run gives (bit for bit on the CPU backend), and says so in
//      one line with "Start over", which starts afresh; a finished run reopens finished;
//   2. a saved run the engine cannot read (another format version) is refused with the reason,
//      removed, and a new run starts;
//   3. storage that throws (blocked, or full) gives one line, and the run trains on, unsaved;
//   4. a second tab on the same address continues its own copy and never overwrites the first
//      tab's saved run;
//   5. a hidden tab pauses by design, says so, saves its step, and trains again on return;
//   6. the budget (5 runs, 50 MB) evicts the oldest runs first.
// The failed training worker that continues from the run's last copy is in reliability.test.mjs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, collectConsole, e2eSuite } from './helpers.mjs';

const TEST_TIMEOUT = 5 * 60_000;
const suite = e2eSuite('autosave', { waitMs: 120_000, before, after });
const { openPage, waitFn } = suite;
const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());
/** A short chapter 1 run on the CPU backend, evaluated at every step. */
const QUERY = '?backend=cpu&steps=80&eval-every=1';

/** The page's CSV of the run on screen (Download CSV). */
async function csvOf(page, name) {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#csv')]);
  await d.saveAs(join(ARTIFACTS, name));
  return readFileSync(join(ARTIFACTS, name), 'utf8');
}

/** The rows of a straight run of `query` to its end, in a context of its own. */
async function straightCsv(query, name) {
  const { page, run } = await openPage(`straight-${name}`, { query });
  let csv = '';
  await run(async () => {
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
    csv = await csvOf(page, `autosave-${name}-straight.csv`);
  });
  return csv;
}

/** The saved runs' metadata, as the page's autosave module reads it. */
const savedRuns = (page) => page.evaluate(async () => (await import('/www/autosave.js')).savedRuns());

test('a reload mid-run continues from the autosaved step with a straight run\'s rows; Start over starts afresh', { timeout: TEST_TIMEOUT }, async (t) => {
  const straight = await straightCsv(QUERY, 'reload');
  const { page, run } = await openPage('reload', { query: QUERY });
  await run(async () => {
    await waitFn(page, () => (window.plateauSaved?.step ?? 0) >= 15);
    const before = await page.evaluate(() => window.plateauSaved);
    assert.match(before.key, /^v=\d+&steps=80&eval-every=1&/, `saved under the run's address: ${before.key}`);
    const clock = await page.evaluate(async (k) => (await (await import('/www/autosave.js')).findSaved(k)).clock, before.key);
    assert.ok(clock.ms > 0 && clock.rows.every(([s]) => s <= before.step), `the saved clock: ${clock.ms} ms, ${clock.rows.length} rows`);
    await page.reload({ waitUntil: 'load' });
    await waitFn(page, () => !document.querySelector('#resumed').hidden);
    // The training clock goes on from the saved run's (the times of its events stay true): its
    // first drawn value after the reload (the status line is drawn a frame after the step) is
    // already past the saved seconds; a clock that restarted would show well under a second.
    await waitFn(page, () => Number(document.querySelector('#elapsed').textContent) > 0);
    const elapsed = Number(await text(page, '#elapsed'));
    assert.ok(elapsed >= clock.ms / 1000 - 0.05, `elapsed ${elapsed} s goes on from the saved ${clock.ms / 1000} s`);
    const line = await text(page, '#resumed-text');
    t.diagnostic(line);
    const from = Number((/^Continued from step (\d+), where this address was left\.$/.exec(line) || [])[1]);
    assert.ok(from >= before.step, `continued from step ${from}, saved at step ${before.step} or later`);
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
    assert.equal(await csvOf(page, 'autosave-reload-continued.csv'), straight, 'the continued run gives the straight run\'s rows');
    // A finished run reopens finished, at its last step.
    await waitFn(page, () => window.plateauSaved?.step === 80);
    await page.reload({ waitUntil: 'load' });
    await waitFn(page, () => !document.querySelector('#resumed').hidden && document.querySelector('#run-state').textContent === 'finished');
    assert.match(await text(page, '#resumed-text'), /^Continued from step 80,/);
    assert.equal(await text(page, '#step'), '80');
    // Start over: the line goes, the saved run is removed, and a new run trains from step 0 to the
    // same rows.
    await page.click('#start-over');
    assert.equal(await page.$eval('#resumed', (el) => el.hidden), true);
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
    assert.equal(await csvOf(page, 'autosave-reload-over.csv'), straight, 'a run started over gives the same rows');
    const runs = await savedRuns(page);
    assert.equal(runs.length, 1, `one saved run (${JSON.stringify(runs)})`);
  });
});

test('a saved run of another format version is refused with the reason, removed, and a new run starts', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('version', { query: QUERY });
  await run(async () => {
    await waitFn(page, () => (window.plateauSaved?.step ?? 0) >= 10);
    await page.click('#play'); // pause: nothing writes while the record is edited
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'paused');
    // The stored file's format version becomes 2, and its checksum is made right again (FNV-1a,
    // 64 bits, over everything but the last 8 bytes), so that only the version is wrong.
    await page.evaluate(async () => {
      const db = await new Promise((ok, no) => { const r = indexedDB.open('plateau-runs'); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
      const tx = db.transaction('data', 'readwrite');
      const store = tx.objectStore('data');
      const rec = await new Promise((ok) => { const r = store.getAll(); r.onsuccess = () => ok(r.result[0]); });
      const f = rec.file;
      new DataView(f.buffer, f.byteOffset).setUint32(16, 2, true);
      let h = 0xcbf29ce484222325n;
      for (let i = 0; i < f.length - 8; i += 1) h = BigInt.asUintN(64, (h ^ BigInt(f[i])) * 0x100000001b3n);
      new DataView(f.buffer, f.byteOffset).setBigUint64(f.length - 8, h, true);
      store.put(rec);
      await new Promise((ok) => { tx.oncomplete = ok; });
      db.close();
    });
    await page.reload({ waitUntil: 'load' });
    await waitFn(page, () => document.querySelector('#notices').textContent.includes('could not be continued'));
    assert.match(await text(page, '#notices'), /^The run saved for this address could not be continued, so a new run starts \(This model file cannot be loaded: the file is in format version 2; this page reads version 1\.\)\.$/);
    assert.equal(await page.$eval('#resumed', (el) => el.hidden), true);
    // The new run trains from step 0 and is saved in its place.
    await waitFn(page, () => (window.plateauSaved?.step ?? 0) >= 1 && Number(document.querySelector('#step').textContent) >= 1);
    const runs = await savedRuns(page);
    assert.equal(runs.length, 1);
  });
});

for (const [name, stub] of [
  ['IndexedDB blocked', () => Object.defineProperty(window, 'indexedDB', { get() { throw new DOMException('The user denied permission to access the database.', 'SecurityError'); } })],
  ['storage full', () => { IDBObjectStore.prototype.put = function put() { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); }; }],
]) {
  test(`storage that throws (${name}) says so in one line, and the run trains on, unsaved`, { timeout: TEST_TIMEOUT }, async () => {
    const { page, run } = await openPage(`storage-${name.split(' ')[1]}`, { query: '' });
    await run(async () => {
      await page.addInitScript(stub);
      await page.goto(`${suite.server.url}${QUERY}`, { waitUntil: 'load' });
      await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 30);
      const notices = await page.$$eval('#notices li', (lis) => lis.map((li) => li.textContent));
      assert.equal(notices.length, 1, `one line: ${notices.join(' | ')}`);
      assert.match(notices[0], /^This browser's storage is not available here \(.+\): the run trains on, unsaved, and a reload starts it over\.$/);
      assert.equal(await page.evaluate(() => window.plateauSaved), undefined, 'nothing was saved');
      await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished');
    });
  });
}

test('a second tab on the same address continues its own copy and does not overwrite the first tab\'s saved run', { timeout: TEST_TIMEOUT }, async (t) => {
  const slow = '?backend=cpu&steps=2000&eval-every=5';
  const { page, run } = await openPage('tabs', { query: slow });
  await run(async () => {
    await waitFn(page, () => (window.plateauSaved?.step ?? 0) >= 10);
    await page.click('#play'); // the first tab pauses: its copy of that step is saved
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'paused');
    await waitFn(page, () => window.plateauSaved?.step === Number(document.querySelector('#step').textContent));
    const first = Number(await text(page, '#step'));
    const second = await page.context().newPage();
    const errors = collectConsole(second);
    await second.goto(`${suite.server.url}${slow}`, { waitUntil: 'load' });
    await waitFn(second, () => !document.querySelector('#resumed').hidden);
    const line = await text(second, '#resumed-text');
    t.diagnostic(line);
    assert.equal(line, `Continued from step ${first}, where this address was left. Another tab is training this address: this tab continues its own copy and does not save it.`);
    await waitFn(second, (f) => Number(document.querySelector('#step').textContent) >= f + 30, first);
    await second.waitForTimeout(3500); // longer than the copies' least gap (www/worker.js)
    const runs = await savedRuns(page);
    assert.deepEqual(runs.map((r) => r.step), [first], 'the first tab\'s saved run stays as it was');
    assert.equal(await second.evaluate(() => window.plateauSaved), undefined, 'the second tab saved nothing');
    assert.deepEqual(errors, []);
  });
});

test('a hidden tab pauses and says so, saves its step, and trains again on return', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('hidden', { query: '?backend=cpu&steps=2000&eval-every=5' });
  await run(async () => {
    await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 10);
    const setHidden = (hidden) => page.evaluate((h) => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
    await setHidden(true);
    await waitFn(page, () => document.querySelector('#hold').textContent === ' — waiting: the tab is hidden');
    await waitFn(page, () => window.plateauSaved?.step === Number(document.querySelector('#step').textContent));
    const at = await text(page, '#step');
    await page.waitForTimeout(1500);
    assert.equal(await text(page, '#step'), at, 'no step while hidden');
    await setHidden(false);
    await waitFn(page, (s) => Number(document.querySelector('#step').textContent) > Number(s) && document.querySelector('#hold').textContent === '', at);
  });
});

test('the budget keeps the 5 most recent saved runs within 50 MB, evicting the oldest first', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('budget', { query: '?autoplay=0' });
  await run(async () => {
    const out = await page.evaluate(async () => {
      const { evictions, BUDGET } = await import('/www/autosave.js');
      const MB = 1024 * 1024;
      const meta = (key, at, mb) => ({ key, at, step: 1, size: mb * MB });
      const six = [1, 2, 3, 4, 5, 6].map((i) => meta(`r${i}`, i, 1));
      return {
        budget: BUDGET,
        // A new run beside six of 1 MB: the four newest stay (5 in all), r2 and r1 go.
        count: evictions(six, meta('new', 10, 1)),
        // 20, 10, 10 MB (oldest first) and a new 15 MB run: 15 + 10 + 10 = 35 MB fit, with a 55.
        bytes: evictions([meta('a', 1, 20), meta('b', 2, 10), meta('c', 3, 10)], meta('new', 10, 15)),
        // 5, 20, 20 MB and a new 15: b does not fit (55 MB), so b goes, and a, older, with it.
        older: evictions([meta('a', 1, 5), meta('b', 2, 20), meta('c', 3, 20)], meta('new', 10, 15)),
        // Saving again under the same key replaces it: nothing is evicted for it.
        same: evictions([meta('a', 1, 20), meta('new', 2, 20)], meta('new', 10, 25)),
      };
    });
    assert.deepEqual(out.budget, { runs: 5, bytes: 50 * 1024 * 1024 });
    assert.deepEqual(out.count, ['r2', 'r1']);
    assert.deepEqual(out.bytes, ['a']);
    assert.deepEqual(out.older, ['b', 'a']);
    assert.deepEqual(out.same, []);
  });
});
