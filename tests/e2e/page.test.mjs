// End-to-end test of the built page (run scripts/build-web.sh first):
// serve the repo root, open it in headless system Chromium, wait until a
// backend is shown and training has advanced, then take screenshots.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
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
