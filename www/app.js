// The page: controls, the worker that trains, and the charts (drawn in Rust with plotters).
// No metric is computed here: rows and snapshots come from the engine; this file only routes
// them to the drawing functions and the DOM.
import init, {
  parseQuery, drawLines, drawHeatmap, drawScatter, drawArcs, seriesSummary, dropStep, syntaxOnsets, heldoutAnswer,
  configQuery, configJson, parseConfigJson, runHeadline, paramSchema,
} from './pkg/plateau.js';
import { buildControls, controlled, readControl, setControl } from './controls.js';

const $ = (id) => document.getElementById(id);
// Okabe–Ito colour-blind-safe palette.
const C = { blue: '#0072B2', orange: '#E69F00', green: '#009E73', verm: '#D55E00', purple: '#CC79A7', sky: '#56B4E9', grey: '#8a8f98' };

const state = {
  schema: [], // the engine's parameter schema (paramSchema())
  cfg: null, // the config the next reset uses
  runCfg: null, // the config of the run on screen
  rows: [],
  snaps: [],
  omega: [],
  steps: 0,
  step: 0,
  running: false,
  pausedByHidden: false,
  scrub: null, // snapshot index, or null to follow the run
  runMs: 0,
  runSince: null,
  rate: { step: 0, t: 0, value: null },
  drawPending: false,
  drawAgain: false, // a draw was requested while one was in progress
  lastDraw: 0,
  run: 0, // id of the run on screen; the worker tags its chunks with it
  worker: null,
  backendOverride: '',
  page: { hide: [], controls: null, autoplay: true }, // page-only URL keys
  pinned: null, // {cfg, rows, headline} of the run pinned for comparison
  runs: [], // recent runs: {id, cfg, headline}
};

const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');

function showError(message) {
  const el = $('error');
  el.textContent = message;
  el.hidden = false;
  $('boot').hidden = true;
  $('run-state').textContent = 'stopped';
}

function notice(message) {
  const li = document.createElement('li');
  li.textContent = message;
  $('notices').append(li);
}

