#!/usr/bin/env bash
# Run every test, in order, stopping at the first failure:
#   setup, rustfmt check, native tests, the PyTorch parity of chapter 1, web build, the page's
#   type check, browser unit tests, end-to-end tests.
# Each stage is announced and timed; a table of seconds per stage is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT

STAGES=8
names=()
secs=()

report() {
  echo
  echo "==> stage times"
  local i
  for i in "${!names[@]}"; do
    printf '  %-26s %6ss\n' "${names[$i]}" "${secs[$i]}"
  done
}

# stage NAME CMD...: run CMD with its output shown and kept in $LOGS/NAME.log.
stage() {
  local name="$1"
  shift
  local n=$((${#names[@]} + 1))
  echo
  echo "==> [$n/$STAGES] $name: $*"
  local t0=$SECONDS rc=0
  "$@" 2>&1 | tee "$LOGS/$name.log" || rc=$?
  names+=("$name")
  secs+=($((SECONDS - t0)))
  if [ "$rc" -ne 0 ]; then
    echo "==> FAILED: $name (exit $rc)"
    report
    exit "$rc"
  fi
}

stage setup bash scripts/setup.sh
stage fmt cargo fmt --check
# Native tests in release: burn in debug is too slow. `--all-targets` includes the library's unit
# tests (`test = false` in Cargo.toml keeps them out of wasm-pack's build), then the doc examples.
native_tests() { cargo test --release --all-targets && cargo test --release --doc; }
stage native-tests native_tests
# Chapter 1 step by step against the PyTorch transcription of the authors' model.
stage parity bash scripts/parity.sh --preset interactive --steps 100
stage build-web bash scripts/build-web.sh
# The page's JavaScript against its JSDoc types and the engine's generated .d.ts (www/pkg).
stage typecheck bash scripts/typecheck.sh
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
# wasm with fat LTO each took minutes and over 5 GB of memory.
source scripts/web-profile.sh
stage browser-tests env \
  WASM_BINDGEN_TEST_TIMEOUT=600 \
  CHROMEDRIVER=/usr/bin/chromedriver \
  WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/webdriver.json" \
  wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver \
  --release --mode no-install -- --test web -- --nocapture
stage e2e node --test --test-reporter=spec tests/e2e/*.test.mjs

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
for s in native-tests browser-tests e2e; do
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
    grep -hE '^test .* \.\.\. ignored|# SKIP|^ *﹣ ' "$LOGS/native-tests.log" "$LOGS/browser-tests.log" "$LOGS/e2e.log" 2>/dev/null \
      | sed 's/^/  skipped: /' | head -20
  fi
else
  echo "all stages passed (test count unavailable: a stage printed no test summary)"
fi
