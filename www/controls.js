// @ts-check
// The parameter controls, built from the engine's schema (`paramSchema()`, the `control` entries
// of `config::PARAMS`): label, help, widget, chapters, range, scale and whether a change applies
// live all come from that one table, so a control's range is always its key's range. Values go
// through the engine (`editConfig`) before they are kept: a value the engine rejects never stays
// in the page or the URL; the engine's safe value is shown instead, with its notice.

import { editConfig } from './pkg-view/plateau.js';
import { $, notice } from './dom.js';
import { syncUrl } from './pageflags.js';
import { chapterOf, send, state } from './state.js';

/**
 * @typedef {{type: 'slider', step: number, digits: number, snap: number | null, snap_label: string, sides: [string, string]}
 *   | {type: 'number'}
 *   | {type: 'select', options: [string, string][]}} Widget
 * @typedef {{label: string, help: string, chapters: number[], widget: Widget}} Control
 * @typedef {{key: string, doc: string, kind: 'int' | 'float' | 'choice', min: number, max: number,
 *   log: boolean, choices: string[], live: boolean, chapters: number[], control: Control | null}} Param
 */


/** Decimal places of a step (0.005 → 3). @param {number} step */
const decimals = (step) => Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));

/**
 * The parameters that have a control, in page order: each chapter's own first (those of one
 * chapter, then those of several), then the shared ones that apply live, then the shared ones that
 * apply at reset (schema order within each; the schema lists the common keys before the chapters').
 * @param {Param[]} schema
 * @returns {Param[]}
 */
export function controlled(schema) {
  const rank = (/** @type {Param} */ p) => {
    const n = /** @type {Control} */ (p.control).chapters.length;
    return n === 1 ? 0 : n > 1 ? 1 : p.live ? 2 : 3;
  };
  return schema.filter((p) => p.control).map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i).map((x) => x.p);
}

/**
 * The slider position of a value (log₁₀ for a log range).
 * @param {Param} p @param {number} value
 */
export function toSlider(p, value) {
  return p.log ? Math.log10(value) : value;
}

/**
 * The value at a slider position: 10^position for a log range (with the widget's significant
 * digits), the position rounded to the step otherwise; the snap value within 2.5 steps of it.
 * @param {Param} p @param {number} position
 */
export function fromSlider(p, position) {
  const w = /** @type {Extract<Widget, {type: 'slider'}>} */ (/** @type {Control} */ (p.control).widget);
  if (w.snap !== null && Math.abs(position - toSlider(p, w.snap)) < 2.5 * w.step) return w.snap;
  if (p.log) return Number(Math.pow(10, position).toPrecision(w.digits));
  return Number(position.toFixed(decimals(w.step)));
}

/**
 * The text shown beside a slider.
 * @param {Param} p @param {number} value
 */
export function showValue(p, value) {
  const w = /** @type {Extract<Widget, {type: 'slider'}>} */ (/** @type {Control} */ (p.control).widget);
  if (w.snap !== null && value === w.snap && w.snap_label) return w.snap_label;
  return p.log ? Number(value.toPrecision(w.digits)).toString() : String(value);
}

/**
 * Builds every control into `container` (before `before`, when given), with ids equal to the
 * keys (`#c`, `#c-out`, `#c-help`).
 * @param {Param[]} schema @param {HTMLElement} container @param {Element | null} before
 */
export function buildControls(schema, container, before) {
  for (const p of controlled(schema)) {
    const c = /** @type {Control} */ (p.control);
    const box = document.createElement('div');
    box.className = 'control';
    if (c.chapters.length === 1) {
      box.dataset.chapter = String(c.chapters[0]);
      box.hidden = true;
    } else if (c.chapters.length) {
      box.dataset.chapters = c.chapters.join(' ');
      box.hidden = true;
    }
    const label = document.createElement('label');
    label.htmlFor = p.key;
    label.textContent = c.label;
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    if (c.widget.type === 'select') {
      const sel = document.createElement('select');
      for (const [value, text] of c.widget.options) sel.add(new Option(text, value));
      input = sel;
    } else {
      const inp = document.createElement('input');
      if (c.widget.type === 'slider') {
        inp.type = 'range';
        inp.min = String(toSlider(p, p.min));
        inp.max = String(toSlider(p, p.max));
        inp.step = String(c.widget.step);
        const out = document.createElement('output');
        out.id = `${p.key}-out`;
        out.htmlFor.add(p.key);
        label.append(' ', out);
      } else {
        inp.type = 'number';
        inp.min = String(p.min);
        inp.max = String(p.max);
        inp.step = '1';
      }
      input = inp;
    }
    input.id = p.key;
    input.setAttribute('aria-describedby', `${p.key}-help`);
    const help = document.createElement('p');
    help.id = `${p.key}-help`;
    help.className = 'help';
    help.textContent = `${c.help} ${p.live ? 'Applies live.' : 'Applies at reset.'}`;
    box.append(label, input);
    // What a slider's two ends do, under them ("← promote the head", "suppress it →").
    if (c.widget.type === 'slider' && (c.widget.sides || ['', '']).some(Boolean)) {
      const [left, right] = c.widget.sides;
      const row = document.createElement('span');
      row.className = 'sides';
      row.setAttribute('aria-hidden', 'true'); // the help says the same in words
      row.append(Object.assign(document.createElement('span'), { textContent: left }), Object.assign(document.createElement('span'), { textContent: right }));
      box.append(row);
    }
    box.append(help);
    container.insertBefore(box, before);
  }
}

