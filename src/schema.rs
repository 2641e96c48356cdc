//! The schema's machinery, below `config` and the chapters: a key's [`Kind`] (type and range),
//! the typed [`Field`] of a struct that holds its value, and [`Knob`], one key of a chapter's own
//! config section. Each chapter declares its section (its knobs, their defaults and presets) in
//! its folder's `knobs.rs`, which imports only this module; `config` flattens the sections into
//! the one key schema (`config::params`), so URLs, flags, CSV and config files keep every key.

use serde::{Deserialize, Serialize};

/// Named sets of defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// The paper's exact setup: n 16, d 256, batch 256, Adam lr 1e-4, 400 steps.
    Paper,
    /// A smaller model that shows the whole story in seconds (chosen by measurement).
    Interactive,
}

impl Preset {
    /// The name used in flags, URLs and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Paper => "paper",
            Preset::Interactive => "interactive",
        }
    }
    /// Parses a preset name.
    pub fn parse(s: &str) -> Option<Preset> {
        match s {
            "paper" => Some(Preset::Paper),
            "interactive" => Some(Preset::Interactive),
            _ => None,
        }
    }
}

/// The kind and valid range of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An integer in `min..=max`.
    Int { min: i64, max: i64 },
    /// A float in `min..=max`; `log` says the UI should use a log scale.
    Float { min: f64, max: f64, log: bool },
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
}

/// Where a parameter's value lives in a struct `T` (the run's config or a chapter's section):
/// its reader and writer, by the value's type. With this, a key is spelled once.
pub enum Field<T: 'static> {
    /// A count (`usize`).
    Count(fn(&T) -> usize, fn(&mut T, usize)),
    /// The seed (`u64`).
    Seed(fn(&T) -> u64, fn(&mut T, u64)),
    /// A real number.
    Real(fn(&T) -> f64, fn(&mut T, f64)),
    /// A named choice (its `name()` and its parser; the name is one of the kind's choices).
    Named(fn(&T) -> &'static str, fn(&mut T, &str)),
}

impl<T> Clone for Field<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Field<T> {}
impl<T> std::fmt::Debug for Field<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Field::Count(..) => "Count",
            Field::Seed(..) => "Seed",
            Field::Real(..) => "Real",
            Field::Named(..) => "Named",
        })
    }
}

/// A value read from text and range-checked against its [`Kind`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer (counts and the seed).
    Int(i64),
    /// A finite real number.
    Float(f64),
    /// One of a choice's names.
    Choice(String),
}

impl<T> Field<T> {
    /// The value in `t` as text (the form flags and URLs use).
    pub fn text(self, t: &T) -> String {
        match self {
            Field::Count(get, _) => get(t).to_string(),
            Field::Seed(get, _) => get(t).to_string(),
            Field::Real(get, _) => fmt_f64(get(t)),
            Field::Named(get, _) => get(t).to_string(),
        }
    }

    /// Writes a parsed value into `t` (a value of another type leaves `t` as it is).
    pub fn assign(self, t: &mut T, v: &Value) {
        match (self, v) {
            (Field::Count(_, set), Value::Int(i)) => set(t, *i as usize),
            (Field::Seed(_, set), Value::Int(i)) => set(t, *i as u64),
            (Field::Real(_, set), Value::Float(x)) => set(t, *x),
            (Field::Named(_, set), Value::Choice(s)) => set(t, s),
            _ => {}
        }
    }

