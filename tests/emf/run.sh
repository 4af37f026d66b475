#!/usr/bin/env bash
# The EMF end-to-end test (e2e.js) with tests/js's pinned ajv.
#   tests/emf/run.sh HOSTPROBE_BINARY FIXTURES_DIR     exit 0 passed, 1 failed, 77 skipped (no node)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../js/ensure-modules.sh" || exit $?
exec node "$here/e2e.js" "$1" "$2"
