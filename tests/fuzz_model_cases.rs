//! The damage of the model-file fuzz (`fuzz_model`): a minimal CBOR walker, edits of CBOR values
//! and of burnpack records, and the fixed and the seeded random cases built from them.
#![allow(unused_imports)]

use crate::fuzz_model::*;
use ciborium::value::Value;
use plateau::backend;
use plateau::config::{Preset, RunConfig, Task};
use plateau::run::Run;
use plateau::tensor::block_on;
use plateau::train::checkpoint::{read_file, FILE_MAGIC};
use plateau::train::Status;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// A minimal CBOR walker: where each data item's head is, to rewrite a declared length.

/// `(offset, major type, head length, declared length)` of every definite-length byte string,
/// text, array and map in `b` (`None` if `b` is not one well-formed item).
pub(crate) fn cbor_heads(b: &[u8]) -> Option<Vec<(usize, u8, usize, u64)>> {
    pub(crate) fn item(b: &[u8], at: usize, out: &mut Vec<(usize, u8, usize, u64)>, depth: usize) -> Option<usize> {
        if depth > 200 {
            return None;
        }
        let ib = *b.get(at)?;
        let (major, ai) = (ib >> 5, ib & 31);
        let (arg, head) = match ai {
            0..=23 => (ai as u64, 1),
            24..=27 => {
                let n = 1usize << (ai - 24);
                let mut v = 0u64;
                for &x in b.get(at + 1..at + 1 + n)? {
                    v = (v << 8) | x as u64;
                }
                (v, 1 + n)
            }
            31 if (2..=5).contains(&major) => {
                // Indefinite length: items (or chunks) up to the break.
                let mut p = at + 1;
                while *b.get(p)? != 0xff {
                    p = item(b, p, out, depth + 1)?;
                }
                return Some(p + 1);
            }
            _ => return None,
        };
        let mut p = at + head;
        match major {
            0 | 1 | 7 => {}
            2 | 3 => {
                out.push((at, major, head, arg));
                p = p.checked_add(usize::try_from(arg).ok()?)?;
                b.get(..p)?;
            }
            4 | 5 => {
                out.push((at, major, head, arg));
                for _ in 0..arg * if major == 5 { 2 } else { 1 } {
                    p = item(b, p, out, depth + 1)?;
                }
            }
            6 => p = item(b, p, out, depth + 1)?,
            _ => return None,
        }
        Some(p)
    }
    let mut out = vec![];
    item(b, 0, &mut out, 0)?;
    Some(out)
}

/// `b` with the head at `at` (of `len` bytes, major type `major`) rewritten to declare `n`.
pub(crate) fn redeclare(b: &[u8], at: usize, len: usize, major: u8, n: u64) -> Vec<u8> {
    let mut out = b[..at].to_vec();
    out.push(major << 5 | 27);
    out.extend_from_slice(&n.to_be_bytes());
    out.extend_from_slice(&b[at + len..]);
    out
}

// ---------------------------------------------------------------------------------------------
// Structured edits of CBOR values (the state, the burnpack metadata).

/// Paths (child indices) and names of every node below `v`.
pub(crate) fn nodes(v: &Value, path: &mut Vec<usize>, name: &str, out: &mut Vec<(Vec<usize>, String)>) {
    out.push((path.clone(), name.to_string()));
    match v {
        Value::Map(m) => {
            for (i, (k, x)) in m.iter().enumerate() {
                let key = match k {
                    Value::Text(t) => t.clone(),
                    other => format!("{other:?}"),
                };
                path.push(i);
                nodes(x, path, &format!("{name}.{key}"), out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(i);
                nodes(x, path, &format!("{name}[{i}]"), out);
                path.pop();
            }
        }
        Value::Tag(_, x) => {
            path.push(0);
            nodes(x, path, name, out);
            path.pop();
        }
        _ => {}
    }
}

pub(crate) fn node_mut<'a>(v: &'a mut Value, path: &[usize]) -> &'a mut Value {
    let Some((&i, rest)) = path.split_first() else { return v };
    match v {
        Value::Map(m) => node_mut(&mut m[i].1, rest),
        Value::Array(a) => node_mut(&mut a[i], rest),
        Value::Tag(_, x) => node_mut(x, rest),
        _ => unreachable!("a path from `nodes`"),
    }
}

