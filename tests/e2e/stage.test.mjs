// End-to-end tests of each chapter's first screen (issue 49), in headless Chromium at a laptop's
// 1280 × 800 and a phone's 390 × 844:
//
//   1. the hero figure's canvases lie wholly inside the first viewport, with at most 60 words of
//      visible prose above them, and the chapter's key controls and play/step/reset are visible
//      without scrolling;
//   2. the runs measured by the command-line tool at the chapter's default configuration are
//      drawn in the hero within 2 s of the page's load (window.plateauMeasuredAt), and the hero's
//      note names them;
//   3. every try-this step reaches its state from its URL (the controls show its values, the
//      step is marked as on screen), and back/forward walk the steps;
//   4. screenshots of every first screen (artifacts/stage-*.png);
//   5. (issue 61) no text on the first screen is cut: no element clips its text (its scroll width
//      or height over its client size where it hides the overflow or clamps its lines) and none
//      ends in an ellipsis; every hero legend's entries differ in colour, dash or faintness; the
//      live run keeps its colour in both hero charts (chapter 3 draws the loss and the head in
//      two colours, on purpose); the hero note keeps the provenance behind "How this was
//      measured";
//   6. chapter 1's drop and chapter 4's collapse are annotated in words on the hero once they
//      have happened, and the annotation does not move as the run goes on.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, e2eSuite } from './helpers.mjs';

const suite = e2eSuite('stage', { waitMs: 60_000, before, after });
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
/** Each chapter: its query, its hero canvases and its key controls' ids. */
const CHAPTERS = [
  { n: 1, query: '?experiment=mws', hero: ['hero-loss', 'hero-acc'], keys: ['c'] },
  { n: 2, query: '?experiment=anchors', hero: ['hero-answers', 'hero-keys'], keys: ['gamma', 'compare-gamma'] },
  { n: 3, query: '?experiment=syntax', hero: ['hero-verb', 'hero-uas'], keys: ['lambda'] },
  { n: 4, query: '?experiment=lm', hero: ['hero-lmcos'], keys: ['d-model'] },
];

/** The first screen's geometry, read in the page: each hero canvas's box, each key control's box,
 * the buttons' boxes, and the visible words of prose above the topmost hero canvas. */
const geometry = (page, { hero, keys }) => page.evaluate(({ hero, keys }) => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, w: r.width, h: r.height }; };
  const heroBoxes = hero.map((id) => box(document.getElementById(id)));
  const top = Math.min(...heroBoxes.map((b) => b.top));
  // Prose: visible paragraphs and headings whose box starts above the hero.
  let words = 0;
  for (const el of document.querySelectorAll('main p, main h2, header p, header h1')) {
    const r = el.getBoundingClientRect();
    if (r.height === 0 || getComputedStyle(el).visibility === 'hidden' || r.top >= top) continue;
    if (el.closest('#status-panel')) continue; // the status line: figures, not prose
    words += el.textContent.trim().split(/\s+/).filter(Boolean).length;
  }
  const controls = keys.map((id) => box(document.getElementById(id)));
  const buttons = ['play', 'stepbtn', 'reset'].map((id) => box(document.getElementById(id)));
  return { heroBoxes, words, controls, buttons, vw: window.innerWidth, vh: window.innerHeight };
}, { hero, keys });

/** The measured runs' and baselines' grey (www/dom.js `C.grey`). */
const GREY = '#8a8f98';

/** What is cut on the first screen: each visible element with text of its own that hides its
 * overflow (or clamps its lines) while its content is wider or taller than its box, or whose text
 * ends in an ellipsis; an element that scrolls sideways (the chapter tabs) counts too. */
