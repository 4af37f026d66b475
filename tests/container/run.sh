#!/usr/bin/env bash
# The container image, built and run here without a Docker engine (podman/buildah with runc;
# docker when an engine answers), like a Fargate 0.25 vCPU / 0.5 GB task with a read-only root
# and no capabilities. Asserts what issue 5 asks; skips only when no engine can be installed.
#   tests/container/run.sh            (as root, or with sudo for apt and podman)
set -euo pipefail
cd "$(dirname "$0")/../.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
fail() { echo "container test: FAILED: $*" >&2; exit 1; }
note() { echo "container test: $*" >&2; }

engine=""
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  engine=docker
else
  # Every package is checked, not just the podman command: a machine with podman but without
  # netavark, or netavark without iptables (only recommended), fails at the first RUN step
  # ("netavark: No such file or directory").
  wanted=(podman buildah runc mmdebstrap uidmap slirp4netns netavark aardvark-dns iptables)
  missing=()
  for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    note "installing ${missing[*]}"
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null 2>&1; then
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || true
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null 2>&1 \
        || { command -v podman >/dev/null && command -v buildah >/dev/null \
             || { note "SKIPPED: neither docker nor podman can be installed here"; exit 0; }
             note "could not install ${missing[*]}; trying without"; }
    fi
  fi
  engine=podman
  # This host's hybrid cgroup layout needs runc and cgroupfs; podman's default ulimits cannot
  # be raised here (shared/docs/container-testing.md).
  if ! grep -q 'runtime = "runc"' /etc/containers/containers.conf 2>/dev/null; then
    as_root mkdir -p /etc/containers
    printf '%s\n' '[containers]' 'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]' \
      '[engine]' 'runtime = "runc"' 'cgroup_manager = "cgroupfs"' 'events_logger = "file"' \
      | as_root tee /etc/containers/containers.conf >/dev/null
  fi
fi
note "engine: $engine"

base=docker.io/library/debian:bookworm-slim
if ! $engine image inspect "$base" >/dev/null 2>&1; then
  if ! timeout 60 $engine pull -q "$base" >/dev/null 2>&1; then
    note "no registry: making $base from Debian's packages with mmdebstrap"
    tarball="$(mktemp -d)/bookworm-slim.tar"
    as_root mmdebstrap --quiet --variant=minbase --format=tar \
      --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
      --dpkgopt='path-exclude=/usr/share/groff/*' \
      --customize-hook='rm -rf "$1"/var/cache/apt/*.bin "$1"/var/lib/apt/lists/* "$1"/var/log/*.log "$1"/var/log/apt/*' \
      bookworm "$tarball" >"$tarball.log" 2>&1 || { tail -30 "$tarball.log" >&2; fail "mmdebstrap"; }
    $engine import --change 'CMD ["bash"]' "$tarball" "$base" >"$tarball.log" 2>&1 \
      || { tail -30 "$tarball.log" >&2; fail "importing the base image"; }
    rm -rf "$(dirname "$tarball")"
  fi
fi

# The compiler's output goes to a log, shown only when the build fails.
build_log="$(mktemp)"
build_image() {  # build_image <tag> [--target T]
  local tag="$1"; shift
  if [ "$engine" = podman ]; then
    buildah bud --format docker --layers "$@" -t "$tag" . >"$build_log" 2>&1
  else
    docker build "$@" -t "$tag" . >"$build_log" 2>&1
  fi || { tail -50 "$build_log" >&2; fail "building $tag"; }
}
build_image hostprobe:test
build_image hostprobe:test-slim --target slim
rm -f "$build_log"
size_mb() { $engine image inspect --format '{{.Size}}' "$1" | awk '{printf "%.1f", $1 / 1e6}'; }
note "image sizes: hostprobe:test (distroless, the default) $(size_mb hostprobe:test) MB;" \
     "hostprobe:test-slim (bookworm-slim) $(size_mb hostprobe:test-slim) MB"

