//! Unit tests of the bench's parsers, measurements and report.

use super::*;

#[test]
fn flops_of_the_paper_step_by_hand() {
    // Paper preset: batch 256, seq 32, d 256, d_ff 1024, vocab 18, 1 layer.
    // T = 8192 tokens. Projections 4·2·8192·256² = 4 294 967 296; scores and A·V
    // 2·2·256·32²·256 = 268 435 456; MLP 2·2·8192·256·1024 = 8 589 934 592; head
    // 2·8192·256·18 = 75 497 472. Forward 13 228 834 816; step ×3 = 39 686 504 448.
    let s = shape(&RunConfig::preset(Preset::Paper));
    assert_eq!((s.batch, s.seq, s.d_model, s.d_ff, s.vocab, s.layers), (256, 32, 256, 1024, 18, 1));
    assert_eq!(train_step_flops(&s), 39_686_504_448.0);
}

#[test]
fn shapes_follow_the_chapters() {
    let s2 = shape(&case_config(&cases(false)[2]));
    // chapter 2's default sequence length (`seq-len`), not a constant
    assert_eq!((s2.seq, s2.vocab, s2.loss, s2.causal, s2.softmax), (8, 100, "last", true, true));
    let s3 = shape(&case_config(&cases(false)[3]));
    // chapter 3's default language, the nested one (24 positions), on 1 layer
    assert_eq!((s3.seq, s3.loss, s3.causal, s3.heads, s3.layers), (24, "mlm", false, 4, 1));
}

#[test]
fn profiles_are_parsed_and_sorted_into_kinds() {
    let lines = "    16.57%    13152:plateau  [.] gemm_f32::microkernel::avx512f::f32::x4x6\n\
                 7.10%    13150:plateau  [.] __memmove_evex_unaligned_erms\n\
                 not a sample line\n";
    assert_eq!(
        parse_perf_report(lines),
        vec![
            (16.57, "[.] gemm_f32::microkernel::avx512f::f32::x4x6".to_string()),
            (7.1, "[.] __memmove_evex_unaligned_erms".to_string())
        ]
    );
    for (name, kind) in [
        ("matrixmultiply::kernel::sgemm_kernel", 0),
        ("[.] gemm_common::simd::x86::V4::vectorize", 0),
        ("[.] macerator::backend::x86::v4::V4Impl::run_vectorized", 1),
        ("burn_ndarray::ops::base::NdArrayMathOps::sum_dim", 1),
        ("[.] __expf_fma", 2),
        ("libm::math::logf::logf", 2),
        ("compiler_builtins::math::libm_math::powf::powf", 2),
        ("__rustc::__rdl_alloc_zeroed", 3),
        ("[k] exc_page_fault", 3),
        ("dlmalloc::dlmalloc::Dlmalloc<A>::malloc", 3),
        ("memset", 3),
        ("(program)", 4),
        ("__wbg_call_1234", 4),
    ] {
        assert_eq!(kind_of(name), KINDS[kind], "{name}");
    }
    let kinds = by_kind(&[(2.0, "memcpy".into()), (1.0, "sgemm".into()), (3.0, "matrixmultiply".into())]);
    assert_eq!(kinds, [4.0, 0.0, 0.0, 2.0, 0.0]);
}

