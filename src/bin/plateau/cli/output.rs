//! Every file the CLI writes goes through here, so that no failed write is reported as success
//! and no failure destroys what was there before.
//!
//! - A whole file ([`write_file`]: a section of `REPRODUCTION.md`, a run's CSV and metadata, a
//!   checkpoint) is written to `{path}.partial`, synced and renamed over `path`: a full disk
//!   (`ENOSPC`), a file-size limit (`EFBIG`, with `SIGXFSZ` ignored by [`ignore_file_size_signal`])
//!   or any other short write is an error that names the path and leaves the old file as it was.
//! - A row stream ([`Stream`], `plateau run --out`) is written to `{out}.partial` as rows are
//!   evaluated, each write flushed and checked, and renamed at the end; on an error the rows
//!   written so far stay in the `.partial` file and the message says so.
//! - An output that exists and is not a regular file (a character device such as `/dev/null` or
//!   `/dev/full`, a FIFO) is written in place: a `.partial` beside it and a rename would replace
//!   the device node itself. Its writes are checked the same way.
//! - [`check_writable`] tells before anything trains whether an output can be written at all.

use super::CliError;
use std::io::Write;

/// What is at `path`: nothing, a regular file, a folder, or something else (a device, a FIFO).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    Missing,
    File,
    Dir,
    Special,
}

/// The kind of thing at `path` (symbolic links followed).
pub(super) fn kind(path: &str) -> Kind {
    match std::fs::metadata(path) {
        Err(_) => Kind::Missing,
        Ok(m) if m.is_file() => Kind::File,
        Ok(m) if m.is_dir() => Kind::Dir,
        Ok(_) => Kind::Special,
    }
}

/// From now on a write past the process's file-size limit (`ulimit -f`) fails with `EFBIG`, which
/// the writers here report, instead of killing the process with `SIGXFSZ` (exit 153) before it
/// can say anything or keep its rows.
pub(super) fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to "ignore" has no handler to be unsafe in.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Checks before training that `path` (the value of `--{flag}`) can be written: its folder exists
/// and takes a new file, or the file exists and opens for writing (it is not changed). A folder
/// is refused.
pub(super) fn check_writable(path: &str, flag: &str) -> Result<(), CliError> {
    let refuse = |why: String| CliError(format!("--{flag}: cannot write {path}: {why}"));
    match kind(path) {
        Kind::Dir => Err(refuse("it is a folder".into())),
        Kind::File | Kind::Special => {
            std::fs::OpenOptions::new().write(true).open(path).map(drop).map_err(|e| refuse(e.to_string()))
        }
        Kind::Missing => {
            // A probe file beside it, removed at once: the folder exists and takes new files.
            let probe = format!("{path}.partial");
            let existed = kind(&probe) != Kind::Missing;
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&probe)
                .map_err(|e| refuse(e.to_string()))?;
            if !existed {
                let _ = std::fs::remove_file(&probe);
            }
            Ok(())
        }
    }
}

/// Writes `bytes` as the whole of `path` (see the module doc): the old file is replaced only once
/// the new one is completely on disk; on any error it is left as it was and the message names
/// `path`.
pub(super) fn write_file(path: &str, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |e: std::io::Error| CliError(format!("cannot write {path}: {e}"));
    match kind(path) {
        Kind::Special => {
            let mut f = std::fs::OpenOptions::new().write(true).open(path).map_err(fail)?;
            f.write_all(bytes).and_then(|()| f.flush()).map_err(fail)
        }
        Kind::Dir => Err(CliError(format!("cannot write {path}: it is a folder"))),
        Kind::File | Kind::Missing => {
            let tmp = format!("{path}.partial");
            let written = (|| {
                let mut f = std::fs::File::create(&tmp)?;
                f.write_all(bytes)?;
                f.flush()?;
                f.sync_all()
            })();
            if let Err(e) = written {
                let _ = std::fs::remove_file(&tmp);
                let kept = if kind(path) == Kind::File { " (the old file is unchanged)" } else { "" };
                return Err(CliError(format!("cannot write {path}: {e}{kept}")));
            }
            std::fs::rename(&tmp, path).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                fail(e)
            })
        }
    }
}

/// A text file written while the run goes on (`plateau run --out`): to `{out}.partial`, each
/// [`Stream::write`] flushed and checked, renamed to `out` by [`Stream::finish`]; an output that
/// is not a regular file is written in place (see the module doc).
pub(super) struct Stream {
    /// The final name.
    pub(super) out: String,
    /// Where the bytes go now: `{out}.partial`, or `out` itself when it is not a regular file.
    pub(super) tmp: String,
    file: std::io::BufWriter<std::fs::File>,
}

impl Stream {
    /// Opens the stream (an error names `out` when its folder is missing or not writable).
    pub(super) fn create(out: &str) -> Result<Stream, CliError> {
        let fail = |e: std::io::Error| CliError(format!("cannot write {out}: {e}"));
        let (tmp, file) = match kind(out) {
            Kind::Special => (out.to_string(), std::fs::OpenOptions::new().write(true).open(out).map_err(fail)?),
            Kind::Dir => return Err(CliError(format!("cannot write {out}: it is a folder"))),
            Kind::File | Kind::Missing => {
                let tmp = format!("{out}.partial");
                let file = std::fs::File::create(&tmp).map_err(fail)?;
                (tmp, file)
            }
        };
        Ok(Stream { out: out.to_string(), tmp, file: std::io::BufWriter::new(file) })
    }

    /// Whether the stream writes `out` in place (a device or FIFO: no `.partial`, no rename).
    pub(super) fn in_place(&self) -> bool {
        self.tmp == self.out
    }

    fn error(&self, e: std::io::Error) -> CliError {
        if self.in_place() {
            CliError(format!("cannot write {}: {e}", self.out))
        } else {
            CliError(format!("cannot write {}: {e}; the rows written before the error are kept in it", self.tmp))
        }
    }

    /// Appends `text` and flushes it to the file.
    pub(super) fn write(&mut self, text: &str) -> Result<(), CliError> {
        let r = self.file.write_all(text.as_bytes()).and_then(|()| self.file.flush());
        r.map_err(|e| self.error(e))
    }

    /// Starts the file over, empty (a history that was thinned is written again whole).
    pub(super) fn restart(&mut self) -> Result<(), CliError> {
        self.file.flush().map_err(|e| self.error(e))?;
        let f = if self.in_place() {
            std::fs::OpenOptions::new().write(true).open(&self.tmp)
        } else {
            std::fs::File::create(&self.tmp)
        };
        self.file = std::io::BufWriter::new(f.map_err(|e| self.error(e))?);
        Ok(())
    }

    /// Flushes, syncs and renames the file to its final name.
    pub(super) fn finish(mut self) -> Result<(), CliError> {
        self.file.flush().map_err(|e| self.error(e))?;
        if self.in_place() {
            return Ok(());
        }
        self.file.get_ref().sync_all().map_err(|e| self.error(e))?;
        rename_partial(&self.tmp, &self.out)
    }
}

/// Renames a finished `.partial` file to its final name (an error keeps it and says where).
pub(super) fn rename_partial(tmp: &str, out: &str) -> Result<(), CliError> {
    std::fs::rename(tmp, out)
        .map_err(|e| CliError(format!("cannot rename {tmp} to {out}: {e}; the rows are kept in {tmp}")))
}