const firstScreenCuts = (page) => page.evaluate(() => {
  const out = [];
  const vh = window.innerHeight;
  for (const el of document.querySelectorAll('header, header *, main *')) {
    if (!(el instanceof HTMLElement) || el.closest('canvas, select, option, .sr-only, script')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.top >= vh || r.bottom <= 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || el.closest('[hidden]')) continue;
    const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}`;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
    const clamp = cs.webkitLineClamp && cs.webkitLineClamp !== 'none';
    if (own.endsWith('…') || own.endsWith('...')) out.push(`${name} ends in an ellipsis: "${own}"`);
    if ((cs.overflowX !== 'visible' || cs.textOverflow === 'ellipsis') && el.scrollWidth > el.clientWidth + 1) out.push(`${name} is cut sideways (${el.scrollWidth} > ${el.clientWidth}): "${el.textContent.trim().slice(0, 60)}"`);
    if ((clamp || cs.overflowY === 'hidden') && own && el.scrollHeight > el.clientHeight + 1) out.push(`${name} is cut below (${el.scrollHeight} > ${el.clientHeight}): "${own.slice(0, 60)}"`);
  }
  return out;
});

/** Each hero chart's legend as drawn: the labelled series of the spec it was last drawn with. */
const heroLegends = (page, ids) => page.evaluate((ids) => Object.fromEntries(ids.map((id) => {
  const spec = window.plateauDrawnSpec(id);
  return [id, spec ? spec.series.filter((x) => x.label).map((x) => ({ label: x.label, color: x.color.toLowerCase(), faint: !!x.faint, dashed: !!x.dashed })) : []];
})), ids);

for (const [size, viewport] of Object.entries(SIZES)) {
  for (const ch of CHAPTERS) {
    test(`chapter ${ch.n} at ${size}: the hero, its key controls and the measured runs on the first screen`, { timeout: 3 * 60_000 }, async () => {
      const { page, run } = await suite.openPage(`ch${ch.n}-${size}`, { query: `${ch.query}&autoplay=0`, viewport });
      await run(async () => {
        await suite.waitFn(page, () => window.plateauMeasuredAt !== undefined);
        const loadAt = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
        const measuredAt = await page.evaluate(() => window.plateauMeasuredAt);
        assert.ok(measuredAt - loadAt < 2000, `measured runs drawn ${(measuredAt - loadAt).toFixed(0)} ms after load (≤ 2000)`);
        const note = await page.$eval(`#measured-${ch.n}`, (el) => el.textContent);
        assert.match(note, /^Faint: \d+ measured runs\.$/, note);
        assert.ok(note.split(/\s+/).length <= 12, `at most 12 words about the faint lines: ${note}`);
        const more = await page.$eval(`#measured-${ch.n}-more`, (el) => el.textContent);
        assert.match(more, /runs measured by the command-line tool, seeds \d/, more);
        assert.equal(await page.$eval(`#measured-${ch.n}-more`, (el) => el.closest('details').open), false, 'the provenance starts closed');
        const cut = await firstScreenCuts(page);
        assert.deepEqual(cut, [], `text cut on the first screen:\n${cut.join('\n')}`);
        const legends = await heroLegends(page, ch.hero);
        for (const [id, entries] of Object.entries(legends)) {
          const looks = entries.map((e) => `${e.color} ${e.faint} ${e.dashed}`);
          assert.equal(new Set(looks).size, looks.length, `${id}: every legend entry looks different: ${JSON.stringify(entries)}`);
        }
        const live = Object.values(legends).map((entries) => entries.filter((e) => !e.faint && !e.dashed && e.color !== GREY).map((e) => e.color).sort().join(' ')).filter(Boolean);
        if (ch.n === 3) assert.notEqual(live[0], live[1], `chapter 3: the loss and the head in two colours: ${live}`);
        else if (live.length > 1) assert.equal(live[0], live[1], `the live run's colour is the same in both hero charts: ${live}`);
        const g = await geometry(page, ch);
        for (const [i, b] of g.heroBoxes.entries()) {
          assert.ok(b.w > 150 && b.h > 100, `${ch.hero[i]} has a real size: ${JSON.stringify(b)}`);
          assert.ok(b.top >= 0 && b.bottom <= g.vh && b.left >= 0 && b.right <= g.vw, `${ch.hero[i]} lies inside the ${g.vw}×${g.vh} viewport: ${JSON.stringify(b)}`);
        }
        assert.ok(g.words <= 60, `${g.words} words of prose above the hero (≤ 60)`);
        for (const [i, b] of [...g.controls, ...g.buttons].entries()) {
          const id = [...ch.keys, 'play', 'stepbtn', 'reset'][i];
          assert.ok(b.h > 0 && b.top >= 0 && b.bottom <= g.vh, `#${id} is visible without scrolling: ${JSON.stringify(b)}`);
        }
        await page.screenshot({ path: join(ARTIFACTS, `stage-ch${ch.n}-${size}.png`) });
      });
    });
  }
}

test('every try-this step reaches its state from its URL, and back/forward walk the steps', { timeout: 4 * 60_000 }, async () => {
  const { page, run } = await suite.openPage('try', { query: '?experiment=mws&autoplay=0' });
  await run(async () => {
    for (const ch of CHAPTERS) {
      // The chapter's steps, as its stage lists them.
      await page.goto(`${suite.server.url}${ch.query}&autoplay=0`);
      await suite.waitFn(page, () => document.querySelectorAll('#try-list a').length > 0);
      const steps = await page.$$eval('#try-list a', (as) => as.map((a) => ({ href: a.getAttribute('href'), id: a.id })));
      assert.ok(steps.length >= 2 && steps.length <= 4, `chapter ${ch.n} has 2–4 steps (${steps.length})`);
      for (const s of steps) {
        // Its URL, opened directly, shows its configuration and marks it as on screen.
        await page.goto(`${suite.server.url}${s.href}&autoplay=0`);
        await suite.waitFn(page, (id) => document.getElementById(id)?.getAttribute('aria-current') === 'step', s.id);
        // The address bar holds the engine's query of the run on screen: every key of the step's.
        const now = new URLSearchParams(new URL(page.url()).search);
        for (const [k, v] of new URLSearchParams(s.href.slice(1))) assert.equal(now.get(k), v, `step ${s.id} of chapter ${ch.n}: ${k}`);
        const outcome = await page.$eval(`#${s.id} + .outcome`, (el) => el.textContent);
        assert.match(outcome, /measured|Not measured/, outcome);
      }
    }
    // Clicking steps pushes history; back returns to the step before.
    await page.goto(`${suite.server.url}?experiment=mws&autoplay=0`);
    await suite.waitFn(page, () => document.querySelectorAll('#try-list a').length >= 2);
    await page.click('#try-1');
    await suite.waitFn(page, () => document.getElementById('try-1').getAttribute('aria-current') === 'step');
    assert.equal(await page.$eval('#c-out', (el) => el.textContent), '10', 'the c control shows 10 after step 1');
    await page.click('#try-2');
    await suite.waitFn(page, () => document.getElementById('try-2').getAttribute('aria-current') === 'step');
    await page.goBack();
    await suite.waitFn(page, () => document.getElementById('try-1')?.getAttribute('aria-current') === 'step');
    assert.match(page.url(), /c=10/);
    await page.goForward();
    await suite.waitFn(page, () => document.getElementById('try-2')?.getAttribute('aria-current') === 'step');
    assert.match(page.url(), /c=0\.5/);
  });
});

