#!/usr/bin/env bash
# Step-by-step parity of chapter 1's training with the PyTorch transcription of the authors'
# model (bench/parity.py on `plateau parity-dump`): same initial weights, same batches, K steps;
# compares the loss at every step, every parameter's gradient norm at updates 0 and 1 and the
# held-out loss at the evaluations. Exits non-zero on a mismatch (1e-4 relative in the first 20
# steps). CI runs the interactive preset (scripts/test.sh); run the paper preset by hand:
#
#   scripts/parity.sh [--preset interactive|paper] [--steps K] [--seed S] [--c C]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
PRESET=interactive
STEPS=100
SEED=0
C=1
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) PRESET="$2"; shift 2 ;;
    --steps) STEPS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --c) C="$2"; shift 2 ;;
    *) echo "usage: scripts/parity.sh [--preset interactive|paper] [--steps K] [--seed S] [--c C]" >&2; exit 2 ;;
  esac
done
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "parity: PyTorch is missing: run scripts/setup.sh" >&2; exit 1; }
cargo build --release --quiet --bin plateau
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
"${CARGO_TARGET_DIR:-target}/release/plateau" parity-dump --preset "$PRESET" --seed "$SEED" --steps "$STEPS" --c "$C" --quiet --out "$DIR/dump.json"
/usr/bin/python3 bench/parity.py "$DIR/dump.json"
# Negative control: with one weight matrix 0.1 % off, the same comparison must fail.
if /usr/bin/python3 bench/parity.py --perturb "$DIR/dump.json" >/dev/null 2>&1; then
  echo "parity: the comparison passed with a perturbed model: it cannot detect a difference" >&2
  exit 1
fi
echo "parity: $PRESET preset, seed $SEED, c $C, $STEPS steps: the engine and the PyTorch transcription agree"
