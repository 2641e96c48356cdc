#!/usr/bin/env node
// The browser side of `plateau bench`: times training steps in headless Chromium (the system
// /usr/bin/chromium, driven by playwright-core, as in the end-to-end tests) and measures the page.
//
//   node bench/browser.mjs '{"cases":[{"name":..,"query":..,"steps":N,"warmup":3}],"memory_steps":N}'
//
// Prints one JSON line (see `bench::BrowserResult`):
//   {browser, webgpu_adapter, steps:[{name, backend, ms|error}], drop_seconds, drop_step,
//    longest_task_ms, longest_draw_ms, long_tasks:[{ms, step, window_ms, cpu:[[thread, ms]]}],
//    stretch:{window_ms, cpu:[[thread, ms]]}|null (the same split from the first step to the drop),
//    memory:[[step, bytes]],
//    gpu_calls:[{name, mode: 'chunk'|'every step', steps, ms, dispatches, submits, maps}] (per step),
//    verdicts, compare (chapter 2), lm:{collapsed, recovered} (chapter 4),
//    syntax:{drop, subject} (chapter 3; each {step, seconds} or null),
//    profile:{name, steps, ms, profiled_ms, functions:[[name, ms]]}|{error}|absent}
// Needs www/pkg (scripts/build-web.sh); the profile (spec.profile: {name, query, steps, warmup})
// needs www/pkg-names, the same engine with its function names kept. Progress goes to stderr.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { launch, startServer } from '../tests/e2e/helpers.mjs';
import { profileSteps } from './profile.mjs';

const spec = JSON.parse(process.argv[2] || '{"cases":[],"memory_steps":0}');
const log = (...a) => console.error('browser:', ...a);
const out = { browser: '', webgpu_adapter: null, steps: [], gpu_calls: [], drop_seconds: null, drop_step: null, longest_task_ms: null, longest_draw_ms: null, long_tasks: [], stretch: null, memory: [] };

