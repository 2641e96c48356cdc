// @ts-check
// The page's DOM helpers: element lookup, the palette, the user's media preferences, errors and notices.

/**
 * The element with this id (the page's markup has every id the modules ask for).
 * @param {string} id
 * @returns {HTMLElement}
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * The input (or select, or textarea) with this id.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export const field = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * The canvas with this id.
 * @param {string} id
 * @returns {HTMLCanvasElement}
 */
export const canvasById = (id) => /** @type {HTMLCanvasElement} */ (document.getElementById(id));

// Okabe–Ito colour-blind-safe palette.
export const C = { blue: '#0072B2', orange: '#E69F00', green: '#009E73', verm: '#D55E00', purple: '#CC79A7', sky: '#56B4E9', grey: '#8a8f98' };

export const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

export const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');

/** Shows a fatal error in place of the status line. @param {string} message */
export function showError(message) {
  const el = $('error');
  el.textContent = message;
  el.hidden = false;
  $('boot').hidden = true;
  $('run-state').textContent = 'stopped';
}

/** Adds a notice (a value replaced, a fallback taken) to the list under the status. @param {string} message */
export function notice(message) {
  const li = document.createElement('li');
  li.textContent = message;
  $('notices').append(li);
}
