#!/usr/bin/env bash
# Footprint of the idle agent: RSS after start, exec-to-first-/healthz latency, and /metrics
# under wrk. Prints figures and the targets of issue 2; exits 1 when a target is missed.
#   bench/footprint.sh [path/to/hostprobe]     (needs python3, wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-build/hostprobe}"
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 2; }

python3 - "$binary" <<'PY'
import os, re, signal, socket, statistics, subprocess, sys, time

binary = sys.argv[1]
failed = []

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def healthz_ok(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False

def start(port):
    return subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port],
                            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=5)

def report(name, value, unit, target, ok):
    print("%-38s %10.2f %-4s target %s  %s" % (name, value, unit, target, "ok" if ok else "MISSED"))
    if not ok:
        failed.append(name)

# 1. exec to first 200 on /healthz, median of 10
times = []
for _ in range(10):
    port = free_port()
    t0 = time.perf_counter()
    process = start(port)
    while not healthz_ok(port):
        if process.poll() is not None:
            sys.exit("hostprobe exited during start-up")
        time.sleep(0.0005)
    times.append((time.perf_counter() - t0) * 1000)
    stop(process)
report("exec to first 200 /healthz (median)", statistics.median(times), "ms", "<= 50", statistics.median(times) <= 50)

# 2. idle RSS after start
port = free_port()
process = start(port)
while not healthz_ok(port):
    time.sleep(0.001)
time.sleep(1.0)
with open("/proc/%d/status" % process.pid) as status:
    rss_kib = int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))
report("idle RSS after start", rss_kib / 1024, "MiB", "<= 12", rss_kib / 1024 <= 12)

# 3. /metrics under wrk -t2 -c16 -d10s
out = subprocess.run(["wrk", "-t2", "-c16", "-d10s", "--latency", "http://127.0.0.1:%d/metrics" % port],
                     capture_output=True, text=True).stdout
with open("/proc/%d/status" % process.pid) as status:
    rss_after = int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))
stop(process)
def latency_ms(text):
    number, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
p99 = latency_ms(re.search(r"99%\s+(\S+)", out).group(1))
requests = int(re.search(r"(\d+) requests in", out).group(1))
errors = 0
for pattern in (r"Non-2xx or 3xx responses: (\d+)",):
    match = re.search(pattern, out)
    errors += int(match.group(1)) if match else 0
match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
if match:
    errors += sum(int(x) for x in match.groups())
print("wrk: %d requests in 10 s (%.0f/s), RSS after load %.2f MiB" % (requests, requests / 10, rss_after / 1024))
report("/metrics p99 under wrk -t2 -c16", p99, "ms", "<= 5", p99 <= 5)
report("/metrics errors under wrk", errors, "", "== 0", errors == 0)
sys.exit(1 if failed else 0)
PY
