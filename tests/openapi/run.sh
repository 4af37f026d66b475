#!/usr/bin/env bash
# GET /openapi.json of a real daemon through a real OpenAPI validator, then real answers of every
# endpoint (each probe's run, every error status) against the document's own schemas, and again
# against a closed copy of them (no member the document does not name).
#   tests/openapi/run.sh <path-to-hostprobe-binary>
# Exit status: 0 passed, 1 failed, 2 usage, 77 skipped (no node or npm).
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 <path-to-hostprobe-binary>" >&2
  exit 2
fi
exec "$(dirname "$0")/run-node.sh" validate.js "$1"