window.addEventListener('error', (e) => showError(`Something went wrong: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => showError(`Something went wrong: ${e.reason && e.reason.message ? e.reason.message : e.reason}`));

// ---- controls ------------------------------------------------------------------------

// The chapter of an experiment, and the chapter on screen.
const chapterOf = (experiment) => ({ anchors: 2, syntax: 3 }[experiment] || 1);
const chapter = () => chapterOf((state.runCfg || state.cfg).experiment);

/** Shows chapter `n`'s text, controls and views, and moves the shared scrubber into its maps. */
function showChapter(n) {
  for (const el of document.querySelectorAll('[data-chapter]')) el.hidden = Number(el.dataset.chapter) !== n;
  for (const b of document.querySelectorAll('.chapter')) b.setAttribute('aria-current', String(chapterOf(b.dataset.experiment) === n));
  $(`maps-${n}`).prepend($('scrub-box'));
}

/** Shows `cfg` in every control (chapter 1's task select only for chapter 1's tasks). */
function setControls(cfg) {
  for (const p of controlled(state.schema)) {
    if (p.key === 'experiment' && chapterOf(cfg.experiment) !== 1) continue;
    setControl(p, cfg[p.key]);
  }
}

/**
 * A control moved: the engine validates the new value in the context of the whole config (a
 * value it rejects is replaced by its safe value, with a notice), the control shows the value
 * kept, and it applies live or marks Reset pending, as the schema says.
 */
function changeParam(p) {
  const raw = readControl(p);
  if (p.key === 'preset') {
    // A preset replaces every default: keep only the chapter and the seed.
    const parsed = parseQuery(`preset=${encodeURIComponent(raw)}&experiment=${state.cfg.experiment}&seed=${state.cfg.seed}`);
    parsed.notices.forEach(notice);
    state.cfg = parsed.config;
    setControls(state.cfg);
    markPending(true);
    return;
  }
  const others = configQuery(state.cfg).split('&').filter((kv) => kv && !kv.startsWith(`${p.key}=`));
  const parsed = parseQuery([...others, `${p.key}=${encodeURIComponent(raw)}`].join('&'));
  parsed.notices.forEach(notice);
  const value = parsed.config[p.key];
  setControl(p, value);
  if (p.live) setLive(p.key, value);
  else {
    state.cfg[p.key] = value;
    markPending(true);
  }
}

function markPending(on) {
  $('reset').classList.toggle('pending', on);
  $('reset').textContent = on ? 'Reset to apply' : 'Reset';
  if (on) syncUrl();
}

function send(msg) { if (state.worker) state.worker.postMessage(msg); }

/** The page-only keys to keep in the URL (see config::PAGE_KEYS). */
function pageQuery() {
  const out = [];
  if (state.backendOverride) out.push(`backend=${state.backendOverride}`);
  if (state.page.hide.length) out.push(`hide=${state.page.hide.join(',')}`);
  if (state.page.controls) out.push(`controls=${state.page.controls.join(',')}`);
  if (!state.page.autoplay) out.push('autoplay=0');
  return out;
}

/** The query that reproduces the configuration on screen (written by the engine). */
function shareQuery(cfg) {
  return [configQuery(cfg), ...pageQuery()].join('&');
}

/** Writes the configuration of the next reset into the address bar (no reload, no history entry). */
function syncUrl() {
  try {
    window.history.replaceState(null, '', `${window.location.pathname}?${shareQuery(state.cfg)}`);
  } catch (err) { /* a sandboxed frame may refuse; the page works without it */ }
}

/** Applies `hide=` and `controls=` from the URL. */
function applyPageFlags() {
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

function setLive(key, value) {
  state.cfg[key] = value;
  if (state.runCfg) state.runCfg[key] = value;
  send({ type: 'set', key, value: String(value) });
  syncUrl();
}

function wireControls() {
  $('play').addEventListener('click', () => send({ type: state.running ? 'pause' : 'resume' }));
  $('stepbtn').addEventListener('click', () => send({ type: 'step' }));
  $('reset').addEventListener('click', () => startRun());
  for (const p of controlled(state.schema)) {
    $(p.key).addEventListener(p.control.widget.type === 'slider' ? 'input' : 'change', () => changeParam(p));
  }
  for (const b of document.querySelectorAll('.chapter')) {
    b.addEventListener('click', () => {
      if (chapterOf(b.dataset.experiment) === chapter() && state.runCfg) return;
      const parsed = parseQuery(`experiment=${b.dataset.experiment}&seed=${state.cfg.seed}&preset=${state.cfg.preset}`);
      state.cfg = parsed.config;
      setControls(state.cfg);
      startRun();
    });
  }
  $('scrub').addEventListener('input', () => {
    const i = Number($('scrub').value);
    // The right end as drawn means "live", even when snapshots arrived since the last draw;
    // the left end always means the first snapshot.
    const max = Number($('scrub').max);
    state.scrub = (i > 0 && i >= max) || state.snaps.length <= 1 ? null : i;
    scheduleDraw(true);
  });
  $('csv').addEventListener('click', () => send({ type: 'csv' }));
  $('json').addEventListener('click', () => download(`plateau-${state.runCfg.experiment}-config.json`, configJson(state.runCfg), 'application/json'));
  $('snapjson').addEventListener('click', () => download(`plateau-${state.runCfg.experiment}-snapshots.json`,
    JSON.stringify({ config: state.runCfg, snapshots: state.snaps }), 'application/json'));
  $('load').addEventListener('change', async () => {
    const file = $('load').files[0];
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
    $('load').value = '';
  });
  $('embed').addEventListener('click', async () => {
    const url = new URL(window.location.href);
    url.search = `?${[configQuery(state.runCfg), 'hide=prose,nav', ...pageQuery().filter((p) => !p.startsWith('hide='))].join('&')}`;
    const code = `<iframe src="${url.href}" title="Plateau: a transformer training live" width="100%" height="900" loading="lazy" style="border:0"></iframe>`;
    $('embed-code').value = code;
    $('embed-box').hidden = false;
    try { await navigator.clipboard.writeText(code); $('embed').textContent = 'Copied'; setTimeout(() => { $('embed').textContent = 'Copy embed code'; }, 1500); }
    catch (err) { $('embed-code').select(); }
  });
  $('pin').addEventListener('click', () => {
    if (state.pinned) { state.pinned = null; }
    else if (state.rows.length) {
      state.pinned = { cfg: { ...state.runCfg }, rows: state.rows.slice(), headline: runHeadline(state.runCfg.experiment, state.rows) };
    }
    $('pin').setAttribute('aria-pressed', String(!!state.pinned));
    $('pin').textContent = state.pinned ? 'Unpin' : 'Pin for comparison';
    scheduleDraw(true);
  });
  for (const canvas of document.querySelectorAll('figure canvas')) {
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
  }
  document.addEventListener('visibilitychange', () => {
    if (document.hidden && state.running) { state.pausedByHidden = true; send({ type: 'pause' }); }
    else if (!document.hidden && state.pausedByHidden) { state.pausedByHidden = false; send({ type: 'resume' }); }
  });
  darkScheme.addEventListener('change', () => scheduleDraw(true));
  window.addEventListener('resize', () => scheduleDraw(true));
}

/** Records the run on screen in the runs table (before a reset replaces it). */
function recordRun() {
  if (!state.runCfg || !state.rows.length) return;
  const headline = runHeadline(state.runCfg.experiment, state.rows);
  state.runs.unshift({ id: state.run, cfg: { ...state.runCfg }, headline });
  state.runs = state.runs.slice(0, 8);
  drawRuns();
}

function drawRuns() {
  const body = $('runs-body');
  body.replaceChildren(...state.runs.map((r) => {
    const tr = document.createElement('tr');
    for (const text of [String(r.id), { 1: '1 · plateau', 2: '2 · init', 3: '3 · syntax' }[chapterOf(r.cfg.experiment)], configQuery(r.cfg).replace(/^v=1&?/, '') || '(defaults)', r.headline || '–']) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  $('runs').hidden = state.runs.length === 0 && !state.pinned;
}

function startRun() {
  recordRun();
  markPending(false);
  state.rows = [];
  state.snaps = [];
  state.scrub = null;
  state.step = 0;
  state.runMs = 0;
  state.runSince = null;
  state.rate = { step: 0, t: performance.now(), value: null };
  state.dropAt = null;
  window.plateauDrop = null;
  state.rowSeconds = new Map();
  window.plateauVerdict = null;
  $('drop-at').hidden = true;
  state.runCfg = { ...state.cfg };
  syncUrl();
  state.steps = state.cfg.steps;
  showChapter(chapterOf(state.runCfg.experiment));
  $('steps').textContent = String(state.steps);
  $('run-state').textContent = 'starting';
  state.run += 1;
  send({ type: 'start', run: state.run, config: state.runCfg, backend: state.backendOverride, autoplay: state.page.autoplay });
  scheduleDraw(true);
}

// ---- worker messages -----------------------------------------------------------------

function onMessage(e) {
  const msg = e.data;
  switch (msg.type) {
    case 'ready': $('boot').hidden = true; startRun(); break;
    case 'backend':
      if (msg.run !== state.run) break;
      $('backend').textContent = `Backend: ${msg.backend === 'webgpu' ? 'WebGPU' : 'CPU (WebAssembly)'} — ${msg.reason} Model: ${msg.params.toLocaleString('en')} parameters.`;
      $('backend').dataset.backend = msg.backend;
      state.omega = msg.omega;
      break;
    case 'state': {
      const now = performance.now();
      if (msg.running && state.runSince === null) state.runSince = now;
      if (!msg.running && state.runSince !== null) { state.runMs += now - state.runSince; state.runSince = null; }
      state.running = msg.running;
      $('play').textContent = msg.running ? 'Pause' : 'Play';
      $('play').setAttribute('aria-pressed', msg.running ? 'false' : 'true');
      if ($('run-state').textContent !== 'diverged' && $('run-state').textContent !== 'finished') {
        $('run-state').textContent = msg.running ? 'training' : 'paused';
      }
      break;
    }
    case 'chunk': {
      if (msg.run !== state.run) break; // posted by the previous run before the worker saw the reset
      // When the engine thins its bounded history it resends what it kept from the start: replace
      // instead of appending, so the page holds no more than the engine's bound.
      const resent = (mine, got) => got.length && mine.length && got[0].step <= mine[mine.length - 1].step;
      if (resent(state.rows, msg.rows)) state.rows = msg.rows; else state.rows.push(...msg.rows);
      if (resent(state.snaps, msg.snapshots)) { state.snaps = msg.snapshots; state.scrub = null; } else state.snaps.push(...msg.snapshots);
      state.step = msg.step;
      state.steps = msg.steps;
      if (msg.status === 'diverged') { $('run-state').textContent = 'diverged'; notice(msg.message); }
      else if (msg.status === 'finished') $('run-state').textContent = 'finished';
      updateRate();
      noteDrop();
      noteVerdict(msg.rows, msg.status);
      scheduleDraw(false);
      break;
    }
    case 'notice': notice(msg.message); break;
    case 'csv': download(chapter() === 1 ? 'plateau-metrics.csv' : `plateau-${state.runCfg.experiment}-metrics.csv`, msg.csv, 'text/csv'); break;
    case 'error': showError(msg.message); break;
    default: break;
  }
}

/** Chapter 1: when the drop (the engine's `dropStep`) first shows, remember the training time it
 * took and show it in the status line; `window.plateauDrop` holds it for the bench. */
function noteDrop() {
  if (state.dropAt || chapter() !== 1) return;
  const step = dropStep(state.rows);
  if (step === undefined || step === null) return;
  const ms = state.runMs + (state.runSince !== null ? performance.now() - state.runSince : 0);
  state.dropAt = { step, seconds: ms / 1000 };
  window.plateauDrop = state.dropAt;
  $('drop-step').textContent = String(step);
  $('drop-s').textContent = state.dropAt.seconds.toFixed(1);
  $('drop-at').hidden = false;
}

/** Chapter 2: the training time at which each row arrived, and at the end of the run the held-out
 * answer (the engine's `heldoutAnswer`) with the training time of the step since which it held:
 * `window.plateauVerdict = {answer, step, seconds}` for the bench (time to verdict). */
function noteVerdict(rows, status) {
  if (chapter() !== 2) return;
  const ms = state.runMs + (state.runSince !== null ? performance.now() - state.runSince : 0);
  for (const r of rows) if (!state.rowSeconds.has(r.step)) state.rowSeconds.set(r.step, ms / 1000);
  if (status !== 'finished') return;
  const v = heldoutAnswer(state.rows);
  if (!v) return;
  const seconds = v.step === undefined || v.step === null ? null : state.rowSeconds.get(v.step) ?? null;
  window.plateauVerdict = { answer: v.answer, step: v.step ?? null, seconds };
}

function updateRate() {
  const now = performance.now();
  const dt = now - state.rate.t;
  if (dt > 500) {
    const ds = state.step - state.rate.step;
    state.rate.value = ds >= 0 ? (ds * 1000) / dt : null;
    state.rate = { step: state.step, t: now, value: state.rate.value };
  }
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---- drawing ---------------------------------------------------------------------------

// A redraw is split into jobs, one chart per animation frame, so that no main-thread task is
// long (each plotters draw takes a few milliseconds).
function scheduleDraw(now) {
  if (state.drawPending) { state.drawAgain = true; return; }
  state.drawPending = true;
  const minGap = reducedMotion.matches ? 1000 : 200;
  const wait = now ? 0 : Math.max(0, minGap - (performance.now() - state.lastDraw));
  setTimeout(() => {
    state.drawAgain = false; // the jobs below read the state as it is from now on
    const jobs = drawJobs();
    const next = () => {
      const job = jobs.shift();
      if (!job) {
        state.drawPending = false;
        state.lastDraw = performance.now();
        if (state.drawAgain) scheduleDraw(false); // state changed after the chain had begun
        return;
      }
      const t0 = performance.now();
      job();
      window.plateauLongestDrawMs = Math.max(window.plateauLongestDrawMs, performance.now() - t0);
      requestAnimationFrame(next);
    };
    requestAnimationFrame(next);
  }, wait);
}

// Fault injection for the end-to-end tests: window.plateauTest('diverge' | 'device-loss').
window.plateauTest = (what) => send({ type: 'test', what });

// Longest main-thread task seen (Long Tasks API), and the longest drawing job's own script time,
// for the end-to-end test, the bench and the curious.
window.plateauLongestTaskMs = 0;
window.plateauLongestDrawMs = 0;
if ('PerformanceObserver' in window && PerformanceObserver.supportedEntryTypes && PerformanceObserver.supportedEntryTypes.includes('longtask')) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.plateauLongestTaskMs = Math.max(window.plateauLongestTaskMs, e.duration);
  }).observe({ type: 'longtask', buffered: true });
}

function fit(canvas) {
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const w = Math.max(50, Math.round(canvas.clientWidth * dpr));
  const h = Math.max(50, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  return dpr;
}

/** `[[step, value]]` of one row field; the array remembers its key (for the pinned overlay). */
const col = (key) => Object.assign(state.rows.map((r) => [r.step, r[key]]), { key });

/** Markers of the run's events: chapter 1's drop, chapter 3's onsets. */
function eventMarkers() {
  const markers = [];
  if (chapter() === 1) {
    const drop = dropStep(state.rows);
    if (drop !== undefined && drop !== null) markers.push({ x: drop, label: `drop ${drop}` });
  } else if (chapter() === 2) {
    const v = heldoutAnswer(state.rows);
    if (v && v.answer !== 'neither' && v.step !== undefined && v.step !== null) markers.push({ x: v.step, label: `(4,3) ${v.answer} from ${v.step}` });
  } else if (chapter() === 3) {
    const o = syntaxOnsets(state.rows);
    if (o.drop !== undefined && o.drop !== null) markers.push({ x: o.drop, label: `verb-loss drop ${o.drop}` });
    if (o.structure !== undefined && o.structure !== null) markers.push({ x: o.structure, label: `structure onset ${o.structure}` });
    if (o.number_drop !== undefined && o.number_drop !== null) markers.push({ x: o.number_drop, label: `agreement onset ${o.number_drop}` });
  }
  return markers;
}

function lineChart(id, series, opts) {
  const canvas = $(id);
  const scale = fit(canvas);
  const markers = eventMarkers();
  const p = state.pinned;
  if (p && chapterOf(p.cfg.experiment) === chapter() && series.length) {
    // The pinned run's first curve of this chart, dashed grey, for comparison.
    const { key } = series[0].points;
    if (key) series = [...series, { label: `pinned: ${series[0].label}`, color: C.grey, dashed: true, points: p.rows.map((r) => [r.step, r[key]]) }];
  }
  const snap = currentSnap();
  if (state.scrub !== null && snap) markers.push({ x: snap.step, label: '' });
  drawLines(canvas, { x_max: Math.max(state.steps, 1), series, markers, scale, dark: darkScheme.matches, ...opts });
}

function range(values, lo, hi) {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return [lo, hi];
  return [Math.min(lo, ...finite), Math.max(hi, ...finite)];
}

function currentSnap() {
  if (!state.snaps.length) return null;
  return state.snaps[state.scrub === null ? state.snaps.length - 1 : Math.min(state.scrub, state.snaps.length - 1)];
}

function drawStatus() {
  const now = performance.now();
  $('step').textContent = String(state.step);
  $('steps').textContent = String(state.steps);
  const ms = state.runMs + (state.runSince !== null ? now - state.runSince : 0);
  $('elapsed').textContent = (ms / 1000).toFixed(1);
  $('rate').textContent = state.rate.value === null ? '–' : state.rate.value.toFixed(1);
}

/** The comparison sentence: the pinned run's key numbers against the run on screen's. */
function drawCompare() {
  const now = state.rows.length ? runHeadline(state.runCfg.experiment, state.rows) : null;
  const p = state.pinned;
  $('compare').textContent = p
    ? `Pinned run (${configQuery(p.cfg).replace(/^v=1&?/, '') || 'defaults'}): ${p.headline || '–'}. This run (${configQuery(state.runCfg).replace(/^v=1&?/, '') || 'defaults'}): ${now || '–'}.${chapterOf(p.cfg.experiment) === chapter() ? ' The pinned run is drawn dashed grey in the charts.' : ' (Another chapter: not overlaid.)'}`
    : '';
  $('runs').hidden = state.runs.length === 0 && !p;
}

function drawJobs() {
  if (chapter() === 2) return [drawStatus, drawCompare, ...anchorJobs(), drawAnchorSnapshot];
  if (chapter() === 3) return [drawStatus, drawCompare, ...syntaxJobs(), drawSyntaxSnapshot];
  return [
    drawCompare,
    drawStatus,
    () => {
      const loss = col('loss');
      const outLoss = col('output_loss');
      const [lmin, lmax] = range([...loss, ...outLoss].map((p) => p[1]), 1, 1);
      lineChart('chart-loss', [
        { label: 'loss (all positions)', color: C.blue, points: loss },
        { label: 'loss (outputs)', color: C.orange, points: outLoss },
      ], { y_min: Math.max(0.005, lmin * 0.8), y_max: lmax * 1.15, y_log: true, y_label: 'cross-entropy (log)', legend: 'll' });
      $('sum-loss').textContent = `${seriesSummary('output loss', outLoss, 3)} ${seriesSummary('loss on all positions', loss, 3)}`;
    },
    () => {
      lineChart('chart-acc', [
        { label: 'test accuracy', color: C.blue, points: col('test_acc') },
        { label: 'first token', color: C.orange, points: col('first_token_acc') },
        { label: 'train (teacher-forced)', color: C.green, points: col('train_acc'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'ul' });
      $('sum-acc').textContent = `${seriesSummary('test accuracy', col('test_acc'), 2)} ${seriesSummary('first-token accuracy', col('first_token_acc'), 2)}`;
    },
    () => {
      lineChart('chart-rep', [
        { label: 'model', color: C.verm, points: col('repetition') },
        { label: 'data', color: C.grey, points: col('data_repetition'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'repetition' });
      const last = state.rows[state.rows.length - 1];
      $('sum-rep').textContent = `${seriesSummary('repetition', col('repetition'), 2)} (data: ${last ? last.data_repetition.toFixed(2) : '–'})`;
    },
    () => {
      lineChart('chart-apm', [{ label: 'APM', color: C.purple, points: col('apm') }], { y_min: 0, y_max: 1.05, y_label: 'APM', legend: 'ul' });
      $('sum-apm').textContent = seriesSummary('APM', col('apm'), 2);
    },
    () => {
      const cos = col('hidden_cos');
      const [cmin] = range(cos.map((p) => p[1]), 0, 1);
      lineChart('chart-cos', [{ label: 'mean cosine', color: C.blue, points: cos }], { y_min: cmin, y_max: 1.05, y_label: 'cosine', legend: 'll' });
      $('sum-cos').textContent = seriesSummary('mean hidden cosine', cos, 2);
    },
    drawSnapshot,
    drawSnapshotCos,
  ];
}

/** Syncs the scrubber with the snapshots; returns the snapshot to show (or null). */
function scrubSnap() {
  const snap = currentSnap();
  const scrub = $('scrub');
  scrub.max = String(Math.max(0, state.snaps.length - 1));
  if (state.scrub === null) scrub.value = scrub.max;
  $('scrub-out').textContent = snap ? String(snap.step) : '–';
  return snap;
}

const last = () => state.rows[state.rows.length - 1];
const fixed = (v, d) => (Number.isFinite(v) ? v.toFixed(d) : '–');

// ---- chapter 2 ----

function anchorJobs() {
  // Without memory anchors (the default task) the memory columns are NaN: leave them out.
  const mem = () => state.rows.some((r) => Number.isFinite(r.loss_memory));
  return [
    () => {
      const series = [
        ...(mem() ? [{ label: 'memory', color: C.orange, points: col('loss_memory') }] : []),
        { label: 'reasoning (seen pairs)', color: C.blue, points: col('loss_reasoning') },
        { label: 'held-out pair (4,3)', color: C.verm, points: col('loss_heldout'), dashed: true },
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 1, 1);
      lineChart('chart-subloss', series, { y_min: Math.max(0.002, lmin * 0.8), y_max: lmax * 1.15, y_log: true, y_label: 'cross-entropy (log)', legend: 'll' });
      $('sum-subloss').textContent = `${mem() ? `${seriesSummary('memory loss', col('loss_memory'), 2)} ` : ''}${seriesSummary('reasoning loss', col('loss_reasoning'), 2)} ${seriesSummary('held-out loss', col('loss_heldout'), 2)}`;
    },
    () => {
      lineChart('chart-subacc', [
        ...(mem() ? [{ label: 'memory', color: C.orange, points: col('acc_memory') }] : []),
        { label: 'reasoning', color: C.blue, points: col('acc_reasoning') },
        { label: '(4,3) inferential', color: C.green, points: col('acc_inferential') },
        { label: '(4,3) symmetric', color: C.purple, points: col('acc_symmetric'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'ul' });
      const r = last();
      $('sum-subacc').textContent = r
        ? `Step ${r.step}: ${mem() ? `memory ${fixed(r.acc_memory, 2)}, ` : ''}reasoning ${fixed(r.acc_reasoning, 2)}; on the held-out pair ${fixed(r.acc_inferential, 2)} inferential, ${fixed(r.acc_symmetric, 2)} symmetric.`
        : '';
    },
    () => {
      const hasMemory = state.rows.some((r) => Number.isFinite(r.memory_anchor_cos));
      lineChart('chart-emb', [
        { label: 'key distance–cosine corr.', color: C.blue, points: col('key_order_corr') },
        { label: 'reasoning anchors cos', color: C.green, points: col('reasoning_anchor_cos') },
        ...(hasMemory ? [{ label: 'memory anchors cos', color: C.orange, points: col('memory_anchor_cos') }] : []),
      ], { y_min: -1, y_max: 1, y_label: 'correlation / cosine', legend: 'll' });
      $('sum-emb').textContent = `${seriesSummary('key order correlation', col('key_order_corr'), 2)} ${seriesSummary('reasoning-anchor cosine', col('reasoning_anchor_cos'), 2)}${hasMemory ? ` ${seriesSummary('memory-anchor cosine', col('memory_anchor_cos'), 2)}` : ''}`;
    },
    () => {
      const bins = ['1', '2', '3–5', '6–19', '≥ 20'];
      const colors = [C.verm, C.orange, C.green, C.blue, C.purple];
      const bin = (k) => state.rows.map((r) => [r.step, r.key_cos_by_distance ? r.key_cos_by_distance[k] : NaN]);
      const series = bins.map((label, k) => ({ label: `|i − j| ${label}`, color: colors[k], points: bin(k) }));
      lineChart('chart-keydist', series, { y_min: -1, y_max: 1, y_label: 'mean key cosine', legend: 'll' });
      const r = last();
      $('sum-keydist').textContent = r && r.key_cos_by_distance
        ? `Step ${r.step}: mean cosine of keys at distance 1: ${fixed(r.key_cos_by_distance[0], 2)}, 2: ${fixed(r.key_cos_by_distance[1], 2)}, 3–5: ${fixed(r.key_cos_by_distance[2], 2)}, 6–19: ${fixed(r.key_cos_by_distance[3], 2)}, 20 and more: ${fixed(r.key_cos_by_distance[4], 2)}.`
        : '';
    },
  ];
}

function drawAnchorSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const dark = darkScheme.matches;
  const keys = snap.tokens.slice(8);
  let canvas = $('map-pca');
  drawScatter(canvas, {
    points: snap.pca, values: keys, vmin: 20, vmax: 99, x_label: `PC1 (${(100 * snap.explained[0]).toFixed(0)} %)`,
    y_label: `PC2 (${(100 * snap.explained[1]).toFixed(0)} %)`, color_label: 'key', scale: fit(canvas), dark,
    labeled: [[0, '20'], [keys.length - 1, '99']],
  });
  $('sum-pca').textContent = `Step ${snap.step}: the first two components hold ${(100 * snap.explained[0]).toFixed(0)} % and ${(100 * snap.explained[1]).toFixed(0)} % of the key embeddings' variance.`;
  canvas = $('map-embcos');
  const n = snap.tokens.length;
  drawHeatmap(canvas, {
    values: snap.cosine, rows: n, cols: n, signed: true, vmin: -1, vmax: 1, separators: [8],
    tick_labels: snap.tokens.map(String), x_label: 'token', y_label: 'token', scale: fit(canvas), dark,
  });
  const r = state.rows.find((x) => x.step === snap.step) || last();
  $('sum-embcos').textContent = r ? `Step ${snap.step}: key distance–cosine correlation ${fixed(r.key_order_corr, 2)} (0 = no order).` : '';
  canvas = $('map-att2');
  if (snap.attention.length) {
    drawHeatmap(canvas, {
      values: snap.attention, rows: snap.seq, cols: snap.seq, signed: false, vmin: 0, vmax: Math.max(1e-9, ...snap.attention),
      mask_upper: true, x_label: 'key position', y_label: 'query position', scale: fit(canvas), dark,
    });
    $('sum-att2').textContent = r ? `Step ${snap.step}: closeness to a prefix average ${fixed(r.prefix_avg, 2)} (1 = exactly).` : '';
  } else {
    const ctx = canvas.getContext('2d');
    fit(canvas);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    $('sum-att2').textContent = 'The Emb-MLP has no attention.';
  }
}

// ---- chapter 3 ----

function syntaxJobs() {
  return [
    () => {
      const series = [
        { label: 'train', color: C.blue, points: col('loss') },
        { label: 'held-out', color: C.orange, points: col('heldout_loss') },
        { label: 'far-subject verbs (held-out)', color: C.purple, points: col('verb_loss') },
        { label: 'their number only', color: C.purple, points: col('verb_number_loss'), dashed: true },
      ];
      const [lmin, lmax] = range(series.flatMap((x) => x.points.map((p) => p[1])), 1, 1);
      lineChart('chart-mlm', series, { y_min: Math.max(0.01, lmin * 0.85), y_max: lmax * 1.1, y_log: true, y_label: 'MLM loss (log)', legend: 'ur' });
      $('sum-mlm').textContent = `${seriesSummary('held-out MLM loss', col('heldout_loss'), 3)} ${seriesSummary('far-subject verb loss', col('verb_loss'), 3)}`;
    },
    () => {
      lineChart('chart-uas', [
        { label: 'all arcs: best head', color: C.green, points: col('uas') },
        { label: 'all arcs: offset guess', color: C.green, points: col('offset_uas'), dashed: true },
        { label: 'subject→verb: best head', color: C.purple, points: col('uas_subject') },
        { label: 'subject→verb: offset guess', color: C.purple, points: col('offset_uas_subject'), dashed: true },
        { label: 'non-adjacent arcs: best head', color: C.verm, points: col('uas_nonadjacent') },
        { label: 'non-adjacent arcs: offset guess', color: C.verm, points: col('offset_uas_nonadjacent'), dashed: true },
      ], { y_min: 0, y_max: 1.05, y_label: 'UAS', legend: 'ur' });
      const r = last();
      $('sum-uas').textContent = r
        ? `Step ${r.step}: UAS ${fixed(r.uas, 2)} (layer ${r.best_layer + 1}, head ${r.best_head + 1}, ${r.best_direction}); best offset guess ${fixed(r.offset_uas, 2)}. Subject→verb arc: ${fixed(r.uas_subject, 2)} (offset guess ${fixed(r.offset_uas_subject, 2)}). Non-adjacent arcs: ${fixed(r.uas_nonadjacent, 2)} (offset guess ${fixed(r.offset_uas_nonadjacent, 2)}).`
        : '';
    },
    () => {
      lineChart('chart-agree', [{ label: 'agreement', color: C.purple, points: col('agreement_acc') }], { y_min: 0, y_max: 1.05, y_label: 'accuracy', legend: 'lr' });
      $('sum-agree').textContent = seriesSummary('agreement accuracy', col('agreement_acc'), 2);
    },
    () => {
      const reg = col('sas_reg');
      const [, rmax] = range(reg.map((p) => p[1]), 0, 1);
      lineChart('chart-reg', [{ label: 'R (held-out)', color: C.verm, points: reg }], { y_min: 0, y_max: rmax * 1.1, y_label: 'R', legend: 'lr' });
      $('sum-reg').textContent = seriesSummary('R', reg, 2);
    },
  ];
}

function drawSyntaxSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const dark = darkScheme.matches;
  let canvas = $('map-arcs');
  drawArcs(canvas, { words: snap.words, gold: snap.heads, pred: snap.pred, weight: snap.pred_weight, scale: fit(canvas), dark });
  $('sum-arcs').textContent = `Step ${snap.step}: layer ${snap.best_layer + 1}, head ${snap.best_head + 1} (${snap.transposed ? 'head → dependent' : 'dependent → head'}) points to the gold head for ${snap.sample_right} of ${snap.sample_scored} words of “${snap.words.join(' ')}”.`;
  canvas = $('map-heads');
  const rows = snap.layers * snap.n_heads;
  drawHeatmap(canvas, {
    values: snap.head_uas, rows, cols: 2, signed: false, vmin: 0, vmax: 1,
    row_labels: Array.from({ length: rows }, (_, k) => `L${Math.floor(k / snap.n_heads) + 1} H${(k % snap.n_heads) + 1}`),
    col_labels: ['dep→head', 'head→dep'], y_label: 'layer, head', scale: fit(canvas), dark,
  });
  const top = Math.max(...snap.head_uas);
  $('sum-heads').textContent = `Step ${snap.step}: UAS per head ranges ${Math.min(...snap.head_uas).toFixed(2)}–${top.toFixed(2)}.`;
}

