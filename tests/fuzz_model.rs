#![cfg(not(target_arch = "wasm32"))]
//! Generated damage against the `.plateau` model-file reader, through the entry point the page's
//! *Load model* uses (`Session::load` is `Run::from_file`), natively: two small valid files (chapter
//! 1 saved while running, chapter 2 saved finished, with its carried PCA) and at least 5 000
//! mutations of them from a seeded generator — truncations (at random and at every section
//! boundary), bit flips, header overwrites, other format versions, huge or negative declared
//! lengths (the file's sections, the burnpack headers and their CBOR metadata, the state's CBOR),
//! edited tensor descriptors (dtype, shape, offsets), edited state values, zeroed, duplicated,
//! spliced and grafted regions — most re-sealed with a fresh checksum so that they reach the
//! parsers behind it. Each must load without a panic, within a time limit and an allocation budget,
//! and end as an `Err` that says why or as a run whose config validates (an unmutated or harmless
//! one with the saved step and rows). A failure prints its seed, case, mutation and the smallest
//! damage found that still fails, as hex. The allocation budget is counted by this binary's global
//! allocator, on the case's own thread and only while a case runs (other tests pay one
//! thread-local check per allocation).
//! Replay: `PLATEAU_FUZZ_SEED=<seed> [PLATEAU_FUZZ_MODEL_CASES=<n>] [PLATEAU_FUZZ_MODEL_CASE=<i>]
//! cargo test --release --test integration fuzz_model -- --nocapture` (the seed defaults to
//! 20260063, the count to 5 000; `…_CASE` runs that one case).

use ciborium::value::Value;
use plateau::backend;
use plateau::config::{Preset, RunConfig, Task};
use plateau::run::Run;
use plateau::tensor::block_on;
use plateau::train::checkpoint::{read_file, FILE_MAGIC};
use plateau::train::Status;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::fuzz_model_cases::*;
use crate::fuzz_model_shrink::*;

/// The seed when `PLATEAU_FUZZ_SEED` is not set.
pub(crate) const DEFAULT_SEED: u64 = 20_260_063;
/// The fewest cases a run makes (`PLATEAU_FUZZ_MODEL_CASES` may ask for more, or fewer).
pub(crate) const DEFAULT_CASES: usize = 5_000;
/// One case that runs this long is a hang: the watchdog prints it and aborts the process.
pub(crate) const HANG: Duration = Duration::from_secs(30);
/// No single allocation of a case may reach this: the allocator refuses it (the process aborts
/// after printing the case) rather than let a trusted length take the machine's memory.
pub(crate) const HARD_CAP: usize = 2 << 30;

// ---------------------------------------------------------------------------------------------
// The allocation budget: a counting allocator, per thread, switched on for the case under test.
// (Allocations the backend makes on its rayon workers are not counted; decoding runs on the
// calling thread.)

pub(crate) struct Counting;

