// End-to-end tests of sharing, embedding, export and comparison (issue "Share, embed, export,
// compare"), and of the page's behaviour on hostile URLs, in real headless Chromium against the
// built page (run scripts/build-web.sh first):
//
//   1. the URL the page writes reproduces the same metric rows in a fresh page;
//   2. hide=, controls= and autoplay=0 shape an embedded figure; unknown keys become notices;
//   3. embed.html with three <plateau-figure> elements trains all three;
//   4. CSV, config JSON, snapshots JSON and PNG exports download and parse; the config JSON
//      loads back;
//   5. pinning a run overlays it and states both runs' numbers; the runs table fills;
//   6. script-injection payloads in the URL stay text, and no network request is made while
//      training;
//   7. scripts/build-dist.sh's folder works from a static server under a sub-path.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { ARTIFACTS, REPO_ROOT, e2eSuite, openPageIn, startServer } from './helpers.mjs';

const WAIT_MS = 180_000;
const TEST_TIMEOUT = 6 * 60_000;

const suite = e2eSuite('share', { waitMs: WAIT_MS, before, after });
const { openPage } = suite;

const { waitFn } = suite;
const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());
const finished = (page) => waitFn(page, () => ['finished', 'diverged'].includes(document.querySelector('#run-state').textContent));
const booted = (page) => waitFn(page, () => /cpu|webgpu/i.test(document.querySelector('#backend').textContent));

async function download(page, click, file) {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), click()]);
  const path = join(ARTIFACTS, file);
  await d.saveAs(path);
  return { name: d.suggestedFilename(), path };
}

test('the URL the page writes reproduces the same rows', { timeout: TEST_TIMEOUT }, async (t) => {
  const query = '?c=2.5&seed=3&steps=12&eval-every=4&snapshot-every=4&frobnicate=1';
  const first = await openPage('url-a', { query });
  let written;
  let csvA;
  await first.run(async () => {
    const { page } = first;
    await finished(page);
    const notices = await text(page, '#notices');
    assert.match(notices, /unknown URL parameter "frobnicate"/);
    written = await page.evaluate(() => window.location.search);
    t.diagnostic(`written URL: ${written}`);
    assert.match(written, /^\?v=4&/);
    for (const kv of ['c=2.5', 'seed=3', 'steps=12', 'eval-every=4']) assert.ok(written.includes(kv), `${kv} in ${written}`);
    assert.ok(!written.includes('frobnicate'), 'unknown keys are not written back');
    csvA = readFileSync((await download(page, () => page.click('#csv'), 'share-a.csv')).path, 'utf8');
  });
  const second = await openPage('url-b', { query: written });
  await second.run(async () => {
    const { page } = second;
    await finished(page);
    assert.equal(await text(page, '#notices'), '', 'the written URL is clean');
    const csvB = readFileSync((await download(page, () => page.click('#csv'), 'share-b.csv')).path, 'utf8');
    assert.equal(csvB, csvA, 'the same URL gives the same rows');
    assert.equal(csvA.trim().split('\n').length, 1 + 4, 'rows at steps 0, 4, 8, 12');
  });
});

test('hide=, controls= and autoplay=0 shape an embedded figure', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('flags', { query: '?hide=prose,nav,bogus&controls=c,seed,nope&autoplay=0' });
  await run(async () => {
    await booted(page);
    const shown = (sel) => page.$eval(sel, (el) => el.offsetParent !== null);
    assert.equal(await shown('nav.chapters'), false);
    assert.equal(await shown('.intro'), false);
    assert.equal(await shown('#c'), true);
    assert.equal(await shown('#seed'), true);
    assert.equal(await shown('#lr'), false, 'controls not listed are hidden');
    assert.equal(await shown('#play'), true, 'play/pause stays');
    const notices = await text(page, '#notices');
    assert.match(notices, /Unknown value "bogus" in hide=/);
    assert.match(notices, /Unknown control "nope" in controls=/);
    await page.waitForTimeout(1500);
    assert.equal(await text(page, '#run-state'), 'paused', 'autoplay=0 waits for Play');
    assert.equal(await text(page, '#step'), '0');
    await page.click('#play');
    await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 2);
  });
});

