// End-to-end tests of the explorable page, chapter 1 (issue "The explorable page and chapter
// 1", item 7), in real headless Chromium against the built page (run scripts/build-web.sh
// first). Each test opens its own page on one shared static server and browser:
//
//   1. the page loads, training starts, and after some steps the charts and status changed;
//   2. moving c and pressing Reset starts a new run with that c (checked in the CSV download);
//   3. Pause stops the step counter; Step advances it by exactly one;
//   4. the scrubber shows an earlier snapshot in the attention map;
//   5. keyboard only: Tab order, Space on Play/Pause, a visible focus outline, the skip link;
//   6. no console error (page or worker) and no #error message in any test;
//   7. full-page screenshots at desktop and phone widths (artifacts/chapter1-*.png);
//   plus URL handling: bad values become notices, ?backend=cpu picks the CPU backend.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, e2eSuite, warmUpDone } from './helpers.mjs';

const WAIT_MS = 120_000; // generous: two slow cores, CPU backend, several Chromiums at once
const TEST_TIMEOUT = 4 * 60_000;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 800 };
const CHARTS = ['chart-loss', 'chart-acc', 'chart-rep', 'chart-apm', 'chart-cos'];
const MAPS = ['map-att', 'map-cos'];
// The CSV contract (README): these columns first, in this order.
const CSV_HEAD = 'step,loss,output_loss,train_acc,test_acc,first_token_acc,repetition,data_repetition,apm,hidden_cos';

const suite = e2eSuite('chapter1', { waitMs: WAIT_MS, before, after });
const { openPage } = suite;


const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());
const stepOf = (page) => page.$eval('#step', (el) => Number(el.textContent.replace(/,/g, '')));
const dataUrl = (page, id) => page.$eval(`#${id}`, (c) => c.toDataURL());
const waitFn = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: WAIT_MS, polling: 100 });

/** Waits until #backend names a backend and #step >= `min` (or the run has ended). */
async function waitTraining(page, min = 1) {
  await waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));
  await waitFn(page, (m) => {
    const s = Number(document.querySelector('#step').textContent);
    const rs = document.querySelector('#run-state').textContent;
    return s >= m || rs === 'finished' || rs === 'diverged';
  }, min);
}

