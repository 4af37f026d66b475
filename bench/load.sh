#!/usr/bin/env bash
# The daemon under load while it measures: for DURATION s, wrk on /metrics (-t2 -c16) and on
# GET /v1/runs (-t1 -c4), and 5 POST /v1/runs per second ({"probe":"cpu"}), while a cipher run
# and then a disk run execute (exclusive probes: they queue one after the other, each about
# half of the window). Prints the figures and the targets of the issue; exits 1 when one is
# missed, 2 when the bench cannot run.
#   bench/load.sh [DURATION] [path/to/hostprobe]    (needs python3, wrk: apt-get install wrk)
# Targets: no unexpected errors (429 only with the queue-full or runs-per-minute reason),
# p99 of /metrics <= 10 ms, RSS growth <= 2 MiB, as many fds after as before, exit 0 on
# SIGTERM, no test files left behind. The growth is measured after a warm-up run of each probe
# (and, with LOAD_FULL_HISTORY=1, with the bounded history of finished runs full).
# LOAD_DISK_PARENT (default /var/tmp) is where the disk run's directory is made: real disk, not
# tmpfs. LOAD_SERVE_ARGS adds options to `hostprobe serve` (for diagnosis, e.g.
# "--history-size 5"). The binary is copied into the temporary directory first, so a rebuild
# during the bench cannot change what is measured. LOAD_PAGE=1 also keeps the page open in
# headless chromium (bench/page_viewer.js, tests/js's puppeteer-core) through the window, as a
# person watching the runs would. A person's browser runs on their own machine, not on the
# agent's CPUs; here it shares the two, so it runs at nice 19 (LOAD_PAGE_NICE): its requests
# reach the agent as often (the count is printed), its drawing does not take the agent's CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-30}"
binary="${2:-build/hostprobe}"
parent="${LOAD_DISK_PARENT:-/var/tmp}"
[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -ge 4 ] && [ "$duration" -le 120 ] ||
    { echo "DURATION must be 4..120 seconds" >&2; exit 2; }
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 2; }
[ "$(stat -f -c %T "$parent")" != tmpfs ] ||
    { echo "$parent is tmpfs; set LOAD_DISK_PARENT to a directory on a real disk" >&2; exit 2; }

work="$(mktemp -d "$parent/hostprobe-load.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/disk" "$work/state"
cp "$binary" "$work/hostprobe"

if [ "${LOAD_PAGE:-0}" = 1 ]; then
  command -v chromium >/dev/null || { echo "LOAD_PAGE=1 needs chromium: apt-get install chromium" >&2; exit 2; }
  tests/js/ensure-modules.sh || { echo "LOAD_PAGE=1 needs node and npm" >&2; exit 2; }
fi

python3 - "$work" "$duration" "$binary" "bench/load.lua" "${LOAD_SERVE_ARGS:-}" <<'PY'
import calendar, collections, datetime, hashlib, http.client, json, os, re, resource, shlex
import signal, subprocess, sys, threading, time

work, duration, original, lua = sys.argv[1], int(sys.argv[2]), sys.argv[3], os.path.abspath(sys.argv[4])
serve_args = shlex.split(sys.argv[5])
binary, disk_dir, state_dir = work + "/hostprobe", work + "/disk", work + "/state"
POSTS_PER_SECOND = 5
failed = []

daemon = None
def fail(message):
    print("bench error: " + message, file=sys.stderr)
    if daemon is not None and daemon.poll() is None:
        daemon.kill()
        daemon.wait()
    sys.exit(2)

# --- the daemon -------------------------------------------------------------------------------
log_path = work + "/daemon.log"
log = open(log_path, "w")
daemon = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--disk-dir", disk_dir,
                           "--state-dir", state_dir] + serve_args, stdout=subprocess.DEVNULL, stderr=log)
port = None
deadline = time.monotonic() + 10
while port is None:
    if daemon.poll() is not None:
        fail("hostprobe exited during start-up:\n" + open(log_path).read())
    if time.monotonic() > deadline:
        fail("no 'msg=listening' line within 10 s")
    match = re.search(r"msg=listening address=127\.0\.0\.1:(\d+)", open(log_path).read())
    port = int(match.group(1)) if match else None
    time.sleep(0.01)
listening_line = next(l for l in open(log_path) if "msg=listening" in l)
threads_match = re.search(r"http_threads=(\d+).*runner_threads=(\d+)", listening_line)

