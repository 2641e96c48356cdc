#!/usr/bin/env bash
# The autosave section of BENCHMARKS.md: what the worker's host copies (which the page autosaves)
# cost as a share of each chapter's training time on the page, and the page's memory while its
# tab is hidden for ten minutes (bench/autosave.mjs). Nothing else should use the CPU meanwhile.
#
#   scripts/bench-autosave.sh     (after scripts/setup.sh and scripts/build-web.sh; ≈ 13 min)
set -euo pipefail
cd "$(dirname "$0")/.."
node bench/autosave.mjs --write BENCHMARKS.md "$@"
