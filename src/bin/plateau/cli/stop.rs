//! Stopping on SIGINT/SIGTERM without losing rows: the signal handlers, their watchdog, and the
//! row sink that streams a run's rows to a `.partial` file and renames it when the run ends.

use super::{output, CliError};
use plateau::run::Run;
use std::sync::atomic::AtomicI32;
use std::sync::atomic::Ordering;
use std::time::Instant;
/// The signal (SIGINT or SIGTERM) that asked the CLI to stop, 0 while none did.
pub(super) static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    STOP_SIGNAL.store(sig, Ordering::SeqCst);
}

/// Whether the main thread has seen the stop signal (between two steps) and is finishing itself.
pub(super) static STOP_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How long a stop signal waits for the main thread to notice it between two steps before the
/// watchdog finishes the row stream itself.
pub(super) const STOP_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// From now on SIGINT (Ctrl-C) and SIGTERM stop training at the next step instead of killing the
/// process, so that the rows recorded so far are kept; the exit status is then `128 + signal`
/// (130, 143).
///
/// One step can take far longer than a reader waits (`--n 32 --eval-batch 4096` evaluates for
/// seconds): a watchdog thread gives the main thread [`STOP_GRACE`] to notice the signal, and if
/// it has not, renames the row stream's `.partial` file (every finished row is already flushed to
/// it) and exits with `128 + signal` itself, so a stop never waits for a step to end.
pub(super) fn install_stop_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_stop_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_stop_signal as *const () as libc::sighandler_t);
    }
    static WATCHDOG: std::sync::Once = std::sync::Once::new();
    WATCHDOG.call_once(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let sig = stop_signal();
            if sig == 0 {
                continue;
            }
            let t = Instant::now();
            while t.elapsed() < STOP_GRACE {
                if STOP_SEEN.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            // Waits for a write in progress; then no row can be written any more.
            let pending = pending();
            if STOP_SEEN.load(Ordering::SeqCst) {
                return;
            }
            match pending.as_ref() {
                Some(p) => {
                    let renamed = if p.tmp == p.out { Ok(()) } else { output::rename_partial(&p.tmp, &p.out) };
                    match renamed {
                        Ok(()) => eprintln!(
                            "stopped by signal {sig} in the middle of a step (its evaluation was cut): {} rows → {}",
                            p.rows, p.out
                        ),
                        Err(CliError(msg)) => eprintln!("stopped by signal {sig}: {msg}"),
                    }
                }
                None => eprintln!("stopped by signal {sig}"),
            }
            std::process::exit(128 + sig);
        });
    });
}

/// Whether a stop signal came; once the main thread has asked (between two steps), it finishes
/// the run itself and the watchdog of [`install_stop_handlers`] stands down.
pub(super) fn stop_requested() -> bool {
    let stop = stop_signal() != 0;
    if stop {
        STOP_SEEN.store(true, Ordering::SeqCst);
    }
    stop
}

/// The stop signal received so far (0 when none).
pub(super) fn stop_signal() -> i32 {
    STOP_SIGNAL.load(Ordering::SeqCst)
}

/// The row stream a stop must finish when the main thread cannot (see [`install_stop_handlers`]):
/// where its bytes go, its final name and the rows in it. Locked while rows are written, so a
/// stop never renames a file in the middle of a write.
pub(super) static PENDING: std::sync::Mutex<Option<Pending>> = std::sync::Mutex::new(None);

pub(super) struct Pending {
    tmp: String,
    out: String,
    rows: usize,
}

pub(super) fn pending() -> std::sync::MutexGuard<'static, Option<Pending>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A CSV written while the run trains: rows go to `{out}.partial` as they are evaluated (flushed
/// and checked at once, [`output::Stream`]), and [`RowSink::finish`] renames it to `out`, so `out`
/// is never a cut file and a run that is stopped or diverges still leaves every row it recorded.
pub(super) struct RowSink {
    stream: output::Stream,
    /// Rows of the current run already written.
    written: usize,
    /// `"{seed},"` before every line of a multi-seed file (`--seeds`), else empty.
    prefix: String,
    /// The lines of the seeds already finished (multi-seed files), for a rewrite.
    earlier: String,
    /// How many rows `earlier` holds.
    earlier_rows: usize,
    /// Whether the header is in the file.
    header: bool,
}

impl RowSink {
    /// Creates `{out}.partial` (an error names `out` when its folder is missing or not writable:
    /// checked before anything trains).
    pub(super) fn create(out: &str) -> Result<RowSink, CliError> {
        let stream = output::Stream::create(out)?;
        *pending() = Some(Pending { tmp: stream.tmp.clone(), out: stream.out.clone(), rows: 0 });
        Ok(RowSink {
            stream,
            written: 0,
            prefix: String::new(),
            earlier: String::new(),
            earlier_rows: 0,
            header: false,
        })
    }

    /// The next run of a multi-seed file: its lines start with `seed,` (the header with a `seed`
    /// column). The finished run's lines are kept for a rewrite.
    pub(super) fn next_seed(&mut self, seed: u64, finished: Option<&Run>) {
        if let Some(run) = finished {
            self.earlier.push_str(&self.prefixed(&run.csv_rows_from(0)));
            self.earlier_rows += run.row_count();
        }
        self.prefix = format!("{seed},");
        self.written = 0;
    }

    pub(super) fn prefixed(&self, lines: &str) -> String {
        lines.lines().map(|l| format!("{}{l}\n", self.prefix)).collect()
    }

    /// Appends the rows recorded since the last call (rewrites the file when the history was
    /// thinned, which drops old rows) and flushes.
    pub(super) fn update(&mut self, run: &Run) -> Result<(), CliError> {
        let n = run.row_count();
        if n == self.written && self.header {
            return Ok(());
        }
        // Held while writing: a stop waits for a whole write (see `install_stop_handlers`).
        let mut pending = pending();
        let mut text = String::new();
        if n < self.written {
            self.stream.restart()?;
            self.written = 0;
            self.header = false;
        }
        // Only the new rows are formatted (the header once): streaming stays linear in the run.
        if !self.header {
            let head = run.csv().lines().next().unwrap_or_default().to_string();
            text.push_str(if self.prefix.is_empty() { "" } else { "seed," });
            text.push_str(&head);
            text.push('\n');
            text.push_str(&self.earlier);
            self.header = true;
        }
        text.push_str(&self.prefixed(&run.csv_rows_from(self.written)));
        self.stream.write(&text)?;
        self.written = n;
        if let Some(p) = pending.as_mut() {
            p.rows = self.earlier_rows + n;
        }
        Ok(())
    }

    /// Writes what is left, syncs and renames the file to its final name.
    pub(super) fn finish(mut self, run: &Run) -> Result<(), CliError> {
        self.update(run)?;
        let mut pending = pending();
        *pending = None;
        self.stream.finish()
    }
}
