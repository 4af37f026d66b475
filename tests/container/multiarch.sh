#!/usr/bin/env bash
# The image for both architectures (issue 16): builds the amd64 image (from the layer cache when
# tests/container/run.sh built it just before) and the arm64 one (the Dockerfile's build stage
# cross-compiles on this amd64 machine), puts both in one manifest list the way a registry gets
# them, and runs the arm64 image from that list under qemu-user emulation (binfmt_misc):
# /v1/host says aarch64, a short cipher run succeeds, `hostprobe healthcheck` exits 0, SIGTERM
# stops it with exit 0; the arm64 distroless image must stay within 20 MB.
#   tests/container/multiarch.sh      (as root, or with sudo; after tests/container/run.sh,
#                                      which installs and configures podman and the base image)
# Needs podman/buildah on an amd64 machine: skips (exit 0) only when run.sh would have skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."

started_at=$(date +%s)
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
fail() { echo "multiarch test: FAILED after $(($(date +%s) - started_at)) s: $*" >&2; exit 1; }
note() { echo "multiarch test: $*" >&2; }
elapsed() { echo "$(($(date +%s) - started_at)) s"; }

if ! command -v podman >/dev/null || ! command -v buildah >/dev/null; then
  note "SKIPPED: podman and buildah are not installed (tests/container/run.sh installs them)"
  exit 0
fi
host_arch=$(dpkg --print-architecture)
# The Dockerfile cross-compiles arm64 on amd64 only.
[ "$host_arch" = amd64 ] || { note "SKIPPED: the cross build needs an amd64 machine, this is $host_arch"; exit 0; }
base=docker.io/library/debian:bookworm-slim
podman image exists "$base" \
  || fail "no $base image: run tests/container/run.sh first (it makes one with mmdebstrap)"

# Emulation: Debian's qemu-user-static registers qemu-aarch64 with binfmt_misc's F flag (the
# kernel opens the interpreter now, so it works inside a container's root filesystem too).
missing=()
for package in qemu-user-static binfmt-support; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  note "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
      --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
         as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
           --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } \
    || fail "could not install ${missing[*]}"
fi
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
  as_root mount -t binfmt_misc binfmt_misc "$binfmt" \
    || fail "cannot mount binfmt_misc at $binfmt (a container without the privilege to?)"
fi
if [ ! -e "$binfmt/qemu-aarch64" ]; then
  as_root update-binfmts --enable qemu-aarch64 || fail "update-binfmts --enable qemu-aarch64"
elif [ "$(head -1 "$binfmt/qemu-aarch64")" != enabled ]; then
  echo 1 | as_root tee "$binfmt/qemu-aarch64" >/dev/null
fi
[ "$(head -1 "$binfmt/qemu-aarch64" 2>/dev/null)" = enabled ] || fail "qemu-aarch64 is not enabled in $binfmt"
grep -q '^flags: .*F' "$binfmt/qemu-aarch64" \
  || fail "qemu-aarch64 is registered without the F flag ($(grep '^flags' "$binfmt/qemu-aarch64")): containers" \
          "cannot reach its interpreter; something other than Debian's qemu-user-static registered it"
note "binfmt_misc: qemu-aarch64 enabled ($(grep '^flags' "$binfmt/qemu-aarch64"))"

# The builds. amd64 exactly as run.sh builds it (so the layer cache answers); arm64 with the
# build platform named, which podman 4.3 does not set itself (the Dockerfile's header says why).
amd64=localhost/hostprobe:test
arm64=localhost/hostprobe:test-arm64
list=localhost/hostprobe:test-multiarch
build_log="$(mktemp)"
build_image() {  # build_image <tag> [buildah options...]
  local tag="$1"; shift
  local build_started
  build_started=$(date +%s)
  buildah bud --format docker --layers "$@" -t "$tag" . >"$build_log" 2>&1 \
    || { tail -50 "$build_log" >&2; fail "building $tag"; }
  note "built $tag in $(($(date +%s) - build_started)) s"
}
build_image "$amd64"
build_image "$arm64" --platform linux/arm64 --build-arg BUILDPLATFORM=linux/amd64
rm -f "$build_log"
image_platform() { podman image inspect --format '{{.Os}}/{{.Architecture}}' "$1"; }
[ "$(image_platform "$amd64")" = linux/amd64 ] || fail "$amd64 is an image for $(image_platform "$amd64")"
[ "$(image_platform "$arm64")" = linux/arm64 ] || fail "$arm64 is an image for $(image_platform "$arm64")"
amd64_size=$(podman image inspect --format '{{.Size}}' "$amd64")
arm64_size=$(podman image inspect --format '{{.Size}}' "$arm64")
sizes="amd64 $(awk -v b="$amd64_size" 'BEGIN {printf "%.1f", b / 1e6}') MB, arm64 $(awk -v b="$arm64_size" 'BEGIN {printf "%.1f", b / 1e6}') MB"
[ "$arm64_size" -le 20000000 ] || fail "the arm64 distroless image is over 20 MB: $sizes"
note "distroless image sizes: $sizes (arm64 within 20 MB)"

# The manifest list, as `podman manifest push --all` would send it to a registry.
podman manifest rm "$list" >/dev/null 2>&1 || true
podman manifest create "$list" >/dev/null
podman manifest add "$list" "containers-storage:$amd64" >/dev/null
podman manifest add "$list" "containers-storage:$arm64" >/dev/null
podman manifest inspect "$list" | python3 -c '
import json, sys
manifests = json.load(sys.stdin)["manifests"]
platforms = sorted("%s/%s" % (m["platform"]["os"], m["platform"]["architecture"]) for m in manifests)
assert platforms == ["linux/amd64", "linux/arm64"], platforms
digests = dict(zip(sys.argv[1::2], sys.argv[2::2]))
for m in manifests:
    assert m["digest"] == digests[m["platform"]["architecture"]], (m, digests)
