// @ts-check
// Why a run waits. It trains exactly when nothing holds it:
//   'user'       the reader paused it (or the URL said autoplay=0);
//   'hidden'     the tab is hidden;
//   'offscreen'  the figure is scrolled out of view (an embedded figure starts when it comes
//                into view and pauses when it leaves, so a long post trains what is read);
//   'other'      another figure of the host page is training: <plateau-figure> lets one figure
//                train at a time unless the author gives it the `concurrent` attribute.
// The page tells its host (window.parent) whether it would train if no other figure did; the host's
// coordinator (www/plateau-figure.js) answers 'go' or 'yield'. A page that is not in a
// <plateau-figure> never hears 'yield', so it trains as before.
import { $ } from './dom.js';
import { bandComplete } from './seeds.js';
import { send, state } from './state.js';

/** @typedef {'user' | 'hidden' | 'offscreen' | 'other'} Hold */

/** @type {Record<Hold, string>} */
const WHY = {
  user: '',
  hidden: 'waiting: the tab is hidden',
  offscreen: 'waiting until this figure is scrolled into view',
  other: 'waiting: another figure on this page is training (press Play to train this one)',
};

const embedded = window.parent !== window;

/** Tells the host page what this figure wants (no-op when not embedded). @param {object} msg */
function tellHost(msg) {
  if (embedded) window.parent.postMessage({ plateau: msg }, '*');
}

/**
 * Applies the holds: resumes or pauses the worker when their sum changed (or always, with
 * `force`), tells the host whether this figure would train, and says why it waits.
 * @param {boolean} [force]
 */
export function syncHolds(force = false) {
  const want = state.holds.size === 0;
  if (state.runCfg && (force || want !== state.wantRunning)) send({ type: want ? 'resume' : 'pause' });
  state.wantRunning = want;
  const ready = !state.runDone && [...state.holds].every((h) => h === 'other');
  if (ready !== state.readyForHost) {
    state.readyForHost = ready;
    tellHost({ wants: ready });
  }
  const why = [...state.holds].map((h) => WHY[h]).find(Boolean) || '';
  $('hold').textContent = why ? ` — ${why}` : '';
  // A figure held for another reason than the reader's pause says "waiting" at once, not
  // "training" while its worker finishes the chunk in hand.
  if (why && !state.mainDone && state.runCfg) $('run-state').textContent = 'waiting';
}

/** Adds a reason to wait. @param {Hold} h */
export function hold(h) {
  if (state.holds.has(h)) return;
  state.holds.add(h);
  syncHolds();
}

/** Removes a reason to wait. @param {Hold} h */
export function release(h) {
  if (!state.holds.delete(h)) return;
  syncHolds();
}

/** The reader pressed Play: this figure trains now, and the host pauses the others. */
export function playNow() {
  state.holds.delete('user');
  state.holds.delete('other');
  tellHost({ claim: true });
  syncHolds(true);
}

/** Watches the tab's visibility, the figure's place in the host's viewport and the host's word. */
export function watchHolds() {
  document.addEventListener('visibilitychange', () => (document.hidden ? hold('hidden') : release('hidden')));
  if (document.hidden) state.holds.add('hidden');
  if ('IntersectionObserver' in window) {
    // An embedded figure waits until the observer's first report says it is in view: the run may
    // start before that report comes (the worker starts early), and must not train a step first.
    if (embedded) state.holds.add('offscreen');
    // Inside an iframe the implicit root is the top-level viewport, so this sees the host's scroll.
    new IntersectionObserver((entries) => {
      const e = entries[entries.length - 1];
      if (e.isIntersecting) release('offscreen');
      else hold('offscreen');
    }).observe(document.body);
  }
  window.addEventListener('message', (e) => {
    if (!embedded || e.source !== window.parent || !e.data || typeof e.data !== 'object') return;
    if (e.data.plateau === 'yield') hold('other');
    else if (e.data.plateau === 'go') release('other');
    // The host gave the figure a fixed height: an only= figure lays its charts out for it.
    else if (e.data.plateau === 'fit') {
      document.body.classList.add('fit-height');
      document.dispatchEvent(new CustomEvent('plateau:fit')); // www/app.js lays the charts out
    }
  });
  // The host's frame follows this page's height (unless the author fixed it).
  if (embedded && 'ResizeObserver' in window) {
    let last = 0;
    new ResizeObserver(() => {
      const h = Math.ceil(document.body.getBoundingClientRect().height + 24);
      if (Math.abs(h - last) > 4) { last = h; tellHost({ height: h }); }
    }).observe(document.body);
  }
}

/** Whether anything trains: the run on screen's worker, or chapter 2's comparison run (which may
 * go on after the run on screen finished). The Play button, the run state and the training clock
 * (the seconds the verdicts are timed by) follow it. */
export function showRunning() {
  const c = state.companion;
  const running = state.workerRunning || (c.running && !c.done);
  const now = performance.now();
  if (running && state.runSince === null) state.runSince = now;
  if (!running && state.runSince !== null) { state.runMs += now - state.runSince; state.runSince = null; }
  state.running = running;
  $('play').textContent = running ? 'Pause' : 'Play';
  $('play').setAttribute('aria-pressed', running ? 'false' : 'true');
  if (!state.mainDone) {
    const waiting = [...state.holds].some((h) => h !== 'user');
    $('run-state').textContent = waiting ? 'waiting' : running ? 'training' : 'paused';
  }
}

/** The run is done when the run on screen, its seed band's runs and chapter 2's comparison run
 * have all stopped: the holds (and the host's coordinator) hear of it once. */
export function noteDone() {
  const done = state.mainDone && bandComplete() && state.companion.done;
  if (done !== state.runDone) { state.runDone = done; syncHolds(); }
}
