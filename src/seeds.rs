//! Several seeds of one configuration: a curve's per-step band (median, minimum and maximum over
//! the seeds) and each chapter's headline numbers as a median and a range.
//!
//! The page's seed bands, `plateau run --seeds` and `plateau summarize` all use these functions,
//! so the same runs give the same summary in both.

/// The median of `values` (finite ones only): the middle value of the sorted list, or the mean of
/// the two middle values when their number is even; `None` when no value is finite.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// A curve over several seeds: at each x that at least one seed recorded with a finite value,
/// the median, minimum and maximum over the seeds that recorded it (`count` of them). A seed that
/// stopped early (diverged, or still training) leaves the band where it stops.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Band {
    /// `(x, median)` in x order.
    pub median: Vec<(f64, f64)>,
    /// `(x, minimum)`.
    pub lo: Vec<(f64, f64)>,
    /// `(x, maximum)`.
    pub hi: Vec<(f64, f64)>,
    /// How many seeds have a finite value at each x.
    pub count: Vec<usize>,
}

/// The [`Band`] of one curve, each run given as its `(x, y)` points (the steps of a run are
/// distinct; points with a non-finite y are left out). All points are sorted by x once and
/// grouped, so a band over long runs costs O(n log n), not a search per step.
pub fn band(runs: &[Vec<(f64, f64)>]) -> Band {
    let mut points: Vec<(f64, f64)> = runs.iter().flatten().copied().filter(|p| p.1.is_finite()).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = Band::default();
    for group in points.chunk_by(|a, b| a.0 == b.0) {
        let x = group[0].0;
        let ys: Vec<f64> = group.iter().map(|p| p.1).collect();
        let Some(m) = median(&ys) else { continue };
        out.median.push((x, m));
        out.lo.push((x, ys.iter().copied().fold(f64::INFINITY, f64::min)));
        out.hi.push((x, ys.iter().copied().fold(f64::NEG_INFINITY, f64::max)));
        out.count.push(ys.len());
    }
    out
}

/// One headline number of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// The step of an event, `None` when it did not happen in the run.
    Step(Option<usize>),
    /// A number (a non-finite one counts as missing).
    Number(f64),
    /// One of a few answers (chapter 2's held-out answer).
    Category(&'static str),
}

/// A named headline number of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// What it is, as the summary names it ("drop step").
    pub name: &'static str,
    /// Its value in this run.
    pub value: Value,
}

impl Measure {
    /// The measure `name` with `value`.
    pub fn new(name: &'static str, value: Value) -> Measure {
        Measure { name, value }
    }
}