/// A run of the bench with every part measured, its figures chosen by hand.
fn sample_results() -> Results {
    let paper = cases(false)[0].clone();
    let ch2 = cases(false)[2].clone();
    Results {
        command: "plateau bench".into(),
        threads: 2,
        cpu: "test CPU".into(),
        native: vec![
            (paper.clone(), vec![(backend::CPU.name().to_string(), Ok(100.0))]),
            (ch2.clone(), vec![(backend::CPU.name().to_string(), Ok(20.0))]),
        ],
        torch: vec![Ok(TorchResult { ms: 150.0, version: "2.15.0".into(), blas: "mkl".into() }), Err("not run".into())],
        torch_second: vec![Ok(TorchResult {
            ms: 300.0,
            version: "1.13".into(),
            blas: "generic → libopenblasp.so".into(),
        })],
        browser: Some(Ok(BrowserResult {
            browser: "Chromium 1".into(),
            steps: vec![
                BrowserStep { name: paper.name.into(), backend: "cpu".into(), ms: Some(250.0), error: None },
                BrowserStep { name: ch2.name.into(), backend: "cpu".into(), ms: Some(50.0), error: None },
                BrowserStep { name: paper.name.into(), backend: "tfjs-wasm".into(), ms: Some(750.0), error: None },
            ],
            tfjs_version: Some("4.22.0".into()),
            load: Some(PageLoad {
                first_step_ms: Some(4210.0),
                measured_hero_ms: Some(1350.0),
                main_wasm_bytes: 15.0e6,
                main_js_bytes: 0.2e6,
                longest_load_task_ms: 480.0,
            }),
            gpu_calls: vec![
                GpuCalls {
                    name: "ch1 interactive".into(),
                    mode: "chunk".into(),
                    steps: 4,
                    ms: 2000.0,
                    dispatches: 412.0,
                    submits: 2.5,
                    maps: 0.25,
                },
                GpuCalls {
                    name: "ch1 interactive".into(),
                    mode: "every step".into(),
                    steps: 4,
                    ms: 2400.0,
                    dispatches: 413.0,
                    submits: 3.0,
                    maps: 1.0,
                },
            ],
            drop_seconds: Some(12.34),
            drop_step: Some(225),
            lm: Some(LmTiming { collapsed: Some(AtSeconds { step: 4, seconds: 3.9 }), recovered: None }),
            syntax: Some(SyntaxTiming { drop: Some(AtSeconds { step: 650, seconds: 71.5 }), subject: None }),
            longest_task_ms: Some(61.0),
            longest_draw_ms: Some(22.0),
            long_tasks: vec![LongTask {
                ms: 61.0,
                step: 1,
                window_ms: Some(80.0),
                cpu: vec![
                    ("renderer thread pool (V8 compiles, GC)".into(), 90.0),
                    ("training worker".into(), 50.0),
                    ("page main thread".into(), 20.0),
                ],
            }],
            profile: Some(BrowserProfile {
                name: "ch1 paper".into(),
                steps: 2,
                ms: 250.0,
                profiled_ms: 260.0,
                functions: vec![
                    ("matrixmultiply::gemm::masked_kernel".into(), 300.0),
                    ("ndarray::zip::Zip<P,D>::for_each".into(), 120.0),
                    ("memcpy".into(), 40.0),
                    ("libm::math::expf::expf".into(), 20.0),
                    ("(garbage collector)".into(), 20.0),
                ],
                error: None,
            }),
            ..Default::default()
        })),
        wasm: Some(Ok(WasmSize {
            raw: 9_000_000,
            gzip: 3_100_000,
            sections: vec![("code".into(), 8_000_000, 2_700_000)],
        })),
        one_thread: Some(Ok(vec![(backend::CPU.name().to_string(), Ok(160.0))])),
        torch_one_thread: Some(Ok(TorchResult { ms: 200.0, version: "2.15.0".into(), blas: "mkl".into() })),
        one_thread_cpu: vec![("ch2 interactive".into(), Ok(30.0))],
        memory: vec![(1000, 20e6, 21e6)],
        native_drop: Some((8.0, 225)),
        native_verdicts: vec![Verdict {
            gamma: 0.8,
            answer: "inferential".into(),
            step: Some(450),
            seconds: Some(40.0),
        }],
        native_syntax: Some(SyntaxTiming {
            drop: Some(AtSeconds { step: 650, seconds: 40.2 }),
            subject: Some(AtSeconds { step: 700, seconds: 43.0 }),
        }),
        native_lm: Some(LmTiming {
            collapsed: Some(AtSeconds { step: 4, seconds: 1.5 }),
            recovered: Some(AtSeconds { step: 108, seconds: 9.0 }),
        }),
        native_profile: Some(Ok(parse_perf_report(
            "    50.00%    13152:plateau  [.] gemm_f32::microkernel::x4x6\n\
             30.00%    13150:plateau  [.] burn_ndarray::ops::zip_map\n\
             10.00%    13150:plateau  [k] clear_page_erms\n\
              5.00%    13150:plateau  [.] __expf_fma\n\
              5.00%    13150:plateau  [.] main\n",
        ))),
        adapters: vec![plateau::backend::Adapter {
            name: "llvmpipe".into(),
            api: "Gl".into(),
            kind: "Cpu".into(),
            driver: "Mesa".into(),
            max_buffer: 1 << 31,
            max_storage_binding: 1 << 27,
        }],
    }
}

