// @ts-check
// The page keys of the URL (`backend`, `hide`, `controls`, `autoplay`) and the address bar, which
// always holds the engine's query of the next reset's config plus these keys.
import { configQuery } from './pkg/plateau.js';
import { state } from './state.js';

/** The page-only keys to keep in the URL (see config::PAGE_KEYS). */
export function pageQuery() {
  const out = [];
  if (state.backendOverride) out.push(`backend=${state.backendOverride}`);
  if (state.page.hide.length) out.push(`hide=${state.page.hide.join(',')}`);
  if (state.page.controls) out.push(`controls=${state.page.controls.join(',')}`);
  if (!state.page.autoplay) out.push('autoplay=0');
  return out;
}

/** The query that reproduces the configuration on screen (written by the engine). */
export function shareQuery(cfg) {
  return [configQuery(cfg), ...pageQuery()].join('&');
}

/** Writes the configuration of the next reset into the address bar (no reload, no history entry). */
export function syncUrl() {
  try {
    window.history.replaceState(null, '', `${window.location.pathname}?${shareQuery(state.cfg)}`);
  } catch (err) { /* a sandboxed frame may refuse; the page works without it */ }
}

/** Applies `hide=` and `controls=` from the URL. */
export function applyPageFlags() {
  const hide = new Set(state.page.hide);
  const sel = { prose: '.intro, .about, .lede', nav: 'nav.chapters', controls: '#controls', status: '#status-panel > :not(#error)', maps: '.maps' };
  for (const [flag, css] of Object.entries(sel)) {
    for (const el of document.querySelectorAll(css)) el.classList.toggle('flag-hidden', hide.has(flag));
  }
  if (state.page.controls) {
    const keep = new Set(state.page.controls);
    for (const el of document.querySelectorAll('#controls .control')) {
      const input = el.querySelector('input, select');
      el.classList.toggle('flag-hidden', !(input && keep.has(input.id)));
    }
  }
  document.body.classList.toggle('embedded', hide.has('prose'));
}
