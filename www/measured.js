// @ts-check
// The runs the command-line tool measured for REPRODUCTION.md (`www/measured.json`, written by
// `plateau measured` from results/): fetched once, handed to the engine (`measuredLoad`), which
// answers which runs were measured at a configuration (`measuredFor`) and whether a live run
// agrees with the measured run of its seed (`measuredAgreement`). The page works without the file
// (it says so). Nothing is computed here.
import { configQuery, measuredAgreement, measuredFor, measuredLoad } from './pkg-view/plateau.js';
import { errText, notice } from './dom.js';

/** @type {Promise<number | null> | null} */
let loading = null;
let loaded = false;
/** Groups by the config's query (the groups do not depend on anything else). @type {Map<string, any[]>} */
const cache = new Map();

/** Fetches and loads the file once; resolves to the number of configurations, or null (with a
 * notice) when it cannot be had. @returns {Promise<number | null>} */
export function loadMeasured() {
  if (!loading) {
    loading = (async () => {
      try {
        const res = await fetch(new URL('./measured.json', import.meta.url));
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const n = measuredLoad(await res.text());
        loaded = true;
        cache.clear();
        return n;
      } catch (err) {
        notice(`The runs measured by the command-line tool could not be loaded (${errText(err)}); the charts show the live run alone.`);
        return null;
      }
    })();
  }
  return loading;
}

/** The measured groups of `cfg` (none before the file has loaded). @param {any} cfg @returns {any[]} */
export function measuredGroups(cfg) {
  if (!loaded || !cfg) return [];
  const key = configQuery(cfg);
  let groups = cache.get(key);
  if (!groups) {
    groups = /** @type {any[]} */ (measuredFor(cfg));
    cache.set(key, groups);
  }
  return groups;
}

/** How the live `rows` compare with the measured run of `seed` in `group`: `{seed, compared,
 * max_abs_diff, agree}`, or null. @param {any} group @param {number} seed @param {any[]} rows */
export function measuredAgreementFor(group, seed, rows) {
  return measuredAgreement(group.query, seed, rows);
}