' amd64 "$(podman image inspect --format '{{.Digest}}' "$amd64")" \
  arm64 "$(podman image inspect --format '{{.Digest}}' "$arm64")" \
  || fail "the manifest list $list does not hold exactly the two images"
# Pushed as task-definitions/README.md pushes it to ECR, into an OCI layout here (no registry):
# the list and both images must arrive.
layout="$(mktemp -d)"
podman manifest push --quiet --all "$list" "oci:$layout:latest" >/dev/null 2>&1 \
  || fail "podman manifest push --all $list"
python3 -c '
import json, os, sys
layout = sys.argv[1]
blob = lambda digest: os.path.join(layout, "blobs", *digest.split(":"))
(top,) = json.load(open(os.path.join(layout, "index.json")))["manifests"]
index = json.load(open(blob(top["digest"])))
platforms = sorted("%s/%s" % (m["platform"]["os"], m["platform"]["architecture"]) for m in index["manifests"])
assert platforms == ["linux/amd64", "linux/arm64"], platforms
for m in index["manifests"]:
    image = json.load(open(blob(m["digest"])))
    assert all(os.path.exists(blob(layer["digest"])) for layer in image["layers"]), m
' "$layout" || fail "the pushed manifest list does not hold both images"
rm -rf "$layout"
note "manifest list $list: linux/amd64 and linux/arm64, pushed with both images (manifest push --all)"

# Each platform of the list runs its own architecture (podman picks the instance).
list_arch() {  # list_arch <arch>: uname's machine as the agent of that list instance reports it
  podman run --rm --no-healthcheck --platform "linux/$1" --entrypoint hostprobe "$list" cpu --json 2>/dev/null \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["cpu"]["architecture"])'
}
[ "$(list_arch amd64)" = x86_64 ] || fail "the list's linux/amd64 instance does not run as x86_64"
[ "$(list_arch arm64)" = aarch64 ] || fail "the list's linux/arm64 instance does not run as aarch64"
note "from the list: linux/amd64 runs as x86_64, linux/arm64 as aarch64 (emulated)"

# The arm64 agent serving, emulated, with the image's hardening and Fargate's smallest size.
container=hostprobe-test-arm64
cleanup() { podman rm -f "$container" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token="multiarch-test-$RANDOM$RANDOM"
# podman 4.3 warns that the list's (amd64) platform does not match, then runs the arm64
# instance all the same (/v1/host below says which ran): its messages only show on failure.
run_log="$(mktemp)"
podman run -d --no-healthcheck --platform linux/arm64 --name "$container" -e "HOSTPROBE_TOKEN=$token" \
  --memory 512m --memory-swap 512m --read-only --cap-drop ALL -p "127.0.0.1:$port:9740" "$list" \
  >/dev/null 2>"$run_log" || { cat "$run_log" >&2; fail "podman run --platform linux/arm64 $list"; }
rm -f "$run_log"
# Emulation makes the start slower than native; this waits for the condition, up to 60 s.
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  [ "$(podman inspect --format '{{.State.Running}}' "$container")" = true ] \
    || { podman logs "$container" >&2 || true; fail "the arm64 agent exited before answering /healthz"; }
  sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 \
  || { podman logs "$container" >&2 || true; fail "the arm64 agent never answered /healthz"; }

machine=$(curl -fsS "http://127.0.0.1:$port/v1/host" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["cpu"]["architecture"])') \
  || fail "GET /v1/host"
[ "$machine" = aarch64 ] || fail "/v1/host says the architecture is $machine, not aarch64"
note "/v1/host: cpu.architecture aarch64"

# Correctness only: emulated ciphers are slow and their speed means nothing here.
curl -fsS -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
  -d '{"probe": "cipher", "params": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192], "seconds": 1, "threads": 1}}' \
  "http://127.0.0.1:$port/v1/runs?wait=120" | python3 -c '
import json, sys
run = json.load(sys.stdin)
assert run["state"] == "succeeded", run
cell = run["result"]["measurements"][0]
assert cell["cipher"] == "aes-128-gcm" and cell["threads"] == 1, cell
assert cell["bytes_per_second"] > 0 and cell["cpu_seconds"] > 0, cell
print("multiarch test: emulated cipher run: aes-128-gcm 8 KiB, %.1f MB/s (emulated), %s"
      % (cell["bytes_per_second"] / 1e6, run["result"]["openssl_version"]), file=sys.stderr)
' || fail "the cipher run in the arm64 image"

podman exec "$container" hostprobe healthcheck || fail "hostprobe healthcheck exited $? in the arm64 image"
note "hostprobe healthcheck: exit 0"

uid=$(awk '/^Uid:/ {print $2}' "/proc/$(podman inspect --format '{{.State.Pid}}' "$container")/status")
[ "$uid" = 10001 ] || fail "the arm64 agent runs as uid $uid, not 10001"

# SIGTERM itself (podman stop would SIGKILL after its timeout, hiding a hang): the agent must
# stop on its own with exit 0.
stop_started=$(date +%s.%N)
podman kill --signal TERM "$container" >/dev/null
code=$(timeout 60 podman wait "$container") || fail "the arm64 agent did not stop within 60 s of SIGTERM"
[ "$code" = 0 ] || fail "SIGTERM ended the arm64 agent with exit code $code"
note "SIGTERM: exit 0 after $(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$stop_started" "$(date +%s.%N)") s"
note "all multiarch checks passed in $(elapsed)"