thread_local! {
    static TRACK: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// What the case under test is, for the allocator's and the watchdog's last words.
pub(crate) static CURRENT: Mutex<String> = Mutex::new(String::new());

pub(crate) fn last_words(what: &str) {
    let mut msg = format!("\nfuzz_model: {what}\n");
    if let Ok(c) = CURRENT.try_lock() {
        msg.push_str(&c);
        msg.push('\n');
    }
    // SAFETY: a plain write of an owned buffer to stderr.
    unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
}

/// Counts a change of `delta` live bytes by a request of `size`; false: refuse it.
pub(crate) fn note(delta: isize, size: usize) -> bool {
    TRACK
        .try_with(|t| {
            if !t.get() {
                return true;
            }
            if size >= HARD_CAP {
                t.set(false);
                last_words(&format!("an allocation of {size} bytes (over the hard cap of {HARD_CAP}) in the case"));
                return false;
            }
            let live = LIVE.with(|l| {
                l.set(l.get() + delta);
                l.get()
            });
            PEAK.with(|p| p.set(p.get().max(live)));
            LARGEST.with(|m| m.set(m.get().max(size)));
            true
        })
        .unwrap_or(true)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !note(layout.size() as isize, layout.size()) {
            return std::ptr::null_mut();
        }
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !note(layout.size() as isize, layout.size()) {
            return std::ptr::null_mut();
        }
        System.alloc_zeroed(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize), 0);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !note(new_size as isize - layout.size() as isize, new_size) {
            return std::ptr::null_mut();
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `f`'s result with the peak of live bytes it added and its largest single allocation.
pub(crate) fn measured<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    LARGEST.with(|m| m.set(0));
    TRACK.with(|t| t.set(true));
    let out = f();
    TRACK.with(|t| t.set(false));
    (out, PEAK.with(|p| p.get()).max(0) as usize, LARGEST.with(|m| m.get()))
}

// ---------------------------------------------------------------------------------------------
// The valid files and their layout.

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// `body` with its checksum appended: a file whose damage the checksum does not catch.
pub(crate) fn seal(mut body: Vec<u8>) -> Vec<u8> {
    let h = fnv1a(&body);
    body.extend_from_slice(&h.to_le_bytes());
    body
}

/// Where a file's four sections lie: `(offset of the u64 length, payload range)`; `None` where
/// the lengths do not add up.
pub(crate) fn sections(file: &[u8]) -> Option<[(usize, std::ops::Range<usize>); 4]> {
    let body = file.get(..file.len().checked_sub(8)?)?;
    let mut at = 20;
    let mut out = vec![];
    for _ in 0..4 {
        let n = usize::try_from(u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?)).ok()?;
        let end = (at + 8).checked_add(n)?;
        body.get(at + 8..end)?;
        out.push((at, at + 8..end));
        at = end;
    }
    out.try_into().ok()
}

/// A file (without its checksum) from its version field and four payloads.
pub(crate) fn assemble(head: &[u8], parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = head[..20].to_vec();
    for p in parts {
        out.extend_from_slice(&(p.len() as u64).to_le_bytes());
        out.extend_from_slice(p);
    }
    out
}

/// A valid model file and what loading it must give.
pub(crate) struct Source {
    pub(crate) name: &'static str,
    pub(crate) file: Vec<u8>,
    pub(crate) parts: Vec<Vec<u8>>,
    pub(crate) step: usize,
    pub(crate) rows: usize,
    pub(crate) csv: String,
    pub(crate) config: RunConfig,
    pub(crate) finished: bool,
    /// Named offsets where a truncation is tried: every section boundary of the file and of the
    /// burnpack records inside it.
    pub(crate) boundaries: Vec<(usize, String)>,
    /// Byte ranges whose damage reaches a parser rather than weight values (headers, lengths,
    /// metadata, the state).
    pub(crate) structure: Vec<std::ops::Range<usize>>,
}

/// A burnpack record's layout: `(metadata range, data start)` relative to the record.
pub(crate) fn burnpack_layout(rec: &[u8]) -> Option<(std::ops::Range<usize>, usize)> {
    let size = u32::from_le_bytes(rec.get(6..10)?.try_into().ok()?) as usize;
    let end = 10usize.checked_add(size)?;
    rec.get(10..end)?;
    Some((10..end, end.div_ceil(256) * 256))
}

