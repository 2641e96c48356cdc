#!/usr/bin/env bash
# The CPU-backends section of BENCHMARKS.md (issue 50 item 5): burn's Flex against NdArray on
# every bench case, natively (all threads and one thread) and in headless Chromium (one worker
# thread, wasm simd128), in one run, with a V8 profile of chapter 1's paper step on each engine
# split by kind of work (`plateau bench --suite cpu`, src/bin/plateau/bench/cpu.rs, bench/builds.mjs).
# The browser's Flex engine is www/pkg-flex (the CPU engine with the `flex` feature) and the
# profile's NdArray engine www/pkg-names (the page's CPU engine): both keep their function names
# (names do not change the code) and build in their own target folder, so the page's build stays
# as it is. Nothing else may use the CPU meanwhile.
#
#   scripts/bench-cpu.sh          (after scripts/setup.sh; ≈ 25 min cold, then ≈ 10 min)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/build-web.sh
(
  source scripts/web-profile.sh
  export CARGO_PROFILE_RELEASE_STRIP=none CARGO_TARGET_DIR=target/wasm-names
  wasm=target/wasm-names/wasm32-unknown-unknown/release/plateau.wasm
  cargo build --release --target wasm32-unknown-unknown --lib --features flex
  wasm-bindgen --target web --no-typescript --out-dir www/pkg-flex "$wasm"
  cargo build --release --target wasm32-unknown-unknown --lib
  wasm-bindgen --target web --no-typescript --out-dir www/pkg-names "$wasm"
)
cargo build --release --quiet --features flex --bin plateau
"${CARGO_TARGET_DIR:-target}/release/plateau" bench --suite cpu --write BENCHMARKS.md
