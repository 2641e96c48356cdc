#!/usr/bin/env bash
# Build a self-contained static copy of the explorable in dist/ (or $1): the page, the embedding
# example, the scripts, the stylesheet, the wasm with its bindings and chapter 4's corpus. Every URL in it is
# relative, so the folder works on any static host under any sub-path; the pages carry a strict
# Content-Security-Policy (no inline script; 'wasm-unsafe-eval' only for the WebAssembly).
#
#   scripts/build-dist.sh [--prebuilt] [OUT]
#
# --prebuilt copies the wasm that scripts/build-web.sh already wrote to www/pkg, www/pkg-cpu and www/pkg-view
# instead of building it (the e2e test does, so that it never waits on cargo).
set -euo pipefail
cd "$(dirname "$0")/.."
PREBUILT=0
if [ "${1:-}" = --prebuilt ]; then
  PREBUILT=1
  shift
fi
OUT="${1:-dist}"
if [ "$PREBUILT" = 1 ]; then
  for p in pkg pkg-cpu pkg-view; do
    [ -f "www/$p/plateau_bg.wasm" ] || { echo "build-dist: www/$p is missing: run scripts/build-web.sh first" >&2; exit 1; }
  done
else
  bash scripts/build-web.sh
fi
rm -rf "$OUT"
mkdir -p "$OUT/www/pkg" "$OUT/www/pkg-cpu" "$OUT/www/pkg-view" "$OUT/www/chapters" "$OUT/data"
cp index.html embed.html REPRODUCTION.md "$OUT/"
# Every page module (the bench's pages and scripts stay out), the chapters' modules, the stylesheet.
for f in www/*.js; do
  case "$f" in www/bench*.js) ;; *) cp "$f" "$OUT/www/" ;; esac
done
cp www/chapters/*.js "$OUT/www/chapters/"
cp www/style.css www/measured.json "$OUT/www/"
cp www/pkg/plateau.js www/pkg/plateau_bg.wasm "$OUT/www/pkg/"
cp www/pkg-cpu/plateau.js www/pkg-cpu/plateau_bg.wasm "$OUT/www/pkg-cpu/"
cp www/pkg-view/plateau.js www/pkg-view/plateau_bg.wasm "$OUT/www/pkg-view/"
cp data/moby-dick.txt data/README.md "$OUT/data/"
echo "build-dist: wrote $OUT/ ($(du -sh "$OUT" | cut -f1)); serve it from any static host, e.g. python3 -m http.server -d $OUT"
