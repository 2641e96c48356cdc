#!/usr/bin/env bash
# The engines section of BENCHMARKS.md: the page's wasm builds side by side (the view, the CPU
# engine, the WebGPU engine: raw and gzip -9) and first visits of the page in headless Chromium
# (a fresh context each): the time from navigation to the first trained step and the wasm the
# page's threads fetched (`plateau bench --suite engines`, src/bin/plateau/bench/engines.rs,
# bench/engines.mjs). Nothing else may use the CPU meanwhile.
#
#   scripts/bench-engines.sh          (after scripts/setup.sh; ≈ 2 min after the build)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/build-web.sh
cargo build --release --quiet --bin plateau
"${CARGO_TARGET_DIR:-target}/release/plateau" bench --suite engines --write BENCHMARKS.md
