// @ts-check
// The page keys of the URL (`backend`, `hide`, `controls`, `autoplay`, `only`, `seeds`, `compare`:
// the engine's table of them, page::PAGE_KEYS, reads and writes them) and the address bar, which
// always holds the engine's query of the next reset's config plus these keys.
import { configQuery, pageQuery as pageKeys } from './pkg-view/plateau.js';
import { CHARTS } from './charts.js';
import { notice } from './dom.js';
import { chapterOf, state } from './state.js';

/**
 * The chart ids of `only=`: each canvas's id without its `chart-` prefix (`loss`, `map-att`, …),
 * and `samples` / `lm-samples` (chapters 1 and 4's generations), with their chapter.
 * @returns {{id: string, canvas: string | null, chapter: number}[]}
 */
export function chartIds() {
  return [
    ...CHARTS.flatMap((c) => c.canvases.map((canvas) => ({ id: canvas.replace(/^chart-/, ''), canvas, chapter: c.chapter }))),
    { id: 'samples', canvas: null, chapter: 1 },
    { id: 'lm-samples', canvas: null, chapter: 4 },
  ];
}

/** The ids `parsePage` checks `controls=` and `only=` against: every control's input (in the
 * settings panel and on the stage) and every chart id. */
export function pageIds() {
  return {
    controls: [...document.querySelectorAll('.control input, .control select')].map((el) => el.id),
    charts: [...new Set(chartIds().map((c) => c.id))],
  };
}

/** The page-only keys to keep in the URL, as the engine writes them (page::PAGE_KEYS).
 * @returns {string[]} */
export function pageQuery() {
  return pageKeys({ ...state.page, backend: state.backendOverride });
}

/** Writes the configuration of the next reset into the address bar (no reload, no history
 * entry); `query`, when given, is the engine's query of `state.cfg` (from `editConfig`).
 * @param {string} [query] */
export function syncUrl(query) {
  try {
    window.history.replaceState(null, '', `${window.location.pathname}?${[query ?? configQuery(state.cfg), ...pageQuery()].join('&')}`);
  } catch (err) { /* a sandboxed frame may refuse; the page works without it */ }
}

/** Applies `hide=`, `controls=` and `only=` from the URL. */
export function applyPageFlags() {
  const hide = new Set(state.page.hide);
  const sel = { prose: '.intro, .about, .lede', nav: 'nav.chapters', controls: '#controls, .stage-controls, .try', status: '#status-panel > :not(#error)', maps: '.maps' };
  for (const [flag, css] of Object.entries(sel)) {
    for (const el of document.querySelectorAll(css)) el.classList.toggle('flag-hidden', hide.has(flag));
  }
  if (state.page.controls) {
    const keep = new Set(state.page.controls);
    for (const el of document.querySelectorAll('#controls .control, #key-controls .control')) {
      const input = el.querySelector('input, select');
      el.classList.toggle('flag-hidden', !(input && keep.has(input.id)));
    }
  }
  // only=: just the listed charts of the run's chapter, large, with their captions.
  let only = state.page.only;
  if (only) {
    const listed = only;
    const chapter = chapterOf(state.cfg.experiment);
    if (!chartIds().some((c) => listed.includes(c.id) && c.chapter === chapter)) {
      notice(`only=${listed.join(',')} names no chart of chapter ${chapter}, which this figure shows; showing every chart.`);
      only = state.page.only = null;
    }
  }
  document.body.classList.toggle('only-charts', !!only);
  document.body.classList.toggle('embedded', hide.has('prose') || !!only);
  if (only) {
    const chapter = chapterOf(state.cfg.experiment);
    const ids = chartIds().filter((c) => only.includes(c.id) && c.chapter === chapter);
    for (const fig of document.querySelectorAll('main figure')) {
      const shown = ids.some((c) => (c.canvas ? fig.querySelector(`#${c.canvas}`) : fig.classList.contains('samples-fig')));
      fig.classList.toggle('flag-hidden', !shown);
    }
    for (const sec of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('main .charts, main .maps'))) {
      sec.classList.toggle('flag-hidden', !sec.querySelector('figure:not(.flag-hidden)'));
    }
    onlyRows();
  }
}

/**
 * Lays an `only=` figure of fixed height out (the host gave its frame a height: body.fit-height):
 * its charts share the height the captions, the status line and Play leave, one row per chart
 * below 980 px, two charts a row above (CSS `--fit-h`, each canvas's height).
 */
export function onlyRows() {
  if (!document.body.classList.contains('fit-height')) return;
  const canvases = /** @type {HTMLCanvasElement[]} */ ([...document.querySelectorAll('main figure:not(.flag-hidden):not([hidden]) canvas')]);
  if (!canvases.length) return;
  const cols = window.innerWidth >= 980 ? 2 : 1;
  const rows = Math.ceil(canvases.length / cols);
  const now = canvases[0].getBoundingClientRect().height;
  const style = getComputedStyle(document.body);
  const used = document.body.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
  const overhead = used - rows * now;
  const h = Math.max(100, Math.floor((window.innerHeight - overhead - 6) / rows));
  document.body.style.setProperty('--fit-h', `${h}px`);
}