// Who had the CPU during a long task. The Long Tasks API gives a task's wall time only; on a
// machine with few cores a task is also long when the main thread waits for a core. Linux's
// /proc/<pid>/task/<tid>/stat has each thread's CPU time (in 10 ms clock ticks): sampled every
// 20 ms, it splits a task's window into the renderer main thread's own CPU time and everyone
// else's, and /proc/stat adds the rest of the machine: other processes, time stolen by the
// hypervisor (a shared virtual machine) and idle time. Elsewhere (no /proc) the split is left out.
const TICK_MS = 10;
// Which processes to read: Chromium's, found by a full /proc scan at most twice a second (the
// scan is the costly part). The renderer (the process with the training worker) is read thread
// by thread, every other Chromium process as a whole, so a sample is a few dozen small reads.
const seen = { at: -Infinity, pids: [], renderer: null };
function statTicks(path) {
  const s = readFileSync(path, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { name: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), ms: (Number(f[11]) + Number(f[12])) * TICK_MS };
}
function scanChromium() {
  seen.at = performance.now();
  seen.pids = [];
  seen.renderer = null;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!/chrom|headless/.test(readFileSync(`/proc/${pid}/comm`, 'utf8'))) continue;
      seen.pids.push(pid);
      const tids = readdirSync(`/proc/${pid}/task`);
      if (tids.some((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith('DedicatedWorker'))) seen.renderer = pid;
    } catch { /* the process ended */ }
  }
}
function threadTimes() {
  const t = { at: performance.now(), cpu: new Map(), machine: null };
  // The whole machine: busy (user, nice, system, irq, softirq), stolen by the hypervisor, idle.
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    t.machine = { busy: (f[0] + f[1] + f[2] + f[5] + f[6]) * TICK_MS, idle: (f[3] + f[4]) * TICK_MS, steal: (f[7] || 0) * TICK_MS };
  } catch { return t; /* no /proc */ }
  if (t.at - seen.at > 500 || !seen.renderer) {
    try { scanChromium(); } catch { return t; }
  }
  for (const pid of seen.pids) {
    try {
      if (pid === seen.renderer) {
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          try {
            const { name, ms } = statTicks(`/proc/${pid}/task/${tid}/stat`);
            t.cpu.set(`${pid}/${tid}/${name}`, ms);
          } catch { /* the thread ended */ }
        }
      } else {
        t.cpu.set(`${pid}/all/process`, statTicks(`/proc/${pid}/stat`).ms);
      }
    } catch { /* the process ended */ }
  }
  return t;
}
/** Thread CPU (ms) between the samples around [from, to] (node's clock), by thread kind. */
function cpuDuring(samples, from, to) {
  const a = samples.filter((s) => s.at <= from).pop();
  const b = samples.find((s) => s.at >= to);
  if (!a || !b) return null;
  // The renderer is the process that runs the training worker; its main thread has tid == pid.
  const renderer = [...b.cpu.keys()].find((k) => k.endsWith('/DedicatedWorker'))?.split('/')[0];
  const kind = (key) => {
    const [pid, tid, name] = key.split('/');
    if (pid !== renderer) return 'other Chromium processes (browser, GPU)';
    if (tid === pid) return 'page main thread';
    if (name === 'DedicatedWorker') return 'training worker';
    if (name.startsWith('ThreadPoolForeg')) return 'renderer thread pool (V8 compiles, GC)';
    return 'other renderer threads (compositor, IO)';
  };
  const by = new Map();
  let chromium = 0;
  for (const [k, v] of b.cpu) {
    const d = v - (a.cpu.get(k) || 0);
    chromium += d;
    by.set(kind(k), (by.get(kind(k)) || 0) + d);
  }
  if (a.machine && b.machine) {
    // Everything else that ran on this machine in the window (this script included), the time
    // the hypervisor gave this machine's CPUs to someone else, and idle time.
    by.set('other processes', Math.max(0, b.machine.busy - a.machine.busy - chromium));
    by.set('stolen by the hypervisor', b.machine.steal - a.machine.steal);
    by.set('idle', b.machine.idle - a.machine.idle);
  }
  return { window_ms: b.at - a.at, cpu: [...by].filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]) };
}

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
  // The same model in TensorFlow.js (bench/tfjs/model.js on www/bench-tfjs.html), chapter 1's
  // cases, on its wasm backend and, where an adapter exists, its WebGPU backend.
  if (existsSync(new URL('./tfjs/node_modules/@tensorflow/tfjs/dist/tf.min.js', import.meta.url))) {
    const tp = await context.newPage();
    tp.on('pageerror', (e) => log('TensorFlow.js page error:', e.message));
    await tp.goto(`${server.url}www/bench-tfjs.html`);
    await tp.waitForFunction(() => !!window.plateauTfjs, null, { timeout: 120_000 });
    for (const c of spec.cases.filter((x) => x.name.startsWith('ch1'))) {
      for (const backend of info.adapter && !(info.fallback && c.name !== 'ch1 interactive') ? ['wasm', 'webgpu'] : ['wasm']) {
        log(`${c.name} — TensorFlow.js ${backend}`);
        try {
          const r = await tp.evaluate(({ s, n, w, b }) => window.plateauTfjs.time(s, n, w, b), { s: c.shape, n: c.steps, w: c.warmup, b: backend });
          out.tfjs_version = r.version;
          out.steps.push({ name: c.name, backend: `tfjs-${backend}`, ms: r.ms });
          log(`  ${r.ms.toFixed(1)} ms/step${backend === 'wasm' ? ` (SIMD ${r.simd})` : ''}`);
        } catch (e) {
          out.steps.push({ name: c.name, backend: `tfjs-${backend}`, error: String(e.message || e).split('\n')[0] });
          log(`  failed: ${e.message}`);
        }
      }
    }
    await tp.close();
  } else {
    log('TensorFlow.js is not installed (bench/tfjs: scripts/bench.sh runs npm ci there): no TensorFlow.js rows');
  }
  // WebGPU calls per training step (kernel launches, submissions, host reads), with the loss read
  // back once per chunk of steps (the page now) and after every step (the engine before).
  for (const c of spec.cases) {
    if (!backendsOf(c).includes('webgpu')) continue;
    const n = info.fallback ? 4 : 20;
    for (const settle of [false, true]) {
      const mode = settle ? 'every step' : 'chunk';
      try {
        const r = await page.evaluate(({ q, n, w, s }) => window.plateauBench.calls(q, n, w, s), { q: c.query, n, w: c.warmup, s: settle });
        out.gpu_calls.push({ name: c.name, mode, steps: n, ...r });
        log(`${c.name} WebGPU calls, read back ${mode}: ${JSON.stringify(r)}`);
      } catch (e) {
        log(`  WebGPU calls of ${c.name} failed: ${e.message}`);
      }
    }
  }
  await context.close();
  if (spec.profile) out.profile = await profileSteps(browser, server, spec.profile, { pkg: 'names', backend: 'cpu' }, log);
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
  const page1 = await measurePage(browser, server);
  Object.assign(out, page1);
  log(`drop at step ${out.drop_step} after ${out.drop_seconds} s, longest task ${out.longest_task_ms} ms`);
  if (out.stretch) log(`  first step to drop: ${out.stretch.cpu.map(([k, v]) => `${k} ${v} ms`).join(', ')} (of ${out.stretch.window_ms.toFixed(0)} ms)`);
  for (const t of out.long_tasks) log(`  long task ${t.ms.toFixed(0)} ms at step ${t.step}: ${t.cpu.map(([k, v]) => `${k} ${v} ms`).join(', ')} (of ${t.window_ms?.toFixed(0)} ms)`);
  // Chapter 2's page at both init scales: its held-out answer and the training time to it.
  out.verdicts = [];
  for (const gamma of [0.7, 0.4]) { // the page's default contrast (small init, large init): REPRODUCTION.md's γ sweep
    log(`chapter 2 at γ = ${gamma}: time to verdict`);
    const v = await measureVerdict(browser, server, gamma);
    out.verdicts.push(v);
    log(`  ${JSON.stringify(v)}`);
  }
  log('chapter 2 at its defaults (compare view): time until both verdicts');
  out.compare = await measureCompare(browser, server);
  log(`  ${JSON.stringify(out.compare)}`);
  // Chapter 4's page: when the collapse and its recovery show.
  log('chapter 4: time to the collapse and the recovery');
  out.lm = await measureCollapse(browser, server);
  log(`  ${JSON.stringify(out.lm)}`);
  // Chapter 3's page: when the verb loss drops and the subject → verb head's onset shows.
  log('chapter 3: time to the verb-loss drop and the subject → verb onset');
  out.syntax = await measureSyntax(browser, server);
  log(`  ${JSON.stringify(out.syntax)}`);
} finally {
  await browser.close().catch(() => {});
  await server.close();
}
console.log(JSON.stringify(out));

