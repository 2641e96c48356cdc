// End-to-end tests of chapter 2's compare view in real headless Chromium (run
// scripts/build-web.sh first):
//
//   1. by default chapter 2 trains a second run at γ = 0.4 beside the run on screen, in a worker of
//      its own: it waits while the page is paused (autoplay=0), trains when Play is pressed, and
//      its rows (Download comparison CSV) are exactly those the page trains alone at γ = 0.4
//      (compare=off), while differing from the run on screen's; the verdict line names both runs;
//   2. links of URL version 1 (before the compare view and γ 0.7) open one run at γ = 0.8; a bad
//      compare= value gets a notice and the default; compare=off trains alone.
// Every test also checks: no console error (page or worker) and no #error message.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, e2eSuite } from './helpers.mjs';

const WAIT_MS = 240_000;
const TEST_TIMEOUT = 6 * 60_000;

const suite = e2eSuite('compare', { waitMs: WAIT_MS, before, after });
const { openPage } = suite;

const waitFn = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: WAIT_MS, polling: 250 });
const booted = (page) => waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));
const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());
const hidden = (page, sel) => page.$eval(sel, (el) => el.hidden);

// A short chapter 2 run: both runs finish in seconds.
const SHORT = 'experiment=anchors&backend=cpu&steps=30&eval-every=10&snapshot-every=10&batch=64&eval-batch=32';

/** Clicks `button` and returns the text of the file it downloads (kept under artifacts/). */
async function downloadText(page, button, file) {
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click(button)]);
  await download.saveAs(join(ARTIFACTS, file));
  return { name: download.suggestedFilename(), text: readFileSync(join(ARTIFACTS, file), 'utf8') };
}

test('compare γ: the second run waits, trains beside the first, and equals the same run trained alone', { timeout: TEST_TIMEOUT }, async (t) => {
  const both = await openPage('both', { query: `?${SHORT}&autoplay=0` });
  await both.run(async () => {
    const page = both.page;
    await booted(page);
    assert.equal(await text(page, '#gamma-out'), '0.7', 'the interactive default γ');
    assert.equal(await page.$eval('#compare-gamma', (el) => el.value), '0.4', 'the compare default');
    // Paused from the start: neither run trains (the comparison's worker got the page's pause).
    await page.waitForTimeout(3000);
    assert.equal(await text(page, '#step'), '0');
    assert.equal(await hidden(page, '#compare-csv'), true, 'no comparison rows while paused');
    assert.match(await text(page, '#compare-verdict'), /small init: no evaluation yet; large init: no evaluation yet/);
    await page.click('#play');
    await waitFn(page, () => window.plateauCompareVerdict !== null && document.querySelector('#run-state').textContent === 'finished');
    // The line is drawn on the next frame.
    await waitFn(page, () => /small init: (neither answer by the end|.+ since step \d+ \(final\)).*large init: (neither answer by the end|.+ since step \d+ \(final\))/.test(document.querySelector('#compare-verdict').textContent));
    const verdict = await text(page, '#compare-verdict');
    t.diagnostic(verdict);
    assert.match(verdict, /^The unseen pair \(4, 3\) — small init: (neither answer by the end \(step 30\)|(by the rule \(key − 10\)|as the mirror pair \(key − 6\)) since step \d+ \(final\)); /);
    assert.match(verdict, /large init: (neither answer by the end \(step 30\)|(by the rule \(key − 10\)|as the mirror pair \(key − 6\)) since step \d+ \(final\))\.$/);
    const cmp = await page.evaluate(() => window.plateauCompareVerdict);
    assert.equal(cmp.gamma, 0.4);
    const main = await downloadText(page, '#csv', 'compare-main.csv');
    const other = await downloadText(page, '#compare-csv', 'compare-other.csv');
    assert.equal(other.name, 'plateau-anchors-gamma0.4-metrics.csv');
    assert.equal(main.text.split('\n')[0], other.text.split('\n')[0], 'the same columns');
    assert.equal(other.text.trim().split('\n').length, 5, 'header and the evaluations at steps 0, 10, 20, 30');
    assert.notEqual(main.text, other.text, 'another γ trains another model');
    // Another γ beside a finished run: the comparison starts again from step 0 and trains alone;
    // the Play button and the clock follow it.
    assert.equal(await text(page, '#play'), 'Play', 'both runs finished');
    await page.selectOption('#compare-gamma', '0.5');
    await waitFn(page, () => /large init: neither answer by the end|large init: .+ since step \d+ \(final\)/.test(document.querySelector('#compare-verdict').textContent));
    await waitFn(page, () => document.querySelector('#play').textContent === 'Play');
    assert.equal(await text(page, '#run-state'), 'finished');
    assert.match(page.url(), /compare=0\.5/);
    assert.equal((await page.evaluate(() => window.plateauCompareVerdict)).gamma, 0.5);
    // The comparison run is the run the page trains alone at that γ, row for row.
    const alone = await openPage('alone', { query: `?${SHORT}&gamma=0.4&compare=off` });
    await alone.run(async () => {
      await booted(alone.page);
      await waitFn(alone.page, () => document.querySelector('#run-state').textContent === 'finished');
      assert.equal(await hidden(alone.page, '#compare-verdict'), true, 'compare=off: one run');
      assert.equal(await hidden(alone.page, '#compare-csv'), true);
      assert.equal(await alone.page.$eval('#compare-gamma', (el) => el.value), 'off');
      assert.match(alone.page.url(), /compare=off/, 'the address bar keeps compare=off');
      const single = await downloadText(alone.page, '#csv', 'compare-alone.csv');
      assert.equal(single.text, other.text, 'the same rows, bit for bit');
    });
  });
});

