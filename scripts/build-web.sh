#!/usr/bin/env bash
# Build the page: compile the library to wasm and generate its JS bindings and their TypeScript
# declarations (plateau.d.ts, which scripts/typecheck.sh checks the page against) into www/pkg
# (build output, not committed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
source scripts/web-profile.sh

cargo build --release --target wasm32-unknown-unknown --lib
wasm-bindgen --target web --out-dir www/pkg \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/plateau.wasm"
echo "build-web: wrote www/pkg/ ($(stat -c %s www/pkg/plateau_bg.wasm) bytes of wasm," \
  "$(gzip -9 -c www/pkg/plateau_bg.wasm | wc -c) gzip -9)"