test('embed.html: each figure trains while in view, one at a time, and says why it waits', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('embed', { query: 'embed.html' });
  await run(async () => {
    const ids = ['fig-plateau', 'fig-init', 'fig-syntax'];
    const frames = [];
    for (const id of ids) {
      const handle = await page.waitForSelector(`#${id} iframe`, { timeout: WAIT_MS });
      frames.push(await handle.contentFrame());
    }
    const step = (f) => f.$eval('#step', (el) => Number(el.textContent));
    const why = (f) => f.$eval('#hold', (el) => el.textContent);
    // The first figure is in view: it trains. The others are below the fold: they wait, and say so.
    await frames[0].waitForFunction(() => Number(document.querySelector('#step').textContent) >= 3, null, { timeout: WAIT_MS, polling: 250 });
    for (const f of frames.slice(1)) {
      await f.waitForFunction(() => /scrolled into view/.test(document.querySelector('#hold').textContent), null, { timeout: WAIT_MS, polling: 250 });
      assert.equal(await step(f), 0, 'a figure out of view has not trained');
    }
    // Scroll the second into view (the first leaves it): the second trains, the first waits.
    await page.$eval('#fig-init', (el) => el.scrollIntoView({ block: 'start' }));
    await frames[1].waitForFunction(() => Number(document.querySelector('#step').textContent) >= 3, null, { timeout: WAIT_MS, polling: 250 });
    await frames[0].waitForFunction(() => /scrolled into view/.test(document.querySelector('#hold').textContent), null, { timeout: WAIT_MS, polling: 250 });
    const s0 = await step(frames[0]);
    await page.waitForTimeout(1500);
    assert.equal(await step(frames[0]), s0, 'the figure scrolled away stopped training, and its counter agrees');
    // Held by the host, not by the reader: it says it waits, not that it trains or was paused.
    assert.equal(await frames[0].$eval('#run-state', (el) => el.textContent), 'waiting');
    t.diagnostic(`after scrolling: fig-plateau step ${s0} (${await why(frames[0])}), fig-init step ${await step(frames[1])}`);
    for (const f of frames) assert.equal(await f.$eval('#error', (el) => el.hidden), true);
    assert.equal(await frames[0].$eval('#lr', (el) => el.offsetParent === null), true, 'figure 1 shows only c and seed');
    assert.equal(await frames[0].$eval('#c-out', (el) => el.textContent), '2.5');
    assert.equal(await frames[1].$eval('#gamma-out', (el) => el.textContent), '0.8');
    assert.equal(await frames[2].$eval('#lambda-out', (el) => el.textContent), '0.1');
  });
});

