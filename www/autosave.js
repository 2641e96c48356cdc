// @ts-check
// Autosave: the run on screen is kept in the browser's IndexedDB, so that reopening the same
// address (a reload, a discarded tab, a restarted browser) continues it, and so that a failed
// training worker continues from it. What is kept is the run's model file (the `.plateau` content
// of Save model: config, step, weights, optimizer state, rows) as the worker copies it
// ('host-copy', at most 5 % of the training time and at least every few seconds, see
// www/worker.js), with chapter 2's comparison run's file and a seed band's finished seeds' rows.
//
// A saved run is keyed by its address: the engine's query of the run's config (live changes
// included) and the page keys that shape the run (seeds, compare). Budget: the RUNS most recent
// runs and at most BYTES bytes in all, the oldest evicted first. A tab holds a lock on the key of
// its run (Web Locks), so a second tab on the same address continues its own copy and saves
// nothing. Storage that fails (full, blocked, a private window) says so once; training goes on,
// unsaved. Nothing here computes a number: the files are the engine's, read back by the engine.
import { configQuery } from './pkg-view/plateau.js';
import { errText, notice } from './dom.js';
import { state, trainingSeconds } from './state.js';

/** The most runs kept, and the most bytes in all (oldest evicted first). */
export const BUDGET = { runs: 5, bytes: 50 * 1024 * 1024 };
const DB_NAME = 'plateau-runs';
const DB_VERSION = 1;

/**
 * A saved run: its key (the address), when it was saved, its step, its size in bytes, the run's
 * model file, the comparison run's (or null), and the seed band's finished seeds' rows.
 * @typedef {{key: string, at: number, step: number, size: number}} Meta
 * @typedef {Meta & {file: Uint8Array, companion: Uint8Array | null, band: [number, any[]][], clock?: Clock}} Saved
 * The training clock of a saved run: the seconds trained, and when each row of the run (and of its
 * comparison run) arrived, up to the saved steps.
 * @typedef {{ms: number, rows: [number, number][], companion: [number, number][]}} Clock
 */

/** Why storage cannot be used on this page (null: it can, as far as we know). @type {string | null} */
let broken = null;
/** @type {Promise<IDBDatabase> | null} */
let opening = null;
/** The key this tab saves under, and whether it holds its lock (another tab may). */
/** @type {{key: string, held: boolean, release: (() => void) | null, pending: Promise<boolean> | null}} */
const mine = { key: '', held: false, release: null, pending: null };
/** The latest copies of the run on screen and of its comparison run (the run id they belong to). */
const latest = { run: -1, file: /** @type {Uint8Array | null} */ (null), step: 0, companion: /** @type {Uint8Array | null} */ (null), companionStep: 0 };
/** A write in progress and whether another is wanted after it (writes never overlap). */
let writing = false;
let again = false;

/** The address of a run of `cfg`: its config's query and the page keys that shape what trains.
 * @param {import('./state.js').Config} cfg */
export function runKey(cfg) {
  const p = state.page;
  return [configQuery(cfg), `seeds=${p.seeds}`, `compare=${p.compare ?? ''}`, `compare-steps=${p.compare_steps ?? ''}`].join('&');
}

/** Storage failed: say so once; the page trains on, unsaved. @param {unknown} err */
function fail(err) {
  if (broken) return;
  broken = errText(err);
  notice(`This browser's storage is not available here (${broken}): the run trains on, unsaved, and a reload starts it over.`);
}

/** A request's result as a promise. @template T @param {IDBRequest<T>} r @returns {Promise<T>} */
const result = (r) => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
/** A transaction's end as a promise. @param {IDBTransaction} tx @returns {Promise<void>} */
const ended = (tx) => new Promise((ok, no) => {
  tx.oncomplete = () => ok();
  tx.onerror = () => no(tx.error);
  tx.onabort = () => no(tx.error || new Error('the write was aborted'));
});

/** The database (its two stores: `meta`, small, read to choose what to evict; `data`, the files). */
function db() {
  if (!opening) {
    opening = new Promise((ok, no) => {
      const req = indexedDB.open(DB_NAME, DB_VERSION);
      req.onupgradeneeded = () => {
        const d = req.result;
        if (!d.objectStoreNames.contains('meta')) d.createObjectStore('meta', { keyPath: 'key' });
        if (!d.objectStoreNames.contains('data')) d.createObjectStore('data', { keyPath: 'key' });
      };
      req.onsuccess = () => ok(req.result);
      req.onerror = () => no(req.error);
      req.onblocked = () => no(new Error('the database is blocked by another tab'));
    });
  }
  return opening;
}

/** The run saved at `key`, or null (none, or storage unavailable: said once). @param {string} key
 * @returns {Promise<Saved | null>} */
export async function findSaved(key) {
  try {
    const d = await db();
    return (await result(d.transaction('data').objectStore('data').get(key))) ?? null;
  } catch (err) {
    fail(err);
    return null;
  }
}

/** Removes the run saved at `key`. @param {string} key */
export async function forget(key) {
  if (broken) return;
  try {
    const tx = (await db()).transaction(['meta', 'data'], 'readwrite');
    tx.objectStore('meta').delete(key);
    tx.objectStore('data').delete(key);
    await ended(tx);
  } catch (err) {
    fail(err);
  }
}

/** Removes the run this tab saves, if it holds its lock (another tab's run is left alone). */
export async function forgetOwn() {
  if (mine.held && mine.key) await forget(mine.key);
}