#[test]
fn report_ratios_and_targets_by_hand() {
    let r = sample_results();
    let text = report(&r, "2026-11-30");
    // TensorFlow.js 750 ms: 0.20× the reference PyTorch, 0.13× native.
    assert!(
        text.contains("| ch1 paper | 39.69 | browser TensorFlow.js wasm (SIMD) | 750 | 1.33 | 52.9 | 0.20× | 0.13× |"),
        "{text}"
    );
    assert!(text.contains("TensorFlow.js 4.22.0 (`bench/tfjs/model.js`"), "{text}");
    assert!(
        text.contains("| the hero figure with the measured runs within 2 s of navigation (the page, no URL parameters) | 1.35 s | yes |"),
        "{text}"
    );
    assert!(
        text.contains("| first training step within 3 s of navigation (the page, no URL parameters) | 4.21 s; on the way the main thread fetched and compiled 15.0 MB of wasm and 0.2 MB of JavaScript, its longest task 480 ms | **no** |"),
        "{text}"
    );
    assert!(text.contains("PyTorch (every ratio's reference): 2.15.0, BLAS mkl; second PyTorch row: 1.13, BLAS generic → libopenblasp.so"), "{text}");
    // The second PyTorch has a row with the ratios to the reference: 150 ÷ 300 = 0.50×.
    assert!(text.contains("| ch1 paper | 39.69 | PyTorch 1.13 | 300 | 3.33 | 132.3 | 0.50× | 0.33× |"), "{text}");
    assert!(
        text.contains(
            "Native wgpu: llvmpipe (Gl, Cpu), no hardware GPU: the native wgpu rows run on a software rasterizer."
        ),
        "{text}"
    );
    // WebGPU calls: before (every step) first, then now (chunk).
    let calls = &text[text.find("## WebGPU calls per training step").expect("calls section")..];
    let before = calls.find("| ch1 interactive | every step | 4 | 2400 | 413.0 | 3.00 | 1.00 |").expect(calls);
    let after = calls.find("| ch1 interactive | chunk | 4 | 2000 | 412.0 | 2.50 | 0.25 |").expect(calls);
    assert!(before < after, "{calls}");
    // 39.69 GFLOP in 100 ms = 396.9 GFLOP/s; PyTorch 150 ms ÷ 100 ms = 1.50× the steps/s.
    assert!(
        text.contains("| ch1 paper | 39.69 | native cpu (ndarray) | 100 | 10.00 | 396.9 | 1.50× | 1.00× |"),
        "{text}"
    );
    assert!(text.contains("| ch1 paper | 39.69 | PyTorch | 150 | 6.67 | 264.6 | 1× | 0.67× |"), "{text}");
    // Browser 250 ms: 0.60× PyTorch, 0.40× native.
    assert!(text.contains("| browser CPU (wasm) | 250 | 4.00 | 158.7 | 0.60× | 0.40× |"), "{text}");
    assert!(text.contains("same threads | 1.50× (100 ms/step on cpu (ndarray) vs 150 ms/step) | yes |"), "{text}");
    assert!(text.contains("browser CPU ≥ 0.5× native, ch1 paper | 0.40× (250 vs 100 ms/step) | **no** |"), "{text}");
    assert!(
        text.contains("| 12.3 s of training (step 225); natively 8.0 s (step 225, cpu (ndarray), 2 threads) | yes |"),
        "{text}"
    );
    assert!(text.contains("| longest 61 ms | **no** |"), "{text}");
    assert!(
        text.contains("| chapter 4's collapse (hidden cosine ≥ 0.9) within 10 s in headless Chromium | step 4 after 3.9 s of training; natively step 4 after 1.5 s (cpu (ndarray), 2 threads) | yes |"),
        "{text}"
    );
    assert!(
        text.contains("| chapter 4's recovery (fallen back by half its rise) within 90 s in headless Chromium | not reached; natively step 108 after 9.0 s (cpu (ndarray), 2 threads) | **no** |"),
        "{text}"
    );
    assert!(
        text.contains("| chapter 3's verb-loss drop within 60 s in headless Chromium (the page's default) | step 650 after 71.5 s of training; natively step 650 after 40.2 s (cpu (ndarray), 2 threads) | **no** |"),
        "{text}"
    );
    assert!(
        text.contains("| chapter 3's subject → verb onset within 60 s in headless Chromium (the page's default) | not reached; natively step 700 after 43.0 s (cpu (ndarray), 2 threads) | **no** |"),
        "{text}"
    );
    assert!(text.contains("| 9.0 MB raw, 3.1 MB gzip -9 | **no** |"), "{text}");
    // One thread each: PyTorch 200 ms ÷ 160 ms = 1.25×; the browser 200 ÷ 250 = 0.80×.
    assert!(text.contains("| native cpu (ndarray), 1 thread | 160 | 1.25× |"), "{text}");
    assert!(text.contains("| PyTorch, 1 thread | 200 | 1× |"), "{text}");
    assert!(text.contains("| browser CPU (wasm) | 250 | 0.80× |"), "{text}");
    // Each target not met has its reason, with this run's figures; the met one has none.
    let why = &text[text.find("## What stands in the way").expect("blockers section")..];
    assert!(!why.contains("Native vs PyTorch"), "{why}");
    assert!(why.contains("on one thread (cpu (ndarray), 160 ms/step) the browser is 0.64×"), "{why}");
    // By kind: native shares × 160 ms (GEMM 50 % → 80, elementwise 30 % → 48, memory 10 % → 16,
    // exp 5 % → 8, other 5 % → 8); the browser's self time ÷ 2 steps (150, 60, 20, 10, 10).
    assert!(
        why.contains(
            "the browser spends more on: matrix products (GEMM kernels, packing) +70.0 (80.0 → 150 ms/step); \
             elementwise, reductions, layout ops +12.0 (48.0 → 60.0 ms/step); memory"
        ),
        "{why}"
    );
    // ch2: 20 ms natively on 2 threads, 30 on one, 50 in the browser: 0.40×, and 0.60× of one thread.
    assert!(why.contains("**Browser vs native, ch2 interactive.** The page's engine runs on one thread"), "{why}");
    assert!(why.contains("on one thread (cpu (ndarray), 30.0 ms/step) the browser is 0.60×."), "{why}");
    let prof = &text[text.find("## Profile of the paper-preset step: browser vs native").expect("profile")..];
    assert!(prof.contains("over 2 timed steps"), "{prof}");
    assert!(prof.contains("(250 ms/step unprofiled, 260 while profiled"), "{prof}");
    assert!(prof.contains("| matrix products (GEMM kernels, packing) | 80.0 | 150 | 1.88× |"), "{prof}");
    assert!(prof.contains("| exp / log | 8.0 | 10.0 | 1.25× |"), "{prof}");
    assert!(prof.contains("| all | 160 | 250 | 1.56× |"), "{prof}");
    assert!(
        prof.contains("| `matrixmultiply::gemm::masked_kernel` | 150 | matrix products (GEMM kernels, packing) |"),
        "{prof}"
    );
    assert!(prof.contains("| `(garbage collector)` | 10.0 | other (JavaScript glue"), "{prof}");
    assert!(
        why.contains("The longest task was 61 ms; the page's own longest drawing job in that stretch took 22 ms"),
        "{why}"
    );
    assert!(why.contains("the code section 8.0 MB raw, 2.7 MB gzip -9"), "{why}");
    assert!(
        why.contains("| 61 ms | 1 | 80 ms | renderer thread pool (V8 compiles, GC) 90 ms, training worker 50 ms, page main thread 20 ms |"),
        "{why}"
    );
    assert!(
        why.contains("the main thread itself ran at most 20 ms of CPU; for at least 41 ms of each it was not running"),
        "{why}"
    );
    assert!(why.contains("All of them came by step 1, as training starts"), "{why}");
    assert!(!why.contains("Time to the drop"), "{why}");
    assert!(text.contains("| native (whole process) | 1000 | 20.0 MB | 21.0 MB |"), "{text}");
}

