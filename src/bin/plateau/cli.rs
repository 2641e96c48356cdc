//! The native command-line front end of the engine (`main.rs` calls [`main`]).
//!
//! ```text
//! plateau run --experiment mws [--preset paper|interactive] [--seed S] [--steps N] [--c C]
//!             [--c-from STEP] [--attention linear|softmax] [--lr LR] [--eval-every K]
//!             [--backend flex|ndarray|wgpu] --out FILE.csv
//! plateau run --experiment anchors [--model transformer|emb-mlp] [--gamma G] [--seed S]
//!             [--memory F] [--seq-len L] [--warmup W] [--steps N] --out FILE.csv [--embeddings FILE.csv]
//! plateau run --experiment syntax [--lambda L] [--lambda-from A] [--lambda-until B] [--seed S]
//!             [--steps N] --out FILE.csv
//! plateau reproduce [--preset paper|interactive] [--seeds 0,1,2] [--cs 0.5,1,2.5,10]
//!             [--resume | --finished-only] [--out REPRODUCTION.md] [--csv-dir results] [--shard i/N]
//! plateau reproduce --experiment anchors [--gammas 0.3,0.4,0.5,0.6,0.7,0.8] [--seeds 0,1,2] [--fresh-seeds 3,4,5]
//! plateau reproduce --experiment anchors --ablation [--factors a,b] [--finished-only]
//! plateau reproduce --experiment anchors --learning-order [--factors a,b] [--finished-only]
//! plateau reproduce --experiment syntax [--strength 0.1] [--brief-until 200] [--seeds 0,1,2] [--finished-only]
//! plateau reproduce --experiment syntax --search [--configs a,b] [--seeds 0,1,2] [--finished-only]
//! plateau reproduce --experiment syntax --design [--configs a,b] [--seeds 0,1,2] [--finished-only]
//! plateau reproduce --experiment syntax --copy [--configs a,b] [--seeds 0,1,2] [--finished-only]
//! plateau reproduce --preset paper --against-transcription [--seeds 0..9] [--after-drop 50] [--resume]
//!             [--finished-only] [--transcription-dir results/transcription]
//! plateau bench [--suite quick|full] [--backends ndarray,flex,wgpu] [--torch CMD|none]
//!             [--browser CMD|none] [--wasm FILE|none] [--memory-steps N] [--only CASE] [--write FILE]
//!             [--one-thread yes|no] [--native-profile PERF_REPORT] [--torch-second CMD]
//! plateau bench --suite gpu [--browser CMD|none] [--write FILE] [--probe yes]
//! plateau bench --suite workers [--browser CMD|none] [--only rates] [--write FILE]
//! plateau bench --suite engines [--browser CMD|none] [--write FILE]
//! plateau bench --suite copy [--browser CMD|none] [--write FILE] [--page FILE]
//! plateau bench --suite cpu [--browser CMD|none] [--write FILE]
//! plateau bench --suite fusion [--browser CMD|none] [--write FILE]
//! plateau params
//! ```
//! Every experiment flag is a key of the config schema (`plateau params` lists them with their
//! ranges); a bad flag or value prints a message naming it and exits with status 2.

use plateau::backend::{self, BackendKind};
use plateau::config::{describe, Preset, RunConfig, PARAMS};
use plateau::run::Run;
use plateau::tensor::block_on;
use plateau::train::Status;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

mod bench_cmd;
mod measured;
mod output;
mod parity;
mod reproduce;
mod reproduce_anchors;
mod reproduce_lm;
mod reproduce_plateau;
mod reproduce_seeds;
mod reproduce_syntax;
mod shared;
mod stop;
mod sweep;
mod tables;
use bench_cmd::cmd_bench;
use parity::cmd_parity_dump;
use reproduce::cmd_reproduce;
use shared::apply_max_memory;
use stop::{install_stop_handlers, stop_requested, stop_signal, RowSink};