/// `file` with its parameter ids (random in each process: burn draws them) renumbered in the
/// order of the model record's tensor names, in both records, so that the same seed damages the
/// same bytes in every process.
pub(crate) fn renumbered(file: &[u8]) -> Vec<u8> {
    let secs = sections(file).unwrap();
    let mut parts: Vec<Vec<u8>> = secs.iter().map(|(_, r)| file[r.clone()].to_vec()).collect();
    let mut ids = std::collections::HashMap::<u64, u64>::new();
    pub(crate) fn rename(ids: &mut std::collections::HashMap<u64, u64>, old: u64) -> u64 {
        let n = ids.len() as u64;
        *ids.entry(old).or_insert(0x5eed_0000_0000_0000 + n)
    }
    pub(crate) fn rekey(ids: &mut std::collections::HashMap<u64, u64>, key: &Value) -> Value {
        let t = key.as_text().unwrap_or_default();
        let (head, tail) = t.split_at(t.find('.').unwrap_or(t.len()));
        match head.parse::<u64>() {
            Ok(old) => Value::Text(format!("{}{tail}", rename(ids, old))),
            Err(_) => key.clone(),
        }
    }
    let entries = |v: &mut Value, key: &str| -> Vec<(Value, Value)> {
        let Value::Map(top) = v else { panic!("a burnpack metadata map") };
        match top.iter_mut().find(|(k, _)| k.as_text() == Some(key)) {
            Some((_, Value::Map(m))) => std::mem::take(m),
            _ => vec![],
        }
    };
    let put = |v: &mut Value, key: &str, mut m: Vec<(Value, Value)>| {
        m.sort_by(|a, b| a.0.as_text().cmp(&b.0.as_text()));
        let Value::Map(top) = v else { unreachable!() };
        if let Some((_, slot)) = top.iter_mut().find(|(k, _)| k.as_text() == Some(key)) {
            *slot = Value::Map(m);
        }
    };
    for k in [1, 2] {
        let (meta, data) = burnpack_layout(&parts[k]).unwrap();
        let mut v: Value = ciborium::from_reader(&parts[k][meta]).unwrap();
        let mut tensors = entries(&mut v, "tensors");
        for (name, desc) in tensors.iter_mut() {
            *name = rekey(&mut ids, name);
            if let Value::Map(d) = desc {
                for (f, x) in d.iter_mut() {
                    if let (Some("param_id"), Some(old)) = (f.as_text(), x.as_integer()) {
                        *x = int(rename(&mut ids, u64::try_from(old).unwrap()) as i128);
                    }
                }
            }
        }
        put(&mut v, "tensors", tensors);
        for key in ["scalars", "metadata"] {
            let m = entries(&mut v, key).into_iter().map(|(k, x)| (rekey(&mut ids, &k), x)).collect();
            put(&mut v, key, m);
        }
        parts[k] = relayout(&parts[k], &to_cbor(&v), data);
    }
    seal(assemble(file, &parts))
}

pub(crate) fn source(name: &'static str, cfg: RunConfig, save_at: Option<usize>) -> Source {
    let device = backend::cpu_device();
    let mut run = Run::new(cfg, &device).unwrap();
    loop {
        if save_at.is_some_and(|k| run.step() >= k) {
            break;
        }
        if block_on(run.advance()) != Status::Running {
            break;
        }
    }
    let file = renumbered(&block_on(run.save_file()).unwrap());
    let back = Run::from_file(&file, &device).expect("the renumbered file loads");
    assert_eq!((back.step(), back.csv()), (run.step(), run.csv()), "the renumbered file is the same run");
    let secs = sections(&file).expect("a valid file's sections");
    let parts: Vec<Vec<u8>> = secs.iter().map(|(_, r)| file[r.clone()].to_vec()).collect();
    let mut boundaries: Vec<(usize, String)> = vec![
        (0, "the start".into()),
        (FILE_MAGIC.len(), "the end of the magic".into()),
        (20, "the end of the version".into()),
        (file.len() - 8, "the start of the checksum".into()),
    ];
    let what = ["header", "model", "optimizer", "state"];
    let mut structure = vec![0..20, file.len() - 8..file.len()];
    for (k, (at, r)) in secs.iter().enumerate() {
        boundaries.push((*at, format!("the {} section's length", what[k])));
        boundaries.push((r.start, format!("the {} section's start", what[k])));
        boundaries.push((r.end, format!("the {} section's end", what[k])));
        structure.push(*at..r.start);
        if k == 0 || k == 3 {
            structure.push(r.clone());
        }
        if k == 1 || k == 2 {
            let (meta, data) = burnpack_layout(&file[r.clone()]).expect("a burnpack record");
            structure.push(r.start..r.start + data);
            for (off, w) in [(4, "magic"), (6, "version"), (meta.start, "header"), (meta.end, "metadata")] {
                boundaries.push((r.start + off, format!("the end of the {} record's burnpack {w}", what[k])));
            }
            boundaries.push((r.start + data, format!("the {} record's tensor data", what[k])));
        }
    }
    boundaries.sort();
    boundaries.dedup_by_key(|b| b.0);
    Source {
        name,
        parts,
        step: run.step(),
        rows: run.row_count(),
        csv: run.csv(),
        config: run.config().clone(),
        finished: *run.status() == Status::Finished,
        boundaries,
        structure,
        file,
    }
}

