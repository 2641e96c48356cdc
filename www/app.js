// @ts-check
// The page: boot (the engine, the URL, the controls, the worker) and the wiring of its buttons.
// No metric is computed in the page: rows and snapshots come from the engine; the modules only
// route them to the drawing functions and the DOM.
import init, { chapterList, editConfig, paramSchema, readUrl, runHeadline } from './pkg-view/plateau.js';
import { chapterViews, registerChapters, redrawOnResize, scheduleDraw, warmUp } from './charts.js';
import { buildControls, changeParam, controlled, setControls } from './controls.js';
import { $, darkScheme, download, errText, field, notice, showError } from './dom.js';
import { wireExports } from './exports.js';
import { wireTerms } from './terms.js';
import { hold, playNow, watchHolds } from './holds.js';
import { applyPageFlags, onlyRows, pageIds } from './pageflags.js';
import { setSeeds, showChapter, startOver, startRun, startWorker, updateRate } from './protocol.js';
import { seedsCsvText } from './seeds.js';
import { chapter, chapterOf, runConfig, send, state } from './state.js';
import { loadMeasured } from './measured.js';
import { drawTries, watchHistory } from './try.js';
import { chapterView } from './charts.js';

window.addEventListener('error', (e) => showError(`Something went wrong: ${e.message}`));

window.addEventListener('unhandledrejection', (e) => showError(`Something went wrong: ${e.reason && e.reason.message ? e.reason.message : e.reason}`));

/** Wires the buttons, the controls built from the schema, the chapter buttons and the scrubber. */
function wireControls() {
  $('play').addEventListener('click', () => (state.running ? hold('user') : playNow()));
  $('stepbtn').addEventListener('click', () => { hold('user'); send({ type: 'step' }); });
  $('reset').addEventListener('click', () => startRun());
  $('start-over').addEventListener('click', () => startOver());
  wireTerms();
  for (const p of controlled(state.schema)) {
    $(p.key).addEventListener(p.control?.widget.type === 'slider' ? 'input' : 'change', () => changeParam(p));
  }
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.chapter'))) {
    b.addEventListener('click', () => {
      if (chapterOf(b.dataset.experiment ?? '') === chapter() && state.runCfg) return;
      state.cfg = editConfig(state.cfg, 'experiment', b.dataset.experiment ?? '').config;
      setControls(state.cfg);
      startRun();
    });
  }
  $('scrub').addEventListener('input', () => {
    const i = Number(field('scrub').value);
    // The right end as drawn means "live", even when snapshots arrived since the last draw;
    // the left end always means the first snapshot.
    const max = Number(field('scrub').max);
    state.scrub = (i > 0 && i >= max) || state.snaps.length <= 1 ? null : i;
    scheduleDraw(true);
  });
  $('pin').addEventListener('click', () => {
    if (state.pinned) { state.pinned = null; }
    else if (state.rows.length) {
      const cfg = runConfig();
      state.pinned = { cfg: { ...cfg }, rows: state.rows.slice(), headline: runHeadline(cfg.experiment, state.rows) };
    }
    $('pin').setAttribute('aria-pressed', String(!!state.pinned));
    $('pin').textContent = state.pinned ? 'Unpin' : 'Pin for comparison';
    scheduleDraw(true);
  });
  $('seeds').addEventListener('change', () => setSeeds(Number(field('seeds').value)));
  $('lm-logx').addEventListener('change', () => scheduleDraw(true));
  $('seeds-csv').addEventListener('click', () => download(`plateau-${runConfig().experiment}-seeds.csv`, seedsCsvText(), 'text/csv'));
  wireExports();
  watchHolds();
  darkScheme.addEventListener('change', () => scheduleDraw(true));
  window.addEventListener('resize', () => { onlyRows(); scheduleDraw(true); }); // a new device pixel ratio, too
  redrawOnResize();
}

// Fault injection for the end-to-end tests: window.plateauTest('diverge' | 'panic' | 'device-loss' |
// 'shard-panic'), told to the worker; 'worker-error' fires the error event a failed worker gives.
window.plateauTest = (what) => {
  if (what === 'worker-error') state.worker?.dispatchEvent(new ErrorEvent('error', { message: 'test hook: the worker failed' }));
  else send({ type: 'test', what });
};