/** Returns lap(label): collects "label +seconds since the test began" for one diagnostic line. */
function laps(t) {
  const t0 = Date.now();
  const seen = [];
  const lap = (label) => seen.push(`${label} ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  lap.report = () => t.diagnostic(`timeline: ${seen.join(', ')}`);
  return lap;
}

/** Waits until #step has shown the same value for `ms` (a redraw may lag behind a chunk). */
async function waitStepStable(page, ms = 1500) {
  await page.evaluate(() => { window.__stable = null; });
  await waitFn(page, (quiet) => {
    const v = document.querySelector('#step').textContent;
    const now = performance.now();
    if (!window.__stable || window.__stable.v !== v) window.__stable = { v, since: now };
    return now - window.__stable.since >= quiet;
  }, ms);
}

/** Waits for two animation frames and then `ms` more (lets throttled draws land). */
async function settle(page, ms = 400) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  if (ms) await page.waitForTimeout(ms);
}

test('loads, starts training, and the charts and status change', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('load');
  await run(async () => {
    await waitTraining(page, 1);
    // Diagnostic only: how long the main thread is blocked (drawing runs there).
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration)))
        .observe({ type: 'longtask' });
    });
    // The drawing code was compiled at load by drawing chapter 1's chart kinds off the page.
    assert.deepEqual(await warmUpDone(page), { jobs: 4, drawn: 4, failed: [] });
    // First drawn state with at least one metric row.
    await waitFn(page, () => /at step \d+/.test(document.querySelector('#sum-loss').textContent));
    assert.match(await text(page, '#run-state'), /^(training|finished)$/);
    const before = {
      step: await stepOf(page),
      charts: Object.fromEntries(await Promise.all([...CHARTS, ...MAPS].map(async (id) => [id, await dataUrl(page, id)]))),
    };
    t.diagnostic(`backend: ${await text(page, '#backend')}`);
    t.diagnostic(`first look at step ${before.step}`);
    // From here on, count the drawing calls on the page's canvases made inside an animation-frame
    // callback and outside one: a drawing job runs in a task of its own, after the frame, so that
    // it and the frame's rendering are never one long task.
    await page.evaluate(() => {
      window.__draws = { inFrame: 0, outside: 0 };
      let inFrame = false;
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (cb) => raf((ts) => { inFrame = true; try { cb(ts); } finally { inFrame = false; } });
      for (const m of ['fillRect', 'fillText', 'stroke', 'drawImage', 'putImageData']) {
        const orig = CanvasRenderingContext2D.prototype[m];
        CanvasRenderingContext2D.prototype[m] = function (...args) {
          if (this.canvas.isConnected) window.__draws[inFrame ? 'inFrame' : 'outside'] += 1;
          return orig.apply(this, args);
        };
      }
    });

    // Twenty more steps (two more snapshots), or the end of the run.
    await waitFn(page, (s0) => {
      const s = Number(document.querySelector('#step').textContent);
      return s >= s0 + 20 || document.querySelector('#run-state').textContent === 'finished';
    }, before.step);
    await settle(page);

    const step = await stepOf(page);
    assert.ok(step > before.step, `#step did not increase (${before.step} → ${step})`);
    assert.match(await text(page, '#steps'), /^[1-9]\d*$/, '#steps shows the run length');
    const elapsed = Number(await text(page, '#elapsed'));
    assert.ok(elapsed > 0, `#elapsed should be > 0, is ${elapsed}`);
    const rate = await text(page, '#rate');
    assert.match(rate, /^\d+(\.\d)?$/, `#rate should be a number of steps/s, is ${JSON.stringify(rate)}`);
    t.diagnostic(`step ${step}, ${rate} steps/s, elapsed ${elapsed} s`);
    const long = await page.evaluate(() => window.__long);
    t.diagnostic(`main-thread tasks over 50 ms: ${long.length}, longest ${Math.round(Math.max(0, ...long))} ms, total ${Math.round(long.reduce((a, b) => a + b, 0))} ms`
      + ` (page's own plateauLongestTaskMs: ${await page.evaluate(() => window.plateauLongestTaskMs)})`);

    for (const id of [...CHARTS, ...MAPS]) {
      assert.notEqual(await dataUrl(page, id), before.charts[id], `#${id} did not change between step ${before.step} and ${step}`);
    }
    const draws = await page.evaluate(() => window.__draws);
    assert.ok(draws.outside > 0, `the charts were redrawn: ${JSON.stringify(draws)}`);
    assert.equal(draws.inFrame, 0, `no chart is drawn inside an animation-frame callback: ${JSON.stringify(draws)}`);
    // The summaries of this chapter (the other chapters' views are hidden).
    const sums = await page.$$eval('[id^="sum-"]', (els) => els.filter((e) => e.offsetParent !== null).map((e) => [e.id, e.textContent.trim()]));
    assert.ok(sums.length >= 7, `chapter 1 shows its summaries (${sums.length})`);
    for (const [id, s] of sums) assert.ok(s.length > 0, `#${id} is empty`);
    assert.match(Object.fromEntries(sums)['sum-loss'], /^output loss \d+\.\d+ at step \d+/, 'loss summary');
    assert.match(Object.fromEntries(sums)['sum-att'], /^Step \d+:/, 'attention map summary');
    assert.match(Object.fromEntries(sums)['sum-mapcos'], /^Step \d+: cosines between output positions range -?\d\.\d\d–\d\.\d\d\.$/, 'cosine map summary');
    assert.equal(await page.locator('#samples .sample').count(), 4, 'four generations are shown');
    assert.equal(await page.$eval('#boot', (el) => el.hidden), true, 'the loading message is hidden once training runs');
  });
});