#[test]
fn a_late_drop_in_the_page_says_where_the_time_went() {
    let r = sample_results();
    // A late drop: 18 s in the page against 8 s natively; at a timed 50 ms/step the 225 steps
    // take 11.25 s, which leaves 6.75 s to what the step timing leaves out.
    let mut late = r;
    if let Some(Ok(b)) = &mut late.browser {
        b.drop_seconds = Some(18.0);
        b.steps.push(BrowserStep {
            name: "ch1 interactive".into(),
            backend: "cpu".into(),
            ms: Some(50.0),
            error: None,
        });
        b.stretch = Some(CpuSplit {
            window_ms: 18_500.0,
            cpu: vec![("training worker".into(), 17_000.0), ("stolen by the hypervisor".into(), 4_250.0)],
        });
    }
    let text = report(&late, "2026-11-30");
    assert!(text.contains("| 18.0 s of training (step 225); natively 8.0 s"), "{text}");
    let why = &text[text.find("## What stands in the way").expect("blockers section")..];
    assert!(why.contains("got there at step 225 after 8.0 s, so the page took 2.25× as long"), "{why}");
    assert!(why.contains("the 225 training steps alone take 11.2 s; the other 6.8 s"), "{why}");
    assert!(
        why.contains(
            "evaluation every 5 steps (the held-out loss and greedy decoding of 32 sequences, 8 forward passes each)"
        ),
        "{why}"
    );
    assert!(
        why.contains("(18.5 s of wall time, so 37.0 s of CPU time on 2 cores) this machine's CPU time went to: training worker 17.0 s, stolen by the hypervisor 4.2 s."),
        "{why}"
    );
}

