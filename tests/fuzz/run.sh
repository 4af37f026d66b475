#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan+UBSan, coverage) and runs each for a bounded time
# on a copy of its seed corpus. Exits 1 when any harness crashes, leaks, times out or breaks an
# invariant; the input that did it is kept under build-fuzz/artifacts/.
#   tests/fuzz/run.sh [SECONDS_PER_HARNESS] [HARNESS...]   (default 30 s, every harness)
# Longer runs: tests/fuzz/run.sh 3600 fuzz_http_api   (see tests/fuzz/README.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-30}"
shift || true
case "$seconds" in ''|*[!0-9]*) echo "usage: $0 [SECONDS] [HARNESS...]" >&2; exit 2 ;; esac

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# clang brings the compiler; libFuzzer and the sanitizer runtimes are in libclang-rt-dev.
missing=()
for package in clang libclang-rt-dev; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "fuzz: installing ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=build-fuzz
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHOSTPROBE_FUZZ=ON -DHOSTPROBE_TESTS=OFF -DHOSTPROBE_WERROR=ON \
  -DHOSTPROBE_SANITIZE=fuzzer-no-link,address,undefined \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target fuzz_harnesses

harnesses=("$@")
if [ "${#harnesses[@]}" -eq 0 ]; then
  for source in tests/fuzz/fuzz_*.cpp; do harnesses+=("$(basename "$source" .cpp)"); done
fi

artifacts="$build/artifacts"
mkdir -p "$artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One harness per CPU at a time: each is one single-threaded process, so on 2 cores two run side
# by side in the time of one (a fuzz run is bounded by time, not by work).
parallel="$(nproc 2>/dev/null || echo 2)"
run_harness() {  # run_harness <name>: its summary, or its failure, into $work/<name>.result
  local harness="$1" binary="$build/tests/fuzz/$1" seeds="tests/fuzz/corpus/${1#fuzz_}"
  # New inputs go to a scratch corpus, so the committed seeds stay as they are.
  local corpus="$work/$harness" log="$work/$harness.log"
  mkdir -p "$corpus"
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$artifacts/$harness-" "$corpus" "$seeds" >"$log" 2>&1; then
    { echo "fuzz: $harness passed"
      grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$log" | tail -2 | sed "s/^/  /" || true
    } >"$work/$harness.result"
  else
    { echo "fuzz: $harness FAILED; the input is in $artifacts/, the log ends:"
      tail -40 "$log"
    } >"$work/$harness.result"
    touch "$work/$harness.failed"
  fi
}
for harness in "${harnesses[@]}"; do
  [ -x "$build/tests/fuzz/$harness" ] || { echo "fuzz: no harness $harness" >&2; exit 2; }
  seeds="tests/fuzz/corpus/${harness#fuzz_}"
  [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds" >&2; exit 2; }
done
for harness in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  echo "fuzz: $harness for ${seconds} s ($(ls "tests/fuzz/corpus/${harness#fuzz_}" | wc -l) seeds)" >&2
  run_harness "$harness" &
done
wait
failed=()
for harness in "${harnesses[@]}"; do
  cat "$work/$harness.result" >&2
  [ ! -e "$work/$harness.failed" ] || failed+=("$harness")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#harnesses[@]} harnesses ran ${seconds} s each without a finding" >&2
