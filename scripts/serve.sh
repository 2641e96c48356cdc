#!/usr/bin/env bash
# Set up, build, and serve the repo root locally.
# Usage: scripts/serve.sh [PORT]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PORT="${1:-8080}"
URL="http://127.0.0.1:${PORT}/"

echo "Plateau will be served at ${URL}"
bash scripts/setup.sh
bash scripts/build-web.sh
echo "Serving ${ROOT} at ${URL} (Ctrl-C to stop)"
exec python3 -m http.server --bind 127.0.0.1 "$PORT" --directory "$ROOT"