pub(crate) fn to_cbor(v: &Value) -> Vec<u8> {
    let mut out = vec![];
    ciborium::into_writer(v, &mut out).unwrap();
    out
}

pub(crate) fn int(n: i128) -> Value {
    Value::Integer(ciborium::value::Integer::try_from(n).unwrap())
}

/// Whole numbers worth trying where a count, a length, a step or an id was.
pub(crate) fn nasty_int(rng: &mut ChaCha8Rng, was: Option<i128>) -> i128 {
    let w = was.unwrap_or(1);
    let list: [i128; 24] = [
        0,
        1,
        2,
        3,
        8,
        16,
        1024,
        4096,
        4097,
        1_000_000,
        1_000_001,
        u32::MAX as i128,
        u32::MAX as i128 + 1,
        i64::MAX as i128,
        u64::MAX as i128,
        -1,
        -2,
        i64::MIN as i128,
        i32::MIN as i128,
        w + 1,
        w - 1,
        w * 2,
        w.saturating_mul(1 << 20),
        -w,
    ];
    list[rng.random_range(0..list.len())].clamp(i64::MIN as i128, u64::MAX as i128)
}

/// Some value to put where another was.
pub(crate) fn nasty_value(rng: &mut ChaCha8Rng, was: &Value) -> Value {
    let old = match was {
        Value::Integer(i) => Some(i128::from(*i)),
        _ => None,
    };
    match rng.random_range(0..12u32) {
        0..=4 => int(nasty_int(rng, old)),
        5 => Value::Float([f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0, 1e308, -1e308, 1.5][rng.random_range(0..7)]),
        6 => Value::Text(["", "x", "F32", "mws", "anchors", "\u{0}", "🙂"][rng.random_range(0..7)].to_string()),
        7 => Value::Bytes(vec![0xff; rng.random_range(0..40)]),
        8 => Value::Array(vec![]),
        9 => Value::Map(vec![]),
        10 => Value::Null,
        _ => Value::Bool(rng.random()),
    }
}

/// An edit of one node of `v`: replaced, removed or duplicated in its parent, or swapped for a
/// copy of another node; its words.
pub(crate) fn edit_value(rng: &mut ChaCha8Rng, v: &mut Value, prefer_ints: bool) -> String {
    let mut all = vec![];
    nodes(v, &mut vec![], "", &mut all);
    let ints: Vec<_> = all.iter().filter(|(p, _)| matches!(node_mut(v, p), Value::Integer(_))).cloned().collect();
    let pool = if prefer_ints && !ints.is_empty() && rng.random_bool(0.6) { &ints } else { &all };
    let (path, name) = pool[rng.random_range(0..pool.len())].clone();
    let name = if name.is_empty() { "the root".to_string() } else { name };
    match rng.random_range(0..10u32) {
        0 | 1 if !path.is_empty() => {
            let (last, parent) = path.split_last().unwrap();
            match node_mut(v, parent) {
                Value::Map(m) => {
                    m.remove(*last);
                    format!("removed {name}")
                }
                Value::Array(a) => {
                    if rng.random() {
                        a.remove(*last);
                        format!("removed {name}")
                    } else {
                        let x = a[*last].clone();
                        let copies = [1, 2, 50][rng.random_range(0..3usize)];
                        for _ in 0..copies {
                            a.insert(*last, x.clone());
                        }
                        format!("{name} repeated {copies} more times")
                    }
                }
                _ => "nothing".into(),
            }
        }
        2 => {
            let (other, oname) = all[rng.random_range(0..all.len())].clone();
            let x = node_mut(v, &other).clone();
            *node_mut(v, &path) = x;
            format!("{name} replaced by a copy of {}", if oname.is_empty() { "the root" } else { &oname })
        }
        _ => {
            let node = node_mut(v, &path);
            let new = nasty_value(rng, node);
            let words = format!("{name} = {new:?} (was {})", short(&format!("{node:?}")));
            *node = new;
            words
        }
    }
}

