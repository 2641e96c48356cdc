#!/usr/bin/env node
// The browser side of `plateau bench --suite gpu` (scripts/gpu-check.sh): headless Chromium on
// the machine's hardware WebGPU adapter (HARDWARE_WEBGPU_FLAGS in tests/e2e/helpers.mjs), the
// page opened once per preset with no backend override, so that it runs its own backend race;
// the race's figures are read from the backend line (`#backend`'s data-race-* attributes).
//
//   node bench/gpu-browser.mjs '{"cases":[{"name":..,"query":..}]}'
//
// Prints one JSON line: {browser, adapter, fallback, flags, races:[{name, backend, webgpu_ms,
// cpu_ms, line}]} (see `bench::GpuBrowser`). Progress goes to stderr.

import { HARDWARE_WEBGPU_FLAGS, launch, startServer } from '../tests/e2e/helpers.mjs';

const spec = JSON.parse(process.argv[2] || '{"cases":[]}');
const log = (...a) => console.error('gpu-browser:', ...a);
const out = { browser: '', adapter: null, fallback: false, flags: HARDWARE_WEBGPU_FLAGS, races: [] };
const server = await startServer();
const browser = await launch({ hardware: true });
try {
  out.browser = `Chromium ${browser.version()}`;
  for (const c of spec.cases) {
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      await page.goto(`${server.url}?${c.query}`);
      if (!out.adapter) {
        const info = await page.evaluate(async () => {
          const a = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
          return a ? { name: `${a.info.vendor} ${a.info.architecture} ${a.info.device}`.trim(), fallback: !!(a.info.isFallbackAdapter || a.isFallbackAdapter) } : null;
        });
        out.adapter = info ? info.name : null;
        out.fallback = info ? info.fallback : false;
        log(`adapter: ${JSON.stringify(info)}`);
      }
      await page.waitForFunction(() => !!document.querySelector('#backend').dataset.backend || !document.querySelector('#error').hidden, null, { timeout: 120_000 });
      const r = await page.evaluate(() => {
        const el = document.querySelector('#backend');
        const num = (v) => (v === undefined ? null : Number(v));
        return { backend: el.dataset.backend || null, webgpu_ms: num(el.dataset.raceWebgpuMs), cpu_ms: num(el.dataset.raceCpuMs), line: el.textContent.trim() || document.querySelector('#error').textContent.trim() };
      });
      out.races.push({ name: c.name, ...r });
      log(`${c.name}: ${r.line}`);
    } catch (e) {
      out.races.push({ name: c.name, backend: null, webgpu_ms: null, cpu_ms: null, line: String(e.message || e).split('\n')[0] });
      log(`${c.name}: ${e.message}`);
    } finally {
      await ctx.close();
    }
  }
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
console.log(JSON.stringify(out));