test('moving c and pressing Reset starts a new run with that c', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('reset');
  await run(async () => {
    await waitTraining(page, 3);
    // c = 10^slider over the schema's range 0.01..100: End (slider 2, c = 100), then
    // 150 × ArrowLeft → slider 0.5, c ≈ 3.16.
    await page.focus('#c');
    await page.keyboard.press('End');
    assert.equal(await text(page, '#c-out'), '100', 'the slider reaches the largest c the schema allows');
    for (let i = 0; i < 150; i += 1) await page.keyboard.press('ArrowLeft');
    const slider = Number(await page.$eval('#c', (el) => el.value));
    assert.ok(Math.abs(slider - 0.5) < 1e-9, `#c should be at 0.5 after End and 150 × ArrowLeft, is ${slider}`);
    const c = Number(Math.pow(10, slider).toPrecision(3)); // the page's slider → c mapping (3 digits)
    assert.equal(await text(page, '#c-out'), c.toString(), '#c-out shows the chosen c');
    assert.equal(await text(page, '#reset'), 'Reset', 'c applies live, so Reset is not marked pending');

    // Record every value #step shows from the moment Reset is clicked on.
    await page.evaluate(() => {
      window.__steps = null;
      const el = document.getElementById('step');
      document.getElementById('reset').addEventListener('click', () => {
        window.__old = Number(el.textContent);
        window.__steps = [];
      }, { capture: true, once: true });
      new MutationObserver(() => { if (window.__steps) window.__steps.push(Number(el.textContent)); })
        .observe(el, { childList: true, characterData: true, subtree: true });
    });
    await page.click('#reset');
    const old = await page.evaluate(() => window.__old);
    // The counter restarts: some value below the old one shows, then the new run counts up.
    await waitFn(page, (o) => window.__steps.some((s) => s < o), Math.max(old, 1));
    // 'starting' until the worker has built the new model; then the new run counts up.
    await waitFn(page, () => document.querySelector('#run-state').textContent !== 'starting');
    await waitFn(page, () => {
      const s = Number(document.querySelector('#step').textContent);
      return s >= 11 || document.querySelector('#run-state').textContent !== 'training';
    });
    assert.equal(await text(page, '#run-state'), 'training', 'the new run trains');
    const seen = await page.evaluate(() => window.__steps.slice());
    t.diagnostic(`old run at step ${old}; #step after Reset: ${seen.join(' ')}`);
    assert.ok(seen[0] < old, `right after Reset #step should restart below ${old}, showed ${seen.join(' ')}`);
    for (let i = 1; i < seen.length; i += 1) {
      assert.ok(seen[i] >= seen[i - 1], `#step went backwards after Reset (a step of the old run shown in the new one?): ${seen.join(' ')}`);
    }
    // The first snapshot of the new run is step 0 (no stale snapshot of the old run).
    // Wait until the scrubber has drawn a second snapshot: with only one, Home does not move it
    // (no input event) and the live view would be the first snapshot anyway.
    await waitFn(page, () => Number(document.querySelector('#scrub').max) >= 1);
    await page.focus('#scrub');
    await page.keyboard.press('Home');
    await waitFn(page, () => document.querySelector('#scrub-out').textContent === '0');
    await page.keyboard.press('End');

    // The CSV of the run on screen: starts at step 0 and carries the new c on every row.
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#csv')]);
    assert.equal(download.suggestedFilename(), 'plateau-metrics.csv');
    await download.saveAs(join(ARTIFACTS, 'chapter1-reset.csv'));
    const csv = readFileSync(join(ARTIFACTS, 'chapter1-reset.csv'), 'utf8');
    const [head, ...lines] = csv.trim().split('\n');
    assert.ok(head.startsWith(CSV_HEAD), `CSV header should start with the contract columns, is: ${head}`);
    const cols = head.split(',');
    const iStep = cols.indexOf('step');
    const iC = cols.indexOf('mask_c');
    assert.ok(iC >= 0, `no mask_c column in: ${head}`);
    assert.ok(lines.length >= 2, `expected at least 2 rows after 11 steps, got ${lines.length}`);
    const rows = lines.map((l) => l.split(','));
    for (const r of rows) assert.equal(r.length, cols.length, `ragged CSV row: ${r.join(',')}`);
    assert.equal(Number(rows[0][iStep]), 0, 'the new run starts at step 0');
    for (let i = 1; i < rows.length; i += 1) assert.ok(Number(rows[i][iStep]) > Number(rows[i - 1][iStep]), 'steps increase');
    for (const r of rows) {
      assert.ok(Math.abs(Number(r[iC]) - c) < 1e-9, `row at step ${r[iStep]} has mask_c ${r[iC]}, expected ${c}`);
    }
    t.diagnostic(`CSV: ${rows.length} rows, steps ${rows[0][iStep]}…${rows.at(-1)[iStep]}, mask_c ${rows[0][iC]}`);
  });
});

