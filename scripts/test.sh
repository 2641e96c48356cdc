#!/usr/bin/env bash
# Run every test, stopping at the first failure:
#   setup, rustfmt check and the native build; then the native test binaries in a lane of their
#   own, beside the doc tests and the PyTorch parity of chapter 1, then beside the web build and
#   the page's type check; then two more lanes: browser unit tests | end-to-end tests.
# Why lanes: on a 2-core machine much of each stage uses one core (a fat-LTO link of the wasm, a
# test binary's longest test, the page's single training worker in Chromium), so a stage that
# needs the CPU runs beside one that leaves a core idle. Cargo locks its target directory while it
# builds, so the native tests run their compiled binaries directly (no cargo) beside the wasm
# build, and the e2e tests (no cargo) run beside wasm-pack's build of the browser tests.
# Each stage is announced and timed (a lane's lines carry its name); a table of seconds per stage
# and the total are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

LOGS="$(mktemp -d)"
LANES=()
cleanup() {
  local p
  for p in "${LANES[@]}"; do kill -- "-$p" 2>/dev/null || true; done
  rm -rf "$LOGS"
}
trap cleanup EXIT

T0=$SECONDS

report() {
  echo
  echo "==> stage times (stages in lanes overlap)"
  local name secs
  while read -r name secs; do
    printf '  %-26s %6ss\n' "$name" "$secs"
  done <"$LOGS/times"
  printf '  %-26s %6ss\n' "total" "$((SECONDS - T0))"
}

# stage NAME CMD...: run CMD with its output shown and kept in $LOGS/NAME.log; record its time.
# Returns CMD's exit status (after printing FAILED).
stage() {
  local name="$1"
  shift
  echo
  echo "==> $name: $*"
  local t0=$SECONDS rc=0
  "$@" 2>&1 | tee "$LOGS/$name.log" || rc=$?
  echo "$name $((SECONDS - t0))" >>"$LOGS/times"
  if [ "$rc" -ne 0 ]; then
    echo "==> FAILED: $name (exit $rc)"
  fi
  return "$rc"
}
touch "$LOGS/times"

# must STAGE-ARGS...: a stage in the foreground; the run stops if it fails.
must() { stage "$@" || { report; exit 1; }; }

# lane NAME FUNCTION: run FUNCTION in the background, its lines prefixed with [NAME]; sets LANE_PID.
# Job control (set -m) gives the lane a process group of its own, so that a failure elsewhere
# stops all of its children (cleanup).
lane() {
  set -m
  (set -o pipefail; "$2" 2>&1 | sed -u "s/^/[$1] /") &
  LANE_PID=$!
  set +m
  LANES+=("$LANE_PID")
}
# wait_lanes PID...: wait for these lanes, in the order they finish; the run stops as soon as one
# fails (cleanup stops the others).
wait_lanes() {
  local left=$# done_pid
  while [ "$left" -gt 0 ]; do
    wait -n -p done_pid "$@" || { report; exit 1; }
    left=$((left - 1))
  done
}

must setup bash scripts/setup.sh
must fmt cargo fmt --check
# Native tests in release: burn in debug is too slow. `--all-targets` includes the library's unit
# tests (`test = false` in Cargo.toml keeps them out of wasm-pack's build). Compiled here, run
# below from their executables (cargo's "Executable" lines), in cargo's order.
must native-build cargo test --release --all-targets --no-run
mapfile -t TEST_BINS < <(sed -n 's/^ *Executable .*(\(.*\))$/\1/p' "$LOGS/native-build.log")
[ "${#TEST_BINS[@]}" -gt 0 ] || { echo "==> FAILED: no test executables in the native build's output"; report; exit 1; }
native_tests() {
  local bin
  for bin in "${TEST_BINS[@]}"; do
    echo "     Running $bin"
    "$bin" || return 1
  done
}
native_lane() { stage native-tests native_tests; }
web_lane() {
  stage build-web bash scripts/build-web.sh &&
    # The page's JavaScript against its JSDoc types and the engine's generated .d.ts (www/pkg).
    stage typecheck bash scripts/typecheck.sh
}
# The test binaries start at once; the doc tests and the parity test (which run cargo) follow in
# the foreground, then the web build beside what is left of them.
lane native native_lane
NATIVE=$LANE_PID
must doc-tests cargo test --release --doc
# Chapter 1 step by step against the PyTorch transcription of the authors' model.
must parity bash scripts/parity.sh --preset interactive --steps 100
lane web web_lane
WEB=$LANE_PID
wait_lanes "$NATIVE" "$WEB"

