#!/usr/bin/env bash
# The webgpu-fusion section of BENCHMARKS.md (issue 50 item 4): the page's WebGPU engine, built
# with burn's kernel fusion (the `fusion` feature, www/pkg), against the same engine without it
# (the `wgpu` feature, www/pkg-unfused, built in its own target folder so the page's build stays
# as it is) on every
# interactive preset in headless Chromium, WebGPU calls per step counted (`plateau bench --suite
# fusion`, src/bin/plateau/bench/fusion.rs, bench/builds.mjs). Nothing else may use the CPU
# meanwhile.
#
#   scripts/bench-fusion.sh          (after scripts/setup.sh; ≈ 30 min cold, then ≈ 10 min)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/build-web.sh
(
  source scripts/web-profile.sh
  export CARGO_PROFILE_RELEASE_STRIP=none CARGO_TARGET_DIR=target/wasm-names
  cargo build --release --target wasm32-unknown-unknown --lib --features wgpu
  wasm-bindgen --target web --no-typescript --out-dir www/pkg-unfused \
    target/wasm-names/wasm32-unknown-unknown/release/plateau.wasm
)
cargo build --release --quiet --bin plateau
"${CARGO_TARGET_DIR:-target}/release/plateau" bench --suite fusion --write BENCHMARKS.md
