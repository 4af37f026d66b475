#!/usr/bin/env bash
# Runs one of this folder's node tests against a real binary, with tests/js's pinned packages.
#   tests/openapi/run-node.sh <script.js> <path-to-hostprobe-binary>
# Exit status: 0 passed, 1 failed, 2 usage, 77 skipped (no node or npm).
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 <script.js> <path-to-hostprobe-binary>" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
binary="$(realpath "$2")"

status=0
"$here/../js/ensure-modules.sh" || status=$?
if [ "$status" -ne 0 ]; then exit "$status"; fi

exec node "$here/$1" "$binary"
