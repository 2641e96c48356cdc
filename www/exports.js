// @ts-check
// Downloads: CSV (from the worker), config JSON, snapshots JSON, chart PNGs; loading a config JSON;
// the embed code.
import { configJson, configQuery, parseConfigJson } from './pkg/plateau.js';
import { setControls } from './controls.js';
import { $, field, notice } from './dom.js';
import { pageQuery } from './pageflags.js';
import { startRun } from './protocol.js';
import { send, state } from './state.js';

/**
 * Saves `text` as a file named `name`.
 * @param {string} name @param {string} text @param {string} type the MIME type
 */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Wires the export buttons, the config loader, the embed code and a PNG button under every chart. */
export function wireExports() {
  $('csv').addEventListener('click', () => send({ type: 'csv' }));
  $('json').addEventListener('click', () => download(`plateau-${state.runCfg.experiment}-config.json`, configJson(state.runCfg), 'application/json'));
  $('snapjson').addEventListener('click', () => download(`plateau-${state.runCfg.experiment}-snapshots.json`,
    JSON.stringify({ config: state.runCfg, snapshots: state.snaps }), 'application/json'));
  $('load').addEventListener('change', async () => {
    const file = field('load').files[0];
    if (!file) return;
    try {
      const parsed = parseConfigJson(await file.text());
      parsed.notices.forEach(notice);
      state.cfg = parsed.config;
      setControls(state.cfg);
      startRun();
    } catch (err) {
      notice(`Could not load ${file.name}: ${err.message || err}`);
    }
    field('load').value = '';
  });
  $('embed').addEventListener('click', async () => {
    const url = new URL(window.location.href);
    url.search = `?${[configQuery(state.runCfg), 'hide=prose,nav', ...pageQuery().filter((p) => !p.startsWith('hide='))].join('&')}`;
    const code = `<iframe src="${url.href}" title="Plateau: a transformer training live" width="100%" height="900" loading="lazy" style="border:0"></iframe>`;
    field('embed-code').value = code;
    $('embed-box').hidden = false;
    try { await navigator.clipboard.writeText(code); $('embed').textContent = 'Copied'; setTimeout(() => { $('embed').textContent = 'Copy embed code'; }, 1500); }
    catch { field('embed-code').select(); }
  });
  for (const canvas of /** @type {NodeListOf<HTMLCanvasElement>} */ (document.querySelectorAll('figure canvas'))) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'png';
    b.textContent = 'PNG';
    b.setAttribute('aria-label', `Download this chart (${canvas.id}) as PNG`);
    b.addEventListener('click', () => canvas.toBlob((blob) => {
      if (!blob) { notice('This chart could not be exported.'); return; }
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `plateau-${canvas.id}-step${state.step}.png`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    }, 'image/png'));
    canvas.insertAdjacentElement('afterend', b);
  }
}