pub(crate) fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Every dtype a tensor descriptor could name, as burnpack's metadata writes them.
pub(crate) fn dtypes() -> Vec<Value> {
    use burn::tensor::{BoolStore, DType};
    let all = [
        DType::F64,
        DType::F32,
        DType::Flex32,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
        DType::I16,
        DType::I8,
        DType::U64,
        DType::U32,
        DType::U16,
        DType::U8,
        DType::Bool(BoolStore::Native),
        DType::Bool(BoolStore::U8),
        DType::Bool(BoolStore::U32),
        DType::QFloat(burn::tensor::quantization::QuantScheme::default()),
    ];
    all.iter().map(|d| Value::serialized(d).unwrap()).collect()
}

/// A burnpack record with its metadata edited; the data section moves to the new aligned start.
pub(crate) fn edit_burnpack(rng: &mut ChaCha8Rng, rec: &[u8], dtypes: &[Value]) -> Option<(Vec<u8>, String)> {
    let (meta, data) = burnpack_layout(rec)?;
    let mut v: Value = ciborium::from_reader(&rec[meta.clone()]).ok()?;
    let words = match rng.random_range(0..3u32) {
        // A tensor descriptor: dtype, shape, offsets, id.
        0 => {
            let Value::Map(top) = &mut v else { return None };
            let (_, Value::Map(tensors)) = top.iter_mut().find(|(k, _)| k.as_text() == Some("tensors"))? else {
                return None;
            };
            if tensors.is_empty() {
                return None;
            }
            let i = rng.random_range(0..tensors.len());
            let tname = tensors[i].0.as_text().unwrap_or("?").to_string();
            let Value::Map(desc) = &mut tensors[i].1 else { return None };
            let field = ["dtype", "shape", "data_offsets", "param_id"][rng.random_range(0..4usize)];
            let slot = match desc.iter_mut().find(|(k, _)| k.as_text() == Some(field)) {
                Some((_, x)) => x,
                None => {
                    desc.push((Value::Text(field.into()), Value::Null));
                    &mut desc.last_mut().unwrap().1
                }
            };
            let was = short(&format!("{slot:?}"));
            let new = match (field, &*slot) {
                ("dtype", _) => dtypes[rng.random_range(0..dtypes.len())].clone(),
                ("shape", Value::Array(dims)) => {
                    let mut dims = dims.clone();
                    match rng.random_range(0..4u32) {
                        0 if !dims.is_empty() => {
                            let k = rng.random_range(0..dims.len());
                            let old = dims[k].as_integer().map(i128::from);
                            dims[k] = int(nasty_int(rng, old).max(0));
                        }
                        1 => dims.push(int([1, 0, 2, u32::MAX as i128][rng.random_range(0..4usize)])),
                        2 if !dims.is_empty() => {
                            dims.pop();
                        }
                        _ => dims.reverse(),
                    }
                    Value::Array(dims)
                }
                ("data_offsets", Value::Array(o)) if o.len() == 2 => {
                    let (a, b) = (o[0].as_integer().map(i128::from), o[1].as_integer().map(i128::from));
                    let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
                    let pair: (i128, i128) = match rng.random_range(0..6u32) {
                        0 => (a, u64::MAX as i128),
                        1 => (u64::MAX as i128, b),
                        2 => (b, a),
                        3 => (a + 1, b + 1),
                        4 => (a, b + 256),
                        _ => (nasty_int(rng, Some(a)).max(0), nasty_int(rng, Some(b)).max(0)),
                    };
                    Value::Array(vec![int(pair.0), int(pair.1)])
                }
                _ => nasty_value(rng, slot),
            };
            let words = format!("tensor {tname}'s {field} = {} (was {was})", short(&format!("{new:?}")));
            *slot = new;
            words
        }
        // Any node (scalars: the moments' step counts and ranks; paths; names).
        1 => edit_value(rng, &mut v, true),
        // Another tensor's name for one (two descriptors for one parameter, one for none).
        _ => {
            let Value::Map(top) = &mut v else { return None };
            let (_, Value::Map(tensors)) = top.iter_mut().find(|(k, _)| k.as_text() == Some("tensors"))? else {
                return None;
            };
            if tensors.len() < 2 {
                return None;
            }
            let (i, j) = (rng.random_range(0..tensors.len()), rng.random_range(0..tensors.len()));
            let words = format!("tensor {:?} renamed {:?}", tensors[i].0, tensors[j].0);
            tensors[i].0 = tensors[j].0.clone();
            words
        }
    };
    Some((relayout(rec, &to_cbor(&v), data), words))
}