#[test]
fn wasm_sections_by_hand() {
    // Header, a type section of 4 bytes, a custom section "name" with 2 bytes after its name,
    // and a code section whose size (130) takes two LEB128 bytes (0x82 0x01).
    let mut w = b"\0asm\x01\0\0\0".to_vec();
    w.extend([1, 4, 1, 0x60, 0, 0]);
    w.extend([0, 7, 4, b'n', b'a', b'm', b'e', 9, 9]);
    w.extend([10, 0x82, 0x01]);
    w.extend(std::iter::repeat_n(0u8, 130));
    let s = wasm_sections(&w).unwrap();
    let names: Vec<(&str, usize, usize)> = s.iter().map(|(n, r)| (n.as_str(), r.start, r.end)).collect();
    assert_eq!(names, vec![("type", 10, 14), ("name", 16, 23), ("code", 26, 156)]);
    assert!(wasm_sections(b"\0asm\x01\0\0\0\x0a\x05\0").unwrap_err().contains("past the end"));
    assert!(wasm_sections(b"GIF89a..").is_err());
}

#[test]
fn last_line_of_child_output() {
    assert_eq!(last_line(b"noise\n{\"a\":1}\n"), b"{\"a\":1}");
    assert_eq!(last_line(b"{\"a\":1}"), b"{\"a\":1}");
}

#[test]
fn the_gpu_section_reports_every_preset_and_the_page_race_and_survives_a_rewrite() {
    let gpu = plateau::backend::Adapter {
        name: "NVIDIA H200".into(),
        api: "Vulkan".into(),
        kind: "DiscreteGpu".into(),
        driver: "NVIDIA 570.1".into(),
        max_buffer: 1 << 40,
        max_storage_binding: 1 << 31,
    };
    let soft = plateau::backend::Adapter {
        name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
        api: "Gl".into(),
        kind: "Cpu".into(),
        driver: "Mesa".into(),
        max_buffer: 1 << 31,
        max_storage_binding: 1 << 27,
    };
    assert!(gpu.is_gpu() && !soft.is_gpu());
    let cases = gpu_cases();
    assert_eq!(cases.len(), 8, "both presets of the four chapters");
    assert!(cases.iter().any(|c| c.name == "ch4 paper" && c.query == "experiment=lm&preset=paper"));
    let r = GpuResults {
        command: "plateau bench --suite gpu".into(),
        cpu: "test CPU".into(),
        threads: 16,
        adapters: vec![soft.clone(), gpu],
        native: vec![
            (cases[0].clone(), Ok(12.5), Ok(250.0)),
            (cases[1].clone(), Ok(20.0), Err("failed: out of memory\nmore".into())),
        ],
        browser: Some(Ok(GpuBrowser {
            browser: "Chromium 1".into(),
            adapter: Some("nvidia hopper".into()),
            fallback: false,
            flags: vec!["--enable-unsafe-webgpu".into()],
            races: vec![PageRace {
                name: "ch1 interactive".into(),
                backend: Some("cpu".into()),
                webgpu_ms: Some(31.0),
                cpu_ms: Some(23.25),
                line: String::new(),
            }],
        })),
    };
    let body = gpu_section(&r, "2026-12-01");
    // 250 ms on the CPU ÷ 12.5 ms on the GPU = 20× the steps per second.
    assert!(body.contains("| ch1 paper | 12.5 | 250 | 20.00× |"), "{body}");
    assert!(body.contains("| ch1 interactive | 20.0 | unavailable: failed: out of memory | — |"), "{body}");
    assert!(body.contains("GPU: **NVIDIA H200** (Vulkan, driver NVIDIA 570.1)"), "{body}");
    assert!(body.contains("| ch1 interactive | 31.0 | 23.2 | CPU |"), "{body}");
    assert!(body.contains("WebGPU adapter: nvidia hopper."), "{body}");
    // Written into a report, kept when the rest of the report is rewritten.
    let doc = with_gpu_section("# Benchmarks\n\nold rows\n", &body);
    let kept = plateau::report::section(&doc, GPU_SECTION).expect("the section is there");
    assert_eq!(kept, body.trim());
    let rewritten = with_gpu_section("# Benchmarks\n\nnew rows\n", kept);
    assert!(rewritten.contains("new rows") && rewritten.contains("| ch1 paper | 12.5 | 250 | 20.00× |"));
    assert!(!rewritten.contains("old rows"));
    let none = no_gpu_section(&[soft]);
    assert!(none.contains("Not measured") && none.contains("llvmpipe (LLVM 15.0.6, 256 bits) (Gl, Cpu)"), "{none}");
}