pub(crate) fn sources() -> Vec<Source> {
    // Chapter 1 at the smallest width the schema takes, saved at step 5 (between evaluations, with
    // the optimizer's moments).
    let mut ch1 = RunConfig::preset(Preset::Interactive);
    (ch1.d_model, ch1.d_ff, ch1.layers, ch1.heads) = (8, 8, 1, 1);
    (ch1.batch, ch1.eval_batch, ch1.steps, ch1.eval_every, ch1.snapshot_every) = (4, 4, 8, 2, 4);
    // Chapter 2 run to its end (finished, its carried PCA set), two layers.
    let mut ch2 = RunConfig::defaults(Task::Anchors, Preset::Interactive);
    (ch2.d_model, ch2.d_ff, ch2.layers, ch2.heads) = (8, 8, 2, 1);
    (ch2.batch, ch2.eval_batch, ch2.steps, ch2.eval_every, ch2.snapshot_every) = (4, 4, 6, 2, 2);
    (ch2.warmup, ch2.shards) = (2, 1);
    vec![source("chapter 1 at step 5", ch1, Some(5)), source("chapter 2, finished", ch2, None)]
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// The oracle.

/// What one input did.
#[derive(Default)]
pub(crate) struct Outcome {
    pub(crate) loaded: bool,
    pub(crate) peak: usize,
    pub(crate) largest: usize,
    pub(crate) limit: usize,
}

/// The config a file's state declares (as the page's `modelFileInfo` reads it), if any.
pub(crate) fn declared_config(file: &[u8]) -> Option<RunConfig> {
    #[derive(serde::Deserialize)]
    struct ConfigOnly {
        config: RunConfig,
    }
    let secs = sections(file)?;
    let c = ciborium::from_reader::<ConfigOnly, _>(&file[secs[3].1.clone()]).ok()?.config;
    c.validate().ok()?;
    Some(c)
}

/// The allocation budget of loading `file`: a base, a multiple of its length, and the memory
/// the config it declares needs to train (which the engine allows; the reader allocates the
/// model it describes).
pub(crate) fn budget(file: &[u8]) -> usize {
    let need = declared_config(file).map_or(0.0, |c| c.memory_estimate(plateau::chapters::shape(&c)));
    (16 << 20) + 8 * file.len() + 2 * need as usize
}

pub(crate) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
}

/// Loads `bytes` as the page does and holds the result to the rules (see the module doc); `Err`
/// says which rule it broke.
pub(crate) fn check(case: &Case, bytes: &[u8], src: &Source) -> Result<Outcome, String> {
    let device = backend::cpu_device();
    let mutated = bytes != src.file.as_slice();
    let limit = budget(bytes);
    let (result, peak, largest) = measured(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<Option<String>, String> {
            let split = read_file(bytes);
            match Run::from_file(bytes, &device) {
                Err(e) => {
                    if e.trim().len() < 10 {
                        return Err(format!("refused with a message that says nothing: {e:?}"));
                    }
                    if let Err(first) = split {
                        if first != e {
                            return Err(format!("read_file said {first:?}, Run::from_file {e:?}"));
                        }
                    }
                    if mutated && !case.sealed && !(e.contains("damaged") || e.contains("not a Plateau model file")) {
                        return Err(format!("a change the checksum catches was refused for another reason: {e}"));
                    }
                    Ok(Some(e))
                }
                Ok(mut run) => {
                    if split.is_err() {
                        return Err("loaded although read_file refuses it".into());
                    }
                    let cfg = run.config().clone();
                    cfg.validate().map_err(|e| format!("loaded with a config that does not validate: {e}"))?;
                    if run.step() > cfg.steps {
                        return Err(format!("loaded at step {} of a {}-step run", run.step(), cfg.steps));
                    }
                    let csv = run.csv();
                    let (step, rows) = (run.step(), run.row_count());
                    let secs = sections(bytes).ok_or("loaded a file whose sections do not add up")?;
                    let same_payload = (1..4).all(|k| bytes[secs[k].1.clone()] == src.parts[k][..]);
                    if case.harmless || same_payload {
                        let finished = *run.status() == Status::Finished;
                        if (step, rows, finished) != (src.step, src.rows, src.finished)
                            || csv != src.csv
                            || cfg != src.config
                        {
                            return Err(format!(
                                "its weights, optimizer and state are the saved ones, but it loaded at step {step} \
                                 with {rows} rows (saved: step {}, {} rows){}",
                                src.step,
                                src.rows,
                                if csv != src.csv { ", other rows" } else { "" }
                            ));
                        }
                    }
                    // What loaded saves again and loads back the same.
                    let again = block_on(run.save_file()).map_err(|e| format!("loaded, but cannot be saved: {e}"))?;
                    let back =
                        Run::from_file(&again, &device).map_err(|e| format!("loaded, saved, and then refused: {e}"))?;
                    if (back.step(), back.row_count(), back.csv()) != (step, rows, csv) {
                        return Err("loaded and saved, it loads back with other rows".into());
                    }
                    drop(back);
                    // With the source's config a step is cheap: the loaded state must train on.
                    if cfg == src.config && run.step() < cfg.steps {
                        block_on(run.advance());
                    }
                    Ok(None)
                }
            }
        }))
    });
    let verdict = result.map_err(|p| format!("panicked: {}", panic_text(&*p)))?;
    let refusal = verdict?;
    if peak > limit {
        return Err(format!(
            "allocated {peak} bytes at its peak (largest block {largest}), over the budget of {limit}"
        ));
    }
    if case.harmless && refusal.is_some() {
        return Err(format!("an unmutated or harmless file was refused: {}", refusal.unwrap()));
    }
    Ok(Outcome { loaded: refusal.is_none(), peak, largest, limit })
}

