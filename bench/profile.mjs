// A V8 CPU profile of training steps in headless Chromium, for the bench's "where the time goes"
// (bench/browser.mjs: the page's CPU engine; bench/builds.mjs: NdArray and Flex side by side).

import { existsSync } from 'node:fs';

/** A CPU profile (V8's sampling profiler, through the DevTools protocol) of `c.steps` timed
 * steps of `c.query` on `engine.backend` of the build `www/pkg-${engine.pkg}` (one with its
 * function names kept): self time per function, in ms over all the profiled steps. Also the
 * unprofiled ms/step of the same build.
 * @param {any} browser @param {{url: string}} server
 * @param {{name: string, query: string, steps: number, warmup: number}} c
 * @param {{pkg: string, backend: string}} engine @param {(...a: any[]) => void} log */
export async function profileSteps(browser, server, c, engine, log) {
  if (!existsSync(new URL(`../www/${engine.pkg ? `pkg-${engine.pkg}` : 'pkg'}/plateau.js`, import.meta.url))) {
    return { error: `www/${engine.pkg ? `pkg-${engine.pkg}` : 'pkg'} is missing (scripts/bench.sh full and scripts/bench-cpu.sh build it)` };
  }
  log(`${c.name} — CPU profile (www/pkg-${engine.pkg}, ${engine.backend})`);
  const ctx = await browser.newContext();
  try {
    const p = await ctx.newPage();
    await p.goto(`${server.url}www/bench.html?pkg=${engine.pkg}`);
    await p.waitForSelector('#ready:not([hidden])', { state: 'attached', timeout: 120_000 });
    await p.evaluate(({ q, w, b }) => window.plateauBench.open(q, w, b), { q: c.query, w: c.warmup, b: engine.backend });
    const ms = await p.evaluate((n) => window.plateauBench.run(n), c.steps);
    const cdp = await ctx.newCDPSession(p);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 }); // µs
    await cdp.send('Profiler.start');
    const profiledMs = await p.evaluate((n) => window.plateauBench.run(n), c.steps);
    const { profile } = await cdp.send('Profiler.stop');
    await p.evaluate(() => window.plateauBench.close());
    // Self time: each sample's node holds the CPU until the next sample.
    // Rust names without their hash suffix and crate disambiguators; a generic function's
    // instances add up under one name.
    const clean = (f) => f.replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]{16}\]/g, '');
    const nameOf = new Map(profile.nodes.map((n) => [n.id, clean(n.callFrame.functionName) || `(anonymous ${n.callFrame.url})`]));
    const self = new Map();
    for (let i = 0; i + 1 < profile.samples.length; i++) {
      const name = nameOf.get(profile.samples[i]);
      self.set(name, (self.get(name) || 0) + profile.timeDeltas[i + 1] / 1000);
    }
    self.delete('(idle)');
    const functions = [...self].sort((a, b) => b[1] - a[1]).slice(0, 300);
    log(`  ${ms.toFixed(1)} ms/step, ${profiledMs.toFixed(1)} while profiled`);
    return { name: c.name, steps: c.steps, ms, profiled_ms: profiledMs, functions };
  } catch (e) {
    return { error: String(e.message || e).split('\n')[0] };
  } finally {
    await ctx.close();
  }
}
