// @ts-check
// Downloads: CSV (from the worker), config JSON, snapshots JSON, chart PNGs; loading a config JSON;
// the embed code.
import { configJson, configQuery, parseConfigJson } from './pkg-view/plateau.js';
import { chartAsSvg } from './charts.js';
import { setControls } from './controls.js';
import { $, download, errText, field, notice } from './dom.js';
import { chartIds, pageQuery } from './pageflags.js';
import { runCsv, startRun } from './protocol.js';
import { chapter, chapterInfo, runConfig, send, state } from './state.js';

/** Wires the export buttons, the config loader, the embed code and a PNG button under every chart. */
export function wireExports() {
  $('csv').addEventListener('click', () => {
    if (!state.runCfg || !state.rows.length) { notice('No rows yet.'); return; }
    download(chapterInfo(chapter()).csv, runCsv(), 'text/csv');
  });
  $('figures').addEventListener('click', () => {
    const { html, count } = allFiguresHtml();
    if (!count) { notice('No chart has been drawn yet.'); return; }
    download(`plateau-${runConfig().experiment}-figures-step${state.step}.html`, html, 'text/html');
  });
  $('json').addEventListener('click', () => download(`plateau-${runConfig().experiment}-config.json`, configJson(runConfig()), 'application/json'));
  $('snapjson').addEventListener('click', () => download(`plateau-${runConfig().experiment}-snapshots.json`,
    JSON.stringify({ config: runConfig(), snapshots: state.snaps }), 'application/json'));
  $('load').addEventListener('change', async () => {
    const file = field('load').files?.[0];
    if (!file) return;
    try {
      const parsed = parseConfigJson(await file.text());
      parsed.notices.forEach(notice);
      state.cfg = parsed.config;
      setControls(state.cfg);
      startRun();
    } catch (err) {
      notice(`Could not load ${file.name}: ${errText(err)}`);
    }
    field('load').value = '';
  });
  // A trained model: the worker writes the run (config, step, weights, optimizer state, rows) as
  // one file, and reads one back to continue its run on either backend.
  $('save-model').addEventListener('click', () => {
    if (!state.runCfg) { notice('No run to save yet.'); return; }
    send({ type: 'save' });
  });
  $('load-model').addEventListener('change', async () => {
    const file = field('load-model').files?.[0];
    field('load-model').value = '';
    if (!file) return;
    state.pendingModel = { bytes: new Uint8Array(await file.arrayBuffer()), name: file.name };
    send({ type: 'inspect', bytes: state.pendingModel.bytes });
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
      const svg = titledSvg(canvas);
      if (!svg) { notice('This chart has not been drawn yet.'); return; }
      download(`plateau-${canvas.id}-step${state.step}.svg`, svg, 'image/svg+xml');
    });
    b.insertAdjacentElement('afterend', v);
  }
}

/** Escapes text for HTML and SVG. @param {string} t */
const esc = (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A figure's title: its caption's bold lead, without the full stop. @param {HTMLCanvasElement} canvas */
const chartTitle = (canvas) => canvas.closest('figure')?.querySelector('figcaption strong')?.textContent?.replace(/\.$/, '') || canvas.getAttribute('aria-label') || canvas.id;

/** The chart on `canvas` as an SVG document with the figure's title as its <title>, or null before it was drawn. @param {HTMLCanvasElement} canvas */
function titledSvg(canvas) {
  const drawn = chartAsSvg(canvas);
  return drawn ? drawn.replace(/<svg([^>]*)>/, `<svg$1><title>${esc(chartTitle(canvas))}</title>`) : null;
}

/**
 * Every chart of the chapter on screen, as drawn now (the snapshot the scrubber shows), in one
 * self-contained HTML file: each chart's SVG (the engine's chart code), its caption and its summary,
 * under the configuration that reproduces the run. Printing it or saving it keeps the vectors.
 * @returns {{html: string, count: number}}
 */
export function allFiguresHtml() {
  const figures = [];
  for (const canvas of /** @type {NodeListOf<HTMLCanvasElement>} */ (document.querySelectorAll('main figure canvas'))) {
    if (canvas.closest('[hidden]') || canvas.closest('.flag-hidden')) continue;
    const svg = titledSvg(canvas);
    if (!svg) continue;
    const fig = canvas.closest('figure');
    const caption = fig?.querySelector('figcaption')?.textContent?.replace(/\s+/g, ' ').trim() || '';
    const summary = fig?.querySelector('.summary')?.textContent?.trim() || '';
    figures.push(`<figure id="${esc(canvas.id)}">\n${svg}\n<figcaption>${esc(caption)}${summary ? `<br><small>${esc(summary)}</small>` : ''}</figcaption>\n</figure>`);
  }
  const query = configQuery(state.runCfg);
  const band = $('band').hidden ? '' : `<p>${esc($('band').textContent)}</p>\n`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plateau figures — ${esc(runConfig().experiment)}, step ${state.step}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:1000px;margin:24px auto;padding:0 16px}figure{margin:0 0 28px;break-inside:avoid}svg{max-width:100%;height:auto;border:1px solid #ddd}figcaption{margin-top:6px}</style>
</head><body>
<h1>Plateau figures</h1>
<p>Chapter ${chapter()}, ${figures.length} charts at step ${state.step} of ${state.steps}. Configuration: <code>?${esc(query)}</code> (open the page with it, or pass its keys to <code>plateau run</code> as flags).</p>
${band}${figures.join('\n')}
</body></html>
`;
  return { html, count: figures.length };
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
