// The training worker's protocol, both ways: the page (www/protocol.js, www/companion.js) posts
// `ToWorker` and reads `FromWorker`; the worker (www/worker.js) reads `ToWorker` and posts
// `FromWorker`. Both sides are type-checked against these (scripts/typecheck.sh), so a field one
// side sends and the other does not read, or reads and is never sent, fails the check.

/** A metric row of the run's chapter (the engine's `MetricRow`, `AnchorRow`, `SyntaxRow` or `LmRow`). */
type WireRow = { step: number; [column: string]: any };
/** A snapshot of the run's chapter (the engine's `Snapshot`, `AnchorSnapshot` or `SyntaxSnapshot`). */
type WireSnap = { step: number; [field: string]: any };
/** Where a run stands. */
type RunStatus = 'running' | 'finished' | 'diverged';

/** A new run ("webgpu" | "cpu" | "race" | "" = choose); with `bytes`, the run saved in that model file
 * continues. `run`: the page's id for it, echoed in 'backend', 'chunk' and 'band'; `seeds`: the seed
 * band's other seeds; `workers` (0 = auto), `cores` (the browser's) and `runs` (how many train side by
 * side): how many workers share its steps' shards. `reason`: why a restart on the CPU chose it. */
type StartRun = {
  type: 'start'; run: number; config: any; backend: string; autoplay: boolean; seeds: number[]; bytes?: Uint8Array;
  workers: number; cores: number; runs: number; reason?: string;
};

/** A message from the page to the training worker. */
type ToWorker =
  /** First: the page's URL query (`location.search`); its backend chooses the engine, fetched at once. */
  | { type: 'prefetch'; query: string }
  | StartRun
  | { type: 'pause' | 'resume' | 'step' | 'save' }
  /** A host copy of the run now (answered by 'host-copy'), if it moved since the last one. */
  | { type: 'checkpoint' }
  /** What a model file holds (answered by 'model-info'). */
  | { type: 'inspect'; bytes: Uint8Array }
  /** A live parameter, recorded with the step it was made at so the band's seeds replay it there. */
  | { type: 'set'; key: string; value: string }
  /** The seed band's seeds from now on, and those already done. */
  | { type: 'seeds'; seeds: number[]; done: number[] }
  /** Fault injection for the end-to-end tests: 'diverge', 'panic', 'device-loss' or 'shard-panic'. */
  | { type: 'test'; what: string };

/** What the worker sends with each stretch of training of the run on screen. */
type WireChunk = {
  step: number; steps: number; status: RunStatus; message: string; rows: WireRow[]; snapshots: WireSnap[];
  /** The run's events in all its rows so far (the engine's `View::events`). */
  events: any;
  /** Where the sharded steps' time went (sharded runs only). */
  sharding?: { steps: number; own_ms: number; wait_ms: number; sum_ms: number };
};

/** A message from the training worker to the page. */
type FromWorker =
  /** The view's wasm loaded (the engine follows at the first start). */
  | { type: 'ready' }
  /** Timing both backends before the run starts. */
  | { type: 'racing'; run: number }
  /** The run's backend and why; `reference`: chapter 4's reference levels, null in other chapters;
   * `race`: the race's figures when one decided; `workers`: the workers that train. */
  | {
      type: 'backend'; run: number; backend: string; reason: string; params: number; omega: number[][]; reference: any;
      race: { webgpu_ms: number | null; cpu_ms: number | null; cached: boolean } | null; workers: { count: number; reason: string };
    }
  | ({ type: 'chunk'; run: number } & WireChunk)
  /** Rows of a band seed (no snapshots). */
  | { type: 'band'; run: number; seed: number; step: number; steps: number; status: RunStatus; rows: WireRow[] }
  | { type: 'state'; running: boolean }
  /** A model file of the run. */
  | { type: 'saved'; run: number; bytes: Uint8Array<ArrayBuffer>; step: number; experiment: string }
  /** A host copy of the run was taken (`file`: the model file, which the page autosaves; `bytes`: its
   * size; `ms`, `count`, `total_ms`: what this copy and all of the run's copies took). */
  | { type: 'host-copy'; run: number; step: number; ms: number; count: number; total_ms: number; bytes: number; file: Uint8Array<ArrayBuffer> }
  /** What a model file holds ({experiment, step, steps, config}), or why not. */
  | { type: 'model-info'; info?: any; error?: string }
  | { type: 'notice'; message: string }
  /** The workers that train the run from now on. */
  | { type: 'workers'; run: number; count: number; reason: string }
  /** `fatal`: the engine trapped (a Rust panic); the worker is unusable and the page replaces it. */
  | { type: 'error'; message: string; fatal?: boolean };