/// A number as the summary writes it: steps whole, other values with two decimals.
fn fmt(v: f64, step: bool) -> String {
    if step {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The summary of one measure over the seeds, as a line: for a step, the median and range over the
/// seeds where the event happened and in how many it did; for a number, the median and range; for
/// a category, how many seeds gave each answer. `runs[i]` holds seed i's measures (the same names
/// in the same order, as each chapter's [`crate::view::View::measures`] gives them).
pub fn summary_lines(runs: &[Vec<Measure>]) -> Vec<String> {
    let n = runs.len();
    let Some(first) = runs.first() else { return vec![] };
    let mut out = vec![];
    for (i, proto) in first.iter().enumerate() {
        let values: Vec<&Value> = runs.iter().filter_map(|r| r.get(i)).map(|m| &m.value).collect();
        let spread = |xs: &[f64], step: bool| -> Option<String> {
            let med = median(xs)?;
            let lo = xs.iter().copied().filter(|v| v.is_finite()).fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
            Some(format!("median {} (range {}–{})", fmt(med, step), fmt(lo, step), fmt(hi, step)))
        };
        let line = match &proto.value {
            Value::Step(_) => {
                let steps: Vec<f64> = values
                    .iter()
                    .filter_map(|v| if let Value::Step(Some(s)) = v { Some(*s as f64) } else { None })
                    .collect();
                match spread(&steps, true) {
                    Some(s) => format!("{}: {s}, in {} of {n} seeds", proto.name, steps.len()),
                    None => format!("{}: none, in 0 of {n} seeds", proto.name),
                }
            }
            Value::Number(_) => {
                let xs: Vec<f64> =
                    values.iter().filter_map(|v| if let Value::Number(x) = v { Some(*x) } else { None }).collect();
                let finite = xs.iter().filter(|x| x.is_finite()).count();
                match spread(&xs, false) {
                    Some(s) if finite == n => format!("{}: {s}", proto.name),
                    Some(s) => format!("{}: {s}, over {finite} of {n} seeds", proto.name),
                    None => format!("{}: not available", proto.name),
                }
            }
            Value::Category(_) => {
                let mut counts: Vec<(&str, usize)> = vec![];
                for v in &values {
                    if let Value::Category(c) = v {
                        match counts.iter_mut().find(|(k, _)| k == c) {
                            Some(e) => e.1 += 1,
                            None => counts.push((c, 1)),
                        }
                    }
                }
                counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                let parts: Vec<String> = counts.iter().map(|(k, c)| format!("{k} in {c}")).collect();
                format!("{}: {} of {n} seeds", proto.name, parts.join(", "))
            }
        };
        out.push(line);
    }
    out
}

/// The seeds' summary in one sentence (the page's headline under a seed band).
pub fn summary_sentence(runs: &[Vec<Measure>]) -> String {
    summary_lines(runs).join("; ")
}

/// A CSV of one or more runs, split by its `seed` column (a file without one is one run, seed
/// `None`), each part with the header, in the order the seeds first appear.
pub fn split_by_seed(text: &str) -> Result<Vec<(Option<u64>, String)>, String> {
    let mut lines = text.lines();
    let header = lines.next().filter(|h| !h.is_empty()).ok_or("empty CSV")?;
    let Some(col) = header.split(',').position(|h| h == "seed") else {
        return Ok(vec![(None, text.to_string())]);
    };
    let mut parts: Vec<(Option<u64>, String)> = vec![];
    for (i, line) in lines.enumerate().filter(|(_, l)| !l.is_empty()) {
        let cell = line.split(',').nth(col).ok_or_else(|| format!("line {}: too few fields", i + 2))?;
        let seed: u64 =
            cell.parse().map_err(|_| format!("line {}, column seed: {cell:?} is not a non-negative integer", i + 2))?;
        let part = match parts.iter().position(|p| p.0 == Some(seed)) {
            Some(k) => &mut parts[k].1,
            None => {
                parts.push((Some(seed), format!("{header}\n")));
                &mut parts.last_mut().expect("just pushed").1
            }
        };
        part.push_str(line);
        part.push('\n');
    }
    Ok(parts)
}

/// The largest seed: the schema's `seed` range (a seed is a 32-bit value on the page).
pub const MAX_SEED: u64 = 4_294_967_295;

/// `--seeds` values: a comma list (`0,3,7`) or an inclusive range (`0..4` is the five seeds 0 to
/// 4), at most 64 seeds, each a whole number from 0 to [`MAX_SEED`]; an error says what is wrong.
pub fn parse_seeds(text: &str) -> Result<Vec<u64>, String> {
    parse_seeds_flag("seeds", text)
}

/// [`parse_seeds`] for the flag `--{key}` (`--early-seeds`, …): errors name it.
pub fn parse_seeds_flag(key: &str, text: &str) -> Result<Vec<u64>, String> {
    let int = |v: &str| match v.trim().parse::<u64>() {
        Ok(n) if n <= MAX_SEED => Ok(n),
        _ => Err(format!("--{key}: {:?} is not a seed (a whole number from 0 to {MAX_SEED})", v.trim())),
    };
    let seeds: Vec<u64> = match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (int(a)?, int(b.trim_start_matches('='))?);
            if b < a {
                return Err(format!("--{key} {text}: the range ends before it starts"));
            }
            if b - a >= 64 {
                return Err(format!("--{key} {text}: at most 64 seeds"));
            }
            (a..=b).collect()
        }
        None => text.split(',').map(int).collect::<Result<_, _>>()?,
    };
    if seeds.len() > 64 {
        return Err(format!("--{key}: at most 64 seeds, not {}", seeds.len()));
    }
    let mut seen = seeds.clone();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() != seeds.len() {
        return Err(format!("--{key} {text}: a seed is listed twice"));
    }
    Ok(seeds)
}

