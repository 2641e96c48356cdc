// Generated hostile input against the page, in real headless Chromium (issues "Reliability, round
// two" and "round four"). URLs: 300 queries from a seeded generator mixing schema keys, the page keys
// (hide, controls, autoplay, only, seeds, backend, compare, workers) and unknown ones with junk,
// boundary and injection values. For each, the page must boot without an uncaught error or an
// #error, show every notice the engine gives for the query, keep every value as text (no element
// or inline handler injected, no payload run), and write an address the engine reads back cleanly
// to the same configuration. <plateau-figure> attributes: 300 generated sets, each of which must
// reach its frame's URL as exactly its parameters (nothing dropped, nothing added, nothing
// injected into the host), and four of them loaded for real, each page booting without an error.
// Seeded: PLATEAU_FUZZ_SEED (default 17; the attribute sets use seed + 12), PLATEAU_FUZZ_URLS and
// PLATEAU_FUZZ_ATTRS (default 300 each). A failing case is shrunk to the fewest of its pairs (or
// attributes) that still fail, and printed with its seed and index, so that it can be replayed:
//   PLATEAU_FUZZ_SEED=17 node --test tests/e2e/fuzz.test.mjs

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { collectConsole, e2eSuite } from './helpers.mjs';

const suite = e2eSuite('fuzz', { waitMs: 60_000, before, after });
/** The seed and the counts (environment, else the defaults CI runs). */
const SEED = Number(process.env.PLATEAU_FUZZ_SEED ?? 17);
const CASES = Number(process.env.PLATEAU_FUZZ_URLS ?? 300);
const SETS = Number(process.env.PLATEAU_FUZZ_ATTRS ?? 300);

/** The fewest items of `items` for which `fails` still holds: drops one item at a time, as long as
 * the rest still fail (greedy, so each item left is needed). @template T
 * @param {T[]} items @param {(some: T[]) => Promise<boolean>} fails */
async function shrink(items, fails) {
  let kept = items.slice();
  for (let i = kept.length - 1; i >= 0 && kept.length > 1; i -= 1) {
    const fewer = kept.filter((_, k) => k !== i);
    if (await fails(fewer)) kept = fewer;
  }
  return kept;
}

// A small seeded generator (mulberry32), so a failure names a case that can be replayed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY = ['', ' ', '-1', '1e309', 'NaN', 'inf', '0x10', '99999999999999999999', '-0', '½', '%', '%zz', '%00',
  '<img src=x onerror="window.__pwned=1">', '"><svg onload="window.__pwned=1">', 'javascript:window.__pwned=1',
  '</script><script>window.__pwned=1</script>', '\u202e', '🙂', 'paper', 'anchors', 'syntax', 'webgpu', 'cpu',
  'prose,nav,bogus', 'loss,map-att,nope', 'c,seed,zzz', '0', '1', '2', '8', '9', '3.5'];
const PAGE_KEYS = ['hide', 'controls', 'autoplay', 'only', 'seeds', 'backend', 'compare', 'workers'];