test('two figures in view: one trains at a time, Play hands over; `concurrent` lets both train', { timeout: TEST_TIMEOUT }, async (t) => {
  for (const concurrent of [false, true]) {
    const { page, run } = await openPage(concurrent ? 'two-concurrent' : 'two', { query: `tests/e2e/fixtures/two-figures.html${concurrent ? '?concurrent' : ''}` });
    await run(async () => {
      const frames = [];
      for (const id of ['fig-a', 'fig-b']) frames.push(await (await page.waitForSelector(`#${id} iframe`, { timeout: WAIT_MS })).contentFrame());
      const step = (f) => f.$eval('#step', (el) => Number(el.textContent));
      for (const f of frames) await f.waitForFunction(() => /cpu|webgpu/i.test(document.querySelector('#backend').textContent), null, { timeout: WAIT_MS, polling: 250 });
      await page.waitForTimeout(3000);
      const before = await Promise.all(frames.map(step));
      await page.waitForTimeout(2000);
      const after = await Promise.all(frames.map(step));
      const training = after.map((s, i) => s > before[i]);
      t.diagnostic(`concurrent=${concurrent}: steps ${before.join(',')} → ${after.join(',')}`);
      if (concurrent) {
        assert.deepEqual(training, [true, true], 'with `concurrent` both figures train');
        return;
      }
      assert.equal(training.filter(Boolean).length, 1, 'exactly one of the two figures trains');
      const [on, off] = training[0] ? [frames[0], frames[1]] : [frames[1], frames[0]];
      assert.match(await off.$eval('#hold', (el) => el.textContent), /another figure on this page is training/);
      // Play in the waiting figure: it trains, the other waits.
      await off.click('#play');
      await off.waitForFunction(() => document.querySelector('#run-state').textContent === 'training', null, { timeout: WAIT_MS, polling: 200 });
      await on.waitForFunction(() => /another figure/.test(document.querySelector('#hold').textContent)
        && document.querySelector('#run-state').textContent === 'waiting', null, { timeout: WAIT_MS, polling: 200 });
      await page.waitForTimeout(600); // the counter shows the last chunk of the worker's run
      const a = await step(on);
      const b = await step(off);
      await page.waitForTimeout(2000);
      assert.equal(await step(on), a, 'the figure that handed over stopped');
      assert.ok(await step(off) > b, 'the figure whose Play was pressed trains');
    });
  }
});

test('only= shows just the listed charts, large, with their captions; the embed dialog offers it', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('only', { query: '?only=loss,map-att,nope&seed=2' });
  await run(async () => {
    await booted(page);
    const shown = await page.$$eval('main figure', (figs) => figs.filter((f) => f.offsetParent !== null).map((f) => f.querySelector('canvas')?.id ?? 'samples'));
    assert.deepEqual(shown, ['chart-loss', 'map-att'], 'only the two listed charts are on screen');
    for (const sel of ['header', '.intro', '#controls .control', '#csv']) {
      assert.equal(await page.$eval(sel, (el) => getComputedStyle(el).display === 'none' || el.closest('.flag-hidden') !== null), true, `${sel} is hidden`);
    }
    assert.notEqual(await page.$eval('#play', (el) => getComputedStyle(el).display), 'none', 'Play stays, to start or pause the figure');
    const width = await page.$eval('#chart-loss', (el) => el.getBoundingClientRect().width);
    assert.ok(width > 560, `a chart of an only= figure is large (${width} px)`);
    assert.match(await page.$eval('#chart-loss', (el) => el.closest('figure').querySelector('figcaption').textContent), /Loss/);
    assert.match(await text(page, '#notices'), /Unknown chart "nope" in only=/);
    assert.match(await page.evaluate(() => window.location.search), /only=loss,map-att/, 'the URL keeps only=');
  });
  const { page: p2, run: run2 } = await openPage('only-embed', { query: '?steps=20' });
  await run2(async () => {
    await booted(p2);
    await p2.click('#embed');
    await p2.check('#embed-only input[value="apm"]');
    assert.match(await p2.$eval('#embed-code', (el) => el.value), /only=apm/, 'ticking a chart puts it in the embed code');
    // SVG export of the loss chart: the same Rust chart code, as a vector document.
    await waitFn(p2, () => Number(document.querySelector('#step').textContent) >= 5);
    const svgFile = await download(p2, () => p2.click('#chart-loss ~ button[aria-label*="SVG"]'), 'share-loss.svg');
    assert.match(svgFile.name, /^plateau-chart-loss-step\d+\.svg$/);
    const svg = readFileSync(svgFile.path, 'utf8');
    const parsed = await p2.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? '',
        root: doc.documentElement.tagName,
        title: doc.querySelector('title')?.textContent ?? '',
        texts: [...doc.querySelectorAll('text')].map((t) => t.textContent.trim()),
        paths: doc.querySelectorAll('polyline, path').length,
      };
    }, svg);
    assert.equal(parsed.error, '', 'the SVG parses');
    assert.equal(parsed.root, 'svg');
    assert.equal(parsed.title, 'Loss', "the figure's title");
    assert.ok(parsed.texts.includes('cross-entropy (log)'), `the axis label is text: ${parsed.texts.join(' | ')}`);
    assert.ok(parsed.texts.includes('loss (all positions)') && parsed.texts.includes('loss (outputs)'), 'the legend names both series');
    assert.ok(parsed.paths >= 2, `a path per series (${parsed.paths})`);
    // Print: the controls go, the charts stay.
    await p2.emulateMedia({ media: 'print' });
    assert.equal(await p2.$eval('#controls', (el) => getComputedStyle(el).display), 'none');
    assert.notEqual(await p2.$eval('#chart-loss', (el) => getComputedStyle(el).display), 'none');
    const pdf = await p2.pdf();
    assert.equal(pdf.subarray(0, 4).toString(), '%PDF', 'the page prints to a PDF');
  });
});

