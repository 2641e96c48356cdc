// @ts-check
// The training worker, started while the page's modules load (a classic script runs as the page
// is parsed, before the deferred module www/app.js), and handed the URL at once, so that
// it chooses and fetches its engine meanwhile. www/protocol.js adopts it (`startWorker`) with the
// messages it posted before the page was ready; without it (or when it failed to start) the page
// starts its worker itself.
(() => {
  try {
    const script = /** @type {HTMLScriptElement} */ (document.currentScript);
    const worker = new Worker(new URL('worker.js', script.src), { type: 'module' });
    /** @type {{worker: Worker, messages: MessageEvent[], errors: ErrorEvent[]}} */
    const early = { worker, messages: [], errors: [] };
    worker.onmessage = (e) => { early.messages.push(e); };
    worker.onerror = (e) => { early.errors.push(e); };
    // The address as it is: the worker reads its backend= with the engine (`queryBackend`), so
    // the main thread parses the query once, in the page's engine (`readUrl`).
    worker.postMessage({ type: 'prefetch', query: window.location.search });
    window.plateauEarlyWorker = early;
  } catch (err) {
    // No module workers here: the page starts its worker itself (and says so if it cannot).
  }
})();