# podman would hand the image's HEALTHCHECK to systemd timers, which this host does not run.
run_flags=()
[ "$engine" = podman ] && run_flags=(--no-healthcheck)
limited=hostprobe-test-limited
open=hostprobe-test-open
cleanup() { $engine rm -f "$limited" "$open" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
limited_port=$(free_port)
open_port=$(free_port)
# Port forwarding may hide that the caller is local, so the runs are authorized with a token.
token="container-test-$RANDOM$RANDOM"
run_flags+=(-e "HOSTPROBE_TOKEN=$token")
$engine run -d "${run_flags[@]}" --name "$limited" --cpus 0.25 --memory 512m --memory-swap 512m --read-only --cap-drop ALL \
  -p "127.0.0.1:$limited_port:9740" hostprobe:test >/dev/null
$engine run -d "${run_flags[@]}" --name "$open" --read-only --cap-drop ALL -p "127.0.0.1:$open_port:9740" hostprobe:test >/dev/null

wait_healthy() {
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  $engine logs "$2" >&2 || true
  fail "$2 never answered /healthz"
}
wait_healthy "$limited_port" "$limited"
wait_healthy "$open_port" "$open"
note "/healthz answers in both containers"

host_cpus=$(nproc)
curl -fsS "http://127.0.0.1:$limited_port/v1/host" | python3 -c '
import json, sys
host = json.load(sys.stdin)
expected_cpus = int(sys.argv[1])
assert host["cgroup"]["cpu_quota_cores"] == 0.25, host["cgroup"]
assert host["cpu_budget"]["workers"] == 1, host["cpu_budget"]
assert host["cpu_budget"]["visible_cpus"] == expected_cpus, (host["cpu_budget"], expected_cpus)
assert host["cgroup"]["memory_limit_bytes"] == 512 * 1024 * 1024, host["cgroup"]
print("container test: /v1/host: quota 0.25, 1 worker, %d visible CPUs, 512 MiB" % expected_cpus, file=sys.stderr)
' "$host_cpus" || fail "/v1/host does not show the limits"

# The limited run picks its threads itself ("auto" must give 1); the unlimited one is told 1, so
# both measure one thread.
run_cipher() {
  curl -fsS -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
    -d '{"probe": "cipher", "params": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192], "seconds": 2, "threads": '"$2"'}}' \
    "http://127.0.0.1:$1/v1/runs?wait=60"
}
refused=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -d '{"probe": "cpu"}' "http://127.0.0.1:$limited_port/v1/runs")
[ "$refused" = 401 ] || fail "a POST without the token got HTTP $refused, not 401"
note "a POST without the token gets 401"

# What the quota does is read inside each limited run: the CPU time its thread got per second of
# wall time, which the host's speed cannot change. The unlimited runs, interleaved, check that
# throughput is counted in both clocks: wall time shrinks with the quota, CPU time does not.
# Those two ratios compare separate runs, and a neighbour slowing one run moved them by 40% in
# one CI run, so their bands only catch what a bug would do (a factor of 4: not throttled, or
# wall time counted as CPU time). Three pairs, medians: one noisy moment cannot decide.
pairs=()
for _ in 1 2 3; do
  pairs+=("$(run_cipher "$limited_port" '"auto"')" "$(run_cipher "$open_port" 1)")
done
python3 -c '
import json, statistics, sys
runs = [json.loads(text)["result"] for text in sys.argv[1:]]
shares, walls, cpus = [], [], []
for limited, unlimited in zip(runs[0::2], runs[1::2]):
    l, u = limited["measurements"][0], unlimited["measurements"][0]
    shares.append(l["cpu_seconds"] / l["seconds"])
    walls.append(l["bytes_per_second"] / u["bytes_per_second"])
    cpus.append(l["cpu_bytes_per_second"] / u["cpu_bytes_per_second"])
    assert limited["throttled"] is True, limited["explanation"]
    assert l["threads"] == 1
share, wall, cpu = (statistics.median(values) for values in (shares, walls, cpus))
print("container test: 0.25 CPU (median of 3 pairs): CPU share %.3f (0.15-0.35); vs unlimited: wall %.3f"
      " (0.10-0.60), cpu %.3f (0.50-2.00); throttled, 1 thread; shares %s, walls %s, cpus %s"
      % (share, wall, cpu, *([round(v, 3) for v in values] for values in (shares, walls, cpus))),
      file=sys.stderr)