def request(method, path, body=None, timeout=10, source="127.0.0.1"):
    """(status, body bytes); a new connection each time, closed afterwards."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                            source_address=(source, 0))
    try:
        headers = {"Connection": "close"}
        if body is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(body).encode()
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()

def get_json(path):
    status, body = request("GET", path)
    if status != 200:
        fail("GET %s answered %d: %s" % (path, status, body[:200]))
    return json.loads(body)

deadline = time.monotonic() + 10
while True:
    try:
        if request("GET", "/healthz", timeout=1)[0] == 200:
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        fail("/healthz did not answer 200 within 10 s")
    time.sleep(0.02)

def status_kib(field):
    return int(re.search(field + r":\s+(\d+)", open("/proc/%d/status" % daemon.pid).read()).group(1))
def fd_count():
    return len(os.listdir("/proc/%d/fd" % daemon.pid))
def daemon_cpu_seconds():
    fields = open("/proc/%d/stat" % daemon.pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
def host_cpu():
    """(busy, steal, total) jiffies over all CPUs, from /proc/stat."""
    values = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = values[:8]
    return user + nice + system + irq + softirq, steal, sum(values[:8])

# --- warm-up and baseline ------------------------------------------------------------------------
for _ in range(300):
    request("GET", "/metrics")
for _ in range(20):
    request("GET", "/v1/runs")
# One short run of each probe and a short burst of the same wrk load first: the growth measured
# is then what the window adds (a leak, a cache without bound), not first use (libcrypto's and
# the engines' code paged in, each thread's stack touched, glibc's per-thread arenas made).
warm_ids = []
for body in ({"probe": "cipher", "params": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192],
                                             "seconds": 1, "threads": 1}},
             {"probe": "disk", "params": {"directory": disk_dir, "rw": "randread", "bs": "16k",
                                          "size": "64m", "runtime": 1, "direct": True}}):
    status, answer = request("POST", "/v1/runs", body)
    if status != 202:
        fail("warm-up POST answered %d: %s" % (status, answer[:300]))
    warm_ids.append(json.loads(answer)["id"])
warm_wrk = [subprocess.Popen(["wrk", "-t%d" % t, "-c%d" % c, "-d3s", "http://127.0.0.1:%d%s" % (port, path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for t, c, path in ((2, 16, "/metrics"), (1, 4, "/v1/runs"))]
for process in warm_wrk:
    process.wait()
deadline = time.monotonic() + 30
while any(get_json("/v1/runs/" + i)["state"] not in ("succeeded", "failed", "cancelled") for i in warm_ids):
    if time.monotonic() > deadline:
        fail("the warm-up runs did not finish within 30 s")
    time.sleep(0.2)
# LOAD_FULL_HISTORY=1: the history of finished runs is bounded (--history-size, 100 by default)
# and full in a daemon that has run a while: fill it with cpu runs first, so the growth
# measured is beyond that steady state (by default the window's own cpu runs grow it, about
# 30 of them, which is bounded growth, not a leak). A full history makes each GET /v1/runs of
# the window's load about 800 KB instead of about 250, so /metrics latency is not comparable
# between the two modes. Each loopback address may start --max-runs-per-minute runs (30 by
# default), so the fill comes from 127.0.0.2 on, leaving the window's own client its budget.
full_history = os.environ.get("LOAD_FULL_HISTORY") == "1"
history_size = int(re.search(r"--history-size[ =](\d+)", " ".join(serve_args)).group(1)) \
    if "--history-size" in " ".join(serve_args) else 100
rss_before_fill, fill_started = status_kib("VmRSS"), time.monotonic()
source_host = 2
while full_history and len(get_json("/v1/runs?limit=1000")["runs"]) < history_size:
    if time.monotonic() - fill_started > 120:
        fail("the history did not fill with %d runs within 120 s" % history_size)
    status, answer = request("POST", "/v1/runs?wait=10", {"probe": "cpu"}, timeout=20,
                             source="127.0.0.%d" % source_host)
    if status == 429:
        source_host += 1
    elif status not in (200, 202):
        fail("filling the history: POST answered %d: %s" % (status, answer[:300]))
time.sleep(0.5)
rss_history_fill = (status_kib("VmRSS") - rss_before_fill) / 1024
rss_before, fds_before = status_kib("VmRSS"), fd_count()
anon_before, file_before = status_kib("RssAnon"), status_kib("RssFile")
fd_targets_before = sorted(os.readlink("/proc/%d/fd/%s" % (daemon.pid, fd))
                           for fd in os.listdir("/proc/%d/fd" % daemon.pid))

# --- the runs, then the load ---------------------------------------------------------------------
cipher_seconds = duration / 2
disk_runtime = max(1, duration - int(cipher_seconds) - 1)  # the layout takes about a second
runs = {}
for name, body in (
        ("cipher", {"probe": "cipher", "params": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192],
                                                  "seconds": cipher_seconds, "threads": 1}}),
        ("disk", {"probe": "disk", "params": {"directory": disk_dir, "rw": "randread", "bs": "16k",
                                              "size": "64m", "runtime": disk_runtime, "direct": True}})):
    status, answer = request("POST", "/v1/runs", body)
    if status != 202:
        fail("POST %s run answered %d: %s" % (name, status, answer[:300]))
    runs[name] = json.loads(answer)["id"]

# Every run we start, by id: its newest record. A finished run can leave the history (the
# cpu runs push it out with a small --history-size); the state directory's journal has it then.
FINISHED = ("succeeded", "failed", "cancelled")
tracked = {run_id: None for run_id in runs.values()}
tracked_lock = threading.Lock()
def refresh():
    with tracked_lock:
        pending = [i for i, r in tracked.items() if r is None or r["state"] not in FINISHED + ("evicted",)]
    for run_id in pending:
        status, answer = request("GET", "/v1/runs/" + run_id)
        with tracked_lock:
            if status == 200:
                tracked[run_id] = json.loads(answer)
            elif status == 404:
                tracked[run_id] = dict(tracked[run_id] or {}, id=run_id, state="evicted")
    return len(pending)
def from_journal(run_id):
    record = None
    for line in open(state_dir + "/runs.jsonl"):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("run", {}).get("id") == run_id:
            record = entry["run"]
    return record

def start_wrk(threads, connections, path):
    return subprocess.Popen(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % duration,
                             "--latency", "-s", lua, "http://127.0.0.1:%d%s" % (port, path)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

posts = collections.Counter()       # "202", "429 queue full", "429 runs per minute", "500", ...
unexpected_posts = []
def post_loop(t0):
    for i in range(duration * POSTS_PER_SECOND):
        delay = t0 + i / POSTS_PER_SECOND - time.time()
        if delay > 0:
            time.sleep(delay)
        try:
            status, answer = request("POST", "/v1/runs", {"probe": "cpu"})
        except OSError as error:
            posts["socket error"] += 1
            unexpected_posts.append(str(error))
            continue
        if status == 202:
            posts["202"] += 1
            with tracked_lock:
                tracked[json.loads(answer)["id"]] = None
        elif status == 429 and b"run queue is full" in answer:
            posts["429 (queue full)"] += 1
        elif status == 429 and b"too many runs in the last minute" in answer:
            posts["429 (runs per minute)"] += 1
        else:
            posts[str(status)] += 1
            unexpected_posts.append("%d %s" % (status, answer[:200].decode(errors="replace")))

def own_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

viewer = None
if os.environ.get("LOAD_PAGE") == "1":
    viewer = subprocess.Popen(["nice", "-n", os.environ.get("LOAD_PAGE_NICE", "19"), "node", "bench/page_viewer.js",
                               "http://127.0.0.1:%d/" % port, str(duration)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if viewer.stdout.readline().strip() != "page loaded":
        fail("the page did not load in chromium:\n" + viewer.stdout.read())

cpu_at_start, host_at_start, own_at_start = daemon_cpu_seconds(), host_cpu(), own_cpu_seconds()
load_at_start, t0 = " ".join(open("/proc/loadavg").read().split()[:3]), time.time()
wrk_metrics = start_wrk(2, 16, "/metrics")
wrk_runs = start_wrk(1, 4, "/v1/runs")
poster = threading.Thread(target=post_loop, args=(t0,), daemon=True)
poster.start()
window_over = threading.Event()
def track_loop():
    while not window_over.wait(0.5):
        refresh()
tracker = threading.Thread(target=track_loop, daemon=True)
tracker.start()

def finish(process):
    output = process.stdout.read()   # until wrk exits; then its exit status and CPU time
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    match = re.search(r"^LOAD_JSON (\{.*\})$", output, re.M)
    if process.returncode != 0 or not match:
        fail("wrk failed (exit %d):\n%s" % (process.returncode, output))
    figures = json.loads(match.group(1))
    figures["cpu_seconds"] = usage.ru_utime + usage.ru_stime
    figures["output"] = output
    return figures

metrics_figures, runs_figures = finish(wrk_metrics), finish(wrk_runs)
poster.join()
window_over.set()
tracker.join()
window_end = time.time()
cpu_in_window, host_at_end = daemon_cpu_seconds() - cpu_at_start, host_cpu()
own_in_window = own_cpu_seconds() - own_at_start
rss_peak_in_window = status_kib("VmHWM")

# --- after the window ----------------------------------------------------------------------------
deadline = time.monotonic() + duration + 120
while refresh():
    if time.monotonic() > deadline:
        fail("runs still active %d s after the window" % (duration + 120))
    time.sleep(0.5)
for run_id, record in tracked.items():
    if record["state"] == "evicted":
        tracked[run_id] = from_journal(run_id) or record
states = {name: tracked[run_id] for name, run_id in runs.items()}
cpu_runs = collections.Counter(record["state"] for run_id, record in tracked.items()
                               if run_id not in runs.values())
time.sleep(3.0)  # longer than the agent's 2 s memory-trim interval
for _ in range(50):
    request("GET", "/metrics")
time.sleep(0.5)
rss_after, fds_after = status_kib("VmRSS"), fd_count()
anon_after, file_after = status_kib("RssAnon"), status_kib("RssFile")
settled = 0.0
while fds_after != fds_before and settled < 5:   # a socket the kernel is still closing is no leak
    time.sleep(0.5)
    settled += 0.5
    fds_after = fd_count()
fd_targets_after = sorted(os.readlink("/proc/%d/fd/%s" % (daemon.pid, fd))
                          for fd in os.listdir("/proc/%d/fd" % daemon.pid))

stop_started = time.monotonic()
daemon.send_signal(signal.SIGTERM)
try:
    exit_status = daemon.wait(timeout=10)
except subprocess.TimeoutExpired:
    daemon.kill()
    exit_status = "still running 10 s after SIGTERM (killed)"
stop_seconds = time.monotonic() - stop_started
log.close()
leftovers = sorted(os.listdir(disk_dir))
daemon_log = open(log_path).read()
warnings = [l for l in daemon_log.splitlines() if "level=warn" in l or "level=error" in l]

# --- summary -------------------------------------------------------------------------------------
def parse_time(text):
    if not text:
        return None
    whole, _, fraction = text.rstrip("Z").partition(".")
    seconds = calendar.timegm(datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").timetuple())
    return seconds + (float("0." + fraction) if fraction else 0.0)

def ms(us):
    return us / 1000.0

def report(name, ok, detail):
    print("  %-34s %-6s %s" % (name, "PASS" if ok else "FAIL", detail))
    if not ok:
        failed.append(name)

digest = hashlib.sha256(open(binary, "rb").read()).hexdigest()[:12]
ticks = os.sysconf("SC_CLK_TCK")
busy = (host_at_end[0] - host_at_start[0]) / ticks
steal = (host_at_end[1] - host_at_start[1]) / ticks
total = (host_at_end[2] - host_at_start[2]) / ticks
wrk_cpu = metrics_figures["cpu_seconds"] + runs_figures["cpu_seconds"]
others = busy - cpu_in_window - wrk_cpu - own_in_window
print("hostprobe load bench: %d s window, %s%s (sha256 %s, built %s), http_threads=%s runner_threads=%s" % (
    duration, original, (" serve " + " ".join(serve_args)) if serve_args else "", digest,
    time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.stat(original).st_mtime)),
    threads_match.group(1) if threads_match else "?", threads_match.group(2) if threads_match else "?"))
print("CPU in the window: %.1f of %.1f CPU-s busy (%d CPUs, steal %.1f): hostprobe %.1f, wrk %.1f, "
      "this script %.1f, other processes %.1f; load average %s before, %s after" % (
          busy, total, os.cpu_count(), steal, cpu_in_window, wrk_cpu, own_in_window, max(0.0, others),
          load_at_start, " ".join(open("/proc/loadavg").read().split()[:3])))
print()
for label, figures in (("wrk -t2 -c16 /metrics", metrics_figures), ("wrk -t1 -c4 GET /v1/runs", runs_figures)):
    seconds = figures["duration_us"] / 1e6
    print("%-25s %7d requests, %7.0f req/s, latency p50 %.2f ms, p90 %.2f, p99 %.2f, p99.9 %.2f, max %.2f ms" % (
        label, figures["requests"], figures["requests"] / seconds, ms(figures["p50_us"]), ms(figures["p90_us"]),
        ms(figures["p99_us"]), ms(figures["p999_us"]), ms(figures["max_us"])))
    print("%-25s non-2xx %d; socket errors: connect %d, read %d, write %d, timeout %d" % (
        "", figures["non_2xx_3xx"], figures["connect_errors"], figures["read_errors"],
        figures["write_errors"], figures["timeouts"]))
print("POST /v1/runs {cpu} at %d/s  %s (%d sent)" % (
    POSTS_PER_SECOND, ", ".join("%s: %d" % item for item in sorted(posts.items())), sum(posts.values())))
print("cpu runs started          %s" % (", ".join("%s: %d" % item for item in sorted(cpu_runs.items())) or "none"))
for name, run in states.items():
    started, finished = parse_time(run.get("started_at")), parse_time(run.get("finished_at"))
    span = "ran %+.1f s .. %+.1f s of the window (0 .. %d)" % (started - t0, finished - t0, duration) \
        if started and finished else "never ran"
    extra = ""
    if name == "cipher" and run.get("result"):
        m = run["result"]["measurements"][0]
        extra = ", %.0f MB/s wall, %.0f MB/s CPU" % (m["bytes_per_second"] / 1e6, m["cpu_bytes_per_second"] / 1e6)
    if name == "disk" and run.get("result"):
        read = run["result"]["read"]
        extra = ", %.0f IOPS, clat p99 %.0f us, layout %.1f s" % (
            read["iops"], read["clat_ns"]["percentile"]["99.000000"] / 1000, run["result"]["layout_seconds"])
    print("%-6s run %-18s %s, %s%s%s" % (name, run["id"], run["state"], span, extra,
                                        ("; error: " + run["error"]) if run.get("error") else ""))
print("RSS                       before %.2f MiB, after %.2f MiB, growth %+.2f MiB (peak %.2f MiB)" % (
    rss_before / 1024, rss_after / 1024, (rss_after - rss_before) / 1024, rss_peak_in_window / 1024))
print("                          of which anonymous %+.2f MiB, file-backed %+.2f MiB (after a warm-up run of each probe" % (
    (anon_after - anon_before) / 1024, (file_after - file_before) / 1024))
print("                          %s)" % (
    "and a full history of %d runs, which added %+.2f MiB" % (history_size, rss_history_fill) if full_history
    else "the window's cpu runs add to the history; LOAD_FULL_HISTORY=1 fills it first"))
print("file descriptors          before %d, after %d%s" % (
    fds_before, fds_after, " (after %.1f s more)" % settled if settled else ""))
if fd_targets_after != fd_targets_before:
    gone = collections.Counter(fd_targets_before) - collections.Counter(fd_targets_after)
    new = collections.Counter(fd_targets_after) - collections.Counter(fd_targets_before)
    print("                          new: %s; gone: %s" % (dict(new), dict(gone)))
print("SIGTERM                   exit %s after %.2f s; disk dir after: %s" % (
    exit_status, stop_seconds, leftovers or "empty"))
if warnings:
    print("daemon warnings/errors    %d, first: %s" % (len(warnings), warnings[0]))
for message in unexpected_posts[:5]:
    print("unexpected POST answer    " + message)

if viewer is not None:
    viewer_output = viewer.stdout.read().strip()
    _, viewer_status, viewer_usage = os.wait4(viewer.pid, 0)   # node and chromium's processes
    viewer.returncode = os.waitstatus_to_exitcode(viewer_status)
    print("page in chromium          %s; chromium and node used %.1f CPU-s (nice %s)" % (
        viewer_output.replace("\n", "; "), viewer_usage.ru_utime + viewer_usage.ru_stime,
        os.environ.get("LOAD_PAGE_NICE", "19")))
    if viewer.returncode != 0:
        failed.append("page viewer")

print()
print("targets:")
metrics_p99 = ms(metrics_figures["p99_us"])
report("/metrics p99 <= 10 ms", metrics_p99 <= 10, "%.2f ms" % metrics_p99)
growth = (rss_after - rss_before) / 1024
report("RSS growth <= 2 MiB", growth <= 2, "%+.2f MiB" % growth)
report("fds equal (none leaked)", fds_after == fds_before, "%d before, %d after" % (fds_before, fds_after))
wrk_errors = sum(f[k] for f in (metrics_figures, runs_figures)
                 for k in ("non_2xx_3xx", "connect_errors", "read_errors", "write_errors", "timeouts"))
run_problems = [name for name, run in states.items() if run["state"] != "succeeded"]
run_problems += ["%d cpu runs %s" % (n, state) for state, n in cpu_runs.items() if state != "succeeded"]
report("no unexpected errors", wrk_errors == 0 and not unexpected_posts and not run_problems and posts["202"] > 0,
       "wrk errors %d, unexpected POST answers %d, runs not succeeded: %s" % (
           wrk_errors, len(unexpected_posts), ", ".join(run_problems) or "none"))
report("exit 0 on SIGTERM", exit_status == 0, "exit %s" % exit_status)
report("no test files left", not leftovers, ", ".join(leftovers) or "none")
sys.exit(1 if failed else 0)
PY
