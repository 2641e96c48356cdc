// Development helper (not a test): screenshots of a chapter after N seconds of training.
// Usage: node tests/e2e/shot.mjs "?experiment=anchors" 20 /tmp/out.png [width] [css selector]
import { startServer, launch } from './helpers.mjs';

const [query = '', secs = '10', out = '/tmp/plateau.png', width = '1280', selector = ''] = process.argv.slice(2);
const server = await startServer();
const browser = await launch();
const page = await browser.newPage({ viewport: { width: Number(width), height: 900 } });
const errors = [];
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto(server.url + query);
await page.waitForTimeout(Number(secs) * 1000);
const state = await page.evaluate(() => ({
  step: document.getElementById('step').textContent,
  run: document.getElementById('run-state').textContent,
  error: document.getElementById('error').textContent,
  notices: document.getElementById('notices').textContent,
}));
console.log(JSON.stringify(state), errors.join('\n'));
if (selector) await page.locator(selector).first().screenshot({ path: out });
else await page.screenshot({ path: out, fullPage: true });
await browser.close();
await server.close();
