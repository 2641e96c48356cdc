//! What a run records, for every chapter: one row per evaluated step and snapshots of the maps at
//! a cadence ([`History`]), and the one CSV writer and reader of rows ([`Row`], [`to_csv`],
//! [`from_csv`]). Memory is bounded: at most [`MAX_SNAPSHOTS`] snapshots
//! (older ones are thinned to every other one when full) and at most [`MAX_ROWS`] rows (thinned
//! the same way), so a 100 000-step run keeps a flat footprint.

use serde::{Deserialize, Serialize};

/// Most snapshots kept; when full, every second one (the first and last kept) is dropped and the
/// cadence doubles.
pub const MAX_SNAPSHOTS: usize = 256;
/// Most metric rows kept; thinned like snapshots.
pub const MAX_ROWS: usize = 20_000;

/// Rows and snapshots of one run (each chapter records its own row and snapshot types in the
/// same bounded store).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct History<R, S> {
    /// Evaluated steps, in order.
    pub rows: Vec<R>,
    /// Snapshots, in order.
    pub snapshots: Vec<S>,
}

impl<R, S> Default for History<R, S> {
    fn default() -> Self {
        History { rows: vec![], snapshots: vec![] }
    }
}

/// Anything recorded at a training step.
pub trait AtStep {
    /// Updates done when it was recorded.
    fn step(&self) -> usize;
}

fn thin<T>(v: &mut Vec<T>) {
    let last = v.len() - 1;
    let mut i = 0;
    v.retain(|_| {
        let keep = i % 2 == 0 || i == last;
        i += 1;
        keep
    });
}

impl<R, S: AtStep> History<R, S> {
    /// Appends a row (thinning when full).
    pub fn push_row(&mut self, row: R) {
        if self.rows.len() >= MAX_ROWS {
            thin(&mut self.rows);
        }
        self.rows.push(row);
    }

    /// Appends a snapshot (thinning when full).
    pub fn push_snapshot(&mut self, s: S) {
        if self.snapshots.len() >= MAX_SNAPSHOTS {
            thin(&mut self.snapshots);
        }
        self.snapshots.push(s);
    }

    /// The snapshot recorded at or most recently before `step`.
    pub fn snapshot_at(&self, step: usize) -> Option<&S> {
        let i = self.snapshots.partition_point(|s| s.step() <= step);
        if i == 0 {
            self.snapshots.first()
        } else {
            self.snapshots.get(i - 1)
        }
    }
}

/// A metric row with a fixed CSV layout. Every chapter's rows are written by [`to_csv`] and read
/// back by [`from_csv`]; a row type only says which columns it has and what is in them.
pub trait Row: Sized {
    /// The column names, in order, of a run of `cfg` (a contract: other tools read them).
    fn columns(cfg: &crate::config::RunConfig) -> Vec<String>;
    /// The row's values in column order. Floats print in Rust's shortest round-trip form, so a
    /// CSV reads back bit for bit.
    fn cells(&self) -> Vec<String>;
    /// The row from one CSV record ([`Record`] finds the columns by name).
    fn read(rec: &Record) -> Result<Self, String>;
}

/// A value as one CSV cell: numbers in Rust's shortest round-trip form (so a CSV reads back bit
/// for bit), text as it is.
pub trait Cell {
    /// The cell's text.
    fn cell(&self) -> String;
}

