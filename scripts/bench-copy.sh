#!/usr/bin/env bash
# The chapter3-copy-browser section of BENCHMARKS.md and the page's sentence that offers the
# copy-agreement configuration (index.html, block chapter3-copy-time): chapter 3's default and
# the copy configuration the page links to (`PAGE_COPY_CONFIG`), each trained on the page in
# headless Chromium until the page marks its drop, side by side in one run (`plateau bench
# --suite copy`, src/bin/plateau/bench/copy.rs, bench/workers.mjs). Nothing else may use the CPU
# meanwhile.
#
#   scripts/bench-copy.sh          (after scripts/setup.sh; ≈ 8 min on 2 cores after the build)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/build-web.sh
cargo build --release --quiet --bin plateau
"${CARGO_TARGET_DIR:-target}/release/plateau" bench --suite copy --write BENCHMARKS.md
