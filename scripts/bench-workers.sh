#!/usr/bin/env bash
# The workers section of BENCHMARKS.md: the page's data-parallel training in headless Chromium
# (`plateau bench --suite workers`, src/bin/plateau/bench/workers.rs, bench/workers.mjs): steps
# per second of each shardable preset with one shard on one worker and four shards on one, two
# and (where the machine has four cores or more) four workers, side by side in one run, and
# each chapter's time to its phenomenon at the page's defaults with one and two workers (four
# and eight where the machine has them). Nothing else may use the CPU meanwhile (the figures are
# the page's steps per second).
#
#   scripts/bench-workers.sh            (after scripts/setup.sh; ≈ 30 min on 2 cores)
#   scripts/bench-workers.sh rates      the rates only (≈ 7 min on 2 cores; the GPU check runs this)
#   scripts/bench-workers.sh phenomena  the times to the phenomena only
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
only=()
case "${1:-}" in "") ;; rates|phenomena) only=(--only "$1") ;; *) echo "usage: scripts/bench-workers.sh [rates|phenomena]" >&2; exit 2 ;; esac
bash scripts/build-web.sh
cargo build --release --quiet --bin plateau
"${CARGO_TARGET_DIR:-target}/release/plateau" bench --suite workers "${only[@]}" --write BENCHMARKS.md
