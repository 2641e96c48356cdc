#!/usr/bin/env node
// The browser side of `plateau bench`: times training steps in headless Chromium (the system
// /usr/bin/chromium, driven by playwright-core, as in the end-to-end tests) and measures the page.
//
//   node bench/browser.mjs '{"cases":[{"name":..,"query":..,"steps":N,"warmup":3}],"memory_steps":N}'
//
// Prints one JSON line (see `bench::BrowserResult`):
//   {browser, webgpu_adapter, steps:[{name, backend, ms|error}], drop_seconds, drop_step,
//    longest_task_ms, longest_draw_ms, memory:[[step, bytes]]}
// Needs www/pkg (scripts/build-web.sh). Progress goes to stderr.

import { launch, startServer } from '../tests/e2e/helpers.mjs';

const spec = JSON.parse(process.argv[2] || '{"cases":[],"memory_steps":0}');
const log = (...a) => console.error('browser:', ...a);
const out = { browser: '', webgpu_adapter: null, steps: [], drop_seconds: null, drop_step: null, longest_task_ms: null, longest_draw_ms: null, memory: [] };

const server = await startServer();
const browser = await launch();
try {
  out.browser = `Chromium ${browser.version()}`;
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (e) => log('page error:', e.message));
  await page.goto(`${server.url}www/bench.html`);
  await page.waitForSelector('#ready:not([hidden])', { state: 'attached', timeout: 120_000 });
  const probe = await page.evaluate(() => window.plateauBench.probe());
  const info = probe.adapter || {};
  if (info.adapter) {
    out.webgpu_adapter = `${info.vendor || '?'} ${info.architecture || ''}${info.fallback ? ' (software fallback)' : ''}`.trim();
  }
  // A software adapter (SwiftShader in headless Chromium) takes minutes per paper-preset step:
  // time it on the interactive preset only.
  const backendsOf = (c) => (!info.adapter ? ['cpu']
    : info.fallback && c.name !== 'ch1 interactive' ? ['cpu'] : ['cpu', 'webgpu']);
  for (const c of spec.cases) {
    for (const backend of backendsOf(c)) {
      log(`${c.name} — ${backend}`);
      try {
        const ms = await page.evaluate(({ q, n, w, b }) => window.plateauBench.time(q, n, w, b), { q: c.query, n: c.steps, w: c.warmup, b: backend });
        out.steps.push({ name: c.name, backend, ms });
        log(`  ${ms.toFixed(1)} ms/step`);
      } catch (e) {
        out.steps.push({ name: c.name, backend, error: String(e.message || e).split('\n')[0] });
        log(`  failed: ${e.message}`);
      }
    }
  }
  await context.close();
  if (spec.memory_steps > 0) {
    // A fresh page: linear memory never shrinks, so the timings above (the paper preset) would
    // otherwise set the figure.
    log(`memory over ${spec.memory_steps} interactive steps`);
    const ctxm = await browser.newContext();
    const pm = await ctxm.newPage();
    await pm.goto(`${server.url}www/bench.html`);
    await pm.waitForSelector('#ready:not([hidden])', { state: 'attached', timeout: 120_000 });
    out.memory = await pm.evaluate((n) => window.plateauBench.memory(n), spec.memory_steps);
    await ctxm.close();
  }

  // The page itself, with no URL parameters: time to the drop and the longest main-thread task
  // while training (the Long Tasks API, observed from the first training step to the drop).
  log('the page: time to the drop');
  const ctx2 = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p2 = await ctx2.newPage();
  await p2.goto(server.url, { waitUntil: 'load' });
  await p2.waitForFunction(() => Number(document.querySelector('#step').textContent) >= 1, null, { timeout: 120_000, polling: 50 });
  await p2.evaluate(() => {
    window.__longest = 0;
    window.plateauLongestDrawMs = 0;
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longest = Math.max(window.__longest, e.duration); })
      .observe({ type: 'longtask' });
  });
  await p2.waitForFunction(() => window.plateauDrop || document.querySelector('#run-state').textContent === 'finished', null, { timeout: 600_000, polling: 100 });
  const drop = await p2.evaluate(() => window.plateauDrop);
  if (drop) {
    out.drop_seconds = drop.seconds;
    out.drop_step = drop.step;
  }
  out.longest_task_ms = await p2.evaluate(() => window.__longest);
  out.longest_draw_ms = await p2.evaluate(() => window.plateauLongestDrawMs);
  log(`drop ${JSON.stringify(drop)}, longest task ${out.longest_task_ms} ms`);
  await ctx2.close();
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
console.log(JSON.stringify(out));