    /// Whether the value in `t` is within `kind`, read as its type (no text round trip): an
    /// integer or a finite number in range, or one of the choices. On failure, the value as text
    /// and the clamped value where there is one.
    pub fn check(self, t: &T, kind: Kind) -> Result<(), (String, Option<String>)> {
        let int = |v: i128, min: i64, max: i64| {
            let clamped = v.clamp(min as i128, max as i128);
            (v == clamped).then_some(()).ok_or_else(|| (v.to_string(), Some(clamped.to_string())))
        };
        match (self, kind) {
            (Field::Count(get, _), Kind::Int { min, max }) => int(get(t) as i128, min, max),
            (Field::Seed(get, _), Kind::Int { min, max }) => int(get(t) as i128, min, max),
            (Field::Real(get, _), Kind::Float { min, max, .. }) => {
                let v = get(t);
                if !v.is_finite() {
                    return Err((fmt_f64(v), None));
                }
                let clamped = v.clamp(min, max);
                (v == clamped).then_some(()).ok_or_else(|| (fmt_f64(v), Some(fmt_f64(clamped))))
            }
            (Field::Named(get, _), Kind::Choice(names)) => {
                let v = get(t);
                names.contains(&v).then_some(()).ok_or_else(|| (v.to_string(), None))
            }
            _ => Err((self.text(t), Some("(the schema pairs this key's field with another kind)".to_string()))),
        }
    }
}

/// One key of a chapter's config section: what [`crate::config::ParamSpec`] says of a key, with
/// its field in the section's own struct. `config` lifts every knob into the one schema, with the
/// chapter as the only chapter whose runs it changes.
#[derive(Clone, Copy, Debug)]
pub struct Knob<T: 'static> {
    /// The key in flags (`--key`), URLs (`?key=`) and JSON.
    pub key: &'static str,
    /// One line saying what it does.
    pub doc: &'static str,
    /// Type and valid range.
    pub kind: Kind,
    /// `true` when a change applies to a running run; `false` when it needs a reset.
    pub live: bool,
    /// The section's field it sets.
    pub field: Field<T>,
}

/// A [`Field::Count`] of the field `$f` of the struct the table describes.
macro_rules! count {
    ($f:ident) => {
        $crate::schema::Field::Count(|c| c.$f, |c, v| c.$f = v)
    };
}
/// A [`Field::Real`] of the field `$f`.
macro_rules! real {
    ($f:ident) => {
        $crate::schema::Field::Real(|c| c.$f, |c, v| c.$f = v)
    };
}
/// A [`Field::Named`] of the field `$f`, whose type has `name()` and `from_name()`.
macro_rules! named {
    ($f:ident, $ty:ty) => {
        $crate::schema::Field::Named(|c| c.$f.name(), |c, s| c.$f = <$ty>::from_name(s).unwrap_or(c.$f))
    };
}
pub(crate) use {count, named, real};

/// Parses and range-checks `text` against `kind`; on failure returns the clamped safe value
/// when there is one.
pub fn parse_value(kind: Kind, text: &str) -> Result<Value, Option<String>> {
    let text = text.trim();
    match kind {
        Kind::Int { min, max } => {
            let v: i64 = text.parse().map_err(|_| None)?;
            if v < min || v > max {
                return Err(Some(v.clamp(min, max).to_string()));
            }
            Ok(Value::Int(v))
        }
        Kind::Float { min, max, .. } => {
            let v: f64 = text.parse().map_err(|_| None)?;
            if !v.is_finite() {
                return Err(None);
            }
            if v < min || v > max {
                return Err(Some(fmt_f64(v.clamp(min, max))));
            }
            Ok(Value::Float(v))
        }
        Kind::Choice(names) => {
            if names.contains(&text) {
                Ok(Value::Choice(text.to_string()))
            } else {
                Err(None)
            }
        }
    }
}

/// A human description of a kind's allowed values.
pub fn describe(kind: Kind) -> String {
    match kind {
        Kind::Int { min, max } => format!("an integer in {min}..={max}"),
        Kind::Float { min, max, .. } => format!("a number in [{}, {}]", fmt_f64(min), fmt_f64(max)),
        Kind::Choice(names) => format!("one of {}", names.join(", ")),
    }
}

/// Shortest text that parses back to the same `f64`.
pub fn fmt_f64(x: f64) -> String {
    format!("{x}")
}
