#!/usr/bin/env bash
# The system probe held to references on this machine: its syscall, spawn and context_switch
# rates against the same loops in a small C program (bench/system_reference.c, built here with
# cc), spawn also against that program linked with hostprobe's libraries (what the probe's
# helper process is), and context_switch against `perf bench sched pipe` when perf is installed. Rounds
# run interleaved; medians compared; target within +-20%. Then single vs parallel copies under
# a 0.5 CPU quota in a child cgroup (parallel copies must not get more than the quota's share)
# next to the same without a quota. Exits 1 when a target is missed.
#   bench/system_vs_reference.sh [ROUNDS] [SECONDS] [path/to/hostprobe]
#   (cc is needed; root for the cgroup part)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
seconds="${2:-3}"
binary="${3:-build/hostprobe}"
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
command -v cc >/dev/null || { echo "cc is missing: apt-get install gcc" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/system_reference" bench/system_reference.c
# The same program also linked against every library hostprobe links: fork and exit cost grows
# with the mappings a process has, and the agent's helper has the C++ runtime, OpenSSL, ...
libraries="$(ldd "$binary" | awk '/=>/ {print $1}' | grep -v -e '^libc\.so' -e linux-vdso |
    sed 's/^/-l:/' | tr '\n' ' ')"
# shellcheck disable=SC2086
cc -O2 -o "$work/system_reference_linked" bench/system_reference.c -Wl,--no-as-needed $libraries
exec python3 bench/system_vs_reference.py "$binary" "$work/system_reference" "$rounds" "$seconds" \
    "$work/system_reference_linked"
