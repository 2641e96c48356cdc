#!/usr/bin/env node
// The browser side of `plateau bench --suite engines`: what a reader's browser fetches before the
// first trained step, and how long that takes, on the page itself in headless Chromium (the system
// /usr/bin/chromium, driven by playwright-core, as in the end-to-end tests).
//
//   node bench/engines.mjs '{"loads":N,"cases":[{"name":..,"query":..}]}'
//
// Each case opens the page N times, each in a fresh browser context (an empty cache, so every
// load fetches and compiles its wasm as a first visit does), and reads the time of the first
// trained step (window.plateauFirstStepAt: ms since navigation) and every wasm file any of the
// page's threads fetched, with its size in bytes. Prints one JSON line (see
// `bench::engines::EnginesBrowser`):
//   {browser, cases:[{name, query, loads:[{first_step_ms, wasm:[{path, bytes}], error}]}]}
// Progress goes to stderr.

import { launch, startServer } from '../tests/e2e/helpers.mjs';

const spec = JSON.parse(process.argv[2] || '{"loads":3,"cases":[]}');
const log = (...a) => console.error('engines:', ...a);
const out = { browser: '', cases: [] };

const server = await startServer();
const browser = await launch();
try {
  out.browser = browser.version();
  for (const c of spec.cases || []) {
    const loads = [];
    for (let i = 0; i < (spec.loads || 3); i += 1) {
      const r = await load(c.query);
      log(`${c.name} #${i + 1}: ${JSON.stringify(r)}`);
      loads.push(r);
    }
    out.cases.push({ name: c.name, query: c.query, loads });
  }
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
console.log(JSON.stringify(out));

/** One first visit of the page at `query`: the first trained step's time and the wasm fetched. */
async function load(query) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const wasm = [];
  // Responses of every thread (the page's and its workers'), as the browser context sees them.
  ctx.on('response', async (res) => {
    const url = new URL(res.url());
    if (!url.pathname.endsWith('.wasm')) return;
    const path = url.pathname.replace(/^.*\/www\//, 'www/');
    // A worker's response body cannot always be read back here: its size from the header.
    let bytes = 0;
    try { bytes = Number((await res.allHeaders())['content-length']) || (await res.body()).length; } catch (e) { /* 0 */ }
    wasm.push({ path, bytes: Math.max(0, bytes) });
  });
  try {
    const p = await ctx.newPage();
    await p.goto(`${server.url}?${query}`, { waitUntil: 'load' });
    await p.waitForFunction(() => window.plateauFirstStepAt !== undefined, null, { timeout: 300_000, polling: 20 });
    const firstStep = await p.evaluate(() => window.plateauFirstStepAt);
    return { first_step_ms: firstStep, wasm, error: null };
  } catch (e) {
    return { first_step_ms: null, wasm, error: String(e.message || e).split('\n')[0] };
  } finally {
    await ctx.close();
  }
}