#[test]
fn a_failure_is_summed_up_by_its_first_line_and_its_innermost_cause() {
    let msg = "tensor readback failed: An error happened during execution\nCaused by:\n  Several failures at once\n\
               Caused by:\n  An IO error happened\nCaused by:\n  can't allocate buffer of size: 268435456\nNo backtrace available\n";
    assert_eq!(
        failure_summary(msg),
        "tensor readback failed: An error happened during execution (can't allocate buffer of size: 268435456)"
    );
    assert_eq!(failure_summary("plain panic"), "plain panic");
}

#[test]
fn the_compare_row_waits_for_the_later_verdict() {
    use super::browser::CompareVerdicts;
    let v = |gamma: f64, answer: &str, step: Option<usize>, seconds: Option<f64>| Verdict {
        gamma,
        answer: answer.into(),
        step,
        seconds,
    };
    let both = CompareVerdicts {
        main: Some(v(0.7, "inferential", Some(275), Some(80.25))),
        other: Some(v(0.4, "symmetric", Some(700), Some(180.0))),
        error: None,
    };
    assert_eq!(
        report::compare_row(&both),
        (
            "γ = 0.7: inferential from step 275, 80.2 s; γ = 0.4: symmetric from step 700, 180.0 s; both by 180.0 s of training"
                .to_string(),
            false
        )
    );
    let fast = CompareVerdicts { other: Some(v(0.4, "symmetric", Some(300), Some(85.0))), ..both.clone() };
    assert!(report::compare_row(&fast).1, "both within 90 s");
    let neither = CompareVerdicts { other: Some(v(0.4, "neither", None, None)), ..both };
    assert_eq!(
        report::compare_row(&neither).0,
        "γ = 0.7: inferential from step 275, 80.2 s; γ = 0.4: neither at the end (no answer settles); not both settled"
    );
    let failed = CompareVerdicts { error: Some("timeout".into()), ..Default::default() };
    assert_eq!(report::compare_row(&failed), ("not measured (timeout)".to_string(), false));
}

