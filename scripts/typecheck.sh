#!/usr/bin/env bash
# Type-check the page's JavaScript (`// @ts-check` + JSDoc in www/*.js) with TypeScript from npm
# (tests/e2e/package-lock.json pins it; scripts/setup.sh installs it), against the engine's API as
# wasm-bindgen declares it (www/pkg-view/plateau.d.ts for the page's main thread,
# www/pkg/plateau.d.ts for the worker and the bench page; scripts/build-web.sh). No output is written.
set -euo pipefail
cd "$(dirname "$0")/.."
for d in www/pkg/plateau.d.ts www/pkg-view/plateau.d.ts; do
  [ -f "$d" ] || { echo "typecheck: $d is missing: run scripts/build-web.sh first" >&2; exit 1; }
done
TSC=tests/e2e/node_modules/.bin/tsc
[ -x "$TSC" ] || { echo "typecheck: $TSC is missing: run scripts/setup.sh first" >&2; exit 1; }
"$TSC" -p www/tsconfig.json
"$TSC" -p www/tsconfig.worker.json
echo "typecheck: www/*.js pass tsc $("$TSC" --version | cut -d' ' -f2) (page and worker)"