/**
 * Shows `value` in the control of `p`.
 * @param {Param} p @param {unknown} value
 */
export function setControl(p, value) {
  const el = /** @type {HTMLInputElement | HTMLSelectElement} */ ($(p.key));
  const w = /** @type {Control} */ (p.control).widget;
  if (w.type === 'slider') {
    el.value = String(toSlider(p, Number(value)));
    $(`${p.key}-out`).textContent = showValue(p, Number(value));
  } else if (w.type === 'select') {
    const sel = /** @type {HTMLSelectElement} */ (el);
    const match = (/** @type {HTMLOptionElement} */ o) => (p.kind === 'float' ? Number(o.value) === Number(value) : o.value === String(value));
    if (![...sel.options].some(match)) {
      // A URL or config file may ask for a value the list does not offer: show it as its own option.
      const text = p.key === 'memory' ? `reasoning + memory anchors (${Math.round(100 * Number(value))} % memory)` : String(value);
      sel.add(new Option(text, String(value)));
    }
    sel.value = /** @type {HTMLOptionElement} */ ([...sel.options].find(match)).value;
  } else {
    el.value = String(value);
  }
}

/**
 * The value the control of `p` shows now (as the engine's query syntax reads it).
 * @param {Param} p
 * @returns {string}
 */
export function readControl(p) {
  const el = /** @type {HTMLInputElement | HTMLSelectElement} */ ($(p.key));
  const w = /** @type {Control} */ (p.control).widget;
  if (w.type === 'slider') return String(fromSlider(p, Number(el.value)));
  return el.value;
}

// ---- the page's config and the controls --------------------------------------------------

/** Shows `cfg` in every control (the task select only for the tasks of the chapters it shows). */
/** @param {import('./state.js').Config} cfg */
export function setControls(cfg) {
  for (const p of controlled(state.schema)) {
    if (p.key === 'experiment' && !p.control?.chapters.includes(chapterOf(cfg.experiment))) continue;
    setControl(p, cfg[p.key]);
  }
}

/**
 * A control moved: the engine sets the new value in the context of the whole config, in one call
 * (`editConfig`: a value it rejects is replaced by its safe value, with a notice; a preset keeps
 * only the chapter and the seed), the control shows the value kept, and it applies live or marks
 * Reset pending, as the schema says. @param {Param} p
 */
export function changeParam(p) {
  const edited = editConfig(state.cfg, p.key, readControl(p));
  edited.notices.forEach(notice);
  state.cfg = edited.config;
  if (p.key === 'preset') {
    setControls(state.cfg);
    markPending(true, edited.query);
    return;
  }
  const value = state.cfg[p.key];
  setControl(p, value);
  if (p.live) setLive(p.key, value, edited.query);
  else markPending(true, edited.query);
}

/** Marks Reset as pending (or not); when on, the address bar takes the next reset's config
 * (`query`: the engine's query of `state.cfg`, when the caller has it).
 * @param {boolean} on @param {string} [query] */
export function markPending(on, query) {
  $('reset').classList.toggle('pending', on);
  $('reset').textContent = on ? 'Reset to apply' : 'Reset';
  if (on) syncUrl(query);
}

/** A live key's new value goes to the run on screen (and its worker) as well as the next reset's
 * config. @param {string} key @param {unknown} value @param {string} [query] */
export function setLive(key, value, query) {
  state.cfg[key] = value;
  if (state.runCfg) state.runCfg[key] = value;
  send({ type: 'set', key, value: String(value) });
  syncUrl(query);
}