assert 0.15 <= share <= 0.35, share
assert 0.10 <= wall <= 0.60, wall
assert 0.50 <= cpu <= 2.00, cpu
' "${pairs[@]}" || fail "the cipher run under the quota"

pid=$($engine inspect --format '{{.State.Pid}}' "$limited")
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$uid" = 10001 ] || fail "the agent runs as uid $uid, not 10001"
note "the agent runs as uid 10001"

# The system probe in the distroless image: its copies re-execute the agent, execl and spawn run
# in hostprobe-process-loops beside it (found without a shell), and there is no shell.
curl -fsS -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
  -d '{"probe": "system", "params": {"tests": ["execl", "spawn", "shell", "syscall"], "seconds": 1}}' \
  "http://127.0.0.1:$limited_port/v1/runs?wait=60" | python3 -c '
import json, sys
run = json.load(sys.stdin)
assert run["state"] == "succeeded", run
result = run["result"]
assert result["copies"] == [1], result["copies"]  # auto under a 0.25 quota: one worker
values = {t["name"]: t["value"] for t in result["tests"]}
assert set(values) == {"execl", "spawn", "syscall"} and min(values.values()) > 0, values
skipped = {s["name"]: s["reason"] for s in result["skipped"]}
assert set(skipped) == {"shell_1", "shell_8"} and "no shell at /bin/sh" in skipped["shell_1"], skipped
print("container test: system probe under 0.25 CPU: copies %s, execl %.0f lps, spawn %.0f lps, "
      "syscall %.0f lps, shell skipped (%s)" % (result["copies"], values["execl"], values["spawn"],
      values["syscall"], skipped["shell_1"]), file=sys.stderr)
' || fail "the system probe in the image"

# The same numbers as the binary outside the image (this checkout's build, when there is one):
# execl and spawn in the unlimited container and outside, interleaved, 5 pairs, medians. execl's
# band catches a wrong helper (the agent's own binary execs at a quarter of the rate), not the
# few percent a container's seccomp filter adds to each system call. spawn execs nothing: two CI
# runs saw the image's spawn at 1.56 of the binary's outside (medians of 3 and of 5), and outside
# it is also below UnixBench's (issue 27 looks for why); its band catches only a spawn that is
# broken, execl's the wrong helper.
outside=build/hostprobe
if [ -x "$outside" ] && [ -x build/hostprobe-process-loops ]; then
  system_pairs=()
  for _ in 1 2 3 4 5; do
    system_pairs+=("$(curl -fsS -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
      -d '{"probe": "system", "params": {"tests": ["execl", "spawn"], "copies": [1], "seconds": 2}}' \
      "http://127.0.0.1:$open_port/v1/runs?wait=60")")
    system_pairs+=("$("$outside" run system --json --tests execl,spawn --copies 1 --seconds 2)")
  done
  python3 -c '
import json, statistics, sys
runs = [json.loads(text) for text in sys.argv[1:]]
ratios = {}
for test in ("execl", "spawn"):
    inside = [{t["name"]: t["value"] for t in r["result"]["tests"]}[test] for r in runs[0::2]]
    outside = [{t["name"]: t["value"] for t in r["result"]["tests"]}[test] for r in runs[1::2]]
    ratios[test] = statistics.median(inside) / statistics.median(outside)
    print("container test: system %s in the image %.0f lps, outside %.0f lps (median of 5): %.3f"
          % (test, statistics.median(inside), statistics.median(outside), ratios[test]), file=sys.stderr)
bands = {"execl": (0.67, 1.5), "spawn": (0.5, 2.0)}
assert all(bands[test][0] <= r <= bands[test][1] for test, r in ratios.items()), ratios
' "${system_pairs[@]}" || fail "the system probe in the image against the binary outside it"
else
  note "no build/hostprobe here: the image's system figures are not compared with one outside"
fi

started=$(date +%s.%N)
$engine stop -t 10 "$limited" >/dev/null
elapsed=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$started" "$(date +%s.%N)")
code=$($engine inspect --format '{{.State.ExitCode}}' "$limited")
[ "$code" = 0 ] || fail "stop ended the agent with exit code $code"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 3 else 1)" "$elapsed" || fail "stop took ${elapsed}s (over 3 s)"
note "$engine stop: exit 0 in ${elapsed}s"
note "all container checks passed"
