#!/usr/bin/env bash
# The webgpu-fusion section of BENCHMARKS.md (issue 50 item 4): the page's WebGPU engine, built
# with burn's kernel fusion (the `fusion` feature, www/pkg), against the same engine without it
# (the `wgpu` feature, www/pkg-unfused, built in its own target folder so the page's build stays
# as it is) on every
# interactive preset in headless Chromium, WebGPU calls per step counted (`plateau bench --suite
# fusion`, src/bin/plateau/bench/fusion.rs, bench/builds.mjs), and natively on wgpu's default
# adapter (Mesa's llvmpipe without a GPU) the same cases in `plateau` built with the `wgpu`
# feature and with `fusion` (both in target/native-wgpu). Nothing else may use the CPU meanwhile.
#
#   scripts/bench-fusion.sh          (after scripts/setup.sh; ≈ 60 min cold, then ≈ 15 min)
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
# The two native builds share one target folder (only burn's crates and plateau differ).
NATIVE=target/native-wgpu
for f in wgpu fusion; do
  CARGO_TARGET_DIR=$NATIVE cargo build --release --quiet --bin plateau --features "$f"
  cp "$NATIVE/release/plateau" "$NATIVE/plateau-$f"
done
"$NATIVE/plateau-fusion" bench --suite fusion --native-unfused "$NATIVE/plateau-wgpu" \
  --native-fused "$NATIVE/plateau-fusion" --write BENCHMARKS.md