// ---- chapter 1 ----

/** The attention map of the current snapshot (one draw job; the cosine map is the next). */
function drawSnapshot() {
  const snap = scrubSnap();
  if (!snap) return;
  const softmax = state.runCfg && state.runCfg.attention === 'softmax';
  const att = snap.attention;
  const vmax = Math.max(1e-9, ...att.map(Math.abs));
  const canvas = $('map-att');
  drawHeatmap(canvas, {
    values: att, rows: snap.seq, cols: snap.seq, signed: !softmax, vmin: softmax ? 0 : -vmax, vmax,
    mask_upper: true, outline: state.omega, x_label: 'key position', y_label: 'query position', scale: fit(canvas), dark: darkScheme.matches,
  });
  $('sum-att').textContent = `Step ${snap.step}: largest |attention| ${vmax.toPrecision(3)}; Ω outlined (${state.omega.length} entries).`;
}

/** The hidden-state cosine map and the decoded samples of the current snapshot. */
function drawSnapshotCos() {
  const snap = currentSnap();
  if (!snap) return;
  const canvas = $('map-cos');
  drawHeatmap(canvas, {
    values: snap.hidden_cos, rows: snap.n, cols: snap.n, signed: false, vmin: 0, vmax: 1, label_offset: 1,
    x_label: 'output position', y_label: 'output position', scale: fit(canvas), dark: darkScheme.matches,
  });
  const offdiag = [];
  for (let i = 1; i < snap.n; i += 1) for (let j = 1; j < i; j += 1) offdiag.push(snap.hidden_cos[i * snap.n + j]);
  $('sum-mapcos').textContent = `Step ${snap.step}: cosines between output positions range ${Math.min(...offdiag).toFixed(2)}–${Math.max(...offdiag).toFixed(2)}.`;
  drawSamples(snap);
}