#[test]
fn the_workers_section_compares_the_settings_side_by_side_and_checks_the_targets() {
    // Two cores: one shard on one worker, four shards on one and on two workers.
    let spec = workers_spec(2, true, true);
    assert_eq!(spec["cases"].as_array().unwrap().len(), 4 * 3);
    assert_eq!(workers_spec(8, true, false)["cases"].as_array().unwrap().len(), 4 * 4);
    assert!(workers_spec(8, true, false)["phenomena"].as_array().unwrap().is_empty());
    assert!(workers_spec(8, false, true)["cases"].as_array().unwrap().is_empty());
    // Every chapter at 1 and 2 workers but chapter 3 (one shard) at 1: 7 pages on two cores;
    // 4 and 8 workers join where the machine has them.
    let times = spec["phenomena"].as_array().unwrap();
    let listed: Vec<(String, u64, String)> = times
        .iter()
        .map(|t| {
            (t["name"].as_str().unwrap().into(), t["workers"].as_u64().unwrap(), t["query"].as_str().unwrap().into())
        })
        .collect();
    let want = [
        ("ch1", 1, ""),
        ("ch1", 2, "shards=4"),
        ("ch2", 1, "experiment=anchors"),
        ("ch2", 2, "experiment=anchors"),
        ("ch3", 1, "experiment=syntax"),
        ("ch4", 1, "experiment=lm"),
        ("ch4", 2, "experiment=lm&shards=4"),
    ];
    assert_eq!(listed, want.iter().map(|&(n, w, q)| (n.to_string(), w, q.to_string())).collect::<Vec<_>>());
    assert_eq!(workers_spec(16, false, true)["phenomena"].as_array().unwrap().len(), 3 * 4 + 1);
    assert_eq!(phenomenon_workers(4), vec![1, 2, 4]);
    assert_eq!(setting_query("experiment=anchors", Setting { shards: 4, workers: 2 }), "experiment=anchors&shards=4");
    assert_eq!(setting_query("", Setting { shards: 1, workers: 1 }), "shards=1");
    let opened = |name: &str, q: &str, workers: u32| Opened {
        name: name.into(),
        query: q.into(),
        workers,
        chosen: Some(workers),
        error: None,
    };
    let rate = |name: &str, q: &str, workers: u32, ms: f64| Rate {
        page: opened(name, q, workers),
        ms_per_step: Some(ms),
        sharding: (workers > 1).then_some(Split { own_ms: ms * 0.8, wait_ms: ms * 0.15, sum_ms: ms * 0.05 }),
    };
    let b = WorkersBrowser {
        browser: "HeadlessChrome/1".into(),
        cores: 2,
        cases: vec![
            rate("ch2 interactive", "experiment=anchors", 1, 450.0),
            rate("ch2 interactive", "experiment=anchors&shards=4", 1, 480.0),
            rate("ch2 interactive", "experiment=anchors&shards=4", 2, 250.0),
            rate("ch1 paper", "preset=paper", 1, 300.0),
            rate("ch1 paper", "preset=paper&shards=4", 2, 240.0),
        ],
        phenomena: vec![
            PhenomenonTime {
                page: opened("ch2", "experiment=anchors", 1),
                kind: "compare".into(),
                events: vec![
                    Event { label: "γ 0.7 inferential".into(), step: Some(275.0), seconds: Some(120.0) },
                    Event { label: "γ 0.4 symmetric".into(), step: Some(700.0), seconds: Some(330.0) },
                ],
            },
            PhenomenonTime {
                page: opened("ch2", "experiment=anchors", 2),
                kind: "compare".into(),
                events: vec![
                    Event { label: "γ 0.7 inferential".into(), step: Some(275.0), seconds: Some(70.0) },
                    Event { label: "γ 0.4 symmetric".into(), step: Some(725.0), seconds: Some(190.0) },
                ],
            },
            PhenomenonTime {
                page: opened("ch1", "shards=4", 2),
                kind: "drop".into(),
                events: vec![Event { label: "drop".into(), step: Some(225.0), seconds: Some(8.4) }],
            },
            PhenomenonTime { page: opened("ch4", "experiment=lm", 1), kind: "lm".into(), events: vec![] },
        ],
    };
    let s = workers_section("plateau bench --suite workers", "Test CPU", &Ok(b), "2026-12-05");
    assert!(s.contains("| ch2 interactive | 450.0 ms (2.22 steps/s) | 480.0 ms (2.08 steps/s) | 250.0 ms (4.00 steps/s) | 1.80× | 1.92× | 200.0 / 37.5 / 12.5 ms |"), "{s}");
    assert!(
        s.contains("| ch1 paper | 300.0 ms (3.33 steps/s) | not measured | 240.0 ms (4.17 steps/s) | 1.25× | — |"),
        "{s}"
    );
    assert!(s.contains("- ch2 interactive, 2 workers against one shard: 1.80× — **met** (target ≥ 1.6×)."), "{s}");
    assert!(s.contains("- ch1 paper, 2 workers against one shard: 1.25× — **not met** (target ≥ 1.6×)."), "{s}");
    // The later answer is chapter 2's time; 330 s with one worker over 190 s with two.
    assert!(s.contains("| ch2 | both held-out answers of the compare view (γ 0.7 beside γ 0.4) | **330 s** (γ 0.7 inferential at step 275; γ 0.4 symmetric at step 700) | **190 s** (γ 0.7 inferential at step 275; γ 0.4 symmetric at step 725) | 1.74× |"), "{s}");
    assert!(
        s.contains("| ch1 | the drop (test accuracy ≥ 0.5) | — | **8 s** (drop at step 225, 4 shards) | — |"),
        "{s}"
    );
    assert!(s.contains("| ch3 | the verb loss's drop | — | one shard: as 1 worker | — |"), "{s}");
    assert!(
        s.contains("| ch4 | the collapse's recovery (fallen back by half its rise) | not reached | — | — |"),
        "{s}"
    );
    assert!(s.contains("190 s — **not met** (target ≤ 50 s; one worker: 330 s)"), "{s}");
    assert!(s.contains("The page reports 2 cores"), "{s}");
    let failed = workers_section("x", "y", &Err("node failed".into()), "2026-12-05");
    assert!(failed.contains("Not measured: node failed."), "{failed}");
    // The section replaces its own block only.
    let doc = "# Benchmarks\n\n<!-- BEGIN workers -->\nold\n<!-- END workers -->\n\n## Rest\n";
    let new = with_workers_section(doc, "new");
    assert!(new.contains("<!-- BEGIN workers -->\nnew\n<!-- END workers -->") && new.contains("## Rest"), "{new}");
}

