// End-to-end test of embedded figures in a blog-like page (issue 49, item 6): a 720 px column
// with the README's examples. A figure with `height` lays its charts out inside that height
// (both listed charts wholly visible in the frame, no scrolling needed); a figure without one
// grows to what it shows (the frame's height follows the page's, nothing cut off).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, e2eSuite } from './helpers.mjs';

const suite = e2eSuite('embed', { waitMs: 90_000, before, after });

test('figures in a 720 px blog column show what they promise', { timeout: 4 * 60_000 }, async () => {
  const { page, run } = await suite.openPage('blog', { query: 'tests/e2e/fixtures/blog.html', viewport: { width: 1280, height: 900 } });
  await run(async () => {
    const frameOf = async (id) => {
      const handle = await page.waitForSelector(`#${id} iframe`);
      const frame = await handle.contentFrame();
      await frame.waitForFunction(() => /cpu|webgpu/i.test(document.querySelector('#backend')?.textContent ?? ''), null, { timeout: 90_000, polling: 200 });
      return { handle, frame };
    };
    // The fixed-height figure: every listed chart lies inside the frame's 560 px.
    const fixed = await frameOf('fixed');
    assert.equal(await fixed.handle.evaluate((f) => f.getBoundingClientRect().height), 560, 'the author gave 560 px');
    await fixed.frame.waitForFunction(() => document.body.classList.contains('fit-height'), null, { timeout: 10_000 });
    await fixed.frame.waitForTimeout(500);
    for (const id of ['chart-loss', 'map-att']) {
      const b = await fixed.frame.$eval(`#${id}`, (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, h: r.height, w: r.width }; });
      assert.ok(b.h >= 100 && b.w >= 100, `${id} is drawn at a real size: ${JSON.stringify(b)}`);
      assert.ok(b.top >= 0 && b.bottom <= 560, `${id} lies inside the 560 px frame: ${JSON.stringify(b)}`);
    }
    // The free figure: the frame follows its content, so nothing is cut off.
    const free = await frameOf('free');
    await page.waitForFunction(() => {
      const f = document.querySelector('#free iframe');
      const body = f.contentDocument?.body;
      return body && Math.abs(f.getBoundingClientRect().height - (body.getBoundingClientRect().height + 24)) <= 8;
    }, null, { timeout: 20_000, polling: 200 });
    const inner = await free.frame.evaluate(() => document.body.getBoundingClientRect().height);
    const outer = await free.handle.evaluate((f) => f.getBoundingClientRect().height);
    assert.ok(outer >= inner, `the frame (${outer} px) holds its content (${inner} px)`);
    for (const id of ['chart-lmcos']) {
      const bottom = await free.frame.$eval(`#${id}`, (el) => el.getBoundingClientRect().bottom);
      assert.ok(bottom <= outer, `${id} ends inside the frame (${bottom} ≤ ${outer})`);
    }
    // A figure not allowed to train yet (autoplay=0 here; or another figure's turn) says so.
    assert.match(await free.frame.$eval('#run-state', (el) => el.textContent), /paused|waiting/);
    await page.screenshot({ path: join(ARTIFACTS, 'embed-blog.png'), fullPage: true });
  });
});
