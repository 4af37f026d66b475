#!/usr/bin/env bash
# Validates task-definitions/*.json offline: the ECS RegisterTaskDefinition input shape (aws-sdk
# v2's model, pinned in package-lock.json) and what the given hostprobe binary really accepts.
#   tests/task-definitions/run.sh <path-to-hostprobe-binary>
# Exit status: 0 passed, 1 failed, 2 usage, 77 skipped (no node or npm).
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 <path-to-hostprobe-binary>" >&2
  exit 2
fi
binary="$(realpath "$1")"
cd "$(dirname "$0")"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIPPED: the task definition test needs node and npm (apt-get install nodejs npm)" >&2
  exit 77
fi

# npm ci records what it installed in node_modules/.package-lock.json; a lock file newer than
# that record means the installed packages are stale.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --silent
fi

exec node validate.js "$binary"