/** Chapter 4's page with its defaults, trained until the recovery shows: `{collapsed, recovered}`
 * from the page's `window.plateauLm` (each the step and the training seconds until its row). */
function measureCollapse(browser, server) {
  return measureEvents(browser, server, 'chapter 4', '?experiment=lm', 'plateauLm', ['recovered']);
}

/** Chapter 3's page with its defaults, trained until the verb-loss drop and the subject → verb
 * onset both show: `{drop, subject}` from the page's `window.plateauSyntax` (each the step and
 * the training seconds until its row). */
function measureSyntax(browser, server) {
  return measureEvents(browser, server, 'chapter 3', '?experiment=syntax', 'plateauSyntax', ['drop', 'subject']);
}

/** Opens the page at `query` in a fresh context and trains until every event in `wanted` of
 * `window[hook]` has shown, or the run ends; returns `window[hook]` (null if the page failed). */
async function measureEvents(browser, server, name, query, hook, wanted) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const p = await ctx.newPage();
    await p.goto(`${server.url}${query}`, { waitUntil: 'load' });
    await p.waitForFunction(({ hook, wanted }) => (window[hook] && wanted.every((k) => window[hook][k])) || /finished|diverged/.test(document.querySelector('#run-state').textContent), { hook, wanted }, { timeout: 900_000, polling: 250 });
    return await p.evaluate((hook) => window[hook], hook);
  } catch (e) {
    log(`  ${name}: ${String(e.message || e).split('\n')[0]}`);
    return null;
  } finally {
    await ctx.close();
  }
}

/** Chapter 2's page at init scale `gamma`, trained to the end: `{gamma, answer, step, seconds}`
 * from the page's `window.plateauVerdict` (the answer, the step since which it held and the
 * training seconds until that step's row arrived). */
async function measureVerdict(browser, server, gamma) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const p = await ctx.newPage();
    await p.goto(`${server.url}?experiment=anchors&gamma=${gamma}&compare=off`, { waitUntil: 'load' });
    await p.waitForFunction(() => window.plateauVerdict, null, { timeout: 1_800_000, polling: 500 });
    return { gamma, ...(await p.evaluate(() => window.plateauVerdict)) };
  } catch (e) {
    return { gamma, answer: `error: ${String(e.message || e).split('\n')[0]}`, step: null, seconds: null };
  } finally {
    await ctx.close();
  }
}

/** Chapter 2's page at its defaults: the compare view trains the default γ and, beside it, the
 * compare default in two workers; each run's held-out answer and the training time to it (on the
 * page's one clock), so the time until both have settled is the later of the two. */