/// The `q`-quantile (`0 ≤ q ≤ 1`) of the finite `values`, by linear interpolation between the
/// order statistics: with the sorted values `v_0 ≤ … ≤ v_{m−1}` and `h = q·(m−1)`,
/// `v_⌊h⌋ + (h − ⌊h⌋)·(v_⌊h⌋+1 − v_⌊h⌋)` (the usual "type 7" definition, NumPy's default);
/// `None` when no value is finite.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let h = q * (v.len() - 1) as f64;
    let (lo, frac) = (h.floor() as usize, h - h.floor());
    Some(if lo + 1 < v.len() { v[lo] + frac * (v[lo + 1] - v[lo]) } else { v[lo] })
}

/// A two-sample rank-sum (Wilcoxon–Mann–Whitney) test.
#[derive(Clone, Debug, PartialEq)]
pub struct RankTest {
    /// `U = W − m(m+1)/2` of the first sample, `W` its rank sum (midranks for ties).
    pub u: f64,
    /// Two-sided p-value: the share of the `C(m+k, m)` ways to split the pooled ranks into groups
    /// of the two sizes whose rank sum lies at least as far from its mean `m(m+k+1)/2` as the
    /// observed one (exact; the normal approximation with the tie correction when there are over
    /// [`EXACT_SPLITS`] ways).
    pub p: f64,
    /// Whether `p` was enumerated exactly.
    pub exact: bool,
}

/// The most splits [`rank_sum_test`] enumerates (C(20, 10) = 184 756 for ten against ten).
pub const EXACT_SPLITS: f64 = 2.0e6;

/// Midranks (1-based) of `values`; `None` (an event that did not happen in the run) ranks above
/// every number, tied with the other `None`s.
fn midranks(values: &[Option<f64>]) -> Vec<f64> {
    let key = |v: &Option<f64>| v.unwrap_or(f64::INFINITY);
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| key(&values[a]).total_cmp(&key(&values[b])));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && key(&values[order[j + 1]]) == key(&values[order[i]]) {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            ranks[k] = mid;
        }
        i = j + 1;
    }
    ranks
}

/// The rank-sum test of `a` against `b` (`None`: the event never happened, ranked last; a
/// non-finite number is treated the same way). `None` when either sample is empty.
pub fn rank_sum_test(a: &[Option<f64>], b: &[Option<f64>]) -> Option<RankTest> {
    let clean = |v: &Option<f64>| v.filter(|x| x.is_finite());
    let pooled: Vec<Option<f64>> = a.iter().chain(b).map(clean).collect();
    let (m, k) = (a.len(), b.len());
    if m == 0 || k == 0 {
        return None;
    }
    let ranks = midranks(&pooled);
    let w: f64 = ranks[..m].iter().sum();
    let n = m + k;
    let mean = m as f64 * (n + 1) as f64 / 2.0;
    let dev = (w - mean).abs();
    let splits = (0..m).fold(1.0f64, |c, i| c * (n - i) as f64 / (i + 1) as f64);
    let u = w - (m * (m + 1)) as f64 / 2.0;
    if splits <= EXACT_SPLITS {
        // Every m-subset of the pooled ranks, by recursion over the positions.
        fn walk(r: &[f64], need: usize, from: usize, sum: f64, mean: f64, dev: f64, hits: &mut f64) {
            if need == 0 {
                if (sum - mean).abs() >= dev - 1e-9 {
                    *hits += 1.0;
                }
                return;
            }
            for i in from..=r.len() - need {
                walk(r, need - 1, i + 1, sum + r[i], mean, dev, hits);
            }
        }
        let mut hits = 0.0;
        walk(&ranks, m, 0, 0.0, mean, dev, &mut hits);
        return Some(RankTest { u, p: hits / splits, exact: true });
    }
    // Normal approximation: Var W = m·k/12 · ((n+1) − Σ(t³−t)/(n(n−1))) over the tie groups t.
    let mut sorted = ranks.clone();
    sorted.sort_by(f64::total_cmp);
    let ties: f64 = sorted.chunk_by(|x, y| x == y).map(|g| (g.len().pow(3) - g.len()) as f64).sum();
    let var = (m * k) as f64 / 12.0 * ((n + 1) as f64 - ties / (n * (n - 1)) as f64);
    let z = if var > 0.0 { dev / var.sqrt() } else { 0.0 };
    Some(RankTest { u, p: (2.0 * (1.0 - normal_cdf(z))).min(1.0), exact: false })
}