test('Pause stops the step counter; Step advances it by exactly one', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('pause');
  await run(async () => {
    await waitTraining(page, 2);
    assert.equal(await text(page, '#run-state'), 'training', 'the run should still be training');
    assert.equal(await text(page, '#play'), 'Pause');
    assert.equal(await page.$eval('#play', (el) => el.getAttribute('aria-pressed')), 'false');

    await page.click('#play');
    await waitFn(page, () => document.querySelector('#play').textContent === 'Play');
    assert.equal(await page.$eval('#play', (el) => el.getAttribute('aria-pressed')), 'true');
    assert.equal(await text(page, '#run-state'), 'paused');
    // The chunk in flight when Pause was pressed may still arrive and be drawn.
    await waitStepStable(page);
    await settle(page, 300);

    const s0 = await stepOf(page);
    const e0 = await text(page, '#elapsed');
    const chart0 = await dataUrl(page, 'chart-loss');
    await page.waitForTimeout(2000);
    assert.equal(await stepOf(page), s0, 'paused, #step must not change');
    assert.equal(await text(page, '#elapsed'), e0, 'paused, #elapsed must not change');
    assert.equal(await dataUrl(page, 'chart-loss'), chart0, 'paused, the loss chart must not change');

    for (const want of [s0 + 1, s0 + 2]) {
      await page.click('#stepbtn');
      await waitFn(page, (w) => Number(document.querySelector('#step').textContent) >= w, want);
      await waitStepStable(page);
      assert.equal(await stepOf(page), want, 'one press of Step is exactly one training step');
      assert.equal(await text(page, '#play'), 'Play', 'Step leaves the run paused');
    }

    await page.click('#play');
    await waitFn(page, () => document.querySelector('#play').textContent === 'Pause');
    assert.equal(await text(page, '#run-state'), 'training');
    await waitFn(page, (w) => Number(document.querySelector('#step').textContent) > w, s0 + 2);
  });
});

test('the scrubber shows an earlier snapshot in the attention map', { timeout: TEST_TIMEOUT }, async (t) => {
  const lap = laps(t);
  const { page, run } = await openPage('scrub');
  await run(async () => {
    await waitTraining(page, 1);
    lap('training');
    // Snapshots every 10 steps: max >= 2 means steps 0, 10 and 20 are recorded.
    await waitFn(page, () => Number(document.querySelector('#scrub').max) >= 2);
    await settle(page, 300);
    lap('3 snapshots');
    const live = await page.evaluate(() => ({
      att: document.getElementById('map-att').toDataURL(),
      out: document.getElementById('scrub-out').textContent,
      max: document.getElementById('scrub').max,
      value: document.getElementById('scrub').value,
    }));
    assert.equal(live.value, live.max, 'the scrubber follows the run at its right end');
    assert.notEqual(live.out, '0');

    await page.focus('#scrub');
    await page.keyboard.press('Home');
    await waitFn(page, () => document.querySelector('#scrub-out').textContent === '0');
    await settle(page, 300);
    assert.equal(await page.$eval('#scrub', (el) => el.value), '0');
    assert.match(await text(page, '#sum-att'), /^Step 0:/);
    assert.notEqual(await dataUrl(page, 'map-att'), live.att, '#map-att should show the step-0 snapshot');
    lap('step 0 shown');

    // While training goes on, the view stays on step 0.
    await page.waitForTimeout(1500);
    assert.equal(await text(page, '#scrub-out'), '0', 'the scrubbed view must not jump back to the live run');
    assert.equal(await page.$eval('#scrub', (el) => el.value), '0');

    // End follows the run again.
    await page.keyboard.press('End');
    await waitFn(page, () => document.querySelector('#scrub-out').textContent !== '0');
    await settle(page, 300);
    const end = await page.$eval('#scrub', (el) => [el.value, el.max]); // one read: no draw between
    assert.equal(end[0], end[1], 'End puts the scrubber back at the live end');
    lap('live again');
    lap.report();
    t.diagnostic(`live view at step ${live.out}; after End at step ${await text(page, '#scrub-out')}`);
  });
});