// Longest main-thread task seen (Long Tasks API), and the longest drawing job's own script time,
// for the end-to-end test, the bench and the curious.
window.plateauLongestTaskMs = 0;

window.plateauLongestDrawMs = 0;

if ('PerformanceObserver' in window && PerformanceObserver.supportedEntryTypes && PerformanceObserver.supportedEntryTypes.includes('longtask')) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.plateauLongestTaskMs = Math.max(window.plateauLongestTaskMs, e.duration);
  }).observe({ type: 'longtask', buffered: true });
}

/**
 * Moves each chapter's key controls (its page module's `keys`: chapter 1's c, chapter 2's two
 * init scales, …) from the settings panel onto the stage, beside the hero figure, and shortens
 * every control's help to one line that opens on a click (or Enter).
 */
function placeKeyControls() {
  const stage = $('key-controls');
  for (const n of state.chapters.map((c) => c.number)) {
    for (const key of chapterView(n).keys || []) {
      const el = document.getElementById(key);
      const box = /** @type {HTMLElement | null} */ (el && (el.closest('.control') || el.closest('label')));
      if (box) {
        if (!box.closest('.control') && !box.dataset.chapter) box.dataset.chapter = String(n);
        stage.append(box);
      }
    }
  }
}

// ---- boot ------------------------------------------------------------------------------

async function boot() {
  try {
    await init();
  } catch (err) {
    showError(`The WebAssembly engine failed to load (${errText(err)}). This page needs a browser with WebAssembly support; try reloading.`);
    return;
  }
  state.chapters = chapterList();
  try {
    // Each chapter's page module, named by the engine's chapter list; a missing one stops the page
    // with a message naming the file.
    const modules = await Promise.all(state.chapters.map((c) => import(`./chapters/${c.alias}.js`).catch((e) => {
      throw new Error(`chapter ${c.number}'s page module www/chapters/${c.alias}.js did not load (${errText(e)})`);
    })));
    registerChapters(state.chapters, modules);
  } catch (err) {
    showError(`The page is missing a part: ${errText(err)}. Try reloading.`);
    return;
  }
  state.schema = paramSchema();
  buildControls(state.schema, $('controls'), null);
  // The address, read once by the engine: the run's config and the page's own keys (backend,
  // hide, controls, autoplay, only, seeds, compare: page::PAGE_KEYS, checked against the
  // controls and charts this page has), with a notice for every value it could not take.
  placeKeyControls();
  const ids = pageIds();
  const url = readUrl(window.location.search, ids.controls, ids.charts);
  url.notices.forEach(notice);
  const { backend, ...flags } = url.page;
  state.backendOverride = backend;
  state.page = flags;
  field('seeds').value = String(state.page.seeds);
  for (const v of chapterViews()) v.showPageKeys?.();
  state.cfg = url.config;
  applyPageFlags();
  setControls(state.cfg);
  showChapter(chapter()); // the URL's chapter on the first screen at once, before the worker is up
  wireControls();
  watchHistory();
  document.addEventListener('plateau:chapter', () => drawTries());
  document.addEventListener('plateau:fit', () => {
    onlyRows();
    requestAnimationFrame(() => { onlyRows(); scheduleDraw(true); });
    // The status lines above the charts may grow later (the backend line arrives with the worker,
    // a notice): the charts share what is left again, so they stay inside the host's height.
    if (!state.fitWatch) {
      state.fitWatch = true;
      let last = $('status-panel').getBoundingClientRect().height;
      new ResizeObserver(() => {
        const h = $('status-panel').getBoundingClientRect().height;
        if (h !== last) { last = h; onlyRows(); scheduleDraw(true); }
      }).observe($('status-panel'));
    }
  });
  $('boot').textContent = 'Starting the training worker…';
  startWorker();
  drawTries();
  // The runs measured by the command-line tool: drawn as soon as they arrive (the page works without them).
  loadMeasured().then(() => { drawTries(); scheduleDraw(true); });
  warmUp(chapter());
  setInterval(() => { if (state.running) { updateRate(); scheduleDraw(false); } }, 1000);
}

boot();
