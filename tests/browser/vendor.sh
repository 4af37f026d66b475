#!/usr/bin/env bash
# The uPlot the binary embeds (src/ui/vendor) is byte for byte the pinned release: npm ci checks
# the tarball against package-lock.json's integrity, this compares the copies with it.
#   tests/browser/vendor.sh      exit 0 identical, 1 different, 77 skipped (no node or npm)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../js/ensure-modules.sh"
pinned="$here/../js/node_modules/uplot"
vendored="$here/../../src/ui/vendor"
version="$(node -p "require('$pinned/package.json').version")"
status=0
for file in uPlot.iife.min.js uPlot.min.css; do
  cmp "$pinned/dist/$file" "$vendored/$file" || status=1
done
cmp "$pinned/LICENSE" "$vendored/LICENSE" || status=1
echo "src/ui/vendor against uplot $version from package-lock.json: $([ "$status" -eq 0 ] && echo identical || echo DIFFERENT)"
exit "$status"
