#![cfg(not(target_arch = "wasm32"))]
//! The native integration tests, one test binary with a module per file (cargo's and
//! rust-analyzer's layout): each file was a binary of its own that linked the whole engine.
//! `tests/soak.rs` keeps a process of its own (it reads the process's memory), `tests/web.rs`
//! runs in the browser. Cargo.toml lists the three (`autotests = false`); a test file that no
//! target names would not run, so `no_test_file_is_left_out` holds this list equal to the folder.

mod common;

#[path = "chapters.rs"]
mod chapters;
#[path = "cli.rs"]
mod cli;
#[path = "cli_outputs.rs"]
mod cli_outputs;
#[path = "distributions.rs"]
mod distributions;
#[path = "docs.rs"]
mod docs;
#[path = "engine.rs"]
mod engine;
#[path = "fuzz.rs"]
mod fuzz;
#[path = "fuzz_model.rs"]
mod fuzz_model;
#[path = "fuzz_model_cases.rs"]
mod fuzz_model_cases;
#[path = "fuzz_model_shrink.rs"]
mod fuzz_model_shrink;
#[path = "layers.rs"]
mod layers;
#[path = "model_file.rs"]
mod model_file;
#[path = "registry.rs"]
mod registry;
#[path = "reproduce.rs"]
mod reproduce;
#[path = "shards.rs"]
mod shards;

/// Every `tests/*.rs` file is this binary's module, or a target of its own in Cargo.toml.
#[test]
fn no_test_file_is_left_out() {
    let root = env!("CARGO_MANIFEST_DIR");
    let me = std::fs::read_to_string(format!("{root}/tests/integration.rs")).unwrap();
    let manifest = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    for e in std::fs::read_dir(format!("{root}/tests")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        let module = format!("#[path = \"{name}\"]\nmod {stem};");
        let target = format!("path = \"tests/{name}\"");
        assert!(me.contains(&module) || manifest.contains(&target), "tests/{name} is in no test target");
    }
}