async function measureCompare(browser, server) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const p = await ctx.newPage();
    await p.goto(`${server.url}?experiment=anchors`, { waitUntil: 'load' });
    await p.waitForFunction(() => window.plateauVerdict && window.plateauCompareVerdict, null, { timeout: 1_800_000, polling: 500 });
    return await p.evaluate(() => ({ main: { gamma: Number(document.querySelector('#gamma-out').textContent), ...window.plateauVerdict }, other: window.plateauCompareVerdict }));
  } catch (e) {
    return { error: String(e.message || e).split('\n')[0] };
  } finally {
    await ctx.close();
  }
}

/** Opens the page in a fresh context and trains to the drop; returns the drop, the longest
 * main-thread task from the first training step on, and the long tasks with their CPU split. */
async function measurePage(browser, server) {
  const r = { drop_seconds: null, drop_step: null, longest_task_ms: null, longest_draw_ms: null, long_tasks: [], stretch: null, load: null };
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The load, from navigation on: the main thread's long tasks, and when the step counter first
  // shows a trained step.
  await ctx.addInitScript(() => {
    window.__loadTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__loadTasks.push(e.duration); }).observe({ type: 'longtask', buffered: true });
    document.addEventListener('DOMContentLoaded', () => {
      const el = document.getElementById('step');
      if (!el) return;
      new MutationObserver(() => {
        if (window.__firstStep == null && Number(el.textContent) >= 1) window.__firstStep = performance.now();
      }).observe(el, { childList: true, characterData: true, subtree: true });
    });
  });
  try {
    const p = await ctx.newPage();
    const samples = [];
    const sampler = setInterval(() => { samples.push(threadTimes()); if (samples.length > 20_000) samples.shift(); }, 20);
    try {
      await p.goto(server.url, { waitUntil: 'load' });
      await p.waitForFunction(() => Number(document.querySelector('#step').textContent) >= 1, null, { timeout: 120_000, polling: 50 });
      await p.waitForFunction(() => window.plateauMeasuredAt !== undefined, null, { timeout: 30_000, polling: 50 }).catch(() => {});
      r.load = await p.evaluate(() => {
        const res = performance.getEntriesByType('resource');
        const bytes = (re) => res.filter((e) => re.test(new URL(e.name).pathname)).reduce((a, e) => a + (e.decodedBodySize || 0), 0);
        return {
          first_step_ms: window.__firstStep ?? null,
          // The hero figure first drawn with the runs the CLI measured (www/hero.js).
          measured_hero_ms: window.plateauMeasuredAt ?? null,
          main_wasm_bytes: bytes(/\.wasm$/),
          main_js_bytes: bytes(/\.m?js$/),
          longest_load_task_ms: window.__loadTasks.length ? Math.max(...window.__loadTasks) : 0,
        };
      });
      // Page time → node time: performance.now() of both, read back to back.
      const offset = performance.now() - await p.evaluate(() => performance.now());
      const from = performance.now();
      await p.evaluate(() => {
        window.__longest = 0;
        window.__tasks = [];
        window.plateauLongestDrawMs = 0;
        new PerformanceObserver((l) => {
          for (const e of l.getEntries()) {
            window.__longest = Math.max(window.__longest, e.duration);
            window.__tasks.push({ start: e.startTime, ms: e.duration, step: Number(document.querySelector('#step').textContent) });
          }
        }).observe({ type: 'longtask' });
      });
      await p.waitForFunction(() => window.plateauDrop || document.querySelector('#run-state').textContent === 'finished', null, { timeout: 600_000, polling: 100 });
      const to = performance.now();
      await new Promise((ok) => setTimeout(ok, 100)); // a sample after the last task
      r.stretch = cpuDuring(samples, from, to);
      const tasks = await p.evaluate(() => window.__tasks);
      r.long_tasks = tasks.filter((t) => t.ms > 50).sort((a, b) => b.ms - a.ms).slice(0, 20).map((t) => {
        const split = cpuDuring(samples, t.start + offset, t.start + offset + t.ms);
        return { ms: t.ms, step: t.step, window_ms: split?.window_ms ?? null, cpu: split?.cpu ?? [] };
      });
    } finally {
      clearInterval(sampler);
    }
    const drop = await p.evaluate(() => window.plateauDrop);
    if (drop) {
      r.drop_seconds = drop.seconds;
      r.drop_step = drop.step;
    }
    r.longest_task_ms = await p.evaluate(() => window.__longest);
    r.longest_draw_ms = await p.evaluate(() => window.plateauLongestDrawMs);
  } finally {
    await ctx.close();
  }
  return r;
}