/**
 * Takes the lock of `key` for this tab (releasing the last one): true when this tab may save
 * under it, false when another tab of this browser holds it. Without Web Locks every tab saves.
 * @param {string} key
 */
export async function claim(key) {
  if (mine.key === key) return mine.pending ?? mine.held;
  const before = mine.release;
  mine.release = null;
  if (before) before();
  mine.key = key;
  mine.held = false;
  const locks = navigator.locks;
  if (!locks) { mine.held = true; return true; }
  const asked = new Promise((/** @type {(held: boolean) => void} */ answer) => {
    locks.request(`plateau-run:${key}`, { ifAvailable: true }, (lock) => {
      // Another key was claimed meanwhile: this lock is let go at once.
      if (!lock || mine.key !== key) { answer(false); return undefined; }
      answer(true);
      return new Promise((/** @type {(v?: unknown) => void} */ letGo) => { mine.release = () => letGo(); });
    }).catch(() => answer(mine.key === key));
  });
  mine.pending = asked;
  const held = await asked;
  if (mine.key === key) { mine.held = held; mine.pending = null; }
  return held;
}

/** A new run on screen (id `run`): what is saved from now on is its copies. @param {number} run */
export function newRun(run) {
  latest.run = run;
  latest.file = null;
  latest.companion = null;
  latest.step = 0;
  latest.companionStep = 0;
}

/** The training clock as it stands now, with the rows' times up to `step` (the comparison run's up
 * to `companionStep`): what a run continued from copies of those steps keeps. @param {number} step
 * @param {number} companionStep @returns {Clock} */
export function clockUpTo(step, companionStep) {
  return {
    ms: trainingSeconds() * 1000,
    rows: [...state.rowSeconds].filter(([s]) => s <= step),
    companion: [...state.companion.seconds].filter(([s]) => s <= companionStep),
  };
}

/** The run on screen's latest copy (its model file), for a failed worker to continue from. */
export const latestCopy = () => (latest.run === state.run && latest.file ? { file: latest.file, step: latest.step, companion: latest.companion, companionStep: latest.companionStep } : null);

/** A host copy of the run on screen (`companion`: of its comparison run) arrived: keep it and save.
 * @param {number} run @param {Uint8Array} file @param {number} step @param {boolean} [companion] */
export function copied(run, file, step, companion = false) {
  if (run !== state.run || latest.run !== run) return;
  if (companion) { latest.companion = file; latest.companionStep = step; }
  else { latest.file = file; latest.step = step; }
  save();
}

/** Writes the run on screen under its key (one write at a time; the newest copy wins). */
async function save() {
  if (broken || !latest.file || !state.runCfg) return;
  if (writing) { again = true; return; }
  writing = true;
  try {
    do {
      again = false;
      // A live change moved the run to another address: it is saved there from now on, and the
      // old address, which no longer describes it, is forgotten.
      const key = runKey(state.runCfg);
      if (key !== mine.key) {
        const old = mine.held ? mine.key : '';
        await claim(key);
        if (old) await forget(old);
      }
      if (!mine.held) break;
      const file = latest.file;
      const companion = latest.companion;
      /** @type {[number, any[]][]} */
      const band = [...state.band.done].map((s) => [s, state.band.rows.get(s) ?? []]);
      const size = file.byteLength + (companion ? companion.byteLength : 0);
      /** @type {Saved} */
      const rec = { key: mine.key, at: Date.now(), step: latest.step, size, file, companion, band, clock: clockUpTo(latest.step, latest.companionStep) };
      await write(rec);
    } while (again && !broken);
  } catch (err) {
    fail(err);
  } finally {
    writing = false;
  }
}

/**
 * Which saved runs to evict when `rec` is written beside `all`: the newest runs are kept while at
 * most BUDGET.runs runs and BUDGET.bytes bytes fit (`rec` itself always), and the first run that
 * does not fit is evicted with every older one.
 * @param {Meta[]} all @param {Meta} rec @returns {string[]}
 */
export function evictions(all, rec) {
  const others = all.filter((m) => m.key !== rec.key).sort((a, b) => b.at - a.at);
  let bytes = rec.size;
  let kept = 1;
  while (kept - 1 < others.length && kept < BUDGET.runs && bytes + others[kept - 1].size <= BUDGET.bytes) {
    bytes += others[kept - 1].size;
    kept += 1;
  }
  return others.slice(kept - 1).map((m) => m.key);
}

/** Puts `rec` and evicts the runs beyond the budget, in one transaction. @param {Saved} rec */
async function write(rec) {
  const tx = (await db()).transaction(['meta', 'data'], 'readwrite');
  const meta = tx.objectStore('meta');
  const data = tx.objectStore('data');
  for (const key of evictions(await result(meta.getAll()), rec)) {
    meta.delete(key);
    data.delete(key);
  }
  meta.put({ key: rec.key, at: rec.at, step: rec.step, size: rec.size });
  data.put(rec);
  await ended(tx);
  window.plateauSaved = { key: rec.key, step: rec.step };
}

/** What the tests and readers' tools may read: the saved runs' keys, steps and sizes. */
export async function savedRuns() {
  try {
    return /** @type {Meta[]} */ (await result((await db()).transaction('meta').objectStore('meta').getAll()));
  } catch (err) {
    fail(err);
    return [];
  }
}