test('a redraw updates the generations and summaries in place, and the same step redrawn changes nothing', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('in-place');
  await run(async () => {
    // Before the first evaluation the generations box holds a placeholder in the tokens' styles
    // (it also loads their fonts with the page, not in the first frames of training).
    assert.deepEqual(await page.$eval('#samples .placeholder', (el) => ['.tok.right', '.tok.wrong', '.tok.repeat'].map((s) => el.querySelectorAll(s).length)), [2, 1, 1]);
    await waitTraining(page, 1);
    await waitFn(page, () => document.querySelectorAll('#samples .sample').length === 4);
    assert.equal(await page.locator('#samples .placeholder').count(), 0, 'the placeholder gives way to the generations');
    await page.click('#play');
    await waitFn(page, () => document.querySelector('#play').textContent === 'Play');
    await waitStepStable(page);
    await settle(page, 300);
    const shown = await text(page, '#scrub-out');
    await page.evaluate(() => {
      window.__tok = document.querySelector('#samples .sample .tokrow .tok');
      window.__records = [];
      new MutationObserver((rs) => window.__records.push(...rs
        .filter((r) => r.target.nodeName !== 'CANVAS') // a resize sets the canvases' pixel size
        .map((r) => `${r.type} ${r.attributeName || ''} on ${r.target.id || r.target.className || r.target.nodeName}`)))
        .observe(document.querySelector('main'), { subtree: true, childList: true, characterData: true, attributes: true });
    });
    // A resize redraws every chart, summary and generation of the same step.
    await page.setViewportSize({ width: 1100, height: 900 });
    await waitFn(page, () => [...document.querySelectorAll('canvas')].filter((c) => c.offsetParent !== null).every((c) => c.width === Math.max(50, Math.round(c.clientWidth * Math.min(window.devicePixelRatio || 1, 2)))));
    await settle(page, 600);
    assert.equal(await text(page, '#scrub-out'), shown);
    assert.deepEqual(await page.evaluate(() => window.__records), [], 'redrawing the same step changed the page');

    // A chart drawn while its card had no box gets the 50-pixel floor of a backing store; when the
    // card shows again it is redrawn at its size at once, though the paused run sends no redraw.
    await page.$eval('#chart-cos', (c) => { /** @type {HTMLElement} */ (c.closest('figure')).style.display = 'none'; });
    await page.evaluate(() => window.dispatchEvent(new Event('resize')));
    await waitFn(page, () => document.querySelector('#chart-cos').width === 50);
    await page.$eval('#chart-cos', (c) => { /** @type {HTMLElement} */ (c.closest('figure')).style.display = ''; });
    await page.waitForFunction(() => {
      const c = document.querySelector('#chart-cos');
      return c.width > 50 && c.width === Math.round(c.clientWidth * Math.min(window.devicePixelRatio || 1, 2));
    }, null, { timeout: 10_000, polling: 100 }).catch(async () => {
      assert.fail(`#chart-cos kept a ${await page.$eval('#chart-cos', (c) => `${c.width} px backing store in a ${c.clientWidth} px box`)} after its card showed again`);
    });

    // Training on: a later snapshot rewrites the same elements.
    await page.click('#play');
    await waitFn(page, (s) => Number(document.querySelector('#scrub-out').textContent) > Number(s), shown);
    await settle(page, 300);
    assert.ok(await page.evaluate(() => window.__tok.isConnected), 'the generations keep their elements from one snapshot to the next');
    assert.equal(await page.locator('#samples .sample').count(), 4);
    t.diagnostic(`snapshot ${shown} redrawn with no change; ${await page.evaluate(() => window.__records.length)} mutations at the next snapshot`);
  });
});

test('keyboard only: Tab order, focus outline, Space pauses, skip link', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('keyboard');
  await run(async () => {
    await waitTraining(page, 1);
    assert.equal(await text(page, '#run-state'), 'training');

    // Tab from the top of the page; record what gets focus and whether the outline shows.
    const visits = [];
    for (let i = 0; i < 20; i += 1) {
      await page.keyboard.press('Tab');
      const v = await page.evaluate(() => {
        const el = document.activeElement;
        const cs = getComputedStyle(el);
        return {
          id: el.id || `${el.tagName.toLowerCase()}${el.className ? `.${el.className}` : ''}`,
          focusVisible: el.matches(':focus-visible'),
          outline: `${cs.outlineStyle} ${cs.outlineWidth}`,
          visible: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0,
        };
      });
      visits.push(v);
      if (v.id === 'c') break;
    }
    t.diagnostic(`Tab order: ${visits.map((v) => v.id).join(' → ')}`);
    const order = visits.map((v) => v.id);
    const idx = ['play', 'stepbtn', 'reset', 'c'].map((id) => order.indexOf(id));
    assert.ok(idx.every((i) => i >= 0), `Tab should reach #play, #stepbtn, #reset, #c; reached ${order.join(', ')}`);
    assert.deepEqual([...idx].sort((a, b) => a - b), idx, `Tab order should be play, stepbtn, reset, c: ${order.join(', ')}`);
    assert.equal(idx[1], idx[0] + 1, '#stepbtn directly after #play');
    assert.equal(idx[2], idx[1] + 1, '#reset directly after #stepbtn');
    for (const v of visits) {
      assert.ok(v.focusVisible, `${v.id} focused by Tab should match :focus-visible`);
      assert.ok(v.visible, `${v.id} focused by Tab has no visible outline (${v.outline})`);
    }
    assert.equal(order[0], 'a.skip', 'the first Tab stop is the skip link');

    // Back to Play with Shift+Tab, then Space pauses and Space resumes.
    for (let i = 0; i < idx[3] - idx[0]; i += 1) await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'play');
    await page.keyboard.press('Space');
    await waitFn(page, () => document.querySelector('#play').textContent === 'Play');
    assert.equal(await text(page, '#run-state'), 'paused');
    await page.keyboard.press('Space');
    await waitFn(page, () => document.querySelector('#play').textContent === 'Pause');

    // The skip link: Enter on it, and the next Tab lands on the first control.
    await page.focus('a.skip');
    const box = await page.locator('a.skip').boundingBox();
    assert.ok(box && box.x >= 0 && box.y >= 0, `the focused skip link should be on screen, box ${JSON.stringify(box)}`);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'play', 'Tab after the skip link goes to #play');
  });
});

