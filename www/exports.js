// @ts-check
// Downloads: CSV (from the worker), config JSON, snapshots JSON, chart PNGs; loading a config JSON;
// the embed code.
import { configJson, configQuery, parseConfigJson } from './pkg/plateau.js';
import { chartAsSvg } from './charts.js';
import { setControls } from './controls.js';
import { $, field, notice } from './dom.js';
import { chartIds, pageQuery } from './pageflags.js';
import { startRun } from './protocol.js';
import { chapter, send, state } from './state.js';

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
    const code = embedCode();
    buildOnlyChoices();
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
    const v = document.createElement('button');
    v.type = 'button';
    v.className = 'png';
    v.textContent = 'SVG';
    v.setAttribute('aria-label', `Download this chart (${canvas.id}) as SVG (vector, for papers and slides)`);
    v.addEventListener('click', () => {
      const drawn = chartAsSvg(canvas);
      if (!drawn) { notice('This chart has not been drawn yet.'); return; }
      // The figure's title (its caption's bold lead) as the SVG's <title>.
      const title = canvas.closest('figure')?.querySelector('figcaption strong')?.textContent?.replace(/\.$/, '') || canvas.id;
      const esc = title.replace(/&/g, '&amp;').replace(/</g, '&lt;');
      const svg = drawn.replace(/<svg([^>]*)>/, `<svg$1><title>${esc}</title>`);
      download(`plateau-${canvas.id}-step${state.step}.svg`, svg, 'image/svg+xml');
    });
    b.insertAdjacentElement('afterend', v);
  }
}

/** The charts ticked under the embed code (`only=`), none for the whole figure. */
function onlyChosen() {
  return [.../** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('#embed-only input:checked'))].map((b) => b.value);
}

/** The <iframe> code for the run on screen, with `only=` when charts are ticked. */
function embedCode() {
  const url = new URL(window.location.href);
  const only = onlyChosen();
  const page = pageQuery().filter((p) => !p.startsWith('hide=') && !p.startsWith('only='));
  url.search = `?${[configQuery(state.runCfg), 'hide=prose,nav', ...page, ...(only.length ? [`only=${only.join(',')}`] : [])].join('&')}`;
  const height = only.length ? 560 : 900;
  return `<iframe src="${url.href}" title="Plateau: a transformer training live" width="100%" height="${height}" loading="lazy" style="border:0"></iframe>`;
}

/** One checkbox per chart of the chapter on screen (its caption's title), for a one-figure embed. */
function buildOnlyChoices() {
  const box = $('embed-only');
  const ids = chartIds().filter((c) => c.chapter === chapter());
  if (box.dataset.chapter === String(chapter())) return;
  box.dataset.chapter = String(chapter());
  const legend = document.createElement('legend');
  legend.textContent = 'Only these charts (a slide or a blog figure; none: the whole figure)';
  const items = ids.map((c) => {
    const fig = c.canvas ? $(c.canvas).closest('figure') : document.querySelector('.samples-fig');
    const title = fig?.querySelector('figcaption strong')?.textContent?.replace(/\.$/, '') || c.id;
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.value = c.id;
    input.addEventListener('change', () => { field('embed-code').value = embedCode(); });
    label.append(input, ` ${title} (${c.id})`);
    return label;
  });
  box.replaceChildren(legend, ...items);
}