test('compare γ: version 1 links train one run at γ 0.8; a bad compare= value is named', { timeout: TEST_TIMEOUT }, async () => {
  const old = await openPage('v1', { query: '?v=1&experiment=anchors&backend=cpu&autoplay=0' });
  await old.run(async () => {
    await booted(old.page);
    assert.equal(await text(old.page, '#gamma-out'), '0.8', 'v=1 read with the defaults it was written against');
    assert.equal(await old.page.$eval('#compare-gamma', (el) => el.value), 'off');
    assert.equal(await hidden(old.page, '#compare-verdict'), true);
    assert.match(old.page.url(), /[?&]v=4&.*shards=1.*gamma=0\.8.*compare=off/, 'rewritten as today\'s link to the same view (one shard, as version 1 trained)');
  });
  const bad = await openPage('bad', { query: '?experiment=anchors&backend=cpu&autoplay=0&compare=abc' });
  await bad.run(async () => {
    await booted(bad.page);
    const notices = await text(bad.page, '#notices');
    assert.match(notices, /Invalid compare="abc" \(allowed: off, or a γ from [\d.]+ to [\d.]+\); comparing with γ = 0\.4\./);
    assert.doesNotMatch(notices, /unknown URL parameter/, 'compare is a page key the engine knows');
    assert.equal(await bad.page.$eval('#compare-gamma', (el) => el.value), '0.4');
    // Another γ from the URL becomes an option of its own.
    assert.doesNotMatch(bad.page.url(), /compare=/, 'the default is not written');
    await bad.page.goto(`${bad.page.url()}&compare=0.45`);
    await booted(bad.page);
    assert.equal(await bad.page.$eval('#compare-gamma', (el) => el.value), '0.45');
    assert.equal(await hidden(bad.page, '#compare-verdict'), false);
  });
});

test('compare γ with memory anchors: the subset charts show each run\'s memory and reasoning curves', { timeout: TEST_TIMEOUT }, async () => {
  const mixed = await openPage('mixed', { query: `?${SHORT}&memory=0.3125&gamma=1` });
  await mixed.run(async () => {
    const page = mixed.page;
    await booted(page);
    assert.match(await page.$eval('#memory', (el) => el.selectedOptions[0].textContent), /5\/16 memory/, 'the Task control\'s mixed option');
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'finished' && window.plateauCompareVerdict !== null);
    await page.waitForTimeout(800); // the last chunk's charts are drawn
    for (const chart of ['chart-subacc', 'chart-subloss']) {
      const svg = await downloadText(page, `#${chart} ~ button[aria-label*="SVG"]`, `compare-mixed-${chart}.svg`);
      for (const label of ['γ 1: reasoning', 'γ 1: memory', 'γ 0.4: reasoning', 'γ 0.4: memory']) {
        assert.ok(svg.text.includes(label), `${chart} names ${label}`);
      }
      assert.ok(!svg.text.includes('(4,3)'), `${chart}: the subsets, not the held-out pair`);
    }
  });
});
