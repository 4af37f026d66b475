#!/usr/bin/env bash
# The disk probe held to fio on the same directory and file size: psync, direct, bs=16k, 10 s
# time based, randread and randwrite with one job and randread with four, 3 interleaved rounds
# each against `fio --output-format=json`. Prints IOPS, p50/p99 completion latency and CPU time
# per I/O as ratios hostprobe/fio, and the per-second p99 (median and worst second) beside fio's
# histogram log (shown, no target); exits 1 when a target of issue 4 is missed.
#   bench/disk_vs_fio.sh [DIRECTORY] [path/to/hostprobe]   (needs fio: apt-get install fio)
set -euo pipefail
cd "$(dirname "$0")/.."
directory="${1:-/var/tmp}"
binary="${2:-build/hostprobe}"
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
command -v fio >/dev/null || { echo "fio is missing: apt-get install fio" >&2; exit 2; }
exec python3 bench/disk_vs_fio.py "$binary" "$directory"