test('screenshots at desktop and phone widths', { timeout: TEST_TIMEOUT }, async (t) => {
  const lap = laps(t);
  const { page, run } = await openPage('screens', { viewport: DESKTOP });
  await run(async () => {
    await waitTraining(page, 1);
    lap('training');
    // The whole run tells the story; take it at the end if it gets there in time.
    const t0 = Date.now();
    const finished = await page.waitForFunction(
      () => /finished|diverged/.test(document.querySelector('#run-state').textContent),
      null, { timeout: 25_000, polling: 250 },
    ).then(() => true, () => false);
    t.diagnostic(`run ${finished ? 'finished' : 'still running'} after ${((Date.now() - t0) / 1000).toFixed(1)} s at step ${await stepOf(page)}; ${await text(page, '#run-state')}`);
    await settle(page, 500);
    await page.screenshot({ path: join(ARTIFACTS, 'chapter1-desktop.png'), fullPage: true });
    lap('desktop shot');

    await page.setViewportSize(PHONE);
    // Wait until every canvas was redrawn at its new CSS size (sharp, not stretched).
    await waitFn(page, () => [...document.querySelectorAll('canvas')].filter((c) => c.offsetParent !== null).every((c) => {
      const dpr = Math.min(window.devicePixelRatio || 1, 2);
      return c.width === Math.max(50, Math.round(c.clientWidth * dpr));
    }));
    lap('phone redrawn');
    await settle(page, 500);
    await page.screenshot({ path: join(ARTIFACTS, 'chapter1-phone.png'), fullPage: true });
    lap('phone shot');
    lap.report();
    const overflow = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    assert.ok(overflow[0] <= overflow[1], `the phone layout scrolls sideways: ${overflow[0]} px wide in a ${overflow[1]} px window`);
  });
});

test('bad URL values become notices and the page still trains', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('url', { query: '?c=1000&seed=abc' });
  await run(async () => {
    await waitTraining(page, 3);
    const notices = await page.$$eval('#notices li', (els) => els.map((e) => e.textContent));
    t.diagnostic(`notices: ${JSON.stringify(notices)}`);
    assert.ok(notices.some((n) => /(^|[^\w-])c([^\w-]|$)/.test(n) && n.includes('1000')), `a notice should name c and 1000: ${JSON.stringify(notices)}`);
    assert.ok(notices.some((n) => n.includes('seed') && n.includes('abc')), `a notice should name seed and abc: ${JSON.stringify(notices)}`);
    assert.equal(await page.$eval('#seed', (el) => el.value), '0', 'an unreadable seed falls back to 0');
    assert.equal(await text(page, '#c-out'), '100', 'c = 1000 is clamped to the largest allowed value');
    const s = await stepOf(page);
    await waitFn(page, (s0) => Number(document.querySelector('#step').textContent) > s0
      || document.querySelector('#run-state').textContent !== 'training', s);
    assert.ok(await stepOf(page) > s, `the page should keep training; run state ${await text(page, '#run-state')}`);
  });
});

test('?backend=cpu trains on the CPU backend', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('backend', { query: '?backend=cpu' });
  await run(async () => {
    await waitTraining(page, 2);
    const backend = await text(page, '#backend');
    t.diagnostic(backend);
    assert.match(backend, /CPU/);
    assert.match(backend, /backend=cpu/, 'the reason names the URL override');
    assert.equal(await page.$eval('#backend', (el) => el.dataset.backend), 'cpu');
    assert.equal(await page.$$eval('#notices li', (els) => els.length), 0, 'no notices for a valid URL');
  });
});
