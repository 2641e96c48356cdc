// @ts-check
// The training worker's engine: the WebGPU one (www/pkg, WebGPU and the CPU backend) where the
// backend choice may train on WebGPU, else the CPU one (www/pkg-cpu, the smaller download). The
// choice (the engine's `chooseBackend`, in the page's view build) is asked first; the engine it
// needs is fetched then, once (a later run that needs the other one fetches that too).
import initView, { chooseBackend, queryBackend } from './pkg-view/plateau.js';

/** @typedef {typeof import('./pkg/plateau.js')} Engine */
/** @type {Engine} */
export let E;
/** @type {Map<string, Promise<Engine>>} */
const engines = new Map();
/** The engine `kind` ('webgpu' or 'cpu'), fetched and instantiated once. @param {string} kind */
export function engine(kind) {
  if (!engines.has(kind)) {
    const url = kind === 'webgpu' ? './pkg/plateau.js' : './pkg-cpu/plateau.js';
    engines.set(kind, import(url).then(async (/** @type {Engine} */ m) => { await m.default(); return m; }));
  }
  return /** @type {Promise<Engine>} */ (engines.get(kind));
}
/** Makes `kind` this worker's engine: the sessions of another engine must be freed first (a new
 * run does). @param {string} kind */
export async function useEngine(kind) {
  try {
    E = await engine(kind);
  } catch (err) {
    engines.delete(kind);
    const dir = kind === 'webgpu' ? 'www/pkg' : 'www/pkg-cpu';
    throw new Error(`The ${kind === 'webgpu' ? 'WebGPU' : 'CPU'} engine (${dir}) failed to load: ${errText(err)} (scripts/build-web.sh builds it)`);
  }
  engineKind = kind;
}
/** The kind of the engine in use ('webgpu' or 'cpu'; '' before the first run). */
export let engineKind = '';
/** The page's view build (the backend choice), loaded at once. */
export const viewLoaded = initView();
/** @type {Map<string, Promise<any>>} */
const choices = new Map();
/** The backend choice for `override` (the engine's `chooseBackend`: probes the adapter), shared
 * by the prefetch and the start that follows it. @param {string} override */
export function choose(override) {
  if (!choices.has(override)) choices.set(override, viewLoaded.then(() => chooseBackend(override)));
  return /** @type {Promise<any>} */ (choices.get(override));
}

/** The prefetch: chooses the backend the URL `query` asks for (its `backend=`, read by the
 * engine) and fetches that engine, so that it is ready when the first run starts. @param {string} query */
export function prefetch(query) {
  viewLoaded.then(() => choose(queryBackend(query))).then((c) => engine(c.engine)).catch(() => { /* start() says why */ });
}

/** Forgets the choice for `override`: the next run probes the adapter again. @param {string} override */
export function forgetChoice(override) {
  choices.delete(override);
}

/** What a thrown value says: an Error's message, anything else as text. @param {unknown} err */
export const errText = (err) => (err instanceof Error ? err.message : String(err));