function tokenRow(label, tokens, truth) {
  const row = document.createElement('div');
  row.className = 'tokrow';
  const head = document.createElement('span');
  head.className = 'toklabel';
  head.textContent = label;
  row.append(head);
  tokens.forEach((t, j) => {
    const s = document.createElement('span');
    s.className = 'tok';
    s.textContent = String(t);
    if (truth) {
      s.classList.add(t === truth[j] ? 'right' : 'wrong');
      if (j > 0 && t === tokens[j - 1]) { s.classList.add('repeat'); s.title = 'same as the token before'; }
    }
    row.append(s);
  });
  return row;
}

function drawSamples(snap) {
  const box = $('samples');
  box.replaceChildren(...snap.samples.map((s, i) => {
    const div = document.createElement('div');
    div.className = 'sample';
    div.setAttribute('aria-label', `sample ${i + 1}: ${s.generated.filter((t, j) => t === s.truth[j]).length} of ${s.truth.length} outputs right`);
    div.append(tokenRow('x', s.inputs), tokenRow('y', s.truth), tokenRow('ŷ', s.generated, s.truth));
    return div;
  }));
}

// ---- boot ------------------------------------------------------------------------------

async function boot() {
  try {
    await init();
  } catch (err) {
    showError(`The WebAssembly engine failed to load (${err.message || err}). This page needs a browser with WebAssembly support; try reloading.`);
    return;
  }
  state.schema = paramSchema();
  buildControls(state.schema, $('controls'), null);
  const params = new URLSearchParams(window.location.search);
  const backend = params.get('backend');
  if (backend !== null) {
    if (backend === 'webgpu' || backend === 'cpu') state.backendOverride = backend;
    else notice(`Unknown backend "${backend}" in the URL (allowed: webgpu, cpu); choosing automatically.`);
  }
  const parsed = parseQuery(window.location.search);
  parsed.notices.forEach(notice);
  const list = (v) => (v || '').split(',').map((x) => x.trim()).filter(Boolean);
  const hideOk = ['prose', 'nav', 'controls', 'status', 'maps'];
  for (const h of list(params.get('hide'))) {
    if (hideOk.includes(h)) state.page.hide.push(h);
    else notice(`Unknown value "${h}" in hide= (allowed: ${hideOk.join(', ')}); ignored.`);
  }
  if (params.has('controls')) {
    const ids = [...document.querySelectorAll('#controls .control input, #controls .control select')].map((el) => el.id);
    state.page.controls = list(params.get('controls')).filter((c) => {
      if (ids.includes(c)) return true;
      notice(`Unknown control "${c}" in controls= (allowed: ${ids.join(', ')}); ignored.`);
      return false;
    });
  }
  if (params.has('autoplay')) {
    const a = params.get('autoplay');
    if (a === '0' || a === '1') state.page.autoplay = a === '1';
    else notice(`Invalid autoplay="${a}" (allowed: 0, 1); playing.`);
  }
  applyPageFlags();
  state.cfg = parsed.config;
  setControls(state.cfg);
  wireControls();
  $('boot').textContent = 'Starting the training worker…';
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = onMessage;
  worker.onerror = (e) => showError(`The training worker failed: ${e.message || 'it could not start'}.`);
  state.worker = worker;
  setInterval(() => { if (state.running) { updateRate(); scheduleDraw(false); } }, 1000);
}

boot();
