// @ts-check
// Chapter 4's corpus for a worker's engine: fetched once (next to the page,
// `data/moby-dick.txt`) and handed to the engine before the first chapter 4 run. The training
// worker and its shard workers each hold an engine, so each loads it.

/** Loads the corpus into `engine` (this worker's: www/pkg or www/pkg-cpu) unless it is there;
 * throws with the URL and the reason when it cannot be fetched.
 * @param {typeof import('./pkg/plateau.js')} engine */
export async function loadCorpus(engine) {
  if (engine.corpusLoaded()) return;
  const url = new URL('../data/moby-dick.txt', import.meta.url);
  let text;
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    text = await res.text();
  } catch (err) {
    throw new Error(`chapter 4's corpus could not be loaded from ${url} (${err instanceof Error ? err.message : String(err)})`);
  }
  engine.installCorpus(text);
}
