#!/usr/bin/env bash
# Benchmarks, side by side in one run: this engine natively (each CPU backend, wgpu where an
# adapter exists), the same model in PyTorch (bench/torch_bench.py), and this engine in headless
# Chromium (bench/browser.mjs), with GFLOP/s and ratios; the page's time to the drop, its longest
# main-thread task, the wasm size, and memory over a long run.
#
#   scripts/bench.sh          quick: a few steps per config, prints the report (≈ 5 min)
#   scripts/bench.sh full     more steps, a 10 000-step memory run (MEMORY_STEPS=N to change),
#                             profiles of the paper step (browser vs native on one thread, and
#                             native Flex on every thread); writes BENCHMARKS.md
#                             (≈ 35 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
SUITE="${1:-quick}"
case "$SUITE" in quick|full) ;; *) echo "usage: scripts/bench.sh [quick|full]" >&2; exit 2 ;; esac

bash scripts/setup.sh

# The PyTorch reference: the current PyTorch release from pip (PyPI), pinned, in its own virtual
# environment under target/ (≈ 5 GB with the CUDA libraries PyPI's build depends on; the bench
# runs it on the CPU, where it uses its own MKL). The second PyTorch row is Debian's CPU build
# (1.13), which calls the system BLAS: Debian's default is the slow reference implementation, so
# OpenBLAS is installed beside it. BENCHMARKS.md names the BLAS each used.
TORCH_VERSION=2.15.0
VENV="${CARGO_TARGET_DIR:-target}/bench-venv"
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
need=()
/usr/bin/python3 -c 'import torch' 2>/dev/null || need+=(python3-torch)
dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q 'install ok installed' || need+=(libopenblas0-pthread)
command -v gzip >/dev/null || need+=(gzip)
if [ "${#need[@]}" -gt 0 ]; then
  echo "bench: apt-get install ${need[*]}"
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}"
fi

if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
  command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null || {
    echo "bench: apt-get install python3-venv"; $SUDO apt-get update; $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv; }
  echo "bench: pip install torch==$TORCH_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "torch==$TORCH_VERSION"
fi
TORCH_REF="$VENV/bin/python bench/torch_bench.py"
TORCH_DEBIAN="/usr/bin/python3 bench/torch_bench.py"

# TensorFlow.js, the browser peer (bench/tfjs/package-lock.json).
(cd bench/tfjs && npm ci --no-audit --no-fund --silent)

bash scripts/build-web.sh
cargo build --release --features flex,wgpu --bin plateau

if [ "$SUITE" = quick ]; then
  exec target/release/plateau bench --suite quick --torch "$TORCH_REF" --torch-second "$TORCH_DEBIAN"
fi

# For a profile of the paper step in the browser: the page's engine built as the page is, but
# with its function names kept (own target folder, so the page's build stays as it is).
(
  source scripts/web-profile.sh
  export CARGO_PROFILE_RELEASE_STRIP=none CARGO_TARGET_DIR=target/wasm-names
  cargo build --release --target wasm32-unknown-unknown --lib
  wasm-bindgen --target web --no-typescript --out-dir www/pkg-names \
    target/wasm-names/wasm32-unknown-unknown/release/plateau.wasm
)

# `perf report` lines (comments and blank lines removed) of a command: NAME OUT CMD...
PERF_OK=no
if command -v perf >/dev/null && perf record -o /dev/null -q -- true 2>/dev/null; then PERF_OK=yes; fi
perf_report() {
  local out="$1" data
  shift
  data="$(mktemp)"
  perf record -q -o "$data" -- "$@" >/dev/null 2>&1
  { perf report -i "$data" --stdio --no-children -g none --sort pid,symbol 2>/dev/null || true; } \
    | grep -v '^#' | grep -v '^$' | sed -e 's/[[:space:]]*-[[:space:]]*-[[:space:]]*$//' -e 's/[[:space:]]*$//' > "$out"
  rm -f "$data"
}
PROFILE_ARGS=()
if [ "$PERF_OK" = yes ]; then
  # The paper step natively on one thread with the page's CPU backend, beside the browser's profile.
  NATIVE1="$(mktemp)"
  perf_report "$NATIVE1" env RAYON_NUM_THREADS=1 MATMUL_NUM_THREADS=1 target/release/plateau bench \
    --only "ch1 paper" --backends ndarray --torch none --browser none --wasm none --memory-steps 0 --one-thread no
  PROFILE_ARGS=(--native-profile "$NATIVE1")
fi

target/release/plateau bench --suite full --memory-steps "${MEMORY_STEPS:-10000}" \
  --torch "$TORCH_REF" --torch-second "$TORCH_DEBIAN" "${PROFILE_ARGS[@]}" --write BENCHMARKS.md

# Where a paper-preset step spends its time (perf, when the kernel allows it): the fastest
# native backend (Flex), by thread and by kind of work, then the top symbols.
if [ "$PERF_OK" = yes ]; then
  REPORT="$(mktemp)"
  perf_report "$REPORT" target/release/plateau bench --only "ch1 paper" --backends flex \
    --torch none --browser none --wasm none --memory-steps 0 --one-thread no
  {
    echo
    echo "## Profile of the paper-preset step (native, Flex)"
    echo
    echo "\`perf record\` of \`plateau bench --only \"ch1 paper\" --backends flex\` (model set-up, 3 warm-up and"
    echo "the timed steps). Share of all CPU samples by thread (the lowest thread id is the main thread,"
    echo "which runs every op that is not a matrix product) and by kind of work:"
    echo
    echo "| thread | kind of work | share of samples |"
    echo "|---|---|---|"
    awk -f scripts/perf-summary.awk "$REPORT" | sort -t'|' -k2,2 -k4,4nr
    echo
    echo "The 25 thread/symbol pairs with the most samples:"
    echo
    echo '```text'
    head -25 "$REPORT"
    echo '```'
  } >> BENCHMARKS.md
  rm -f "$REPORT" "${NATIVE1:-}"
fi
echo "bench: wrote BENCHMARKS.md"