/// `rec` with new metadata, its tensor data moved to the aligned start after it.
pub(crate) fn relayout(rec: &[u8], meta: &[u8], data: usize) -> Vec<u8> {
    let mut out = rec[..6].to_vec();
    out.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    out.extend_from_slice(meta);
    out.resize((10 + meta.len()).div_ceil(256) * 256, 0);
    out.extend_from_slice(&rec[data.min(rec.len())..]);
    out
}

// ---------------------------------------------------------------------------------------------
// The mutations.

/// One generated input.
pub(crate) struct Case {
    pub(crate) source: usize,
    /// What was done, in words.
    pub(crate) what: String,
    /// The damaged file without its checksum when `sealed` (a fresh one is appended), the whole
    /// damaged file otherwise.
    pub(crate) body: Vec<u8>,
    pub(crate) sealed: bool,
    /// It must load as the source did (an unmutated or harmless change).
    pub(crate) harmless: bool,
}

impl Case {
    pub(crate) fn bytes(&self) -> Vec<u8> {
        if self.sealed {
            seal(self.body.clone())
        } else {
            self.body.clone()
        }
    }
}

/// The fixed cases: each source unmutated and harmlessly rewritten, and cut at every boundary
/// (and a byte either side), with and without a fresh checksum.
pub(crate) fn fixed_cases(sources: &[Source]) -> Vec<Case> {
    let mut out = vec![];
    for (s, src) in sources.iter().enumerate() {
        out.push(Case { source: s, what: "unmutated".into(), body: src.file.clone(), sealed: false, harmless: true });
        let body = &src.file[..src.file.len() - 8];
        // The header rewritten as another JSON writer would (spaces, an unknown field): harmless.
        let mut header: serde_json::Value = serde_json::from_slice(&src.parts[0]).unwrap();
        let pretty = serde_json::to_vec_pretty(&header).unwrap();
        let mut parts = src.parts.clone();
        parts[0] = pretty;
        out.push(Case {
            source: s,
            what: "the header JSON pretty-printed".into(),
            body: assemble(body, &parts),
            sealed: true,
            harmless: true,
        });
        header["written_by"] = "a later tool".into();
        parts[0] = serde_json::to_vec(&header).unwrap();
        out.push(Case {
            source: s,
            what: "an unknown field added to the header".into(),
            body: assemble(body, &parts),
            sealed: true,
            harmless: true,
        });
        for (b, name) in &src.boundaries {
            for cut in [b.saturating_sub(1), *b, b + 1] {
                if cut >= src.file.len() {
                    continue;
                }
                let off = cut as isize - *b as isize;
                let at = if off == 0 { name.clone() } else { format!("{name} {off:+}") };
                out.push(Case {
                    source: s,
                    what: format!("cut at {cut} ({at})"),
                    body: src.file[..cut].to_vec(),
                    sealed: false,
                    harmless: false,
                });
                if cut <= body.len() {
                    out.push(Case {
                        source: s,
                        what: format!("cut at {cut} ({at}), resealed"),
                        body: body[..cut].to_vec(),
                        sealed: true,
                        harmless: false,
                    });
                }
            }
        }
    }
    out
}

/// A position, most often inside the bytes a parser reads.
pub(crate) fn position(rng: &mut ChaCha8Rng, src: &Source, len: usize) -> usize {
    if rng.random_bool(0.6) {
        let r = &src.structure[rng.random_range(0..src.structure.len())];
        rng.random_range(r.start..r.end.max(r.start + 1)).min(len - 1)
    } else {
        rng.random_range(0..len)
    }
}

