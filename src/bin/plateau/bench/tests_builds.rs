//! The `cpu` and `fusion` suites' tables and decisions, on made-up figures.

use super::*;

#[test]
fn cpu_suite_ratios_decision_and_profile() {
    let cases = vec![
        Case { name: "ch1 paper", query: "preset=paper", steps: 8 },
        Case { name: "ch2 interactive", query: "experiment=anchors", steps: 40 },
    ];
    let spec = cpu_spec(&cases);
    let engines = spec["engines"].as_array().unwrap();
    assert_eq!((engines[0]["pkg"].as_str(), engines[1]["backend"].as_str()), (Some("cpu"), Some("flex")));
    let step = |name: &str, engine: &str, ms: f64| BuildStep {
        name: name.into(),
        engine: engine.into(),
        ms: Some(ms),
        ..Default::default()
    };
    let mut b = BuildsBrowser {
        browser: "Chromium 1".into(),
        webgpu_adapter: None,
        steps: vec![
            step("ch1 paper", "NdArray", 4000.0),
            step("ch1 paper", "Flex", 8000.0),
            step("ch2 interactive", "NdArray", 200.0),
            step("ch2 interactive", "Flex", 150.0),
        ],
        profiles: vec![],
    };
    // Flex is furthest behind on the paper preset (2× against 0.75×): that case is profiled.
    assert_eq!(furthest_behind(&b, &cases), Some(("ch1 paper".to_string(), 2.0)));
    assert_eq!(cpu_profile_spec(&cases[0])["profile"]["steps"], 4);
    let one = Ok(vec![("cpu (ndarray)".to_string(), Ok(3000.0)), ("cpu (flex)".to_string(), Ok(2400.0))]);
    let native = vec![
        CpuNative::of("ch1 paper", [Ok(1500.0), Ok(1200.0)], one),
        CpuNative::of("ch2 interactive", [Ok(100.0), Ok(80.0)], Err("child failed".into())),
    ];
    let profile = |engine: &str, gemm: f64| EngineProfile {
        engine: engine.into(),
        profile: BrowserProfile {
            name: "ch1 paper".into(),
            steps: 2,
            ms: 4000.0,
            profiled_ms: 4100.0,
            functions: vec![("gemm::microkernel".into(), gemm), ("memcpy".into(), 400.0)],
            error: None,
        },
    };
    b.profiles = vec![profile("NdArray", 6000.0), profile("Flex", 14000.0)];
    let s = cpu_section("plateau bench --suite cpu", "Test CPU", "2026-12-07", 2, &native, &Ok(b));
    assert!(
        s.contains("| ch1 paper | 1500 | 1200 | **0.80** | 3000 | 2400 | **0.80** | 4000 | 8000 | **2.00** |"),
        "{s}"
    );
    assert!(s.contains("| ch2 interactive | 100 | 80.0 | **0.80** | — (child failed) | — (child failed) | — |"), "{s}");
    assert!(s.contains("natively with one thread: Flex at least as fast on 1 of 1 cases"), "{s}");
    assert!(s.contains("in the browser: Flex at least as fast on 1 of 2 cases, at worst 2.00× on ch1 paper"), "{s}");
    assert!(s.contains("So NdArray stays the CLI's default"), "{s}");
    assert!(s.contains("of ch1 paper, the case where Flex is furthest behind"), "{s}");
    assert!(s.contains("| matrix products (GEMM kernels, packing) | 3000 | 7000 |"), "{s}");
    assert!(s.contains("| memory (copies, zeroing, allocation, page faults, kernel) | 200 | 200 |"), "{s}");
    // Faster everywhere: Flex qualifies.
    let fast = |n: f64, f: f64| [Ok(n), Ok(f)];
    let all_fast = vec![CpuNative { case: "ch1 paper".into(), all: fast(2.0, 1.0), one: fast(2.0, 1.0) }];
    let b = BuildsBrowser {
        steps: vec![step("ch1 paper", "NdArray", 2.0), step("ch1 paper", "Flex", 2.0)],
        ..Default::default()
    };
    let s = cpu_section("x", "y", "z", 2, &all_fast, &Ok(b));
    assert!(s.contains("it qualifies as the CLI's default"), "{s}");
    let s = cpu_section("x", "y", "z", 2, &all_fast, &Err("node failed".into()));
    assert!(s.contains("The browser was not measured: node failed") && s.contains("NdArray stays"), "{s}");
}

