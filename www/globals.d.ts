// What the page puts on `window` for the end-to-end tests and the bench (read by them; only
// `plateauBreakChart` is written by a test), and what www/bench.js exposes on its own page.
export {};

declare global {
  interface Window {
    /** Fault injection: `'diverge'`, `'panic'` or `'device-loss'`, sent to the worker. */
    plateauTest: (what: string) => void;
    /** Fault injection, written by the end-to-end tests: the canvas id of a chart whose drawing fails. */
    plateauBreakChart?: string;
    /** Longest main-thread task seen (Long Tasks API), in ms. */
    plateauLongestTaskMs: number;
    /** Longest drawing job's own script time, in ms. */
    plateauLongestDrawMs: number;
    /** The drawing code's warm-up at load (`warmUp` in www/charts.js): its charts, how many drew, and why any failed. */
    plateauWarmUp: { jobs: number; drawn: number; failed: string[] };
    plateauChapterModules: { number: number; alias: string; charts: number }[];
    /** Chapter 1: the drop step and the training seconds it took, once it shows. */
    plateauDrop: { step: number; seconds: number } | null;
    /** When the hero first drew runs measured by the command-line tool (performance.now()). */
    plateauMeasuredAt: number | undefined;
    /** The spec a canvas (by id) was last drawn with, or null: the e2e tests read its legend and colours. */
    plateauDrawnSpec: (id: string) => any;
    /** Chapter 2: the held-out answer at the end of the run and when it settled. */
    plateauVerdict: { answer: string; step: number | null; seconds: number | null } | null;
    /** Chapter 2's compare view: the comparison run's γ, its held-out answer at its end and
     * when it settled (seconds on the page's training clock, like `plateauVerdict`'s). */
    plateauCompareVerdict: { gamma: number; answer: string; step: number | null; seconds: number | null } | null;
    /** Chapter 4: when the collapse (hidden cosine ≥ 0.9) and the recovery first showed. */
    plateauLm: {
      collapsed: { step: number; seconds: number } | null;
      recovered: { step: number; seconds: number } | null;
    } | null;
    /** Chapter 3: when the verb loss's drop and the subject → verb head's onset first showed. */
    plateauSyntax: {
      drop: { step: number; seconds: number } | null;
      subject: { step: number; seconds: number } | null;
    } | null;
    /** The run autosaved last (www/autosave.js): its key and step. */
    plateauSaved?: { key: string; step: number };
    /** The latest host copy of the run (a model file, autosaved, and kept on WebGPU for a device
     * loss): its step, what it took, how many so far and their total time, its size in bytes. */
    plateauHostCopy?: { step: number; ms: number; count: number; totalMs: number; bytes: number };
    plateauSharding?: { steps: number; own_ms: number; wait_ms: number; sum_ms: number };
    /** When the first trained step arrived, ms since navigation (the engines bench). */
    plateauFirstStepAt?: number;
    /** The training worker www/worker-early.js started while the page loaded, with what it
     * posted before www/protocol.js adopted it. */
    plateauEarlyWorker?: { worker: Worker; messages: MessageEvent[]; errors: ErrorEvent[] };
    /** www/bench.html only: the bench's hooks. */
    plateauBench: unknown;
  }
}