# Browser unit tests (wasm-bindgen-test in headless Chromium).
# wasm-pack must not download anything: --mode no-install makes it fail instead,
# --chromedriver skips its driver lookup, and it picks the wasm-bindgen CLI of the
# exact Cargo.lock version from PATH (setup.sh installs it). The first `--` ends
# wasm-pack's options; the second separates `cargo build` options from test-binary
# options, so --nocapture reaches wasm-bindgen-test-runner only.
# The runner reads browser capabilities from webdriver.json.
# The wasm release profile of build-web.sh (LTO, stripped), so both share compiled dependencies.
# `--test web`: the browser tests only. wasm-pack first builds every default test target for wasm
# (`cargo build --tests`), so the native-only test files are compiled out on wasm32 and the
# library's harness is not a default test target (Cargo.toml); each was a fat-LTO build of the
# whole engine that ran nothing in the browser. The doc examples run natively too: compiled for
# wasm with fat LTO each took minutes and over 5 GB of memory. `--features fusion`: the WebGPU
# engine's build (www/pkg, WebGPU with kernel fusion), whose WebGPU path the browser tests check on
# SwiftShader.
source scripts/web-profile.sh
browser_lane() {
  stage browser-tests env \
    WASM_BINDGEN_TEST_TIMEOUT=600 \
    CHROMEDRIVER=/usr/bin/chromedriver \
    WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/webdriver.json" \
    wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver \
    --release --mode no-install -- --features fusion --test web -- --nocapture
}
lane browser browser_lane
BROWSER=$LANE_PID
# The e2e tests use the web build above and never call cargo (build-dist.sh --prebuilt).
must e2e node --test --test-reporter=spec tests/e2e/*.test.mjs
wait_lanes "$BROWSER"
LANES=()

report

# Count tests from the logs: libtest-style "test result:" lines (cargo test and
# wasm-bindgen-test-runner) and node's "pass"/"fail"/"skipped" summary. Print a total only
# if every test stage reported at least one summary line; skipped and ignored tests are
# counted and named, so a test that skipped itself (no WebGPU adapter, say) is never silent.
count_libtest() { # FILE -> "passed failed lines skipped"
  awk '/^test result: (ok|FAILED)\. [0-9]+ passed; [0-9]+ failed/ {
         p += $4; f += $6; if ($9 ~ /^ignored/) s += $8; n++ } END { print p + 0, f + 0, n + 0, s + 0 }' "$1"
}
count_node() {
  awk '/^(# |ℹ )pass [0-9]+$/ { p += $NF; n++ } /^(# |ℹ )fail [0-9]+$/ { f += $NF }
       /^(# |ℹ )skipped [0-9]+$/ { s += $NF }
       END { print p + 0, f + 0, n + 0, s + 0 }' "$1"
}
total_p=0
total_f=0
total_s=0
counted=1
for s in doc-tests native-tests browser-tests e2e; do
  if [ "$s" = e2e ]; then
    read -r p f n k < <(count_node "$LOGS/$s.log")
  else
    read -r p f n k < <(count_libtest "$LOGS/$s.log")
  fi
  [ "$n" -gt 0 ] || counted=0
  total_p=$((total_p + p))
  total_f=$((total_f + f))
  total_s=$((total_s + k))
done
echo
if [ "$counted" -eq 1 ]; then
  echo "$total_p passed, $total_f failed, $total_s skipped or ignored"
  if [ "$total_s" -gt 0 ]; then
    # libtest: "test NAME ... ignored"; node's spec reporter: "﹣ NAME (…) # reason".
    grep -hE '^test .* \.\.\. ignored|# SKIP|^ *﹣ ' "$LOGS/doc-tests.log" "$LOGS/native-tests.log" "$LOGS/browser-tests.log" "$LOGS/e2e.log" 2>/dev/null \
      | sed 's/^/  skipped: /' | head -20 || true
  fi
else
  echo "all stages passed (test count unavailable: a stage printed no test summary)"
fi
