// one-off (not committed): chapter 3's time to the verb-loss drop, as bench/browser.mjs measures it
import { startServer, launch } from './helpers.mjs';
const [query = '?experiment=syntax', out = '/tmp/m/ch3.png'] = process.argv.slice(2);
const server = await startServer();
const browser = await launch();
const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const errors = [];
p.on('pageerror', (e) => errors.push(String(e)));
p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
const t0 = Date.now();
await p.goto(server.url + query, { waitUntil: 'load' });
await p.waitForFunction(() => (window.plateauSyntax && window.plateauSyntax.drop && window.plateauSyntax.subject) || /finished|diverged/.test(document.querySelector('#run-state').textContent), null, { timeout: 900_000, polling: 250 });
const r = await p.evaluate(() => ({ s: window.plateauSyntax, status: document.querySelector('.statusline').textContent.replace(/\s+/g, ' '), rate: document.getElementById('rate').textContent }));
console.log(JSON.stringify(r), 'wall', (Date.now() - t0) / 1000, errors.join('\n'));
await p.waitForTimeout(3000);
await p.screenshot({ path: out, fullPage: true });
await browser.close();
await server.close();