const USAGE_HEAD: &str = "usage:
  plateau run [--KEY VALUE ...] [--backend ndarray|wgpu|flex] [--max-memory GB] [--quiet]
              [--seeds 0..4 | --seeds 0,3,7] --out FILE.csv [--embeddings FILE.csv]
                        (every experiment parameter below is a flag; rows are written to
                         FILE.csv.partial as they are evaluated and renamed at the end; Ctrl-C or
                         SIGTERM stops at the next step and keeps them: exit 130/143; a config whose
                         memory estimate is over --max-memory (8 GB) is refused; --embeddings:
                         chapter 2's embedding snapshots; --seeds: one run per seed, one after
                         another (a range is inclusive: 0..4 is five seeds), into one CSV whose
                         first column is seed, then the seeds' summary as plateau summarize prints it)
  plateau measured [--results DIR] [--doc FILE] [--out FILE]
                        the runs measured for REPRODUCTION.md (DIR, default results/) as the page
                         draws them: each configuration's hero columns and the command that trained
                         them (from FILE's sections, default REPRODUCTION.md), one compact JSON file
                         (default www/measured.json; the page draws them under the live run);
                         reproduce writes it again whenever it rewrites REPRODUCTION.md
  plateau summarize FILE.csv
                        each headline number of the run(s) in FILE.csv (from plateau run, with or
                         without --seeds) as the median and range over the seeds
  plateau reproduce [--preset paper|interactive] [--seeds 0,1,2] [--cs 0.5,1,2.5,10]
              [--steps N] [--resume | --finished-only] [--out REPRODUCTION.md] [--csv-dir DIR]
              [--checkpoint-every K] [--stop-after N]
                        (--resume reuses runs an earlier invocation finished with the same config
                         and continues checkpointed ones, saved every K steps (default 25, 0: never);
                         --stop-after trains at most N steps, then checkpoints and writes the section;
                         --finished-only writes the section from finished runs and trains nothing;
                         --shard i/N, on every sweep below too: train runs i, i+N, … of the sweep
                         and write no section, then --finished-only merges the shards' runs)
  plateau reproduce --experiment anchors [--gammas 0.3,0.4,0.5,0.6,0.7,0.8] [--seeds 0,1,2] [--model M]
              [--finished-only] [--fresh-seeds 3,4,5]
                        (runs finished earlier with the same config are read back from --csv-dir;
                         the interactive default also writes index.html's chapter2-findings)
  plateau reproduce --experiment anchors --ablation [--factors a,b] [--gammas 0.3,0.8] [--finished-only]
                        (one factor at a time from the mixed reconstruction; section chapter2-ablation)
  plateau reproduce --experiment anchors --learning-order [--factors a,b] [--gammas 0.4,0.8]
              [--seeds 0,1,2,3,4,5] [--fresh-seeds 3,4,5] [--finished-only]
                        (which subset is learned first, one memory-design factor at a time from the
                         interactive default with memory samples; section chapter2-learning-order)
  plateau reproduce --experiment syntax [--strength 0.1] [--brief-until 200] [--seeds 0,1,2] [--finished-only]
                        (runs finished earlier with the same config are read back from --csv-dir;
                         the interactive default also writes index.html's chapter3-findings)
  plateau reproduce --experiment syntax --search [--configs a,b] [--seeds 0,1,2] [--finished-only]
                        (the search for a plateau; section chapter3-search and index.html's
                         chapter3-search-findings)
  plateau reproduce --experiment syntax --design [--configs a,b] [--seeds 0,1,2] [--finished-only]
                        (the language design search: which grammar gives a sudden drop with the
                         syntactic heads; section chapter3-design)
  plateau reproduce --experiment syntax --copy [--configs a,b] [--seeds 0,1,2] [--finished-only]
                        (copy agreement, issue 52: the reference configuration and one factor at a
                         time from it; section chapter3-copy)
  plateau reproduce --preset paper --against-transcription [--seeds 0..9] [--after-drop 50]
              [--resume | --finished-only] [--csv-dir results/seeds] [--transcription-dir results/transcription]
                        (chapter 1 at c = 1, the engine's seeds against the PyTorch transcription's
                         from bench/seeds.py, each run stopped --after-drop steps after its drop;
                         section chapter1-seed-distributions: medians, quartiles, rank-sum tests)
  plateau bench [--suite quick|full] [--backends ndarray,flex,wgpu] [--torch CMD|none]
              [--browser CMD|none] [--wasm FILE|none] [--memory-steps N] [--only CASE] [--write FILE]
              [--one-thread yes|no] [--native-profile PERF_REPORT] [--torch-second CMD]
                        time training steps natively (--backends: default ndarray,wgpu, and flex
                         in a build with --features flex), in PyTorch (--torch: the reference of
                         every ratio; --torch-second: one more row) and in headless Chromium
  plateau bench --suite gpu [--browser CMD|none] [--write FILE] [--probe yes]
                        (scripts/gpu-check.sh) every preset on wgpu on a hardware GPU beside the
                         CPU backend, and the page's backend race on the hardware adapter: the GPU
                         section of FILE; without a hardware GPU it says so and measures nothing
                         (--probe: only look, exit 3 without one)
  plateau bench --suite workers [--browser CMD|none] [--only rates] [--write FILE]
                        (scripts/bench-workers.sh) the page's data-parallel steps in headless
                         Chromium: the workers section of FILE
  plateau bench --suite engines [--browser CMD|none] [--write FILE]
                        (scripts/bench-engines.sh) the page's wasm builds' sizes and first visits
                         (navigation to the first trained step): the engines section of FILE
  plateau bench --suite copy [--browser CMD|none] [--write FILE] [--page FILE]
                        (scripts/bench-copy.sh) chapter 3's copy-agreement configuration and its
                         default language on the page, each until its drop: FILE's section and
                         the page's sentence
  plateau bench --suite cpu [--browser CMD|none] [--write FILE]
                        (scripts/bench-cpu.sh, a build with --features flex) Flex against NdArray
                         on every case natively and in headless Chromium, with a profile of each
                         in the browser: the cpu-backends section of FILE
  plateau bench --suite fusion [--browser CMD|none] [--write FILE]
                        (scripts/bench-fusion.sh) the page's WebGPU engine with and without kernel
                         fusion on every interactive preset in headless Chromium, WebGPU calls per
                         step counted: the webgpu-fusion section of FILE
  plateau parity-dump [--preset P] [--seed S] [--steps K] --out FILE.json
                        chapter 1's initial weights, batches and the engine's per-step numbers, for
                        scripts/parity.sh (an independent PyTorch transcription trains beside it)
  plateau params        list every experiment parameter with its range and doc";

/// The usage text: the commands, then every experiment parameter of the schema (so a key is
/// spelled once, in `config::PARAMS`).
fn usage() -> String {
    let wrap = |keys: Vec<String>| -> String {
        let mut out = String::new();
        let mut line = String::from("   ");
        for w in keys {
            if line.len() + w.len() + 1 > 98 {
                out += &line;
                out += "\n";
                line = String::from("   ");
            }
            line += " ";
            line += &w;
        }
        out + &line
    };
    let name = |chapters: &[u8]| match chapters {
        [] => "every chapter".to_string(),
        [c] => format!(
            "chapter {c} ({})",
            plateau::config::Task::all()
                .iter()
                .filter(|t| t.chapter().number() == *c)
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        many => format!("chapters {}", many.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" and ")),
    };
    let mut groups: Vec<&[u8]> = vec![];
    for p in PARAMS.iter() {
        if !groups.contains(&p.chapters) {
            groups.push(p.chapters);
        }
    }
    groups.sort_by_key(|g| (!g.is_empty(), g.first().copied(), g.len()));
    let mut out = format!("{USAGE_HEAD}\nexperiment parameters (`plateau params` lists each one's range and doc):");
    for g in groups {
        let keys = PARAMS.iter().filter(|p| p.chapters == g).map(|p| format!("--{}", p.key)).collect();
        out += &format!("\n  {}:\n{}", name(g), wrap(keys));
    }
    out
}

/// A command-line error: message and exit status 2.
pub struct CliError(pub String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

/// Flags after the subcommand: experiment keys go into the config (strictly validated), the rest
/// are returned by name.
pub struct Flags {
    /// The experiment config, preset first.
    pub cfg: RunConfig,
    /// Non-config flags (`out`, `backend`, `seeds`, …) and their values (`""` for switches).
    pub extra: Vec<(String, String)>,
}

const SWITCHES: &[&str] = &[
    "quiet",
    "resume",
    "json",
    "finished-only",
    "ablation",
    "learning-order",
    "search",
    "design",
    "copy",
    "against-transcription",
];

/// Parses `--key value` pairs; `allowed_extra` names the non-schema flags this subcommand takes.
pub fn parse_flags(args: &[String], allowed_extra: &[&str]) -> Result<Flags, CliError> {
    let mut pairs: Vec<(String, String)> = vec![];
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let Some(key) = a.strip_prefix("--") else {
            return Err(CliError(format!("unexpected argument '{a}' (flags look like --key value)")));
        };
        let (key, inline) = match key.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (key.to_string(), None),
        };
        if SWITCHES.contains(&key.as_str()) && allowed_extra.contains(&key.as_str()) {
            pairs.push((key, String::new()));
            i += 1;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                args.get(i).cloned().ok_or_else(|| CliError(format!("flag --{key} needs a value")))?
            }
        };
        pairs.push((key, value));
        i += 1;
    }
    let mut cfg = RunConfig::preset(Preset::Interactive);
    // A repeated flag keeps its last value, `--preset` too.
    if let Some((_, p)) = pairs.iter().rev().find(|(k, _)| k == "preset") {
        cfg = RunConfig::preset(Preset::parse(p).ok_or_else(|| {
            CliError(format!(
                "invalid value {p:?} for '--preset': allowed {}",
                describe(plateau::config::spec("preset").unwrap().kind)
            ))
        })?);
    }
    let mut extra = vec![];
    let mut keys = vec![];
    for (k, v) in pairs {
        if k == "preset" {
            continue;
        }
        if plateau::config::spec(&k).is_some() {
            keys.push((k, v));
        } else if allowed_extra.contains(&k.as_str()) {
            extra.push((k, v));
        } else {
            return Err(CliError(format!("unknown flag --{k}; see `plateau params` and `plateau --help`")));
        }
    }
    // Every key is range-checked as it is read; the rules between keys (heads divide d-model)
    // once all are read, so the order of the flags does not matter.
    cfg.set_all(keys.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| CliError(format!("--{} {:?}: allowed {}", e.key, e.value, e.allowed)))?;
    Ok(Flags { cfg, extra })
}

impl Flags {
    /// A non-config flag's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.extra.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    /// The `--backend` flag (default: the chosen CPU backend).
    pub fn backend(&self) -> Result<BackendKind, CliError> {
        let kind = match self.get("backend") {
            None => backend::CPU,
            Some(b) => BackendKind::parse(b).ok_or_else(|| CliError(backend_refusal(b)))?,
        };
        #[cfg(feature = "wgpu")]
        if kind == BackendKind::Wgpu {
            probe_wgpu()?;
        }
        Ok(kind)
    }
}

/// Why `--backend NAME` (or a name in `--backends`) is refused: Flex or wgpu in a build without
/// it (the `flex` and `wgpu` features), or an unknown name.
pub fn backend_refusal(name: &str) -> String {
    let (mut built, mut opt_in) = (vec!["ndarray", "cpu"], vec![]);
    for (b, has) in [("wgpu", backend::WGPU_BUILT), ("flex", backend::FLEX_BUILT)] {
        if has {
            built.push(b);
        } else {
            opt_in.push(b);
        }
    }
    let built = built.join(", ");
    match name {
        "flex" | "wgpu" | "webgpu" | "vulkan" if BackendKind::parse(name).is_none() => {
            let feature = if name == "flex" { "flex" } else { "wgpu" };
            format!(
                "--backend {name:?}: this build has no {feature} backend; build with `cargo build --release --features \
                 {feature}` (scripts/bench.sh does), or use {built}"
            )
        }
        _ if opt_in.is_empty() => format!("--backend {name:?}: allowed {built}"),
        _ => format!(
            "--backend {name:?}: allowed {built} ({} with `--features {}`)",
            opt_in.join(", "),
            opt_in.join(",")
        ),
    }
}

#[cfg(feature = "wgpu")]
/// `--backend wgpu`: sets the adapter up once with one tiny tensor, before anything trains.
/// Without a usable adapter burn panics inside its first operation; here that becomes a message
/// and exit status 2 (the panic's own text is kept for the message, not printed).
fn probe_wgpu() -> Result<(), CliError> {
    let quiet: Box<dyn Fn(&std::panic::PanicHookInfo) + Sync + Send> = Box::new(|_| {});
    let previous = std::panic::take_hook();
    std::panic::set_hook(quiet);
    let outcome = std::panic::catch_unwind(|| {
        let device = backend::device(BackendKind::Wgpu);
        block_on(plateau::tensor::read_i64(plateau::tensor::int_tensor(vec![1], 1, 1, &device)))
    });
    std::panic::set_hook(previous);
    match outcome {
        Ok(v) if v == [1] => Ok(()),
        Ok(v) => Err(CliError(format!("--backend wgpu: the adapter computed {v:?} for [1]; use --backend ndarray"))),
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("no reason given");
            Err(CliError(format!(
                "--backend wgpu: no WebGPU (Vulkan/Metal) adapter could be set up ({}); use --backend ndarray",
                why.lines().next().unwrap_or(why)
            )))
        }
    }
}

/// Trains one run of any chapter to the end, with a progress bar on stderr unless `quiet`.
/// Returns the run (its history) and the wall time in seconds.
pub fn train_any(cfg: RunConfig, kind: BackendKind, quiet: bool, label: &str) -> Result<(Run, f64), CliError> {
    let mut run = Run::new(cfg, &backend::device(kind))?;
    let secs = drive(&mut run, quiet, label, &mut |_| Ok(true))?;
    Ok((run, secs))
}

/// Advances `run` until it finishes, diverges or `after_step` returns `false` (called after every
/// step that leaves the run running), with a progress bar on stderr unless `quiet`. Returns the
/// wall time in seconds.
fn drive(
    run: &mut Run,
    quiet: bool,
    label: &str,
    after_step: &mut dyn FnMut(&Run) -> Result<bool, CliError>,
) -> Result<f64, CliError> {
    let total = run.config().steps;
    let first = run.step();
    // Fault injection for the end-to-end tests (like the page's `plateauTest('diverge')`): an
    // infinite learning rate from step N on makes the run diverge there.
    let diverge_at: Option<usize> = std::env::var("PLATEAU_TEST_DIVERGE_AT").ok().and_then(|v| v.parse().ok());
    let start = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let mut last_draw = Instant::now();
    let mut last_pct = usize::MAX;
    loop {
        if diverge_at == Some(run.step()) {
            run.force_lr(f64::INFINITY);
        }
        block_on(run.advance());
        // Natively a read costs next to nothing: settle every step, so a divergence is reported
        // at the step it happened (the page settles once per chunk of steps instead).
        let status = block_on(run.settle());
        let s = run.step();
        if !quiet {
            let pct = s * 100 / total.max(1);
            let due = if tty { last_draw.elapsed().as_millis() > 150 } else { pct / 10 != last_pct / 10 };
            if due || status != Status::Running {
                last_draw = Instant::now();
                last_pct = pct;
                let (loss, metric, value) = run.progress();
                let width = 30;
                let filled = width * s / total.max(1);
                let rate = (s - first) as f64 / start.elapsed().as_secs_f64().max(1e-9);
                let line = format!(
                    "{label} [{}{}] {s}/{total} loss {loss:.3} {metric} {value:.2} ({rate:.1} steps/s)",
                    "#".repeat(filled),
                    ".".repeat(width - filled),
                );
                if tty {
                    eprint!("\r{line}\x1b[K");
                } else {
                    eprintln!("{line}");
                }
            }
        }
        match status {
            Status::Running => {
                if !after_step(run)? {
                    break;
                }
            }
            Status::Finished => break,
            Status::Diverged(msg) => {
                if !quiet && tty {
                    eprintln!();
                }
                eprintln!("{msg}");
                break;
            }
        }
    }
    if !quiet && tty {
        eprintln!();
    }
    Ok(start.elapsed().as_secs_f64())
}

fn cmd_run(args: &[String]) -> Result<ExitCode, CliError> {
    let flags = parse_flags(args, &["out", "backend", "quiet", "embeddings", "max-memory", "seeds"])?;
    let out = flags.get("out").ok_or_else(|| CliError("run needs --out FILE.csv".into()))?.to_string();
    let embeddings = flags.get("embeddings").map(str::to_string);
    if embeddings.is_some() && flags.cfg.experiment != plateau::config::Task::Anchors {
        return Err(CliError("--embeddings is for --experiment anchors (chapter 2)".into()));
    }
    let seeds = match flags.get("seeds") {
        None => None,
        Some(text) => {
            if args.iter().any(|a| a == "--seed" || a.starts_with("--seed=")) {
                return Err(CliError("--seed and --seeds together: give one of them".into()));
            }
            if embeddings.is_some() {
                return Err(CliError("--embeddings writes one run's snapshots: not with --seeds".into()));
            }
            Some(plateau::seeds::parse_seeds_flag("seeds", text).map_err(CliError)?)
        }
    };
    let kind = flags.backend()?;
    apply_max_memory(&flags)?;
    let Some(seeds) = seeds else {
        return run_one(&flags, kind, &out, embeddings.as_deref());
    };
    // `--seeds`: one run per seed, one after another, into one CSV with a `seed` column.
    let mut sink = RowSink::create(&out)?;
    install_stop_handlers();
    let quiet = flags.get("quiet").is_some();
    eprintln!("{} seeds ({}) → {out}", seeds.len(), seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "));
    let mut runs: Vec<Run> = vec![];
    let mut diverged = 0;
    let t0 = Instant::now();
    for &seed in &seeds {
        let mut cfg = flags.cfg.clone();
        cfg.seed = seed;
        let mut run = Run::new(cfg, &backend::device(kind))?;
        sink.next_seed(seed, runs.last());
        drive(&mut run, quiet, &format!("seed {seed}"), &mut |r| {
            sink.update(r)?;
            Ok(!stop_requested())
        })?;
        sink.update(&run)?;
        if matches!(run.status(), Status::Diverged(_)) {
            diverged += 1;
        }
        let stopped = stop_requested();
        runs.push(run);
        if stopped {
            break;
        }
    }
    let last = runs.last().expect("at least one seed");
    sink.finish(last)?;
    let rows: usize = runs.iter().map(Run::row_count).sum();
    if stop_signal() != 0 {
        eprintln!(
            "stopped by signal {} at step {} of seed {}: {rows} rows → {out}",
            stop_signal(),
            last.step(),
            last.config().seed
        );
        return Ok(ExitCode::from((128 + stop_signal()) as u8));
    }
    eprintln!("{rows} rows of {} seeds → {out} ({:.1} s, {})", runs.len(), t0.elapsed().as_secs_f64(), kind.name());
    let measures: Vec<_> = runs.iter().map(Run::measures).collect();
    for line in plateau::seeds::summary_lines(&measures) {
        eprintln!("  {line}");
    }
    Ok(if diverged > 0 {
        eprintln!("{diverged} of {} seeds diverged", runs.len());
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// `plateau run` of one seed: rows streamed to `out`, chapter 2's snapshots to `embeddings`.
fn run_one(flags: &Flags, kind: BackendKind, out: &str, embeddings: Option<&str>) -> Result<ExitCode, CliError> {
    let mut run = Run::new(flags.cfg.clone(), &backend::device(kind))?;
    // Every output is checked before the first step, not found unwritable after the last.
    if let Some(path) = embeddings {
        output::check_writable(path, "embeddings")?;
    }
    let mut sink = RowSink::create(out)?;
    install_stop_handlers();
    let secs = drive(&mut run, flags.get("quiet").is_some(), "run", &mut |r| {
        sink.update(r)?;
        Ok(!stop_requested())
    })?;
    sink.finish(&run)?;
    if stop_signal() != 0 {
        eprintln!("stopped by signal {} at step {}: {} rows → {out}", stop_signal(), run.step(), run.row_count());
        return Ok(ExitCode::from((128 + stop_signal()) as u8));
    }
    if let (Some(path), Run::Anchors(t)) = (embeddings, &run) {
        output::write_file(path, plateau::chapters::anchors::embeddings_csv(&t.history.snapshots).as_bytes())?;
        eprintln!("{} embedding snapshots → {path}", t.history.snapshots.len());
    }
    eprintln!(
        "{} rows → {out} ({:.1} s, {:.2} steps/s, {})",
        run.row_count(),
        secs,
        run.step() as f64 / secs,
        kind.name()
    );
    Ok(match run.status() {
        Status::Diverged(_) => ExitCode::from(3),
        _ => ExitCode::SUCCESS,
    })
}

/// `plateau summarize FILE.csv`: each seed's headline numbers and their median and range.
fn cmd_summarize(args: &[String]) -> Result<ExitCode, CliError> {
    let [path] = args else {
        return Err(CliError("summarize needs one FILE.csv (written by plateau run, with or without --seeds)".into()));
    };
    let text = std::fs::read_to_string(path).map_err(|e| CliError(format!("cannot read {path}: {e}")))?;
    let (task, runs) = plateau::chapters::measures_from_csv(&text).map_err(|e| CliError(format!("{path}: {e}")))?;
    println!("{path}: chapter {}, {} seed(s)", task.chapter().number(), runs.len());
    let measures: Vec<_> = runs.iter().map(|r| r.1.clone()).collect();
    for line in plateau::seeds::summary_lines(&measures) {
        println!("  {line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_params() -> Result<ExitCode, CliError> {
    let paper = RunConfig::preset(Preset::Paper);
    let inter = RunConfig::preset(Preset::Interactive);
    println!("{:<16} {:<12} {:<12} {:<5} allowed — what it does", "flag", "paper", "interactive", "live");
    for p in PARAMS.iter() {
        println!(
            "--{:<14} {:<12} {:<12} {:<5} {} — {}",
            p.key,
            paper.get(p.key).unwrap(),
            inter.get(p.key).unwrap(),
            if p.live { "yes" } else { "reset" },
            describe(p.kind),
            p.doc
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Tells glibc's allocator to keep freed memory for reuse instead of returning it to the OS.
///
/// A paper-preset step allocates and frees buffers of up to 35 MB (the 8448 × 1024 MLP
/// activations). glibc serves blocks above its mmap threshold (at most 32 MB) with a fresh
/// `mmap` each time, and every page of it is faulted in and zeroed by the kernel again: measured
/// 2.42 s per paper step with 8.5 s of 29 s spent in the kernel, against 1.83 s with this
/// setting (2-core machine, 2026-11-30). Peak memory is unchanged: the heap stays at its
/// high-water mark, which is the peak the run reaches anyway.
fn keep_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning parameters; called before any threads start.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
    }
}

/// Runs the CLI on the process arguments.
pub fn main() -> ExitCode {
    keep_freed_buffers();
    output::ignore_file_size_signal();
    // `std::env::args` panics on an argument that is not UTF-8: read them raw and refuse such an
    // argument with a message instead.
    let mut args: Vec<String> = vec![];
    for (i, a) in std::env::args_os().skip(1).enumerate() {
        match a.into_string() {
            Ok(a) => args.push(a),
            Err(raw) => {
                eprintln!("error: argument {} is not valid UTF-8 ({:?})", i + 1, raw);
                return ExitCode::from(2);
            }
        }
    }
    let wants_help = args.iter().skip(1).any(|a| a == "--help" || a == "-h");
    let result = match args.first().map(String::as_str) {
        // `plateau run --help` and the like: the usage, not "flag --help needs a value".
        Some("run" | "reproduce" | "bench" | "params" | "summarize" | "measured") if wants_help => {
            println!("{}", usage());
            Ok(ExitCode::SUCCESS)
        }
        Some("run") => cmd_run(&args[1..]),
        Some("summarize") => cmd_summarize(&args[1..]),
        Some("measured") => measured::cmd_measured(&args[1..]),
        Some("reproduce") => cmd_reproduce(&args[1..]),
        Some("bench") => cmd_bench(&args[1..]),
        Some("parity-dump") => cmd_parity_dump(&args[1..]),
        Some("params") if args.len() > 1 => {
            Err(CliError(format!("params takes no arguments (got {:?}); see `plateau --help`", &args[1..])))
        }
        Some("params") => cmd_params(),
        Some("-h") | Some("--help") | Some("help") => {
            println!("{}", usage());
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => Err(CliError(format!("unknown command '{other}'\n{}", usage()))),
        None => Err(CliError(usage())),
    };
    match result {
        Ok(code) => code,
        Err(CliError(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
