#!/usr/bin/env bash
# Memory of a 60 s disk run in the daemon: RSS when measuring starts and when it ends; the
# latency histograms are fixed in size, so issue 4's target is growth <= 8 MiB.
#   bench/disk_memory.sh [DIRECTORY] [path/to/hostprobe]
set -euo pipefail
cd "$(dirname "$0")/.."
directory="${1:-/var/tmp}"
binary="${2:-build/hostprobe}"
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
python3 - "$binary" "$directory" <<'PY'
import json, re, socket, subprocess, sys, time, urllib.request

binary, directory = sys.argv[1], sys.argv[2]
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
daemon = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port, "--disk-dir", directory],
                          stderr=subprocess.DEVNULL)
base = "http://127.0.0.1:%d" % port
def rss_mib():
    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/%d/status" % daemon.pid).read()).group(1)) / 1024
def call(path, body=None):
    request = urllib.request.Request(base + path, data=body, headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=120))
for _ in range(200):
    try:
        call("/healthz"); break
    except OSError:
        time.sleep(0.05)
run = call("/v1/runs", json.dumps({"probe": "disk", "params": {"directory": directory, "runtime": 60}}).encode())
while True:
    state = call("/v1/runs/" + run["id"])
    if state["state"] == "running" and state["progress"] > 0.1:
        break
    time.sleep(0.1)
time.sleep(1)
start = rss_mib()
while call("/v1/runs/" + run["id"])["state"] == "running":
    time.sleep(1)
end = rss_mib()
result = call("/v1/runs/" + run["id"])["result"]
daemon.terminate(); daemon.wait()
print("RSS at measuring start %.2f MiB, at the end %.2f MiB, growth %.2f MiB (target <= 8), %d I/Os" %
      (start, end, end - start, result["read"]["total_ios"]))
sys.exit(0 if end - start <= 8 else 1)
PY
