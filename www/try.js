// @ts-check
// "Try this": each chapter's one-click steps (its module's `tries`), each a link to its
// configuration, so a lecturer can link to "chapter 1, step 2" and back/forward walk the steps. A
// step sets the configuration, resets and plays; under it, what the runs measured by the
// command-line tool at that configuration show (the engine's `measuredOutcome` on
// www/measured.json), or that none were measured. The step's own sentence says only what to look
// for: every number under it comes from the measured runs.
import { companionSteps, configQuery, editConfig, measuredOutcome, pageQuery as pageKeys, parsePage, parseQuery, readUrl } from './pkg-view/plateau.js';
import { chapterView, chapterViews, scheduleDraw } from './charts.js';
import { setControls } from './controls.js';
import { $, notice, setAttr } from './dom.js';
import { playNow } from './holds.js';
import { groupsOf } from './hero.js';
import { applyPageFlags, pageIds } from './pageflags.js';
import { startRun } from './protocol.js';
import { chapter, state } from './state.js';

/**
 * A step: the config keys it sets (on the chapter's defaults), chapter 2's comparison γ and its
 * steps (`compare-steps`, when not auto), what to look for (one sentence, no numbers).
 * @typedef {{set: Record<string, string>, compare?: string, compareSteps?: string, look: string}} Step
 */

/** The config a step sets: its chapter's defaults with its keys. @param {Step} step */
function stepConfig(step) {
  let cfg = parseQuery(`?experiment=${step.set.experiment}`).config;
  for (const [k, v] of Object.entries(step.set)) if (k !== 'experiment') cfg = editConfig(cfg, k, v).config;
  return cfg;
}

/** The compare view's page keys as the engine writes them (the defaults left out), for
 * `compare` (a γ or null) and `compareSteps` (null: auto, 0: same, or a number).
 * @param {number | null} compare @param {number | null} compareSteps */
const comparePage = (compare, compareSteps) => {
  const { backend: _b, ...defaults } = parsePage('', [], []).flags;
  return pageKeys({ ...defaults, backend: '', compare, compare_steps: compareSteps });
};

/** The page keys of a step (`compare=`, `compare-steps=`). @param {Step} step */
const stepPage = (step) => (step.compare
  ? comparePage(Number(step.compare), step.compareSteps === 'same' ? 0 : step.compareSteps ? Number(step.compareSteps) : null)
  : []);

/** The step's URL query (the engine's query of its config, and its page keys). @param {Step} step */
export function stepQuery(step) {
  return [configQuery(stepConfig(step)), ...stepPage(step)].join('&');
}

/** What the measured runs at a config show, in one line (or that none were measured). @param {any} cfg */
function outcomeOf(cfg) {
  const g = groupsOf(cfg)[0];
  if (!g) return null;
  try {
    return measuredOutcome(g);
  } catch (err) {
    return null;
  }
}

/** The outcome line of a step (both runs' in chapter 2's compare view). @param {Step} step */
function stepOutcome(step) {
  const cfg = stepConfig(step);
  const mine = outcomeOf(cfg);
  if (!step.compare) return mine || 'Not measured at this configuration yet.';
  // The comparison trains to its own budget: the one the step's link gives it (the default).
  const steps = companionSteps(cfg, parsePage(`?${stepQuery(step)}`, [], []).flags.compare_steps ?? undefined);
  const other = outcomeOf({ ...cfg, gamma: Number(step.compare), steps });
  return `γ ${cfg.gamma}: ${mine || 'not measured'}; γ ${step.compare}: ${other || 'not measured'}.`;
}

/** Builds the chapter's steps into the stage's list (again when the measured runs arrive). */
export function drawTries() {
  const list = $('try-list');
  const steps = chapterView(chapter()).tries || [];
  list.replaceChildren(...steps.map((step, i) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `?${stepQuery(step)}`;
    a.id = `try-${i + 1}`;
    a.textContent = step.look;
    a.addEventListener('click', (e) => {
      e.preventDefault();
      try { window.history.pushState(null, '', a.href); } catch (err) { /* a sandboxed frame */ }
      applyQuery(window.location.search);
    });
    const out = document.createElement('span');
    out.className = 'outcome';
    out.textContent = stepOutcome(step);
    li.append(a, out);
    return li;
  }));
  markCurrent();
  $('try-list').closest('nav')?.toggleAttribute('hidden', steps.length === 0);
}

/** Marks the step whose configuration is the one on screen. */
export function markCurrent() {
  const steps = chapterView(chapter()).tries || [];
  const cfg = state.runCfg || state.cfg;
  const now = cfg ? [configQuery(cfg), ...comparePage(state.page.compare, state.page.compare_steps ?? null)] : [];
  steps.forEach((step, i) => {
    const a = document.getElementById(`try-${i + 1}`);
    if (!a) return;
    const q = [configQuery(stepConfig(step)), ...stepPage(step)];
    const on = q[0] === now[0] && (!step.compare || q.slice(1).join('&') === now.slice(1).join('&'));
    setAttr(a, 'aria-current', on ? 'step' : null);
  });
}

/** Reads a URL's query as the page does at load (config, page keys), resets and plays: a step's
 * link, or back/forward to one. @param {string} search */
export function applyQuery(search) {
  const { controls, charts } = pageIds();
  const url = readUrl(search, controls, charts);
  url.notices.forEach(notice);
  const { backend: _backend, ...flags } = url.page; // the backend stays the one this page chose
  state.page = flags;
  state.cfg = url.config;
  for (const v of chapterViews()) v.showPageKeys?.();
  applyPageFlags();
  setControls(state.cfg);
  startRun(); // its chapter event redraws the steps
  playNow();
  scheduleDraw(true);
}

/** Back and forward walk the steps (and any earlier URL of this page). */
export function watchHistory() {
  window.addEventListener('popstate', () => applyQuery(window.location.search));
}
