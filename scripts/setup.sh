#!/usr/bin/env bash
# Install everything the build and the tests need on a fresh Debian machine.
# Idempotent: every step checks first, so a second run takes seconds.
# Runs as root; otherwise uses sudo for apt when sudo exists.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 # never let an npm package fetch a browser

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

have() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# --- Rust toolchain: must already exist (rustup); we only add pieces to it ---
if ! have cargo || ! have rustup; then
  echo "setup: cargo/rustup not found; install a Rust toolchain with rustup first" >&2
  exit 1
fi

# wasm-bindgen CLI must match the wasm-bindgen version pinned in Cargo.lock.
WB_VERSION="$(awk '
  /^\[\[package\]\]/ { name = "" }
  /^name = /         { name = $3 }
  /^version = / && name == "\"wasm-bindgen\"" { gsub(/"/, "", $3); print $3; exit }
' Cargo.lock)"
if [ -z "$WB_VERSION" ]; then
  echo "setup: no wasm-bindgen package in Cargo.lock" >&2
  exit 1
fi
wb_ok() { have wasm-bindgen && [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WB_VERSION" ]; }

# --- apt packages (apt-get update only when something is missing) ---
missing=()
have chromium     || missing+=(chromium)
have chromedriver || missing+=(chromium-driver)
have python3      || missing+=(python3)
have node         || missing+=(nodejs)
have npm          || missing+=(npm)
have_pkg ca-certificates || missing+=(ca-certificates)
# PyTorch for the parity test of chapter 1 against its transcription (scripts/parity.sh) and the
# bench's reference: Debian's CPU build.
/usr/bin/python3 -c 'import torch' 2>/dev/null || missing+=(python3-torch)
# A C compiler is needed only to `cargo install` the CLIs below.
if { ! wb_ok || ! have wasm-pack; } && ! have cc; then missing+=(build-essential); fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: apt-get install ${missing[*]}"
  if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
    echo "setup: need root (or sudo) to install these" >&2
    exit 1
  fi
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

# --- Rust target and components ---
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if ! cargo fmt --version >/dev/null 2>&1; then
  rustup component add rustfmt
fi

# --- wasm-bindgen CLI (also provides wasm-bindgen-test-runner) ---
if ! wb_ok; then
  echo "setup: cargo install wasm-bindgen-cli $WB_VERSION"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked \
    || cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

# --- wasm-pack (runs the browser unit tests) ---
if ! have wasm-pack; then
  cargo install wasm-pack --locked
fi

# --- node packages for the end-to-end tests (playwright-core, no browser) ---
if [ ! -d tests/e2e/node_modules ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules ]; then
  npm ci --prefix tests/e2e --no-audit --no-fund
  touch tests/e2e/node_modules
fi

# --- one-line summary ---
echo "setup ok: rustc $(rustc --version | awk '{print $2}')" \
  "| wasm-bindgen $(wasm-bindgen --version | awk '{print $2}')" \
  "| wasm-pack $(wasm-pack --version | awk '{print $2}')" \
  "| node $(node --version)" \
  "| npm $(npm --version)" \
  "| $(python3 --version)" \
  "| chromium $(chromium --version 2>/dev/null | awk '{print $2}')" \
  "| chromedriver $(chromedriver --version | awk '{print $2}')"
