// End-to-end test of the page while the WebGPU engine is still being built (issue 62): scripts/serve.sh
// serves once the view and the CPU engine are built and builds www/pkg after, in the background.
// Meanwhile a run that asks for WebGPU (backend=webgpu, or a race) trains on the CPU engine, its
// backend line says why in one sentence and no error is shown; once www/pkg answers, Reset trains
// on WebGPU. The missing engine is played by the browser context answering www/pkg/** with a 404.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { e2eSuite } from './helpers.mjs';

const WAIT_MS = 180_000;
const TEST_TIMEOUT = 5 * 60_000;

const suite = e2eSuite('cold', { waitMs: WAIT_MS, before, after });
const { waitFn } = suite;
const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());

test('while the WebGPU engine is not built yet, the page trains on the CPU and says so', { timeout: TEST_TIMEOUT }, async () => {
  // scripts/serve.sh serves once the view and the CPU engine are built and builds www/pkg after:
  // meanwhile a run that asks for WebGPU (backend=webgpu, or a race) trains on the CPU engine,
  // its backend line says why in one sentence, and the next run (Reset) loads www/pkg once it
  // answers.
  for (const query of ['?backend=webgpu&steps=400', '?backend=race&steps=400']) {
    const context = await suite.browser.newContext();
    try {
      const page = await context.newPage();
      let missing = true;
      await context.route('**/www/pkg/**', (route) => (missing ? route.fulfill({ status: 404, body: 'not built' }) : route.continue()));
      await page.goto(`${suite.server.url}${query}`, { waitUntil: 'load' });
      await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 3);
      const line = await text(page, '#backend');
      assert.match(line, /^Backend: CPU \(WebAssembly\) — The WebGPU engine is not here yet \(www\/pkg is still being built, or failed to load\), so this run trains on the CPU; Reset uses WebGPU once it is there\./, query);
      assert.ok(await page.$eval('#error', (el) => el.hidden), `no error (${query})`);
      if (query.includes('webgpu')) {
        // The engine is built: Reset trains on WebGPU.
        missing = false;
        await page.click('#reset');
        await waitFn(page, () => /^Backend: WebGPU/.test(document.querySelector('#backend').textContent));
        await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 1);
      }
    } finally {
      await context.close();
    }
  }
});
