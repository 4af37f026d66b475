#!/usr/bin/env bash
# Prepares a Debian bookworm amd64 machine (or an amd64 image's build stage) to cross-compile
# hostprobe for arm64 (issue 16). Interface, kept stable for the Dockerfile:
#
#   scripts/arm64-deps.sh DIR
#     1. adds the arm64 architecture to dpkg, and installs what is missing (apt --no-remove, so
#        no amd64 package is ever removed): crossbuild-essential-arm64, cmake, make, pkg-config,
#        nlohmann-json3-dev, and the :arm64 libssl-dev, libcpp-httplib-dev, liburing-dev and
#        libprometheus-cpp-core1.0 (the last is also what an emulated binary loads at run time);
#     2. fills DIR (created if needed) with the dpkg -x'ed arm64 .debs multiarch cannot give:
#        prometheus-cpp-dev:arm64 would remove the amd64 one (civetweb is not multi-arch), and
#        its CMake config wants the pull/push libraries, civetweb and curl beside it.
#   Then: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#               -DHOSTPROBE_ARM64_DEPS=DIR ...
#
# Idempotent: installed packages are not asked for again; DIR is left as it is when its stamp
# names the same packages at the versions apt offers now. Needs root (or sudo); downloads only
# from the machine's configured Debian archive.
set -euo pipefail

if [ "$#" -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR   (DIR: where the private arm64 packages are unpacked)" >&2
  exit 2
fi
deps_dir="$1"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_get() { as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"; }

build_packages=(crossbuild-essential-arm64 cmake make pkg-config nlohmann-json3-dev
                libssl-dev:arm64 libcpp-httplib-dev:arm64 liburing-dev:arm64
                libprometheus-cpp-core1.0:arm64)
# Unpacked into DIR, never installed: prometheus-cpp's CMake package and all its config checks.
private_packages=(prometheus-cpp-dev libprometheus-cpp-core1.0 libprometheus-cpp-pull1.0
                  libprometheus-cpp-push1.0 libcivetweb-dev libcivetweb1 civetweb
                  libcurl4-openssl-dev libcurl4 zlib1g-dev)

updated=no
update_once() {
  if [ "$updated" = no ]; then
    apt_get update -qq
    updated=yes
  fi
}

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  as_root dpkg --add-architecture arm64
  update_once
fi

missing=()
for package in "${build_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "arm64-deps: installing ${missing[*]}" >&2
  update_once
  apt_get install -y -qq --no-install-recommends --no-remove "${missing[@]}" >/dev/null
fi

# The stamp: one "package version" line per private package, as apt offers them now.
wanted_stamp() {
  apt-cache policy "${private_packages[@]/%/:arm64}" \
    | awk '/^[^ ]/ {sub(/:arm64:$/, ""); package = $0} /^ *Candidate:/ {print package, $2}'
}
stamp="$deps_dir/.hostprobe-arm64-deps"
offered="$(wanted_stamp)"
if [ -f "$stamp" ] && [ "$offered" = "$(cat "$stamp")" ]; then
  exit 0
fi
# Without package lists (a build stage that removed them) apt offers no version: update first.
if [ "$(grep -c ' [0-9]' <<<"$offered")" -ne "${#private_packages[@]}" ]; then
  update_once
  offered="$(wanted_stamp)"
fi

mkdir -p "$deps_dir"
download_dir="$(mktemp -d)"
trap 'rm -rf "$download_dir"' EXIT
echo "arm64-deps: unpacking ${private_packages[*]} (arm64) into $deps_dir" >&2
# Root downloads into a private temporary folder: apt's _apt user could not write there.
(cd "$download_dir" &&
  apt-get -q -o APT::Sandbox::User=root download "${private_packages[@]/%/:arm64}" >/dev/null)
for deb in "$download_dir"/*.deb; do
  dpkg -x "$deb" "$deps_dir"
done
printf '%s\n' "$offered" >"$stamp"