test(`${CASES} generated hostile URLs: no crash, a notice for each rejected value, nothing injected, a clean address`, { timeout: 30 * 60_000 }, async (t) => {
  const { page, run } = await suite.openPage('fuzz', { query: '?autoplay=0&steps=4' });
  await run(async () => {
    await suite.waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));
    const keys = await page.evaluate(async () => (await import('/www/pkg-view/plateau.js')).paramSchema().map((p) => p.key));
    const baseline = await page.evaluate(() => ['img', 'script', 'iframe', 'svg', 'object', 'embed'].map((tag) => document.getElementsByTagName(tag).length));
    const next = rng(SEED);
    const pick = (list) => list[Math.floor(next() * list.length)];
    let notices = 0;
    let refusals = 0;
    /** Opens the page at `pairs` (autoplay=0 last: never train here) and returns what is wrong
     * with it (nothing: []), the notices it showed, and whether it was refused as over the
     * memory budget. The console errors are its own. @param {string[]} pairs */
    const visit = async (pairs) => {
      const query = `?${[...pairs, 'autoplay=0'].join('&')}`;
      // Each visit in a context of its own, closed after it: a late message of the visit before
      // cannot be counted against this one, and the WebAssembly memories of 300 pages are freed as
      // they go instead of waiting for the renderer's garbage collector (V8 refuses new wasm
      // memories while too many old ones are still reserved).
      const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        const caused = collectConsole(page);
        await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204, body: '' }));
        await page.goto(`${suite.server.url}${query}`, { waitUntil: 'load' });
        await suite.waitFn(page, () => document.querySelector('#run-state').textContent !== 'starting' || !document.querySelector('#error').hidden);
        const seen = await page.evaluate(async (q) => {
          const engine = await import('/www/pkg-view/plateau.js');
          const parsed = engine.parseQuery(q);
          const written = window.location.search;
          const back = engine.parseQuery(written);
          return {
            error: document.querySelector('#error').hidden ? '' : document.querySelector('#error').textContent,
            shown: [...document.querySelectorAll('#notices li')].map((li) => li.textContent),
            engine: parsed.notices,
            same: engine.configQuery(parsed.config) === engine.configQuery(back.config),
            clean: back.notices,
            written,
            pwned: window.__pwned,
            tags: ['img', 'script', 'iframe', 'svg', 'object', 'embed'].map((tag) => document.getElementsByTagName(tag).length),
            handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
          };
        }, query);
        const wrong = [];
        // Every value in range but all together over the browser's memory budget: refusing to train
        // with a message that names what to reduce is the expected outcome (reliability.test.mjs).
        const refused = /^Training stopped: this configuration needs about \d+\.\d GB of memory to train, over the limit of [\d.]+ GB in the browser; reduce /.test(seen.error);
        if (!refused && seen.error !== '') wrong.push(`#error: ${seen.error}`);
        const logged = caused.filter((e) => !(refused && /needs about/.test(e)));
        if (logged.length) wrong.push(`console errors: ${logged.join(' | ')}`);
        for (const n of seen.engine) if (!seen.shown.includes(n)) wrong.push(`the engine's notice "${n}" is not shown (${seen.shown.join(' | ')})`);
        if (!seen.same) wrong.push(`the written address ${seen.written} does not reopen the same configuration`);
        if (seen.clean.length) wrong.push(`the written address ${seen.written} reads back with notices: ${seen.clean.join(' | ')}`);
        if (seen.pwned !== undefined) wrong.push('a payload ran');
        if (JSON.stringify(seen.tags) !== JSON.stringify(baseline)) wrong.push(`elements injected: ${JSON.stringify(seen.tags)} against ${JSON.stringify(baseline)}`);
        if (seen.handlers !== 0) wrong.push(`${seen.handlers} inline handlers`);
        return { wrong, shown: seen.shown.length, refused };
      } finally {
        await context.close().catch(() => {});
      }
    };
    for (let i = 0; i < CASES; i += 1) {
      const pairs = Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
        const key = next() < 0.6 ? pick(keys) : next() < 0.7 ? pick(PAGE_KEYS) : pick(NASTY);
        const value = next() < 0.5 ? pick(NASTY) : String(Math.round((next() - 0.2) * 10 ** Math.floor(next() * 6)));
        return `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
      });
      const seen = await visit(pairs);
      if (seen.wrong.length) {
        // Every visit's findings are kept, so that a failure that does not recur on the last visit
        // still says what went wrong the first time (a CI run printed a shrunk query and nothing else).
        const log = [`?${pairs.join('&')}: ${seen.wrong.join(' ; ')}`];
        const least = await shrink(pairs, async (some) => {
          const { wrong } = await visit(some);
          log.push(`?${some.join('&')}: ${wrong.length ? wrong.join(' ; ') : 'fine'}`);
          return wrong.length > 0;
        });
        const why = (await visit(least)).wrong;
        assert.fail(`seed ${SEED}, case ${i} of ${CASES}: ?${pairs.join('&')}&autoplay=0\n  smallest failing query: ?${least.join('&')}&autoplay=0\n  `
          + `last visit: ${why.length ? why.join('\n  ') : 'fine (the failure did not recur)'}\n  every visit:\n    ${log.join('\n    ')}`);
      }
      notices += seen.shown;
      if (seen.refused) refusals += 1;
    }
    t.diagnostic(`seed ${SEED}: ${CASES} URLs, ${notices} notices shown, ${refusals} refused as over the memory budget`);
    assert.ok(notices >= CASES, `the generator produces plenty of rejected values (${notices} notices)`);
  });
});

test(`${SETS} generated <plateau-figure> attribute sets become exactly their URL parameters; real figures boot cleanly`, { timeout: 10 * 60_000 }, async (t) => {
  const next = rng(SEED + 12);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const NAMES = ['chapter', 'c', 'gamma', 'seed', 'lambda', 'steps', 'preset', 'controls', 'hide', 'only', 'seeds', 'autoplay',
    'backend', 'height', 'title', 'concurrent', 'frobnicate', 'data-x', 'aria-label', 'onload', 'src', 'x"y'];
  const sets = Array.from({ length: SETS }, () => Array.from({ length: 1 + Math.floor(next() * 5) }, () => [pick(NAMES), pick(NASTY)]));
  const { page, run } = await suite.openPage('figure-attrs', { query: 'tests/e2e/fixtures/figure-host.html' });
  await run(async () => {
    // The figures' frames get an empty page here: this part checks the element, not the page.
    await page.route('**/index.html?*', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title>' }));
    await page.waitForFunction(() => !!customElements.get('plateau-figure'));
    /** Each attribute set made into a figure in the host page: what became of it. */
    const made = (all) => page.evaluate((list) => list.map((attrs) => {
      const el = document.createElement('plateau-figure');
      for (const [k, v] of attrs) {
        try { el.setAttribute(k, v); } catch { /* not an attribute name: the DOM refuses it */ }
      }
      document.getElementById('figs').append(el);
      const frame = el.querySelector('iframe');
      const out = {
        attrs: [...el.attributes].map((a) => [a.name, a.value]),
        children: el.children.length,
        src: frame ? frame.src : null,
        height: frame ? frame.height : null,
        pwned: window.__pwned,
        injected: document.querySelectorAll('script:not([src]), img, svg, object, embed').length,
      };
      el.remove();
      return out;
    }), all);
    const CH = { plateau: 'mws', init: 'anchors', syntax: 'syntax' };
    /** What is wrong with one made figure (nothing: []). */
    const wrong = (g) => {
      const out = [];
      if (g.children !== 1 || !g.src) return [`${g.children} children and no frame`];
      const url = new URL(g.src);
      if (!/\/index\.html$/.test(url.pathname)) out.push(`the frame shows ${url.pathname}`);
      const want = new URLSearchParams();
      for (const [k, v] of g.attrs) {
        if (['height', 'title', 'class', 'id', 'style', 'concurrent'].includes(k)) continue;
        if (k === 'chapter') want.set('experiment', CH[v] || v); else want.set(k, v);
      }
      if (!want.has('hide')) want.set('hide', 'prose,nav');
      const got = JSON.stringify([...url.searchParams].sort());
      if (got !== JSON.stringify([...want].sort())) out.push(`the frame's parameters ${got} are not exactly the attributes ${JSON.stringify([...want].sort())}`);
      const h = Number(g.attrs.find(([k]) => k === 'height')?.[1]);
      // A valid height is the author's; without one the frame starts at 600 px and follows its page.
      const height = String(Number.isFinite(h) && h >= 200 && h <= 5000 ? Math.round(h) : 600);
      if (g.height !== height) out.push(`height ${g.height}, not ${height}`);
      if (g.pwned !== undefined) out.push('a payload ran');
      if (g.injected !== 0) out.push(`${g.injected} elements injected into the host`);
      return out;
    };
    for (const [i, g] of (await made(sets)).entries()) {
      if (!wrong(g).length) continue;
      const least = await shrink(sets[i], async (some) => wrong((await made([some]))[0]).length > 0);
      const why = wrong((await made([least]))[0]);
      assert.fail(`seed ${SEED + 12}, set ${i} of ${SETS}: ${JSON.stringify(sets[i])}\n  smallest failing set: ${JSON.stringify(least)}\n  ${why.join('\n  ')}`);
    }
    t.diagnostic(`seed ${SEED + 12}: ${sets.length} attribute sets`);
  });
  // Four of them for real: each figure's page boots, shows the engine's notices and no error.
  const real = await suite.openPage('figure-real', { query: 'tests/e2e/fixtures/figure-host.html' });
  await real.run(async () => {
    await real.page.waitForFunction(() => !!customElements.get('plateau-figure'));
    await real.page.evaluate((all) => {
      for (const attrs of all) {
        const el = document.createElement('plateau-figure');
        for (const [k, v] of attrs) { try { el.setAttribute(k, v); } catch { /* refused name */ } }
        el.setAttribute('autoplay', '0');
        el.setAttribute('height', '300');
        document.getElementById('figs').append(el);
      }
    }, sets.slice(0, 4));
    await real.page.waitForFunction(() => document.querySelectorAll('plateau-figure iframe').length === 4);
    const frames = real.page.frames().filter((f) => f !== real.page.mainFrame());
    assert.equal(frames.length, 4, 'four figure frames');
    for (const frame of frames) {
      await frame.waitForLoadState('load');
      await frame.waitForFunction(() => /cpu|webgpu/i.test(document.querySelector('#backend')?.textContent || '') || !document.querySelector('#error')?.hidden, null, { timeout: 120_000 });
      const seen = await frame.evaluate(() => ({ error: document.querySelector('#error').hidden ? '' : document.querySelector('#error').textContent, pwned: window.__pwned }));
      assert.equal(seen.error, '', `${frame.url()}: no error`);
      assert.equal(seen.pwned, undefined);
    }
  });
});
