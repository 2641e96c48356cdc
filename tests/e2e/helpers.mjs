// Shared helpers for the end-to-end tests: a static file server for the repo
// root, a system-Chromium launcher, and a console-error collector.
//
// Nothing here downloads a browser: playwright-core only drives the Chromium
// that scripts/setup.sh installs from apt (/usr/bin/chromium).

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

/** Absolute path of the repository root (tests/e2e/../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Ask the OS for a free port by binding port 0 on 127.0.0.1, then release it. */
function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/**
 * Serve the repo root with `python3 -m http.server` on a free 127.0.0.1 port.
 * Resolves once the server answers HTTP; returns {url, close}.
 */
export async function startServer({ root = REPO_ROOT, timeoutMs = 15_000 } = {}) {
  const port = await freePort();
  const child = spawn(
    'python3',
    ['-m', 'http.server', '--bind', '127.0.0.1', String(port), '--directory', root],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // http.server logs each request on stderr; keep only the tail for error messages.
  let log = '';
  child.stderr.on('data', (d) => { log = (log + d).slice(-4000); });
  let exited = null;
  const exitedP = new Promise((ok) => child.once('exit', (code, signal) => {
    exited = { code, signal };
    ok();
  }));
  child.once('error', (err) => { exited = { error: err }; });

  const url = `http://127.0.0.1:${port}/`;
  const close = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exitedP;
    clearTimeout(t);
  };

  // Poll until the server answers (or dies, or we time out).
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`python3 -m http.server exited early (${JSON.stringify(exited)}):\n${log}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`python3 -m http.server did not answer on ${url} within ${timeoutMs} ms:\n${log}`);
    }
    await sleep(100);
  }
  return { url, close };
}

/**
 * Chromium flags for WebGPU on a hardware adapter on Linux, headless (scripts/gpu-check.sh):
 * WebGPU is behind --enable-unsafe-webgpu on Linux; Vulkan (through ANGLE) is the GPU path
 * headless Chromium can use there; --ignore-gpu-blocklist keeps drivers Chromium has not vetted;
 * --disable-vulkan-surface because there is no window to present to.
 */
export const HARDWARE_WEBGPU_FLAGS = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=vulkan',
  '--ignore-gpu-blocklist',
  '--disable-vulkan-surface',
];

/** Launch the system Chromium headless, with WebGPU allowed on SwiftShader (the tests), or with
 * `{ hardware: true }` on the machine's GPU (the GPU check). */
export function launch({ hardware = false } = {}) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      ...(hardware ? [] : ['--disable-gpu']),
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      ...(hardware ? HARDWARE_WEBGPU_FLAGS : ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader']),
    ],
  });
}

/**
 * Collect console errors and uncaught page errors of `page`.
 * Returns a live array of strings; attach before navigating.
 */
export function collectConsole(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const { url, lineNumber } = msg.location();
    errors.push(`console.error: ${msg.text()}${url ? ` (${url}:${lineNumber})` : ''}`);
  });
  page.on('pageerror', (err) => {
    errors.push(`pageerror: ${err.stack || err.message || String(err)}`);
  });
  return errors;
}

/**
 * Opens the page of `server` (`query` is appended to its URL) in a fresh context of `browser` and returns
 * `{page, errors, run}`; `run(body)` calls `body()` and then checks that no console error and
 * no #error message appeared (a test that provokes a failure names the #error text it expects,
 * `expectError`, and the console errors it causes, `allowConsole`); on failure it saves a screenshot and adds the page's state to
 * the error message. The context is closed in any case.
 */
export async function openPageIn(browser, server, name, { query = '', viewport = { width: 1280, height: 900 }, artifacts, prefix = 'page', expectError = null, allowConsole = null } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const errors = collectConsole(page); // includes the worker's console (msg.worker() != null)
  // Chromium asks for /favicon.ico by itself; answer it if the repo has none,
  // so its 404 is not counted as a page error.
  await page.route('**/favicon.ico', (route) => (existsSync(join(REPO_ROOT, 'favicon.ico'))
    ? route.continue()
    : route.fulfill({ status: 204, body: '' })));
  await page.goto(server.url + query, { waitUntil: 'load' });

  const run = async (body) => {
    try {
      await body();
      const error = await page.evaluate(() => {
        const el = document.getElementById('error'); // absent on pages that only embed figures
        return el && !el.hidden ? el.textContent : '';
      });
      if (expectError) assert.match(error, expectError, `#error says what failed: ${error}`);
      else assert.equal(error, '', `#error is shown: ${error}`);
      const unexpected = errors.filter((e) => !(allowConsole && allowConsole.test(e)));
      assert.deepEqual(unexpected, [], `console errors on the page:\n${unexpected.join('\n')}`);
    } catch (err) {
      await page.screenshot({ path: join(artifacts, `${prefix}-failure-${name}.png`), fullPage: true }).catch(() => {});
      const state = await page.evaluate(() => {
        const t = (id) => document.getElementById(id)?.textContent?.trim();
        return {
          step: t('step'), steps: t('steps'), runState: t('run-state'), play: t('play'),
          backend: t('backend'), error: t('error'), notices: t('notices'), scrub: t('scrub-out'),
        };
      }).catch(() => ({}));
      err.message += `\npage state: ${JSON.stringify(state)}\nconsole errors:\n${errors.join('\n') || '(none)'}`;
      throw err;
    } finally {
      await context.close().catch(() => {});
    }
  };
  return { page, errors, run };
}


/** Where the end-to-end tests write screenshots and downloads. */
export const ARTIFACTS = join(REPO_ROOT, 'artifacts');

/**
 * The shared setup of a test file: registers before/after hooks that check the page is built,
 * start one static server and one Chromium, and close them; returns `{openPage, waitFn, server}`
 * where `openPage(name, opts)` is `openPageIn` with this file's artifact prefix and
 * `waitFn(page, fn, arg)` polls a page function with the file's timeout.
 */
export function e2eSuite(prefix, { waitMs = 120_000, before, after } = {}) {
  const s = { browser: null, server: null };
  before(async () => {
    assert.ok(
      existsSync(join(REPO_ROOT, 'www', 'pkg', 'plateau_bg.wasm')),
      'www/pkg/plateau_bg.wasm is missing: run scripts/build-web.sh first',
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    s.server = await startServer();
    s.browser = await launch();
  });
  after(async () => {
    await s.browser?.close().catch(() => {});
    await s.server?.close();
  });
  return {
    openPage: (name, opts = {}) => openPageIn(s.browser, s.server, name, { artifacts: ARTIFACTS, prefix, ...opts }),
    waitFn: (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: waitMs, polling: 200 }),
    get server() { return s.server; },
    get browser() { return s.browser; },
  };
}

/**
 * What the page's warm-up drew (`window.plateauWarmUp`), once every job has run. The warm-up
 * draws one chart per timer task after the page boots, so on a loaded machine it may still be
 * drawing when the backend shows: reading it at boot raced it (a CI run read 2 of 5 drawn).
 */
export async function warmUpDone(page, timeout = 60_000) {
  await page.waitForFunction(() => {
    const w = window.plateauWarmUp;
    return w && w.drawn + w.failed.length === w.jobs;
  }, null, { timeout, polling: 100 });
  return page.evaluate(() => window.plateauWarmUp);
}
