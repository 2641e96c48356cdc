// End-to-end test of the built page (run scripts/build-web.sh first):
// serve the repo root, open it in headless system Chromium, wait until a
// backend is shown and training has advanced, then take screenshots.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, collectConsole, launch, startServer } from './helpers.mjs';

const ARTIFACTS = join(REPO_ROOT, 'artifacts');
const WAIT_MS = 120_000;

test('page loads, shows backend, trains', { timeout: 6 * 60_000 }, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const server = await startServer();
  let browser;
  try {
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = collectConsole(page);

    // Chromium asks for /favicon.ico by itself; answer it if the repo has none,
    // so its 404 is not counted as a page error.
    await page.route('**/favicon.ico', (route) => (existsSync(join(REPO_ROOT, 'favicon.ico'))
      ? route.continue()
      : route.fulfill({ status: 204, body: '' })));

    await page.goto(server.url, { waitUntil: 'load' });

    const text = (sel) => page.locator(sel).first().textContent({ timeout: 1000 }).catch(() => null);
    try {
      // #backend names the training backend once the model is up.
      await page.waitForFunction(() => {
        const s = document.querySelector('#backend')?.textContent?.trim() ?? '';
        return /cpu|webgpu/i.test(s);
      }, null, { timeout: WAIT_MS, polling: 250 });
      t.diagnostic(`backend: ${await text('#backend')}`);

      // #step is the integer step count; wait until training has made 5 steps.
      await page.waitForFunction(() => {
        const m = (document.querySelector('#step')?.textContent ?? '').match(/\d[\d,]*/);
        return m !== null && Number(m[0].replace(/,/g, '')) >= 5;
      }, null, { timeout: WAIT_MS, polling: 250 });
      t.diagnostic(`step: ${await text('#step')}`);
    } catch (err) {
      await page.screenshot({ path: join(ARTIFACTS, 'e2e-failure.png') }).catch(() => {});
      throw new Error(
        `${err.message}\n#backend=${JSON.stringify(await text('#backend'))} `
        + `#step=${JSON.stringify(await text('#step'))}\nconsole errors:\n${errors.join('\n') || '(none)'}`,
      );
    }

    // Screenshots: desktop, then phone-sized (let the layout settle after resizing).
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-desktop.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(ARTIFACTS, 'e2e-phone.png') });

    assert.deepEqual(errors, [], `console errors on the page:\n${errors.join('\n')}`);
  } finally {
    await browser?.close().catch(() => {});
    await server.close();
  }
});

// The engine's chapter list is the manifest of the page's chapter modules: the page loads exactly
// the modules it names, each numbered by it, and every file of www/chapters/ is one of them. A
// chapter whose module does not load stops the page with a message naming the file.
test('the page loads its chapter modules from the engine’s chapter list', { timeout: 3 * 60_000 }, async () => {
  const server = await startServer();
  let browser;
  try {
    browser = await launch();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}?autoplay=0`);
    await page.waitForFunction(() => window.plateauChapterModules !== undefined, null, { timeout: 60_000 });
    const loaded = await page.evaluate(() => window.plateauChapterModules);
    const list = await page.evaluate(async () => (await import('/www/pkg-view/plateau.js')).chapterList());
    assert.deepEqual(loaded.map((m) => [m.number, m.alias]), list.map((c) => [c.number, c.alias]), 'one module per chapter, in its order');
    assert.ok(loaded.every((m) => m.charts > 0), JSON.stringify(loaded));
    const files = readdirSync(join(REPO_ROOT, 'www', 'chapters')).filter((f) => f.endsWith('.js')).map((f) => f.replace(/\.js$/, '')).sort();
    assert.deepEqual(files, list.map((c) => c.alias).sort(), 'every file of www/chapters/ is a chapter of the list');

    const broken = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await broken.route('**/www/chapters/syntax.js', (route) => route.fulfill({ status: 404, body: '' }));
    await broken.goto(server.url);
    await broken.waitForFunction(() => (document.getElementById('error')?.textContent ?? '').length > 0, null, { timeout: 60_000 });
    const error = await broken.evaluate(() => document.getElementById('error')?.textContent ?? '');
    assert.match(error, /chapter 3's page module www\/chapters\/syntax\.js did not load/);
  } finally {
    await browser?.close().catch(() => {});
    await server.close();
  }
});
