# Sourced by build-web.sh and test.sh: the release profile of the wasm builds (the page's build
# and the browser tests' build share these settings, so they share their compiled dependencies).
# Natively the release profile stays as Cargo.toml has it.
#
# Size: fat link-time optimization drops and merges code across crates that the page never
# reaches (burn compiles every op for each backend it is given), and symbols are stripped.
# (wasm-bindgen then warns that it cannot read the target_features section; it falls back to
# glue without reference types, which every browser runs. Binaryen's wasm-opt, tried on top,
# made the gzip size larger, 4.22 vs 4.13 MB, and Debian's version 108 broke the function
# table, so it is not used.)
export CARGO_PROFILE_RELEASE_LTO=fat
export CARGO_PROFILE_RELEASE_STRIP=symbols
# One codegen unit per crate: no function is duplicated across units before the link-time merge.
# With Cargo.toml's opt-level "z" for the WebGPU stack this took the page's wasm from 17.5 MB /
# 3.01 MB gzip (16 units) to 14.6 MB / 2.76 MB gzip; steps in Chromium measured the same within
# this machine's noise (chapter 1 interactive, 4 alternating runs each: 45–64 ms/step with one unit,
# 38–67 with 16).
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
