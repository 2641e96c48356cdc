#!/usr/bin/env bash
# Build the page: compile the library to wasm three times and generate the JS bindings and their
# TypeScript declarations (plateau.d.ts, which scripts/typecheck.sh checks the page against):
# www/pkg, the WebGPU engine (the `fusion` feature: WebGPU with burn's kernel fusion, and the CPU
# backend), and www/pkg-cpu,
# the CPU engine (no WebGPU, the smaller download), of which the training worker fetches the one
# its backend choice needs; and www/pkg-view, the crate without its `engine` feature (config
# codec, backend choice, summaries, CSV, charts), which the page's main thread loads, so that it
# never fetches or compiles a training engine. Build output, not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
source scripts/web-profile.sh

cargo build --release --target wasm32-unknown-unknown --lib --features fusion
wasm-bindgen --target web --out-dir www/pkg \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/plateau.wasm"
cargo build --release --target wasm32-unknown-unknown --lib
wasm-bindgen --target web --out-dir www/pkg-cpu \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/plateau.wasm"
cargo build --release --target wasm32-unknown-unknown --lib --no-default-features
wasm-bindgen --target web --out-dir www/pkg-view \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/plateau.wasm"
for p in pkg pkg-cpu pkg-view; do
  echo "build-web: wrote www/$p/ ($(stat -c %s www/$p/plateau_bg.wasm) bytes of wasm," \
    "$(gzip -9 -c www/$p/plateau_bg.wasm | wc -c) gzip -9)"
done
