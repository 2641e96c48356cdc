#!/usr/bin/env bash
# Build the page: compile the library to wasm and generate the JS bindings and their TypeScript
# declarations (plateau.d.ts, which scripts/typecheck.sh checks the page against). Three engines:
#   view    www/pkg-view, the crate without its `engine` feature (config codec, backend choice,
#           summaries, CSV, charts), which the page's main thread loads, so that it never fetches
#           or compiles a training engine;
#   cpu     www/pkg-cpu, the CPU engine (no WebGPU, the smaller download);
#   webgpu  www/pkg, the WebGPU engine (the `fusion` feature: WebGPU with burn's kernel fusion,
#           and the CPU backend).
# The training worker fetches the one its backend choice needs; while www/pkg is missing it trains
# on the CPU engine and says so (scripts/serve.sh serves after view and cpu and builds webgpu
# afterwards). Build output, not committed.
#
#   scripts/build-web.sh                 all three (webgpu, cpu, view)
#   scripts/build-web.sh view cpu        only these, in this order
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
source scripts/web-profile.sh

WASM="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/plateau.wasm"
# build FEATURE-ARGS OUT: one engine, written to www/OUT. wasm-bindgen writes into a fresh folder
# that replaces www/OUT at once, so a page served meanwhile never fetches a half-written engine.
build() {
  local out="$2"
  # shellcheck disable=SC2086
  cargo build --release --target wasm32-unknown-unknown --lib $1
  rm -rf "www/.$out.new"
  wasm-bindgen --target web --out-dir "www/.$out.new" "$WASM"
  rm -rf "www/$out"
  mv "www/.$out.new" "www/$out"
  echo "build-web: wrote www/$out/ ($(stat -c %s "www/$out/plateau_bg.wasm") bytes of wasm," \
    "$(gzip -9 -c "www/$out/plateau_bg.wasm" | wc -c) gzip -9)"
}
[ "$#" -gt 0 ] || set -- webgpu cpu view
for engine in "$@"; do
  case "$engine" in
    webgpu) build "--features fusion" pkg ;;
    cpu) build "" pkg-cpu ;;
    view) build "--no-default-features" pkg-view ;;
    *) echo "build-web: unknown engine '$engine' (webgpu, cpu or view)" >&2; exit 2 ;;
  esac
done