impl Cell for f64 {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl Cell for usize {
    fn cell(&self) -> String {
        self.to_string()
    }
}

impl Cell for String {
    fn cell(&self) -> String {
        self.clone()
    }
}

/// Declares a row type once: its struct, and for each of its plain fields the CSV column (the
/// field's name), the cell ([`Cell::cell`]) and the reader (the named [`Record`] method: `int`,
/// `num`, `num_or_nan`, `text`), in column order. The fields of the `extra` block (per-position
/// accuracies, an array of bins, optional columns) have columns of their own that the row's
/// [`Row`] impl writes and reads after the plain ones. Generates `PLAIN_COLUMNS`, `plain_cells`
/// and `read_plain(record, extra fields…)`; the golden files hold the result to the CSV contract.
#[macro_export]
macro_rules! csv_row {
    (
        $(#[$sm:meta])*
        pub struct $name:ident {
            $( $(#[$fm:meta])* pub $field:ident : $ty:ty => $read:ident, )*
        }
        extra {
            $( $(#[$em:meta])* pub $efield:ident : $ety:ty, )*
        }
    ) => {
        $(#[$sm])*
        pub struct $name {
            $( $(#[$fm])* pub $field: $ty, )*
            $( $(#[$em])* pub $efield: $ety, )*
        }

        impl $name {
            /// The plain fields' columns (each the field's name), in column order.
            pub const PLAIN_COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The plain fields' cells, in [`Self::PLAIN_COLUMNS`]' order.
            pub fn plain_cells(&self) -> Vec<String> {
                vec![$($crate::history::Cell::cell(&self.$field)),*]
            }

            /// The row from a record's plain columns and the extra fields' values.
            pub fn read_plain(rec: &$crate::history::Record, $($efield: $ety),*) -> Result<Self, String> {
                Ok($name { $($field: rec.$read(stringify!($field))?,)* $($efield,)* })
            }
        }
    };
}

/// The CSV lines of `rows` (no header), each ending in a newline.
pub fn csv_lines<R: Row>(rows: &[R]) -> String {
    let mut s = String::new();
    for r in rows {
        s.push_str(&r.cells().join(","));
        s.push('\n');
    }
    s
}

/// The CSV of `rows`: the header of `columns`, then one line per row.
pub fn to_csv<R: Row>(columns: &[String], rows: &[R]) -> String {
    columns.join(",") + "\n" + &csv_lines(rows)
}

/// The CSV of several seeds' runs in one file: a `seed` column, then `columns`; each seed's lines
/// in the order given (what `plateau run --seeds` writes, and the page's seed-band download).
pub fn to_csv_seeded<R: Row>(columns: &[String], runs: &[(u64, &[R])]) -> String {
    let mut s = format!("seed,{}\n", columns.join(","));
    for (seed, rows) in runs {
        for line in csv_lines(rows).lines() {
            s.push_str(&format!("{seed},{line}\n"));
        }
    }
    s
}

/// One line of a CSV file, with its header, for [`Row::read`].
pub struct Record<'a> {
    header: &'a [&'a str],
    fields: Vec<&'a str>,
    line: usize,
}

impl Record<'_> {
    fn field(&self, name: &str) -> Option<&str> {
        let i = self.header.iter().position(|h| *h == name)?;
        self.fields.get(i).copied()
    }
    fn missing(&self, name: &str) -> String {
        if self.header.contains(&name) {
            format!("line {}: too few fields", self.line)
        } else {
            format!("missing column {name}")
        }
    }
    /// The text in column `name`.
    pub fn text(&self, name: &str) -> Result<String, String> {
        self.field(name).map(str::to_string).ok_or_else(|| self.missing(name))
    }
    /// The number in column `name`.
    pub fn num(&self, name: &str) -> Result<f64, String> {
        let v = self.field(name).ok_or_else(|| self.missing(name))?;
        v.parse::<f64>().map_err(|e| format!("line {}, column {name}: {e} ({v:?})", self.line))
    }
    /// The number in column `name`, NaN when an older file has no such column.
    pub fn num_or_nan(&self, name: &str) -> Result<f64, String> {
        if self.header.contains(&name) {
            self.num(name)
        } else {
            Ok(f64::NAN)
        }
    }
    /// The count in column `name`.
    pub fn int(&self, name: &str) -> Result<usize, String> {
        let v = self.field(name).ok_or_else(|| self.missing(name))?;
        v.parse::<usize>().map_err(|e| format!("line {}, column {name}: {e} ({v:?})", self.line))
    }
}

/// Rows back from [`to_csv`]'s text, the columns found by name (so a file with extra columns
/// reads too); an error names the first line or column that does not parse.
pub fn from_csv<R: Row>(text: &str) -> Result<Vec<R>, String> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().filter(|h| !h.is_empty()).ok_or("empty CSV")?.split(',').collect();
    let mut rows = vec![];
    for (i, line) in lines.enumerate().filter(|(_, l)| !l.is_empty()) {
        rows.push(R::read(&Record { header: &header, fields: line.split(',').collect(), line: i + 2 })?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chapters::plateau::rows::{MetricRow, Snapshot};
    use crate::config::{Preset, RunConfig};

    fn row(step: usize) -> MetricRow {
        MetricRow {
            step,
            loss: 2.5,
            output_loss: 2.75,
            train_acc: 0.125,
            test_acc: 0.0625,
            first_token_acc: 1.0,
            repetition: 0.5,
            data_repetition: 0.058,
            apm: 0.25,
            hidden_cos: 0.9,
            test_loss: 2.5,
            test_output_loss: 2.625,
            mask_c: 1.0,
            train_first_acc: 0.75,
            position_acc: vec![1.0, 0.5],
        }
    }

    #[test]
    fn csv_has_the_contract_columns_in_order() {
        let mut h: History<MetricRow, Snapshot> = History::default();
        h.push_row(row(0));
        let mut cfg = RunConfig::preset(Preset::Interactive);
        cfg.plateau.n = 2;
        let csv = to_csv(&MetricRow::columns(&cfg), &h.rows);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "step,loss,output_loss,train_acc,test_acc,first_token_acc,repetition,data_repetition,apm,hidden_cos,test_loss,test_output_loss,mask_c,train_first_acc,acc_pos_1,acc_pos_2"
        );
        assert_eq!(lines.next().unwrap(), "0,2.5,2.75,0.125,0.0625,1,0.5,0.058,0.25,0.9,2.5,2.625,1,0.75,1,0.5");
        assert_eq!(from_csv::<MetricRow>(&csv).unwrap(), h.rows, "the CSV reads back exactly");
        // A file written before train_first_acc existed reads back with it NaN.
        let old = csv.replace(",train_first_acc", "").replace(",0.75,", ",");
        let back = &from_csv::<MetricRow>(&old).unwrap()[0];
        assert!(back.train_first_acc.is_nan());
        assert_eq!((back.mask_c, &back.position_acc), (1.0, &vec![1.0, 0.5]));
        assert_eq!(from_csv::<MetricRow>("step,loss\n0,1\n").unwrap_err(), "missing column output_loss");
        assert!(from_csv::<MetricRow>("").is_err());
    }

    #[test]
    fn snapshots_stay_bounded_and_findable() {
        let mut h: History<MetricRow, Snapshot> = History::default();
        for s in 0..10_000 {
            h.push_snapshot(Snapshot { step: s, seq: 0, attention: vec![], n: 0, hidden_cos: vec![], samples: vec![] });
        }
        assert!(h.snapshots.len() <= MAX_SNAPSHOTS);
        assert_eq!(h.snapshots[0].step, 0);
        assert_eq!(h.snapshots.last().unwrap().step, 9_999);
        let s = h.snapshot_at(5_000).unwrap();
        assert!(s.step <= 5_000);
        assert!(h.snapshots.iter().all(|x| x.step <= s.step || x.step > 5_000));
    }
}
