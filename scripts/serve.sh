#!/usr/bin/env bash
# Set up, build, and serve the repo root locally.
# Usage: scripts/serve.sh [PORT]   (default 8080)
#
# Serves as soon as the engines a first visit needs are built (the view and the CPU engine); the
# WebGPU engine (www/pkg) builds afterwards in the background, its output in
# target/build-webgpu.log. Until it is there the page trains on the CPU and says so in one line.
# Each stage is timed; the times (seconds since this script started) go to the terminal and, with
# SERVE_TIMES=FILE, to FILE as "stage seconds" lines (scripts/bench-cold.sh reads them).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PORT="${1:-8080}"
URL="http://127.0.0.1:${PORT}/"
TIMES="${SERVE_TIMES:-/dev/null}"
T0=$SECONDS
mark() {
  echo "serve: $1 after $((SECONDS - T0)) s"
  echo "$1 $((SECONDS - T0))" >>"$TIMES"
}

echo "Plateau will be served at ${URL}"
bash scripts/setup.sh
mark setup
bash scripts/build-web.sh view cpu
mark view+cpu
LOG="${CARGO_TARGET_DIR:-target}/build-webgpu.log"
mkdir -p "$(dirname "$LOG")"
echo "serve: building the WebGPU engine in the background (log: $LOG); the page trains on the CPU until it is there"
set -m # the build gets a process group of its own, which the trap stops with the server
(
  if bash scripts/build-web.sh webgpu >"$LOG" 2>&1; then mark webgpu; else
    echo "serve: the WebGPU engine failed to build (see $LOG); the page keeps training on the CPU"
  fi
) &
BUILD=$!
set +m
trap 'kill -- "-$BUILD" 2>/dev/null || true' EXIT
echo "Serving ${ROOT} at ${URL} (Ctrl-C to stop)"
mark served
python3 -m http.server --bind 127.0.0.1 "$PORT" --directory "$ROOT"
