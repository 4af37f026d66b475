#!/usr/bin/env bash
# The system probe held to the real UnixBench 6.0.0, test by test: UnixBench is built from the
# unchanged copy in ../shared/reference/byte-unixbench into a scratch folder (never into the
# tree; GPL-2.0, for benchmarks only), and `./Run -c 1` and `./Run -c N` (N: the CPU budget's
# workers, as the probe's parallel pass) run interleaved with `hostprobe run system` for the
# same copies. Each round alternates which goes first; the medians of the rounds are compared.
# Targets: every index test within 0.95-1.05 of UnixBench, the index score within 0.97-1.03.
# Both work in the same scratch file system (UB_TMPDIR, TMPDIR) and at the probe's niceness.
# Exits 1 when a target is missed.
#   bench/system_vs_unixbench.sh [ROUNDS] [SECONDS] [path/to/hostprobe]
#   ROUNDS: 3; SECONDS: "run" (each probe test as long as Run runs its test: 10 s for the CPU
#   tests, 30 s for execl, file copy and spawn, 60 s for the shell scripts; the index is then
#   computed from the runs' per-test indexes as Run computes it) or one number of seconds for
#   every test. About 22 minutes a round on 2 CPUs. UNIXBENCH_SOURCE: where UnixBench is.
# The copy in ../shared/reference lacks UnixBench/pgms/ (index.base, multi.sh, tst.sh): when it
# does, they are written into the scratch copy from UnixBench's published baselines and its two
# scripts' commands (system_vs_unixbench.py says what), and the bench says so.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
seconds="${2:-run}"
binary="${3:-build/hostprobe}"
source_dir="${UNIXBENCH_SOURCE:-$(pwd)/../shared/reference/byte-unixbench}"
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
[ -x "$(dirname "$binary")/hostprobe-process-loops" ] ||
    { echo "hostprobe-process-loops is missing beside $binary: build it" >&2; exit 2; }
[ -f "$source_dir/UnixBench/Run" ] ||
    { echo "no UnixBench at $source_dir (set UNIXBENCH_SOURCE)" >&2; exit 2; }
for tool in make cc perl; do
    command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install make gcc perl" >&2; exit 2; }
done
work="$(mktemp -d "${BENCH_SCRATCH:-/var/tmp}/unixbench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -r "$source_dir/UnixBench" "$work/UnixBench"
exec python3 bench/system_vs_unixbench.py "$binary" "$work" "$rounds" "$seconds"