// ---------------------------------------------------------------------------------------------

pub(crate) fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")))
}

#[test]
pub(crate) fn five_thousand_damaged_model_files_are_refused_with_a_reason_or_load_a_valid_run() {
    let seed = env_number("PLATEAU_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let count = env_number("PLATEAU_FUZZ_MODEL_CASES").map_or(DEFAULT_CASES, |n| n as usize);
    let only = env_number("PLATEAU_FUZZ_MODEL_CASE").map(|n| n as usize);
    let t0 = Instant::now();
    // The budget is only as good as the counting.
    let (_, p, l) = measured(|| std::hint::black_box(vec![1u8; 3 << 20]).len());
    assert!(p >= 3 << 20 && l >= 3 << 20, "the counting allocator missed a 3 MiB block ({p}, {l})");
    let sources = sources();
    // Chapter 4's corpus, built once per process (a file relabelled `lm` needs it): built here, it
    // is not counted against the first such case's budget or time.
    plateau::chapters::lm::corpus::corpus().unwrap();
    let dtypes = dtypes();
    let fixed = fixed_cases(&sources);
    // The first cases are the fixed ones, the rest drawn.
    let total = count.max(fixed.len());
    let replay = |i: usize| {
        format!(
            "PLATEAU_FUZZ_SEED={seed} PLATEAU_FUZZ_MODEL_CASE={i} cargo test --release --test integration fuzz_model \
             -- --nocapture"
        )
    };

    // The watchdog: a case that hangs is printed and the process stopped.
    static STARTED: AtomicU64 = AtomicU64::new(0);
    static DONE: AtomicBool = AtomicBool::new(false);
    DONE.store(false, Ordering::SeqCst);
    let clock = Instant::now();
    let watchdog = std::thread::spawn(move || {
        while !DONE.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(200));
            let started = STARTED.load(Ordering::SeqCst);
            if started != 0 && clock.elapsed().as_millis() as u64 - started > HANG.as_millis() as u64 {
                last_words(&format!("a case has run for over {} s (a hang)", HANG.as_secs()));
                std::process::abort();
            }
        }
    });

    let mut failures = vec![];
    let (mut loaded, mut refused, mut sealed_refused) = (0usize, 0usize, 0usize);
    let (mut peak, mut largest, mut slowest) = ((0usize, 0usize), 0usize, (Duration::ZERO, 0usize));
    let mut share = (0f64, String::new());
    for i in 0..total {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let case = if i < fixed.len() {
            Case { what: fixed[i].what.clone(), body: fixed[i].body.clone(), ..fixed[i] }
        } else {
            random_case(seed, i, &sources, &dtypes)
        };
        let src = &sources[case.source];
        let bytes = case.bytes();
        *CURRENT.lock().unwrap() =
            format!("seed {seed}, case {i}: {} of {}\nreplay: {}", case.what, src.name, replay(i));
        STARTED.store(clock.elapsed().as_millis().max(1) as u64, Ordering::SeqCst);
        let t = Instant::now();
        let result = check(&case, &bytes, src);
        STARTED.store(0, Ordering::SeqCst);
        if t.elapsed() > slowest.0 {
            slowest = (t.elapsed(), i);
        }
        match result {
            Ok(o) => {
                if o.loaded {
                    loaded += 1;
                } else {
                    refused += 1;
                    sealed_refused += case.sealed as usize;
                }
                if o.peak > peak.0 {
                    peak = (o.peak, i);
                }
                if o.peak as f64 / o.limit as f64 > share.0 {
                    share = (o.peak as f64 / o.limit as f64, format!("case {i}: {} of {}", case.what, src.name));
                }
                largest = largest.max(o.largest);
            }
            Err(why) => failures.push((i, case, why)),
        }
        if !failures.is_empty() && failures.len() >= 5 {
            break;
        }
    }
    DONE.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    let ran = if only.is_some() { 1 } else { total };
    eprintln!(
        "fuzz_model: seed {seed}, {ran} cases ({} fixed) in {:.1} s: {loaded} loaded, {refused} refused \
         ({sealed_refused} of them behind a valid checksum); slowest case {} ({:.0} ms), largest peak {:.1} MB \
         (case {}), largest block {:.1} MB, at most {:.0}% of a case's allocation budget ({}); sources {}",
        only.map_or(fixed.len().min(ran), |o| (o < fixed.len()) as usize),
        t0.elapsed().as_secs_f64(),
        slowest.1,
        slowest.0.as_secs_f64() * 1e3,
        peak.0 as f64 / 1e6,
        peak.1,
        largest as f64 / 1e6,
        share.0 * 100.0,
        share.1,
        sources
            .iter()
            .map(|s| format!("{} bytes, FNV {:016x}", s.file.len(), fnv1a(&s.file)))
            .collect::<Vec<_>>()
            .join(" and ")
    );
    if failures.is_empty() {
        if only.is_none() {
            assert!(total >= DEFAULT_CASES || std::env::var("PLATEAU_FUZZ_MODEL_CASES").is_ok());
            assert!(loaded >= 50 && sealed_refused >= 1_000, "both outcomes are exercised: {loaded} loaded");
        }
        return;
    }
    let mut report = String::new();
    for (i, case, why) in &failures {
        let src = &sources[case.source];
        // Shrink against the source (without its checksum when the case reseals).
        let reference: Vec<u8> = if case.sealed { src.file[..src.file.len() - 8].to_vec() } else { src.file.clone() };
        let sealed = case.sealed;
        let mut fails = |body: &[u8]| {
            let harmless = case.harmless;
            let c = Case { source: case.source, what: String::new(), body: body.to_vec(), sealed, harmless };
            let bytes = c.bytes();
            check(&c, &bytes, src).is_err()
        };
        let small = shrink(&reference, case.body.clone(), &mut fails);
        let c = Case { source: case.source, what: String::new(), body: small.clone(), sealed, harmless: case.harmless };
        let why_small = check(&c, &c.bytes(), src).err().unwrap_or_else(|| why.clone());
        report.push_str(&format!(
            "\nseed {seed}, case {i}: {} of {} ({})\n  fails: {why}\n  minimal input: {} of {}{}\n  it fails with: \
             {why_small}\n  replay: {}\n",
            case.what,
            src.name,
            if sealed { "checksum recomputed" } else { "checksum left as it was" },
            difference(&reference, &small),
            src.name,
            if sealed { ", then its checksum recomputed" } else { "" },
            replay(*i)
        ));
    }
    eprintln!("{report}");
    panic!(
        "{} of the damaged model files broke the reader's rules (first {}):{report}",
        failures.len(),
        failures.len()
    );
}
