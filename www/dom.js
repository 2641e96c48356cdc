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

// ---- updates in place ------------------------------------------------------------------
// A redraw changes only what changed: the same text set again, or a subtree built anew with the
// same content, still marks it for layout, and a rebuilt subtree has its text shaped again from
// scratch (the samples' 250 spans took 10–95 ms of main-thread layout per redraw while training).

/** Sets an element's text only when it differs. @param {Element} el @param {string} text */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** Hides or shows an element only when that changes. @param {HTMLElement} el @param {boolean} hidden */
export function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

/** Sets an element's class list only when it differs. @param {Element} el @param {string} cls */
export function setClass(el, cls) {
  if (el.className !== cls) el.className = cls;
}

/** Sets (or, with null, removes) an attribute only when it differs. @param {Element} el @param {string} name @param {string | null} value */
export function setAttr(el, name, value) {
  if (value === null) { if (el.hasAttribute(name)) el.removeAttribute(name); }
  else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/**
 * Makes `parent` hold exactly `n` element children, keeping the ones it has and appending ones
 * made by `make`; returns them in order.
 * @param {Element} parent @param {number} n @param {() => Element} make @returns {HTMLElement[]}
 */
export function keepChildren(parent, n, make) {
  while (parent.lastElementChild && parent.children.length > n) parent.lastElementChild.remove();
  while (parent.children.length < n) parent.append(make());
  return /** @type {HTMLElement[]} */ ([...parent.children]);
}

/**
 * Saves `text` (or bytes) as a file named `name`.
 * @param {string} name @param {string | Uint8Array<ArrayBuffer>} text @param {string} type the MIME type
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

/** What a thrown value says: an Error's message, anything else as text. @param {unknown} err */
export const errText = (err) => (err instanceof Error ? err.message : String(err));