test('the hero names its event in words once it has happened, and the annotation stays put', { timeout: 4 * 60_000 }, async () => {
  // Chapter 1's drop and chapter 4's collapse are final once detected (the first evaluation at
  // half accuracy; the first at cosine ≥ 0.9): their markers appear in words and never move.
  for (const [query, canvas, word, more] of [
    ['?experiment=mws', 'hero-loss', /^the drop · step (\d+)/, 60],
    ['?experiment=lm', 'hero-lmcos', /^collapse · step (\d+)/, 30],
  ]) {
    const { page, run } = await suite.openPage(`event-${canvas}`, { query });
    await run(async () => {
      await suite.waitFn(page, ([id, re]) => {
        const m = (window.plateauDrawnSpec(id)?.markers || []).find((k) => new RegExp(re).test(k.label));
        return !!m;
      }, [canvas, word.source]);
      const first = await page.evaluate(([id, re]) => (window.plateauDrawnSpec(id)?.markers || []).map((m) => ({ x: m.x, label: m.label })).find((m) => new RegExp(re).test(m.label)), [canvas, word.source]);
      assert.equal(Number(word.exec(first.label)[1]), first.x, `the label names the marker's step: ${first.label}`);
      const at = Number(await page.$eval('#step', (el) => el.textContent));
      await suite.waitFn(page, (s) => Number(document.querySelector('#step').textContent) >= s, at + more);
      const later = await page.evaluate(([id, re]) => (window.plateauDrawnSpec(id)?.markers || []).map((m) => ({ x: m.x, label: m.label })).filter((m) => new RegExp(re).test(m.label)), [canvas, word.source]);
      assert.equal(later.length, 1, `one annotation: ${JSON.stringify(later)}`);
      assert.equal(later[0].x, first.x, `the annotation stays at step ${first.x}: ${JSON.stringify(later)}`);
    });
  }
});

// Issue 61: each of the papers' terms that the page keeps is defined where it first appears, in a
// button that the keyboard reaches (Tab) and opens (Enter, Space), and Escape closes.
test('every defined term opens its definition inline by keyboard', { timeout: 3 * 60_000 }, async (t) => {
  const { page, run } = await suite.openPage('terms', { query: '?experiment=mws&autoplay=0' });
  await run(async () => {
    const defined = [];
    for (const ch of CHAPTERS) {
      await page.goto(`${suite.server.url}${ch.query}&autoplay=0`);
      await suite.waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));
      const ids = await page.$$eval('button.term', (bs) => bs.filter((b) => b.offsetParent !== null).map((b) => b.getAttribute('aria-controls')));
      for (const id of ids) {
        const sel = `button.term[aria-controls="${id}"]`;
        // Tab from the element before it lands on it: it is in the page's tab order.
        await page.$eval(sel, (b) => {
          const before = document.createElement('button');
          before.id = 'tab-probe';
          b.before(before);
          before.focus();
        });
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate((s) => document.activeElement === document.querySelector(s), sel), true, `Tab reaches ${id}`);
        await page.$eval('#tab-probe', (el) => el.remove());
        for (const key of ['Enter', ' ']) {
          await page.keyboard.press(key === ' ' ? 'Space' : key);
          const open = await page.$eval(`#${id}`, (d) => ({ shown: !d.hidden && d.getBoundingClientRect().width > 0, text: d.textContent.trim() }));
          assert.ok(open.shown, `${key} opens ${id}`);
          assert.equal(await page.$eval(sel, (b) => b.getAttribute('aria-expanded')), 'true');
          assert.match(open.text, /^\(.{20,}\)$/, `${id} says what it means: ${open.text}`);
          await page.keyboard.press('Escape');
          assert.equal(await page.$eval(`#${id}`, (d) => d.hidden), true, `Escape closes ${id}`);
        }
        defined.push(`${ch.n}:${await page.$eval(sel, (b) => b.textContent)}`);
      }
    }
    t.diagnostic(defined.join(', '));
    for (const term of ['1:Ω', '1:collapse', '3:gold arcs', '3:UAS', '3:offset guess']) assert.ok(defined.includes(term), `${term} is defined (${defined.join(', ')})`);
  });
});
