#!/usr/bin/env node
// The autosave section of BENCHMARKS.md (scripts/bench-autosave.sh), in headless Chromium:
//   1. each chapter's default on the CPU backend trains for SECONDS s on the page; the worker's host
//      copies (www/worker.js: what autosave stores) are counted and timed, and their share of the
//      page's training time is printed beside the 5 % the cadence promises;
//   2. chapter 1 trains for 10 s, then its tab is hidden for HIDDEN_MIN minutes: the page's
//      JavaScript heap (Chrome DevTools Protocol, Runtime.getHeapUsage) and the renderer
//      processes' resident memory (which holds the workers; /proc) are sampled every minute.
//
//   node bench/autosave.mjs [--write BENCHMARKS.md] [--seconds 30] [--hidden-minutes 10]

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { launch, startServer } from '../tests/e2e/helpers.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const SECONDS = Number(opt('--seconds', 30));
const HIDDEN_MIN = Number(opt('--hidden-minutes', 10));
const WRITE = opt('--write', null);
const log = (...a) => console.error('autosave:', ...a);

const CASES = [
  ['1 · Plateau', '?backend=cpu'],
  ['2 · Small init (with its comparison run)', '?experiment=anchors&backend=cpu'],
  ['3 · Syntax', '?experiment=syntax&backend=cpu'],
  ['4 · Real text', '?experiment=lm&backend=cpu'],
];

/** The processes descended from this one (the bench's own Chromium), from /proc's parent links. */
function descendants() {
  const parent = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch { /* the process ended */ }
  }
  const mine = new Set([String(process.pid)]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, pp] of parent) if (!mine.has(pid) && mine.has(pp)) { mine.add(pid); grew = true; }
  }
  return mine;
}

/** Resident memory (bytes) of this bench's Chromium renderer processes: the page's and its workers'. */
function rendererRss() {
  let sum = 0;
  for (const pid of descendants()) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/--type=renderer/.test(cmd)) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) sum += Number(rss[1]) * 1024;
    } catch { /* the process ended */ }
  }
  return sum;
}

const server = await startServer();
const browser = await launch();
const shares = [];
const mb = (b) => (b / 1024 / 1024).toFixed(1);
try {
  for (const [name, query] of CASES) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.url}${query}`, { waitUntil: 'load' });
    await page.waitForFunction(() => Number(document.querySelector('#step').textContent) >= 1, null, { timeout: 300_000 });
    await page.waitForTimeout(SECONDS * 1000);
    const got = await page.evaluate(() => ({
      copy: window.plateauHostCopy ?? null,
      saved: window.plateauSaved ?? null,
      seconds: Number(document.querySelector('#elapsed').textContent),
      step: Number(document.querySelector('#step').textContent),
    }));
    await context.close();
    const share = got.copy ? got.copy.totalMs / (got.seconds * 1000) : null;
    log(name, JSON.stringify(got));
    shares.push({ name, ...got, share });
  }

  // Hidden for minutes.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(`${server.url}?backend=cpu&steps=20000`, { waitUntil: 'load' });
  await page.waitForFunction(() => Number(document.querySelector('#step').textContent) >= 1, null, { timeout: 120_000 });
  await page.waitForTimeout(10_000);
  await page.evaluate(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const memory = [];
  for (let m = 0; m <= HIDDEN_MIN; m += 1) {
    if (m > 0) await page.waitForTimeout(60_000);
    const heap = await cdp.send('Runtime.getHeapUsage');
    const row = { minute: m, heap: heap.usedSize, rss: rendererRss(), step: Number(await page.$eval('#step', (el) => el.textContent)), hold: await page.$eval('#hold', (el) => el.textContent) };
    log(JSON.stringify(row));
    memory.push(row);
  }
  await context.close();

  const lines = [
    '<!-- BEGIN autosave -->',
    '## Autosave: what the copies cost, and memory while the tab is hidden',
    '',
    `Written by \`scripts/bench-autosave.sh\` (bench/autosave.mjs) on ${new Date().toISOString().slice(0, 10)}, headless Chromium, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), the CPU backend.`,
    `Each chapter's default trained for ${SECONDS} s on the page. A host copy (the run's model file, which the page autosaves in IndexedDB) is taken by the training worker at most every 3 s and once the training since the last copy is 20 times what that copy took, so the copies' share of training time is at most 5 % by construction; the IndexedDB write happens off the worker.`,
    '',
    '| chapter (default) | steps trained | training s | copies | ms per copy (last) | copies, total ms | share of training time | file size |',
    '|---|---|---|---|---|---|---|---|',
    ...shares.map((s) => (s.copy
      ? `| ${s.name} | ${s.step} | ${s.seconds.toFixed(1)} | ${s.copy.count} | ${s.copy.ms.toFixed(1)} | ${s.copy.totalMs.toFixed(0)} | ${(100 * s.share).toFixed(2)} % | ${mb(s.copy.bytes)} MB |`
      : `| ${s.name} | ${s.step} | ${s.seconds.toFixed(1)} | 0 | – | – | – | – |`)),
    '',
    `Hidden tab: chapter 1 trained for 10 s, then its tab was hidden for ${HIDDEN_MIN} minutes (the page pauses a hidden tab by design and its status line says "waiting: the tab is hidden"). Sampled each minute:`,
    '',
    '| minute hidden | step | page JS heap | renderer processes, resident (page and workers) |',
    '|---|---|---|---|',
    ...memory.map((r) => `| ${r.minute} | ${r.step} | ${mb(r.heap)} MB | ${mb(r.rss)} MB |`),
    '',
    `Heap change over the hidden minutes: ${mb(memory[memory.length - 1].heap - memory[0].heap)} MB; resident: ${mb(memory[memory.length - 1].rss - memory[0].rss)} MB.`,
    '<!-- END autosave -->',
  ];
  const section = lines.join('\n');
  console.log(section);
  if (WRITE) {
    const md = readFileSync(WRITE, 'utf8');
    const re = /<!-- BEGIN autosave -->[\s\S]*?<!-- END autosave -->/;
    writeFileSync(WRITE, re.test(md) ? md.replace(re, section) : `${md.trimEnd()}\n\n${section}\n`);
    log(`wrote the autosave section of ${WRITE}`);
  }
} finally {
  await browser.close();
  await server.close();
}