#[test]
fn fusion_suite_counts_target_and_decision() {
    let cases = fusion_cases();
    assert_eq!(
        cases.iter().map(|c| c.name).collect::<Vec<_>>(),
        ["ch1 interactive", "ch2 interactive", "ch3 interactive", "ch4 interactive"]
    );
    let spec = fusion_spec(&cases, 300);
    assert!(spec["engines"].as_array().unwrap().iter().all(|e| e["backend"] == "webgpu" && e["calls"] == true));
    assert_eq!(
        (&spec["engines"][0]["pkg"], &spec["engines"][1]["pkg"]),
        (&"unfused".into(), &"".into()),
        "the page's engine is the fused one"
    );
    let ran = |name: &str, engine: &str, ms: f64, d: f64| BuildStep {
        name: name.into(),
        engine: engine.into(),
        ms: Some(ms),
        dispatches: Some(d),
        submits: Some(2.0),
        maps: Some(0.0),
        error: None,
    };
    let mut steps = vec![];
    for c in &cases {
        steps.push(ran(c.name, "unfused", 100.0, 500.0));
        steps.push(ran(c.name, "fused", 80.0, 120.0));
    }
    let b = BuildsBrowser {
        browser: "Chromium 1".into(),
        webgpu_adapter: Some("google swiftshader".into()),
        steps,
        profiles: vec![],
    };
    let native = FusionNative {
        adapter: "llvmpipe (Gl, Cpu)".into(),
        rows: cases.iter().map(|c| (c.name.to_string(), [Ok(250.0), Ok(200.0)])).collect(),
    };
    let s = fusion_section("plateau bench --suite fusion", "2026-12-07", &cases, &Ok(b.clone()), &Ok(native.clone()));
    assert!(s.contains("| ch1 interactive | 100 | 500 | 2 | 0 | 80 | 120 | 2 | 0 | **0.24** |"), "{s}");
    // Natively: 250 and 200 ms/step are 4 and 5 steps/s, the fused build 1.25× as many.
    assert!(s.contains("default adapter (found: llvmpipe (Gl, Cpu))"), "{s}");
    assert!(s.contains("| ch2 interactive | 250 | 4.00 | 200 | 5.00 | **1.25** |"), "{s}");
    assert!(s.contains("interactive preset with fusion: 120, met."), "{s}");
    assert!(s.contains("cut the dispatches of all 4: fusion qualifies"), "{s}");
    // The fused engine stuck on chapter 1: no target figure, fusion does not qualify.
    let mut stuck = b;
    stuck.steps[1] =
        BuildStep { ms: None, dispatches: None, error: Some("no answer in 300 s".into()), ..stuck.steps[1].clone() };
    let mut failed = native;
    failed.rows[0].1[1] = Err("no adapter".into());
    let s = fusion_section("x", "y", &cases, &Ok(stuck), &Ok(failed));
    assert!(s.contains("| ch1 interactive | 250 | 4.00 | — (no adapter) | — | — |"), "{s}");
    assert!(s.contains("| ch1 interactive | 100 | 500 | 2 | 0 | — (no answer in 300 s) | — | — | — | — |"), "{s}");
    assert!(s.contains("not measured (the fused engine did not train it)"), "{s}");
    assert!(s.contains("did not train 1 of 4 cases (ch1 interactive), so fusion does not qualify"), "{s}");
    let s = fusion_section("x", "y", &cases, &Err("node failed".into()), &Err("not run".into()));
    assert!(s.contains("Not measured: node failed") && s.contains("Natively (wgpu): not measured: not run."), "{s}");
}