test('exports download and parse; the config JSON loads back', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('exports', { query: '?experiment=anchors&gamma=0.6&steps=8&eval-every=4&snapshot-every=4' });
  await run(async () => {
    await finished(page);
    const csv = await download(page, () => page.click('#csv'), 'share-anchors.csv');
    assert.equal(csv.name, 'plateau-anchors-metrics.csv');
    assert.ok(readFileSync(csv.path, 'utf8').startsWith('step,loss,loss_memory'));
    await page.click('details.more summary');
    const json = await download(page, () => page.click('#json'), 'share-config.json');
    const cfg = JSON.parse(readFileSync(json.path, 'utf8'));
    assert.equal(cfg.experiment, 'anchors');
    assert.equal(cfg.gamma, 0.6, 'typed values: one JSON form of a config');
    const snaps = JSON.parse(readFileSync((await download(page, () => page.click('#snapjson'), 'share-snaps.json')).path, 'utf8'));
    assert.deepEqual(snaps.config, cfg, 'the snapshots file holds the config in the config file\'s form');
    assert.equal(snaps.snapshots.length, 3, 'snapshots at steps 0, 4, 8');
    assert.equal(snaps.snapshots[0].pca.length, 80);
    const png = await download(page, () => page.click('#chart-subloss + button.png'), 'share-chart.png');
    assert.deepEqual([...readFileSync(png.path).subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG file');
    // Load a changed config back: the page restarts with it.
    cfg.gamma = 1.1;
    await page.setInputFiles('#load', { name: 'cfg.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(cfg)) });
    await waitFn(page, () => document.querySelector('#gamma-out').textContent === '1.1');
    await finished(page);
    assert.match(await page.evaluate(() => window.location.search), /gamma=1\.1/);
  });
});

test('pinning a run overlays it and states both runs', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('compare', { query: '?steps=20&eval-every=4' });
  await run(async () => {
    await finished(page);
    await page.click('#pin');
    assert.equal(await page.$eval('#pin', (el) => el.getAttribute('aria-pressed')), 'true');
    await page.focus('#c');
    await page.keyboard.press('End'); // c = 100 (the schema's largest), live
    await page.click('#reset');
    await waitFn(page, () => document.querySelector('#run-state').textContent === 'training' || document.querySelector('#run-state').textContent === 'finished');
    await finished(page);
    await waitFn(page, () => document.querySelector('#compare').textContent.includes('This run (steps=20&eval-every=4&c=100'));
    const sentence = await text(page, '#compare');
    assert.match(sentence, /^Pinned run \(steps=20&eval-every=4\): (no drop yet|drop at step \d+) at step 20; test accuracy \d\.\d\d\. This run \(steps=20&eval-every=4&c=100\)/);
    assert.match(sentence, /drawn dashed grey/);
    assert.equal(await page.locator('#runs-body tr').count(), 1, 'the first run is in the runs table');
  });
});

test('hostile URL values stay text, and training makes no network request', { timeout: TEST_TIMEOUT }, async () => {
  const payload = encodeURIComponent('<img src=x onerror="window.__pwned=1">');
  const { page, run } = await openPage('xss', { query: `?seed=${payload}&hide=${payload}&${payload}=1&controls=${payload}` });
  await run(async () => {
    let dialogs = 0;
    page.on('dialog', (d) => { dialogs += 1; d.dismiss().catch(() => {}); });
    await booted(page);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 10);
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no payload ran');
    assert.equal(dialogs, 0);
    assert.equal(await page.locator('img[src="x"]').count(), 0, 'no element was injected');
    const notices = await text(page, '#notices');
    assert.ok(notices.includes('<img src=x onerror="window.__pwned=1">'), 'the payload is shown as text');
    assert.deepEqual(requests, [], `no request while training: ${requests.join(', ')}`);
  });
});

test('the dist/ folder works under a sub-path of a static server', { timeout: TEST_TIMEOUT }, async () => {
  const site = join(ARTIFACTS, 'site');
  execFileSync('bash', [join(REPO_ROOT, 'scripts', 'build-dist.sh'), '--prebuilt', join(site, 'sub', 'plateau')], { stdio: 'ignore' });
  const sub = await startServer({ root: site });
  try {
    const { page, run } = await openPageIn(suite.browser, sub, 'dist', { artifacts: ARTIFACTS, prefix: 'share', query: 'sub/plateau/index.html?experiment=anchors' });
    await run(async () => {
      await waitFn(page, () => Number(document.querySelector('#step').textContent) >= 3);
      assert.match(await page.evaluate(() => window.location.pathname), /^\/sub\/plateau\/index\.html$/);
    });
  } finally {
    await sub.close();
  }
});

test('every control comes from the schema, with its range; a rejected value never stays', { timeout: TEST_TIMEOUT }, async () => {
  const { page, run } = await openPage('schema', { query: '?experiment=syntax&lambda=0.5' });
  await run(async () => {
    await booted(page);
    const rows = await page.evaluate(async () => {
      const m = await import('./www/pkg-view/plateau.js');
      return m.paramSchema().filter((p) => p.control).map((p) => {
        const el = document.getElementById(p.key);
        return {
          key: p.key, kind: p.kind, log: p.log, min: p.min, max: p.max, live: p.live, widget: p.control.widget.type,
          options: p.control.widget.options?.map((o) => o[0]) ?? null, label: p.control.label,
          tag: el?.tagName, type: el?.type, elMin: el?.min, elMax: el?.max,
          elOptions: el?.tagName === 'SELECT' ? [...el.options].map((o) => o.value) : null,
          labelText: document.querySelector(`label[for="${p.key}"]`)?.textContent ?? '',
          help: document.getElementById(`${p.key}-help`)?.textContent ?? '',
        };
      });
    });
    assert.equal(rows.length, 16, 'the schema has 16 page controls');
    for (const r of rows) {
      assert.ok(r.tag, `#${r.key} is on the page`);
      assert.ok(r.labelText.startsWith(r.label), `#${r.key}'s label is the schema's: ${r.labelText}`);
      assert.ok(r.help.endsWith(r.live ? 'Applies live.' : 'Applies at reset.'), `#${r.key}'s help says when it applies: ${r.help}`);
      if (r.widget === 'slider') {
        assert.equal(r.type, 'range');
        const [lo, hi] = r.log ? [Math.log10(r.min), Math.log10(r.max)] : [r.min, r.max];
        assert.equal(Number(r.elMin), lo, `#${r.key} starts at the schema's minimum`);
        assert.equal(Number(r.elMax), hi, `#${r.key} ends at the schema's maximum`);
      } else if (r.widget === 'number') {
        assert.equal(r.type, 'number');
        assert.deepEqual([Number(r.elMin), Number(r.elMax)], [r.min, r.max], `#${r.key}'s range is the schema's`);
      } else {
        assert.equal(r.tag, 'SELECT');
        for (const o of r.options) assert.ok(r.elOptions.includes(o), `#${r.key} offers ${o}`);
      }
    }
    // λ = 0.5 from the URL is inside the schema's range, so the slider shows it (it once stopped at 0.2).
    assert.equal(await text(page, '#lambda-out'), '0.5');
    assert.equal(Number(await page.$eval('#lambda', (el) => el.value)), 0.5);
    // A seed the engine refuses is replaced by its safe value, in the box and in the URL.
    await page.fill('#seed', '-5');
    await page.dispatchEvent('#seed', 'change');
    await waitFn(page, () => document.querySelector('#seed').value !== '-5');
    const seed = await page.$eval('#seed', (el) => el.value);
    assert.match(seed, /^\d+$/, `the seed box holds the engine's safe value, not -5: ${seed}`);
    assert.ok(!(await page.evaluate(() => window.location.search)).includes('seed=-5'), 'the refused value is not in the URL');
    assert.match(await text(page, '#notices'), /seed/, 'a notice says why');
  });
});

test('a seed band trains the next seeds, replays live changes, draws median and range, exports one CSV', { timeout: TEST_TIMEOUT }, async (t) => {
  const { page, run } = await openPage('seeds', { query: '?seeds=5&steps=20&eval-every=5&snapshot-every=10&autoplay=0' });
  await run(async () => {
    await booted(page);
    assert.equal(await page.$eval('#seeds', (el) => el.value), '5', 'seeds= sets the control');
    // A live change before the first step (c from 1 to 10^0.5 ≈ 3.16, as in chapter1.test.mjs):
    // the band's seeds replay it.
    await page.focus('#c');
    await page.keyboard.press('End');
    for (let i = 0; i < 150; i += 1) await page.keyboard.press('ArrowLeft');
    const c = parseFloat(await text(page, '#c-out'));
    assert.ok(c > 1, `c moved: ${c}`);
    await page.click('#play');
    await waitFn(page, () => /5 of 5 finished/.test(document.querySelector('#band').textContent));
    assert.equal(await text(page, '#run-state'), 'finished');
    const band = await text(page, '#band');
    t.diagnostic(band);
    assert.match(band, /^5 seeds \(0, 1, 2, 3, 4\), 5 of 5 finished\. Over the finished seeds: drop step: /);
    assert.match(await page.evaluate(() => window.location.search), /[?&]seeds=5(&|$)/, 'the URL keeps seeds=5');

    const seedsCsv = readFileSync((await download(page, () => page.click('#seeds-csv'), 'share-seeds.csv')).path, 'utf8');
    const mainCsv = readFileSync((await download(page, () => page.click('#csv'), 'share-seeds-main.csv')).path, 'utf8');
    const [header, ...lines] = seedsCsv.trim().split('\n');
    assert.equal(header, `seed,${mainCsv.split('\n')[0]}`, 'the header is the run\'s with a seed column first');
    const cols = header.split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
    assert.deepEqual([...new Set(rows.map((r) => r.seed))], ['0', '1', '2', '3', '4'], 'the seeds in order');
    for (const s of ['0', '1', '2', '3', '4']) {
      assert.deepEqual(rows.filter((r) => r.seed === s).map((r) => r.step), ['0', '5', '10', '15', '20'], `seed ${s}'s steps`);
    }
    assert.deepEqual(lines.filter((l) => l.startsWith('0,')).map((l) => l.slice(2)), mainCsv.trim().split('\n').slice(1),
      'seed 0 is the run on screen, row for row');
    for (const r of rows) assert.equal(Number(r.mask_c), c, `seed ${r.seed} step ${r.step} trained with the live c`);
    const finalLoss = (s) => rows.filter((r) => r.seed === s).at(-1).loss;
    assert.notEqual(finalLoss('1'), finalLoss('0'), 'another seed is another run');

    // The engine's summary, checked by hand: the final test accuracy's median and range.
    const acc = ['0', '1', '2', '3', '4'].map((s) => Number(rows.filter((r) => r.seed === s).at(-1).test_acc)).sort((a, b) => a - b);
    const m = band.match(/final test accuracy: median ([\d.]+) \(range ([\d.]+)–([\d.]+)\)/);
    assert.ok(m, band);
    for (const [got, want] of [[m[1], acc[2]], [m[2], acc[0]], [m[3], acc[4]]]) assert.ok(Math.abs(Number(got) - want) <= 0.005, `${got} ≈ ${want}`);

    // The accuracy chart draws medians and bands: one filled polygon per solid curve.
    const svg = readFileSync((await download(page, () => page.click('#chart-acc ~ button[aria-label*="SVG"]'), 'share-seeds-acc.svg')).path, 'utf8');
    const drawn = await page.evaluate((s) => {
      const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
      return { polygons: doc.querySelectorAll('polygon').length, texts: [...doc.querySelectorAll('text')].map((x) => x.textContent.trim()) };
    }, svg);
    assert.equal(drawn.polygons, 2, 'test accuracy and first token have bands (the dashed train curve has none)');
    assert.ok(drawn.texts.includes('test accuracy (median)'), drawn.texts.join(' | '));

    // All figures: every chart of the chapter as drawn now, as SVG with its caption, in one HTML file.
    await page.click('details.more summary');
    const figFile = await download(page, () => page.click('#figures'), 'share-figures.html');
    assert.match(figFile.name, /^plateau-mws-figures-step20\.html$/);
    const html = readFileSync(figFile.path, 'utf8');
    // Read in Node (a parsed <style> in the page would trip its CSP); each SVG parses as XML in the page.
    const svgs = [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => m[0]);
    const figs = {
      figures: [...html.matchAll(/<figure id="([^"]+)">\n<svg[^>]*><title>([^<]*)<\/title>[\s\S]*?<figcaption>([\s\S]*?)<\/figcaption>/g)]
        .map((m) => ({ id: m[1], title: m[2], caption: m[3] })),
      intro: (html.match(/<p>(Chapter [\s\S]*?)<\/p>/) || [])[1] || '',
      svgsParse: await page.evaluate((list) => list.every((x) => !new DOMParser().parseFromString(x, 'image/svg+xml').querySelector('parsererror')), svgs),
    };
    assert.equal(svgs.length, figs.figures.length, 'one SVG per figure');
    const canvases = await page.$$eval('main figure canvas', (cs) => cs.filter((c) => !c.closest('[hidden]')).map((c) => c.id));
    assert.deepEqual(figs.figures.map((f) => f.id), canvases, 'one figure per chart of the chapter on screen, in page order');
    assert.equal(figs.figures[0].id, 'hero-loss', 'the hero figure first');
    assert.equal(figs.figures.find((f) => f.id === 'chart-loss')?.title, 'Loss');
    assert.ok(figs.figures.every((f) => f.caption.length > 20), 'every figure has its caption');
    assert.ok(figs.svgsParse, 'every SVG parses');
    assert.match(figs.intro, /at step 20 of 20\. Configuration: <code>\?v=4&amp;/);

    // One seed again: the band and its button go.
    await page.selectOption('#seeds', '1');
    await waitFn(page, () => document.querySelector('#band').hidden && document.querySelector('#seeds-csv').hidden);
    assert.ok(!(await page.evaluate(() => window.location.search)).includes('seeds='), 'seeds=1 is the default, not written');
  });
  const bad = await openPage('seeds-bad', { query: '?seeds=99&steps=4' });
  await bad.run(async () => {
    await finished(bad.page);
    assert.match(await text(bad.page, '#notices'), /Invalid seeds="99" \(allowed: 1 to 8\); training one seed\./);
    assert.equal(await bad.page.$eval('#band', (el) => el.hidden), true);
  });
});