/// The standard normal distribution function, `Φ(z) = (1 + erf(z/√2))/2`, with erf from
/// Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        (1.0 + erf) / 2.0
    } else {
        (1.0 - erf) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let v = [7.0, 1.0, 3.0, 5.0, f64::NAN];
        // sorted 1 3 5 7: q 0.25 → h 0.75 → 1 + 0.75·2 = 2.5; the median 4; q 0.75 → h 2.25 → 5.5
        assert_eq!(quantile(&v, 0.25), Some(2.5));
        assert_eq!(quantile(&v, 0.5), Some(4.0));
        assert_eq!(quantile(&v, 0.75), Some(5.5));
        assert_eq!((quantile(&v, 0.0), quantile(&v, 1.0)), (Some(1.0), Some(7.0)));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[2.0], 1.5), None);
    }

    #[test]
    fn rank_sum_test_by_hand() {
        let s = |v: &[f64]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        // Fully separated 3 against 3: W = 6 is the least of the 20 splits, 15 the largest: p = 2/20.
        let t = rank_sum_test(&s(&[1.0, 2.0, 3.0]), &s(&[4.0, 5.0, 6.0])).unwrap();
        assert_eq!((t.u, t.exact), (0.0, true));
        assert!((t.p - 0.1).abs() < 1e-12, "{t:?}");
        // Interleaved 1 4 | 2 3: W = 5 = its mean 2·5/2: p = 1.
        assert_eq!(rank_sum_test(&s(&[1.0, 4.0]), &s(&[2.0, 3.0])).unwrap().p, 1.0);
        // Ties: 1 1 | 1 2 → midranks 2 2 | 2 4; every split sums to 4 or 6, both 1 from the mean 5.
        let t = rank_sum_test(&s(&[1.0, 1.0]), &s(&[1.0, 2.0])).unwrap();
        assert_eq!((t.u, t.p), (1.0, 1.0));
        // A run without the event ranks last: 1 ∞ | 2 3 → ranks 1 4 | 2 3, W = 5: p = 1.
        assert_eq!(rank_sum_test(&[Some(1.0), None], &s(&[2.0, 3.0])).unwrap().p, 1.0);
        // 1 2 | None None: W = 3, the least of 6 splits (3 4 5 5 6 7): p = 2/6.
        let t = rank_sum_test(&s(&[1.0, 2.0]), &[None, None]).unwrap();
        assert!((t.p - 1.0 / 3.0).abs() < 1e-12, "{t:?}");
        assert!(rank_sum_test(&[], &s(&[1.0])).is_none());
        // Ten against ten, separated: 2/C(20,10).
        let t = rank_sum_test(
            &s(&(0..10).map(f64::from).collect::<Vec<_>>()),
            &s(&(10..20).map(f64::from).collect::<Vec<_>>()),
        )
        .unwrap();
        assert!(t.exact && (t.p - 2.0 / 184_756.0).abs() < 1e-15, "{t:?}");
    }

    #[test]
    fn rank_sum_test_falls_back_to_the_normal_approximation() {
        // 15 against 15 (C(30,15) ≈ 1.55e8 splits, too many to enumerate). The same values in
        // both: W is at its mean, p = 1.
        let v: Vec<Option<f64>> = (0..15).map(|x| Some(x as f64)).collect();
        let t = rank_sum_test(&v, &v).unwrap();
        assert!(!t.exact);
        assert!((t.p - 1.0).abs() < 1e-6, "{t:?}");
        // Separated 15 | 15, no ties: W = 120, mean 232.5, Var = 15·15·31/12 = 581.25, z = 4.666:
        // p = 2(1 − Φ(4.666)) ≈ 3.07e-6.
        let a: Vec<Option<f64>> = (0..15).map(|x| Some(x as f64)).collect();
        let b: Vec<Option<f64>> = (15..30).map(|x| Some(x as f64)).collect();
        let t = rank_sum_test(&a, &b).unwrap();
        assert!((t.p - 3.07e-6).abs() < 0.02e-6, "{t:?}");
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
    }

    #[test]
    fn median_of_odd_and_even_counts_skips_non_finite() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 5.0, f64::INFINITY]), Some(5.0));
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn band_is_median_min_max_over_the_seeds_that_reached_each_step() {
        let a = vec![(0.0, 1.0), (10.0, 4.0), (20.0, 0.5)];
        let b = vec![(0.0, 3.0), (10.0, 2.0)]; // stopped at step 10
        let c = vec![(0.0, 2.0), (10.0, f64::NAN), (20.0, 1.5)];
        let band = band(&[a, b, c]);
        assert_eq!(band.median, vec![(0.0, 2.0), (10.0, 3.0), (20.0, 1.0)]);
        assert_eq!(band.lo, vec![(0.0, 1.0), (10.0, 2.0), (20.0, 0.5)]);
        assert_eq!(band.hi, vec![(0.0, 3.0), (10.0, 4.0), (20.0, 1.5)]);
        assert_eq!(band.count, vec![3, 2, 2]);
        assert_eq!(super::band(&[]), Band::default());
    }

    #[test]
    fn summary_lines_count_events_numbers_and_answers() {
        let run = |drop: Option<usize>, acc: f64, answer: &'static str| {
            vec![
                Measure::new("drop step", Value::Step(drop)),
                Measure::new("final acc", Value::Number(acc)),
                Measure::new("answer", Value::Category(answer)),
            ]
        };
        let runs = vec![
            run(Some(150), 0.9, "inferential"),
            run(None, 0.5, "symmetric"),
            run(Some(340), f64::NAN, "inferential"),
            run(Some(195), 1.0, "neither"),
        ];
        assert_eq!(
            summary_lines(&runs),
            vec![
                "drop step: median 195 (range 150–340), in 3 of 4 seeds",
                "final acc: median 0.90 (range 0.50–1.00), over 3 of 4 seeds",
                "answer: inferential in 2, neither in 1, symmetric in 1 of 4 seeds",
            ]
        );
        let none = vec![run(None, 1.0, "neither"), run(None, 0.0, "neither")];
        assert_eq!(summary_lines(&none)[0], "drop step: none, in 0 of 2 seeds");
        assert_eq!(summary_lines(&none)[1], "final acc: median 0.50 (range 0.00–1.00)");
        assert!(summary_lines(&[]).is_empty());
    }

    #[test]
    fn seeds_parse_as_lists_and_inclusive_ranges() {
        assert_eq!(parse_seeds("0..4").unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(parse_seeds("3").unwrap(), vec![3]);
        assert_eq!(parse_seeds("0, 5,2").unwrap(), vec![0, 5, 2]);
        assert_eq!(parse_seeds("2..2").unwrap(), vec![2]);
        for bad in ["4..0", "-1..3", "0..100", "a", "0,0", "1.5", "", "0..", "nan"] {
            assert!(parse_seeds(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn csv_splits_by_seed() {
        let text = "seed,step,apm\n1,0,0.5\n1,10,0.6\n0,0,0.4\n";
        let parts = split_by_seed(text).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0], (Some(1), "seed,step,apm\n1,0,0.5\n1,10,0.6\n".to_string()));
        assert_eq!(parts[1], (Some(0), "seed,step,apm\n0,0,0.4\n".to_string()));
        assert_eq!(split_by_seed("step,apm\n0,1\n").unwrap(), vec![(None, "step,apm\n0,1\n".to_string())]);
        assert!(split_by_seed("seed,step\nx,0\n").unwrap_err().contains("line 2"));
    }
}
