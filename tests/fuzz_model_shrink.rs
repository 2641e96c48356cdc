//! The model-file fuzz's (`fuzz_model`) shrinking: the least damage to a valid file that still
//! fails, and the difference printed for it.
#![allow(unused_imports)]

use crate::fuzz_model::*;
use crate::fuzz_model_cases::*;

// ---------------------------------------------------------------------------------------------
// Shrinking: the least damage that still fails.

/// `cand` reduced towards `reference` while `fails` holds: a cut as short as it can be, and for
/// changed bytes as few bytes and bits changed as still fail.
pub(crate) fn shrink(reference: &[u8], cand: Vec<u8>, fails: &mut dyn FnMut(&[u8]) -> bool) -> Vec<u8> {
    let mut best = cand;
    let mut budget = 3_000usize;
    let mut try_it = |c: &[u8], budget: &mut usize| {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        fails(c)
    };
    // A cut: the longest prefix that still fails (the least cut off).
    if best.len() < reference.len() && reference.starts_with(&best) {
        let mut step = (reference.len() - best.len()).next_power_of_two();
        while step > 0 {
            let l = best.len() + step;
            if l < reference.len() && try_it(&reference[..l], &mut budget) {
                best = reference[..l].to_vec();
            } else {
                step /= 2;
            }
        }
        return best;
    }
    if best.len() != reference.len() {
        return best;
    }
    // Changed bytes: revert chunks of them (ddmin), then single bits.
    let mut diff: Vec<usize> = (0..best.len()).filter(|&i| best[i] != reference[i]).collect();
    let mut chunk = diff.len().div_ceil(2).max(1);
    loop {
        let mut reverted_any = false;
        let mut i = 0;
        while i < diff.len() {
            let part: Vec<usize> = diff[i..(i + chunk).min(diff.len())].to_vec();
            let mut c = best.clone();
            for &p in &part {
                c[p] = reference[p];
            }
            if try_it(&c, &mut budget) {
                best = c;
                diff.retain(|p| !part.contains(p));
                reverted_any = true;
            } else {
                i += chunk;
            }
        }
        if chunk == 1 && !reverted_any {
            break;
        }
        if !reverted_any {
            chunk = (chunk / 2).max(1);
        }
    }
    for &p in &diff {
        for bit in 0..8 {
            if (best[p] ^ reference[p]) & (1 << bit) != 0 {
                let mut c = best.clone();
                c[p] ^= 1 << bit;
                if c[p] != reference[p] && try_it(&c, &mut budget) {
                    best = c;
                }
            }
        }
    }
    best
}

/// How `b` differs from `a`, in words and hex: a cut, or the changed runs of bytes ("hunks",
/// each at its offset in `a`; a run inserted or removed shifts what follows, which is not
/// repeated).
pub(crate) fn difference(a: &[u8], b: &[u8]) -> String {
    if b.len() < a.len() && a.starts_with(b) {
        return format!("cut to its first {} bytes (of {})", b.len(), a.len());
    }
    const SYNC: usize = 16;
    let clip = |x: &[u8]| {
        if x.len() > 96 {
            format!("{}…({} bytes)", hex(&x[..96]), x.len())
        } else if x.is_empty() {
            "nothing".to_string()
        } else {
            hex(x)
        }
    };
    let (mut i, mut j, mut hunks) = (0, 0, vec![]);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
            continue;
        }
        // The least skip on either side after which both agree again for SYNC bytes (or end).
        let agrees = |p: usize, q: usize| {
            let n = SYNC.min(a.len() - p).min(b.len() - q);
            (n == SYNC || (p + n == a.len() && q + n == b.len())) && a[p..p + n] == b[q..q + n]
        };
        // Cheapest first: n bytes replaced, inserted or removed cost n; a replacement before an
        // insertion or removal of the same cost.
        let skip = (1..=128usize).find_map(|c| {
            (0..=c)
                .flat_map(|k| [(c, c - k), (c - k, c)])
                .find(|&(di, dj)| i + di <= a.len() && j + dj <= b.len() && agrees(i + di, j + dj))
        });
        let (di, dj) = skip.unwrap_or((a.len() - i, b.len() - j));
        let bits = if di == dj {
            let n: u32 = a[i..i + di].iter().zip(&b[j..j + dj]).map(|(x, y)| (x ^ y).count_ones()).sum();
            format!(" ({n} bits)")
        } else {
            String::new()
        };
        hunks.push(format!("at {i}: {} -> {}{bits}", clip(&a[i..i + di]), clip(&b[j..j + dj])));
        (i, j) = (i + di, j + dj);
    }
    let shown: Vec<&String> = hunks.iter().take(8).collect();
    format!(
        "{} byte run(s) changed (of {} bytes, now {}): {}{}",
        hunks.len(),
        a.len(),
        b.len(),
        shown.iter().map(|h| h.as_str()).collect::<Vec<_>>().join("; "),
        if hunks.len() > 8 { "; …" } else { "" }
    )
}
