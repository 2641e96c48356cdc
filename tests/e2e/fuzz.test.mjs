// Generated hostile URLs against the page, in real headless Chromium (issue "Reliability, round
// two"): 120 queries from a seeded generator mixing schema keys, the page keys (hide, controls,
// autoplay, only, seeds, backend) and unknown ones with junk, boundary and injection values. For
// each, the page must boot without an uncaught error or an #error, show every notice the engine
// gives for the query, keep every value as text (no element or inline handler injected, no
// payload run), and write an address the engine reads back cleanly to the same configuration.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { e2eSuite } from './helpers.mjs';

const suite = e2eSuite('fuzz', { waitMs: 60_000, before, after });
const CASES = 120;

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
const PAGE_KEYS = ['hide', 'controls', 'autoplay', 'only', 'seeds', 'backend'];

test(`${CASES} generated hostile URLs: no crash, a notice for each rejected value, nothing injected, a clean address`, { timeout: 20 * 60_000 }, async (t) => {
  const { page, run, errors } = await suite.openPage('fuzz', { query: '?autoplay=0&steps=4' });
  await run(async () => {
    await suite.waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));
    const keys = await page.evaluate(async () => (await import('/www/pkg/plateau.js')).paramSchema().map((p) => p.key));
    const baseline = await page.evaluate(() => ['img', 'script', 'iframe', 'svg', 'object', 'embed'].map((tag) => document.getElementsByTagName(tag).length));
    const next = rng(17);
    const pick = (list) => list[Math.floor(next() * list.length)];
    let notices = 0;
    for (let i = 0; i < CASES; i += 1) {
      const pairs = Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
        const key = next() < 0.6 ? pick(keys) : next() < 0.7 ? pick(PAGE_KEYS) : pick(NASTY);
        const value = next() < 0.5 ? pick(NASTY) : String(Math.round((next() - 0.2) * 10 ** Math.floor(next() * 6)));
        return `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
      });
      // Never train in this test: autoplay=0 last (a repeated page key keeps its last value).
      const query = `?${pairs.join('&')}&autoplay=0`;
      await page.goto(`${suite.server.url}${query}`, { waitUntil: 'load' });
      await suite.waitFn(page, () => document.querySelector('#run-state').textContent !== 'starting' || !document.querySelector('#error').hidden);
      const seen = await page.evaluate(async (q) => {
        const engine = await import('/www/pkg/plateau.js');
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
      const label = `case ${i}: ${query}`;
      assert.equal(seen.error, '', `${label}: #error`);
      assert.deepEqual(errors, [], `${label}: console errors`);
      for (const n of seen.engine) assert.ok(seen.shown.includes(n), `${label}: the engine's notice "${n}" is shown (${seen.shown.join(' | ')})`);
      assert.ok(seen.same, `${label}: the written address ${seen.written} reopens the same configuration`);
      assert.deepEqual(seen.clean, [], `${label}: the written address ${seen.written} reads back without a notice`);
      assert.equal(seen.pwned, undefined, `${label}: no payload ran`);
      assert.deepEqual(seen.tags, baseline, `${label}: no element injected`);
      assert.equal(seen.handlers, 0, `${label}: no inline handler`);
      notices += seen.shown.length;
    }
    t.diagnostic(`${CASES} URLs, ${notices} notices shown`);
    assert.ok(notices >= CASES, `the generator produces plenty of rejected values (${notices} notices)`);
  });
});
