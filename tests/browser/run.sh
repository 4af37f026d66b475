#!/usr/bin/env bash
# The page in a real browser against the real daemon (tests/browser/page_test.js); screenshots go
# to the output directory.
#   tests/browser/run.sh <path-to-hostprobe-binary> <output-directory>
# Exit status: 0 passed, 1 failed, 2 usage, 77 skipped (no node, npm or chromium).
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 <path-to-hostprobe-binary> <output-directory>" >&2
  exit 2
fi
binary="$(realpath "$1")"
output="$(realpath -m "$2")"
here="$(cd "$(dirname "$0")" && pwd)"

"$here/../js/ensure-modules.sh"
if [ ! -x /usr/bin/chromium ]; then
  echo "SKIPPED: the browser tests need Debian's chromium (apt-get install chromium)" >&2
  exit 77
fi
exec node "$here/page_test.js" "$binary" "$output"
