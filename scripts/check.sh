#!/usr/bin/env bash
# Everything CI checks, plus clippy for both targets. Run before pushing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --check
cargo clippy --release --all-targets --features flex,wgpu -- -D warnings
cargo clippy --release --lib --target wasm32-unknown-unknown -- -D warnings
# The browser tests' code too: it compiles only for wasm32, so the native checks never see it.
cargo clippy --release --lib --tests --target wasm32-unknown-unknown --features fusion -- -D warnings
bash scripts/test.sh
