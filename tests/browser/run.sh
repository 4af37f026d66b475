#!/usr/bin/env bash
# The page in a real browser against the real daemon: tests/browser/page_test.js (the default:
# the page's behaviour, screenshots to the output directory) or tests/browser/audits.js
# (Lighthouse and axe-core; their summary and reports to the output directory).
#   tests/browser/run.sh <path-to-hostprobe-binary> <output-directory> [page|audits]
# Exit status: 0 passed, 1 failed, 2 usage, 77 skipped (no node, npm or chromium).
set -euo pipefail

if [ "$#" -lt 2 ] || [ "$#" -gt 3 ]; then
  echo "usage: $0 <path-to-hostprobe-binary> <output-directory> [page|audits]" >&2
  exit 2
fi
binary="$(realpath "$1")"
output="$(realpath -m "$2")"
case "${3:-page}" in
  page) script=page_test.js ;;
  audits) script=audits.js ;;
  *) echo "$0: unknown test '$3' (page or audits)" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")" && pwd)"

"$here/../js/ensure-modules.sh"
if [ ! -x /usr/bin/chromium ]; then
  echo "SKIPPED: the browser tests need Debian's chromium (apt-get install chromium)" >&2
  exit 77
fi
exec node "$here/$script" "$binary" "$output"