/// Case `i` drawn from its own stream of `seed` (so that one case replays alone).
pub(crate) fn random_case(seed: u64, i: usize, sources: &[Source], dtypes: &[Value]) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(i as u64);
    let s = rng.random_range(0..sources.len());
    let src = &sources[s];
    let file = &src.file;
    let body = file[..file.len() - 8].to_vec();
    // Most changes get a fresh checksum, to reach the parsers behind it.
    let sealed = rng.random_bool(0.85);
    let mut b = if sealed { body.clone() } else { file.clone() };
    let len = b.len();
    let case = |what: String, body: Vec<u8>, sealed: bool| Case { source: s, what, body, sealed, harmless: false };
    let le64 = |v: i128| if v < 0 { (v as i64).to_le_bytes() } else { (v as u64).to_le_bytes() };
    match rng.random_range(0..100u32) {
        // A cut anywhere.
        0..=7 => {
            let cut = rng.random_range(0..len);
            case(format!("cut at {cut} of {len}"), b[..cut].to_vec(), sealed)
        }
        // Bit flips: one, or a few.
        8..=27 => {
            let n = if rng.random_bool(0.5) { 1 } else { rng.random_range(2..=16) };
            let mut bits = vec![];
            for _ in 0..n {
                let bit = position(&mut rng, src, len) * 8 + rng.random_range(0..8);
                b[bit / 8] ^= 1 << (bit % 8);
                bits.push(bit);
            }
            case(format!("flipped bits {bits:?}"), b, sealed)
        }
        // Random bytes over the file's header (magic, version, the header section).
        28..=34 => {
            let end = sections(file).unwrap()[0].1.end;
            let at = rng.random_range(0..end);
            let n = rng.random_range(1..=8).min(len - at);
            let new: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            b[at..at + n].copy_from_slice(&new);
            case(format!("bytes {at}..{} = {}", at + n, hex(&new)), b, sealed)
        }
        // Another format version.
        35..=38 => {
            let v: u32 = [0, 2, 3, 255, 256, u32::MAX, 1 << 31, rng.random()][rng.random_range(0..8usize)];
            b[16..20].copy_from_slice(&v.to_le_bytes());
            case(format!("format version {v}"), b, sealed)
        }
        // A section's declared length: huge, negative, off by a little.
        39..=48 => {
            let k = rng.random_range(0..4usize);
            let at = sections(file).unwrap()[k].0;
            let was = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as i128;
            let v = [
                u64::MAX as i128,
                u32::MAX as i128,
                -1,
                i64::MIN as i128,
                i64::MAX as i128,
                was + 1,
                was - 1,
                was + 8,
                0,
                len as i128,
                1 << 40,
                nasty_int(&mut rng, Some(was)),
            ][rng.random_range(0..12usize)];
            b[at..at + 8].copy_from_slice(&le64(v));
            case(format!("section {k}'s length = {v} (was {was}) as u64 LE"), b, sealed)
        }
        // A burnpack record's header: its version or its metadata size.
        49..=54 => {
            let k = 1 + rng.random_range(0..2usize);
            let r = sections(file).unwrap()[k].1.clone();
            if rng.random_bool(0.3) {
                let v: u16 = [0, 2, u16::MAX, rng.random()][rng.random_range(0..4usize)];
                b[r.start + 4..r.start + 6].copy_from_slice(&v.to_le_bytes());
                case(format!("section {k}'s burnpack version = {v}"), b, sealed)
            } else {
                let was = u32::from_le_bytes(b[r.start + 6..r.start + 10].try_into().unwrap());
                let v: u32 = [u32::MAX, 100 << 20, (100 << 20) + 1, 0, was + 1, was - 1, was * 2, rng.random()]
                    [rng.random_range(0..8usize)];
                b[r.start + 6..r.start + 10].copy_from_slice(&v.to_le_bytes());
                case(format!("section {k}'s burnpack metadata size = {v} (was {was})"), b, sealed)
            }
        }
        // A CBOR head (the state, or a record's metadata) declaring a huge length.
        55..=62 => {
            let k = [1, 2, 3, 3][rng.random_range(0..4usize)];
            let part = &src.parts[k];
            let (off, region) = if k == 3 {
                (0, part.clone())
            } else {
                let (meta, _) = burnpack_layout(part).unwrap();
                (meta.start, part[meta].to_vec())
            };
            let heads = cbor_heads(&region).expect("a valid file's CBOR");
            let (at, major, hl, was) = heads[rng.random_range(0..heads.len())];
            let n: u64 = [u64::MAX, u32::MAX as u64, 1 << 63, was + 1, was << 20, 1 << 32][rng.random_range(0..6usize)];
            let new = redeclare(&region, at, hl, major, n);
            let mut parts = src.parts.clone();
            parts[k] = if k == 3 {
                new
            } else {
                let (_, data) = burnpack_layout(part).unwrap();
                relayout(part, &new, data)
            };
            let what = format!("section {k}'s CBOR item at {} (major type {major}) declares {n} (was {was})", off + at);
            case(what, assemble(&body, &parts), true)
        }
        // The state: one value edited.
        63..=76 => {
            let mut v: Value = ciborium::from_reader(&src.parts[3][..]).unwrap();
            let words = edit_value(&mut rng, &mut v, true);
            let mut parts = src.parts.clone();
            parts[3] = to_cbor(&v);
            case(format!("state: {words}"), assemble(&body, &parts), true)
        }
        // A record's metadata: a tensor descriptor or a scalar edited.
        77..=86 => {
            let k = 1 + rng.random_range(0..2usize);
            let mut parts = src.parts.clone();
            match edit_burnpack(&mut rng, &src.parts[k], dtypes) {
                Some((rec, words)) => {
                    parts[k] = rec;
                    case(format!("section {k}'s metadata: {words}"), assemble(&body, &parts), true)
                }
                None => case("nothing".into(), body, true),
            }
        }
        // The header JSON edited.
        87..=89 => {
            let mut h: serde_json::Value = serde_json::from_slice(&src.parts[0]).unwrap();
            let field = ["engine", "experiment", "step", "steps"][rng.random_range(0..4usize)];
            let new: serde_json::Value = match rng.random_range(0..8u32) {
                0 => serde_json::json!(u64::MAX),
                1 => serde_json::json!(-1),
                2 => serde_json::json!(i64::MIN),
                3 => serde_json::json!(1e300),
                4 => serde_json::json!(["mws", "anchors", "syntax", "lm", "chess", ""][rng.random_range(0..6usize)]),
                5 => serde_json::Value::Null,
                6 => serde_json::json!([[[[[[1]]]]]]),
                _ => serde_json::json!(u32::MAX),
            };
            let words = format!("header {field} = {new} (was {})", h[field]);
            h[field] = new;
            let mut parts = src.parts.clone();
            parts[0] = serde_json::to_vec(&h).unwrap();
            case(words, assemble(&body, &parts), true)
        }
        // A region zeroed.
        90..=92 => {
            let at = position(&mut rng, src, len);
            let n = rng.random_range(1..=64).min(len - at);
            b[at..at + n].fill(0);
            case(format!("bytes {at}..{} zeroed", at + n), b, sealed)
        }
        // A region copied over another, or spliced in (the file grows), or cut out.
        93..=96 => {
            let from = rng.random_range(0..len);
            let n = rng.random_range(1..=64).min(len - from);
            let to = position(&mut rng, src, len);
            let chunk = b[from..from + n].to_vec();
            match rng.random_range(0..3u32) {
                0 => {
                    let m = n.min(len - to);
                    b[to..to + m].copy_from_slice(&chunk[..m]);
                    case(format!("bytes {from}..{} copied over {to}..{}", from + n, to + m), b, sealed)
                }
                1 => {
                    b.splice(to..to, chunk);
                    case(format!("bytes {from}..{} inserted at {to}", from + n), b, sealed)
                }
                _ => {
                    b.drain(from..from + n);
                    case(format!("bytes {from}..{} removed", from + n), b, sealed)
                }
            }
        }
        // Sections swapped, or grafted from the other file (their lengths kept right).
        _ => {
            let mut parts = src.parts.clone();
            let (k, j) = (rng.random_range(0..4usize), rng.random_range(0..4usize));
            let other = (s + 1) % sources.len();
            if rng.random() {
                parts[k] = sources[other].parts[k].clone();
                case(format!("section {k} taken from {}", sources[other].name), assemble(&body, &parts), true)
            } else {
                parts.swap(k, j);
                case(format!("sections {k} and {j} swapped"), assemble(&body, &parts), true)
            }
        }
    }
}
