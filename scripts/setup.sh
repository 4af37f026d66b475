#!/usr/bin/env bash
# hostprobe set-up on a fresh Debian/Ubuntu machine: installs whatever is missing from Debian's
# packages, builds, then runs the agent or every test.
#
#   scripts/setup.sh run    install, build, and start `hostprobe serve` on 0.0.0.0:9740
#   scripts/setup.sh test   install, build (normal, ASan+UBSan, TSan), run every test under
#                           each, the container test, and each fuzz harness for 30 s
#   scripts/setup.sh build  install and build only
set -euo pipefail

cd "$(dirname "$0")/.."
mode="${1:-}"
case "$mode" in
  run|test|build) ;;
  *) echo "usage: $0 run|test|build" >&2; exit 2 ;;
esac

# The agent needs these; its tests also doctest-dev.
agent_packages=(cmake g++ make pkg-config git libssl-dev libcpp-httplib-dev nlohmann-json3-dev
                prometheus-cpp-dev liburing-dev)
build_packages=("${agent_packages[@]}" doctest-dev)
# prometheus: promtool checks /metrics and deploy/'s rules, and a real server scrapes a test
# fleet; nodejs/npm: aws-sdk's ECS model validates task-definitions/; curl and python3 drive
# the container test; openssl makes the TLS tests' certificate.
test_packages=(prometheus curl python3 openssl)
node_packages=(nodejs npm)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing() {
  local missing=()
  for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

jobs="$(nproc 2>/dev/null || echo 2)"
# Builds from scratch (everything but `build`, a developer's incremental tree) compile each target
# as one unity translation unit: the JSON and HTTP templates are instantiated once instead of in
# every file, which makes a cold build 2-3 times faster (docs/ARCHITECTURE.md, "Building").
from_scratch=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0)

build() {  # build <dir> [cmake options...] [--target T]
  local dir="$1"; shift
  local target=()
  if [ "${#@}" -ge 2 ] && [ "${*: -2:1}" = "--target" ]; then
    target=(--target "${*: -1}")
    set -- "${@:1:$#-2}"
  fi
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" "${target[@]}"
}

case "$mode" in
  build)
    install_missing "${build_packages[@]}"
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHOSTPROBE_WERROR=ON -DHOSTPROBE_TESTS=ON
    ;;
  run)
    # Only what it runs: the agent as the image builds it (Release, no tests, no debug info),
    # so a newcomer serves in minutes; a compiler's new warning does not stop a first run.
    install_missing "${agent_packages[@]}"
    build build -DCMAKE_BUILD_TYPE=Release -DHOSTPROBE_WERROR=OFF -DHOSTPROBE_TESTS=OFF \
      "${from_scratch[@]}" --target hostprobe
    exec ./build/hostprobe serve
    ;;
  test)
    install_missing "${build_packages[@]}" "${test_packages[@]}"
    # A machine may have node from elsewhere; Debian's packages only when there is none.
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
      install_missing "${node_packages[@]}"
    fi
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHOSTPROBE_WERROR=ON -DHOSTPROBE_TESTS=ON \
      "${from_scratch[@]}"
    # One CTest test per doctest case (tests/README.md): -j runs them side by side; --timeout
    # bounds the script tests, the cases have their own.
    ctest --test-dir build --output-on-failure -j "$jobs" --timeout 900
    # The image, built and run under a 0.25 CPU / 512 MiB limit (installs podman if needed).
    tests/container/run.sh
    # The image for linux/arm64 too (cross-compiled), both in a manifest list, arm64 run emulated.
    tests/container/multiarch.sh
    # The same tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DHOSTPROBE_WERROR=ON -DHOSTPROBE_SANITIZE=address,undefined \
      "${from_scratch[@]}"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900
    # And the whole suite again under ThreadSanitizer: the end-to-end tests run a TSan daemon.
    build build-tsan -DCMAKE_BUILD_TYPE=Debug -DHOSTPROBE_WERROR=ON -DHOSTPROBE_SANITIZE=thread \
      "${from_scratch[@]}"
    # tests/tsan.supp: cpp-httplib is a prebuilt, uninstrumented library (see the file).
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp" \
      ctest --test-dir build-tsan --output-on-failure -j "$jobs" --timeout 900
    # libFuzzer on every parser and on HTTP request handling, 30 s each (installs clang).
    tests/fuzz/run.sh 30
    echo "setup: all tests passed" >&2
    ;;
esac
