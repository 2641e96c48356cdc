// Development helper (not a test): the first screen of every chapter at 1280 × 800 and 390 × 844
// after SECS seconds of training, as a reader sees it (the viewport, not the whole page).
// Usage: node tests/e2e/firstscreens.mjs [SECS] [OUT_DIR]
import { startServer, launch } from './helpers.mjs';

const [secs = '12', out = 'artifacts'] = process.argv.slice(2);
const server = await startServer();
const browser = await launch();
for (const [size, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
  for (const [n, experiment] of [[1, 'mws'], [2, 'anchors'], [3, 'syntax'], [4, 'lm']]) {
    const page = await browser.newPage({ viewport });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${server.url}?experiment=${experiment}`);
    await page.waitForTimeout(Number(secs) * 1000);
    const step = await page.evaluate(() => document.getElementById('step').textContent);
    await page.screenshot({ path: `${out}/first-ch${n}-${size}.png` });
    console.log(`chapter ${n} ${size}: step ${step}${errors.length ? ` errors: ${errors.join(' | ')}` : ''}`);
    await page.close();
  }
}
await browser.close();
await server.close();