/// The copy suite's spec asks for chapter 3's default and the copy query on one worker each;
/// its section and the page's sentence state the steps, the seconds (ms a step: 1000 · s / step)
/// and the ratio of the two times, and say so when nothing was measured.
#[test]
fn copy_suite_rows_and_sentence() {
    let spec = copy_spec("v=4&experiment=syntax&grammar=copy");
    let p = spec["phenomena"].as_array().unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[0]["query"].as_str(), p[1]["query"].as_str()),
        (Some("experiment=syntax"), Some("v=4&experiment=syntax&grammar=copy"))
    );
    assert!(p.iter().all(|x| x["workers"] == 1 && x["kind"] == "syntax"));
    let drop = |name: &str, step: f64, seconds: f64| PhenomenonTime {
        page: Opened { name: name.into(), query: "q".into(), workers: 1, chosen: Some(1), error: None },
        kind: "syntax".into(),
        events: vec![Event { label: "verb-loss drop".into(), step: Some(step), seconds: Some(seconds) }],
    };
    let b = WorkersBrowser {
        browser: "Chromium 1".into(),
        cores: 2,
        cases: vec![],
        phenomena: vec![drop("ch3", 800.0, 100.0), drop("ch3-copy", 1000.0, 250.0)],
    };
    let s =
        copy_section("plateau bench --suite copy", "Test CPU", "2026-12-06", "mask only", "v=4&a=1", &Ok(b.clone()));
    assert!(s.contains("| the default language | step 800 after **100 s** (125 ms a step) |"), "{s}");
    assert!(s.contains("| copy agreement (mask only) | step 1000 after **250 s** (250 ms a step) |"), "{s}");
    assert!(s.contains("takes 2.50× the default language's time"), "{s}");
    let page = copy_page_sentence("mask only", "v=4&a=1", &Ok(b.clone()));
    assert!(page.starts_with("<a href=\"?v=4&amp;a=1\">Copy agreement</a>"), "{page}");
    assert!(
        page.contains("on a 2-core machine its loss dropped at step 1000 after 250 s of training (the language above: step 800, 100 s;"),
        "{page}"
    );
    let mut none = b;
    none.phenomena[1].events.clear();
    let s = copy_section("x", "y", "z", "mask only", "q", &Ok(none.clone()));
    assert!(
        s.contains("| copy agreement (mask only) | no drop marked before the run finished |") && !s.contains('×'),
        "{s}"
    );
    assert!(!copy_page_sentence("mask only", "q", &Ok(none)).contains("dropped"));
    let failed = copy_section("x", "y", "z", "n", "q", &Err("node failed".into()));
    assert!(failed.contains("Not measured: node failed"), "{failed}");
}
