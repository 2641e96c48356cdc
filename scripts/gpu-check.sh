#!/usr/bin/env bash
# The GPU section of BENCHMARKS.md, on a machine with a hardware GPU, in under 5 minutes, then
# the workers section's rates (about 8 minutes, step 3):
#   1. natively, every chapter's presets (the paper presets included) on wgpu on the GPU, beside
#      the CPU backend (`plateau bench --suite gpu`, src/bin/plateau/bench/gpu.rs);
#   2. headless Chromium on the hardware adapter (bench/gpu-browser.mjs; the flags that expose it
#      on Linux are HARDWARE_WEBGPU_FLAGS in tests/e2e/helpers.mjs: --enable-unsafe-webgpu
#      --enable-features=Vulkan --use-angle=vulkan --ignore-gpu-blocklist
#      --disable-vulkan-surface), the page's own backend race per preset;
#   3. the page's data-parallel training on the machine's cores (scripts/bench-workers.sh rates:
#      one shard on one worker against four shards on one, two and four workers, per preset).
# It writes only the sections between <!-- BEGIN gpu --> and <!-- END gpu --> and between
# <!-- BEGIN workers --> and <!-- END workers --> (its rates without chapter 2's times); the full
# bench (scripts/bench.sh) keeps both. On a machine where wgpu finds no hardware GPU (software
# rasterizers such as llvmpipe, lavapipe or SwiftShader are not one) it says so and exits 0.
#
#   scripts/gpu-check.sh            (after scripts/setup.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo build --release --quiet --features wgpu --bin plateau
BIN="${CARGO_TARGET_DIR:-target}/release/plateau"
# Only build the page where there is a GPU to open it on (--probe: exit 3 when wgpu finds none).
status=0
"$BIN" bench --suite gpu --probe yes || status=$?
if [ "$status" = 3 ]; then exit 0; fi
if [ "$status" != 0 ]; then exit "$status"; fi
bash scripts/build-web.sh
timeout 600 "$BIN" bench --suite gpu --write BENCHMARKS.md
# The rates only (chapter 2's times to its answer take another quarter of an hour).
timeout 900 bash scripts/bench-workers.sh rates
