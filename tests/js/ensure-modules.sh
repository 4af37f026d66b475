#!/usr/bin/env bash
# Installs tests/js's pinned packages (package-lock.json, integrity-checked by npm ci) once, for
# every test that needs them; safe when several CTest tests call it at the same time (flock).
#   tests/js/ensure-modules.sh      exit 0 ready, 77 no node or npm (the caller skips)
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIPPED: needs node and npm (apt-get install nodejs npm)" >&2
  exit 77
fi
exec 9>.install.lock
flock 9
# npm ci records what it installed in node_modules/.package-lock.json; a lock file newer than
# that record means the installed packages are stale. puppeteer-core downloads nothing: the
# browser is Debian's chromium.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # No package may fetch a browser (puppeteer, which @axe-core/puppeteer names) or phone home
  # (Spectral's @scarf/scarf): npm 11 skips their install scripts, older npm would run them.
  PUPPETEER_SKIP_DOWNLOAD=1 SCARF_ANALYTICS=false npm ci --no-audit --no-fund --silent
fi
