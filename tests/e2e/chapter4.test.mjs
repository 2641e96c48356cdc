// End-to-end tests of chapter 4 (a language model on Moby Dick) in real headless Chromium (run
// scripts/build-web.sh first):
//
//   1. the default run collapses (hidden cosine ≥ 0.9, repetitive generations) and recovers, live:
//      the status line, the markers, the generations with repeated tokens boxed, the similarity
//      map, the CSV download with the contract columns on the log-spaced schedule, scrubbing back
//      to the collapsed snapshot, and the log step axis option;
//   2. a corpus that cannot be fetched stops the run with a message that says so.
// Every test also checks: no console error (page or worker) and no unexpected #error message.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, e2eSuite, warmUpDone } from './helpers.mjs';

const WAIT_MS = 240_000;
const TEST_TIMEOUT = 8 * 60_000;

const suite = e2eSuite('chapter4', { waitMs: WAIT_MS, before, after });
const { openPage, waitFn } = suite;

test('chapter 4: the hidden states collapse and recover, live', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('collapse', { query: '?experiment=lm&steps=300' });
  await run(async () => {
    await waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));
    assert.equal(await page.$eval('[data-experiment="lm"]', (b) => b.getAttribute('aria-current')), 'true');
    assert.deepEqual(await warmUpDone(page), { jobs: 4, drawn: 4, failed: [] }, 'the drawing code compiled at load');
    // The collapse shows in the status line while the run trains.
    await waitFn(page, () => window.plateauLm && window.plateauLm.collapsed);
    const collapsed = await page.evaluate(() => window.plateauLm.collapsed);
    t.diagnostic(`collapse (hidden cosine ≥ 0.9) at step ${collapsed.step} after ${collapsed.seconds.toFixed(1)} s of training`);
    assert.match(await page.$eval('#lm-at', (el) => el.textContent), /^collapse \(cosine ≥ 0\.9\) at step \d+ after \d+\.\d s/);
    await waitFn(page, () => window.plateauLm.recovered);
    const recovered = await page.evaluate(() => window.plateauLm.recovered);
    t.diagnostic(`recovered by step ${recovered.step} after ${recovered.seconds.toFixed(1)} s`);
    assert.ok(recovered.step > collapsed.step);
    await waitFn(page, () => ['finished', 'diverged'].includes(document.querySelector('#run-state').textContent));
    assert.equal(await page.$eval('#run-state', (el) => el.textContent), 'finished');

    // The CSV: the contract columns first, evaluated on the log schedule (every step up to 8).
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#csv')]);
    const file = join(ARTIFACTS, 'chapter4.csv');
    await download.saveAs(file);
    const [head, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
    assert.ok(head.startsWith('step,loss,heldout_loss,repetition,hidden_cos,'), head);
    const cols = head.split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], Number(v)])));
    assert.deepEqual(rows.slice(0, 12).map((r) => r.step), [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13]);
    assert.equal(rows.at(-1).step, 300);
    const cos = rows.map((r) => r.hidden_cos);
    const peak = Math.max(...cos);
    assert.ok(cos[0] < 0.5, `hidden cosine at initialization ${cos[0]}`);
    assert.ok(peak >= 0.9, `the collapse: peak hidden cosine ${peak}`);
    assert.ok(cos.at(-1) < peak - 0.3, `the recovery: ${cos.at(-1)} at the end against ${peak}`);
    const rep = rows.map((r) => r.repetition);
    assert.ok(Math.max(...rep) > 0.5 && rep.at(-1) < Math.max(...rep) / 2, `repetition ${rep.join(' ')}`);
    assert.equal(rows.find((r) => r.hidden_cos >= 0.9).step, collapsed.step, 'the status line names the CSV\'s first collapsed step');

    // The snapshot views of the last step: four passages with 8 tokens each, the similarity map.
    assert.equal(await page.$$eval('#lm-samples .lm-sample', (els) => els.length), 4);
    assert.deepEqual(await page.$$eval('#lm-samples .lm-sample', (els) => els.map((e) => e.querySelectorAll('.tok').length)), [8, 8, 8, 8]);
    await waitFn(page, () => document.querySelector('#sum-lmcos-map').textContent.startsWith('Step 300:'));
    assert.match(await page.$eval('#sum-lmcos-map', (el) => el.textContent), /^Step 300: cosines between generated tokens range -?\d\.\d\d–\d\.\d\d \(mean pairwise cosine \d\.\d\d\)\.$/);
    const mean = (await page.$eval('#sum-lmcos-map', (el) => el.textContent)).match(/mean pairwise cosine (\d\.\d\d)/)[1];
    assert.equal(mean, rows.at(-1).hidden_cos.toFixed(2), 'the map’s mean is the engine’s hidden_cos of that step');
    assert.match(await page.$eval('#sum-lmcos', (el) => el.textContent), /above 0\.9 from step \d+; fallen back by half its rise by step \d+/);
    // Scrubbing back to the collapsed step: the generations repeat (boxed tokens).
    await page.$eval('#scrub', (el, step) => {
      // Every evaluation records a snapshot, so snapshot i is row i.
      el.value = String(step);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, rows.findIndex((r) => r.step === collapsed.step));
    await waitFn(page, (step) => document.querySelector('#scrub-out').textContent === String(step), collapsed.step);
    await waitFn(page, () => document.querySelectorAll('#lm-samples .lm-sample .tok.repeat').length > 0);
    const boxed = await page.$$eval('#lm-samples .lm-sample .tok.repeat', (els) => els.length);
    t.diagnostic(`${boxed} of 28 adjacent pairs boxed at step ${collapsed.step}`);

    // The log step axis is an option: turning it off redraws the charts.
    const before = await page.$eval('#chart-lmcos', (c) => c.toDataURL());
    await page.click('#lm-logx');
    await waitFn(page, (b) => document.querySelector('#chart-lmcos').toDataURL() !== b, before);
    // The findings paragraph is the one REPRODUCTION.md's command wrote.
    const findings = await page.$eval('[data-chapter="4"] .generated', (el) => el.textContent.trim());
    assert.match(findings, /^What the measured runs show \(in REPRODUCTION\.md; \d+ seeds of this chapter's default\):\s*mean pairwise cosine/);
    assert.match(findings, /at initialization\s*-?\d\.\d\d\s*Pythia 0\.4–0\.65/, 'a table row against Pythia');
    // All figures: the hero and the chapter's four charts, each as SVG with its caption.
    await page.click('details.more summary');
    const [fig] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.click('#figures')]);
    assert.match(fig.suggestedFilename(), /^plateau-lm-figures-step300\.html$/);
    const figPath = join(ARTIFACTS, 'chapter4-figures.html');
    await fig.saveAs(figPath);
    const html = readFileSync(figPath, 'utf8');
    const ids = [...html.matchAll(/<figure id="([^"]+)">\n<svg/g)].map((m) => m[1]);
    assert.deepEqual(ids, ['hero-lmcos', 'chart-lmloss', 'chart-lmcos', 'chart-lmrep', 'map-lmcos']);
    // The address bar reproduces the run: the chapter and the steps.
    assert.match(await page.evaluate(() => window.location.search), /experiment=lm/);
    assert.match(await page.evaluate(() => window.location.search), /steps=300/);
    await page.screenshot({ path: join(ARTIFACTS, 'chapter4-desktop.png'), fullPage: true });
  });
});

test('chapter 4: a corpus that cannot be fetched stops with a message', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('nocorpus', {
    expectError: /chapter 4's corpus could not be loaded .*moby-dick\.txt \(HTTP 404\)/,
    allowConsole: /404|Failed to load resource/,
  });
  await run(async () => {
    await page.context().route('**/data/moby-dick.txt', (route) => route.fulfill({ status: 404, body: '' }));
    await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 1);
    await page.click('[data-experiment="lm"]');
    await waitFn(page, () => !document.querySelector('#error').hidden);
    // The chapter 1 rows are gone with the reset, nothing crashed: the chapter buttons still work.
    await page.click('[data-experiment="mws"]');
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'training');
  });
});
