#!/usr/bin/env node
// Several builds of the engine on the same cases in headless Chromium, each on its own page
// (www/bench.html?pkg=NAME, the engine on the main thread, as the bench times every step):
// `plateau bench --suite cpu` (issue 50 item 5: NdArray against Flex, then a V8 profile of one
// case on each, in builds with function names) and `--suite fusion` (item 4: the WebGPU engine
// with and without kernel fusion, its WebGPU calls per step counted).
//
//   node bench/builds.mjs '{"cases":[{name, query, steps, warmup}],
//                           "engines":[{name, pkg, backend, calls?}], "profile":{name, query, steps, warmup}|null,
//                           "profile_engines":[{name, pkg, backend}], "timeout_s": N}'
//
// Prints one JSON line (see `bench::CpuBrowser`):
//   {browser, webgpu_adapter, steps:[{name, engine, ms, dispatches?, submits?, maps?}|{name, engine, error}],
//    profiles:[{engine, profile}]}
// `calls`: count the WebGPU calls of the timed steps (one chunk, as the page's worker runs them).
// `pkg` names www/pkg-NAME ('': the page's WebGPU engine, www/pkg; scripts/bench-cpu.sh builds pkg-flex and pkg-names,
// scripts/bench-fusion.sh pkg-unfused). A case that takes longer than `timeout_s` (default 600) is
// reported as failed and its page closed. Progress goes to stderr.

import { existsSync } from 'node:fs';
import { launch, startServer } from '../tests/e2e/helpers.mjs';
import { profileSteps } from './profile.mjs';

const spec = JSON.parse(process.argv[2] || '{"cases":[],"engines":[]}');
const log = (...a) => console.error('builds:', ...a);
const out = { browser: '', webgpu_adapter: null, steps: [], profiles: [] };
const timeoutMs = 1000 * (spec.timeout_s || 600);
/** `p`, or a rejection after `timeoutMs`. @param {Promise<any>} p */
const timed = (p) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs))]);

const server = await startServer();
const browser = await launch();
try {
  out.browser = `Chromium ${browser.version()}`;
  for (const engine of spec.engines) {
    const fail = (/** @type {string} */ error) => spec.cases.forEach((c) => out.steps.push({ name: c.name, engine: engine.name, error }));
    if (!existsSync(new URL(`../www/${engine.pkg ? `pkg-${engine.pkg}` : 'pkg'}/plateau.js`, import.meta.url))) {
      fail(`www/${engine.pkg ? `pkg-${engine.pkg}` : 'pkg'} is missing (scripts/bench-cpu.sh or bench-fusion.sh builds it)`);
      continue;
    }
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      page.on('pageerror', (e) => log('page error:', e.message));
      // A panic in the engine or a WebGPU validation error reaches the console only.
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log(`console ${m.type()}:`, m.text().slice(0, 2000)); });
      await page.goto(`${server.url}www/bench.html?pkg=${engine.pkg}`);
      await page.waitForSelector('#ready:not([hidden])', { state: 'attached', timeout: 120_000 });
      if (engine.backend === 'webgpu' && !out.webgpu_adapter) {
        const info = (await page.evaluate(() => window.plateauBench.probe())).adapter || {};
        if (info.adapter) out.webgpu_adapter = `${info.vendor || '?'} ${info.architecture || ''}${info.fallback ? ' (software fallback)' : ''}`.trim();
      }
      for (const c of spec.cases) {
        log(`${c.name} — ${engine.name}`);
        try {
          const arg = { q: c.query, n: c.steps, w: c.warmup, b: engine.backend };
          const r = engine.calls
            ? await timed(page.evaluate(({ q, n, w }) => window.plateauBench.calls(q, n, w, false), arg))
            : { ms: await timed(page.evaluate(({ q, n, w, b }) => window.plateauBench.time(q, n, w, b), arg)) };
          out.steps.push({ name: c.name, engine: engine.name, ...r });
          log(`  ${r.ms.toFixed(1)} ms/step${engine.calls ? `, ${r.dispatches} dispatches` : ''}`);
        } catch (e) {
          out.steps.push({ name: c.name, engine: engine.name, error: String(e.message || e).split('\n')[0] });
          log(`  failed: ${e.message}`);
          if (/no answer in/.test(String(e.message))) break; // the page is stuck: the next engine
        }
      }
    } catch (e) {
      fail(String(e.message || e).split('\n')[0]);
    } finally {
      await context.close();
    }
  }
  if (spec.profile) {
    for (const engine of spec.profile_engines || []) {
      out.profiles.push({ engine: engine.name, profile: await profileSteps(browser, server, spec.profile, engine, log) });
    }
  }
} catch (e) {
  log('failed:', e);
  process.exitCode = 1;
} finally {
  // The figures first: closing Chromium once waited forever after every page had closed, and the
  // figures must not wait on it. Each close has 30 s, then the process exits.
  console.log(JSON.stringify(out));
  const within = (/** @type {Promise<any>} */ p) => Promise.race([p.catch(() => {}), new Promise((ok) => setTimeout(ok, 30_000))]);
  await within(browser.close());
  await within(server.close());
  process.exit(process.exitCode ?? 0);
}
