#!/usr/bin/env bash
# What the agent costs the task it lives in (issue 29), with its targets; exits 1 when one is
# missed. Sections 1-3 run FOOTPRINT_ROUNDS (3) times on fresh agents, medians reported:
#  1. exec to the first 200 on /healthz (<= 15 ms);
#  2. idle RSS and anonymous memory after one GET of every endpoint a person or Prometheus uses
#     and every file of the page (<= 8.0 and <= 1.5 MiB), and the page's first load (gzip);
#  3. /metrics p99 under wrk -t2 -c16 (<= 1.5 ms), beside the machine's floor (bench/floor_server.cpp:
#     the same library, a thread per connection, a constant body as large; built with g++ into
#     a scratch folder); FOOTPRINT_PAGE=1 keeps the page open in
#     headless chromium meanwhile, at nice 19 (FOOTPRINT_PAGE_NICE);
#  4. the CPU of a scrape, per 1000 GET /metrics (FOOTPRINT_SCRAPES, 2000), beside Debian's
#     node_exporter when installed (apt-get install prometheus-node-exporter; started here on
#     a free loopback port, never the system service);
#  5. the ECS task stats reader's cost (issue 28);
#  6. RSS after a run of each probe and a full history of 100 runs: within 1 MiB of idle;
#  7. the cost in the user's terms: the agent and node_exporter each in a child cgroup shaped
#     like a 0.25 vCPU / 512 MiB task, scraped every 15 s as Prometheus does, the page open,
#     for FOOTPRINT_COST_SECONDS (300): CPU per hour as a share of 0.25 vCPU (<= 0.1%) and
#     memory as a share of 512 MiB. Needs root (skipped with the reason otherwise).
#   bench/footprint.sh [path/to/hostprobe]     (needs python3, wrk: apt-get install wrk)
# BENCH_SCRATCH: where section 6's disk and files runs write (/var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-build/hostprobe}"
[ -x "$binary" ] || { echo "build first: scripts/setup.sh build" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 2; }

if [ "${FOOTPRINT_PAGE:-0}" = 1 ]; then
  command -v chromium >/dev/null || { echo "FOOTPRINT_PAGE=1 needs chromium" >&2; exit 2; }
  tests/js/ensure-modules.sh || { echo "FOOTPRINT_PAGE=1 needs node and npm" >&2; exit 2; }
fi

python3 - "$binary" <<'PY'
import atexit, http.client, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, "bench")
from quota_cgroup import TaskCgroup

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

def start(port, options=(), environment=None):
    return subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port] + list(options),
                            env=environment, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)

def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=5)

def report(name, value, unit, target, ok):
    print("%-38s %10.2f %-4s target %s  %s" % (name, value, unit, target, "ok" if ok else "MISSED"))
    if not ok:
        failed.append(name)

# Sections 1 to 3 run FOOTPRINT_ROUNDS times (3), each on a fresh agent, and report the median.
ROUNDS = int(os.environ.get("FOOTPRINT_ROUNDS", "3"))
# Idle means after the agent's memory trimmer has passed (src/app/memory_trimmer): 2 s after
# a burst it noticed (start-up is one), and again after the serving threads the burst started
# have ended (5 s without a connection, http::BoundedPool) and 2 s more. An agent Prometheus
# scrapes every 15 s is like that between scrapes.
TRIM_WAIT = 2.5
IDLE_WAIT = 2 + 5 + 2 + 1
# The trimmer drops the pages of code and read-only data on its first pass and after each run
# (src/app/unwritten_pages): every endpoint is scraped after that, so the RSS counts all the
# code they run (scraped before it, the drop would hide theirs too).
def wait_for_code_release():
    time.sleep(TRIM_WAIT + 0.5)

def memory_kib(pid):
    """Resident and anonymous KiB of a process (/proc/<pid>/smaps_rollup)."""
    with open("/proc/%d/smaps_rollup" % pid) as rollup:
        text = rollup.read()
    return (int(re.search(r"^Rss:\s+(\d+)", text, re.M).group(1)),
            int(re.search(r"^Anonymous:\s+(\d+)", text, re.M).group(1)))

def get(port, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body

def median_of_rounds(name, values, unit, target, ok):
    shown = ", ".join("%.2f" % v for v in values)
    report(name, statistics.median(values), unit, target, ok(statistics.median(values)))
    print("%38s   rounds: %s" % ("", shown))

# What a person or Prometheus asks of an agent: /metrics, /healthz, /v1/host, /v1/runs, /v1/task
# (404 outside ECS), the OpenAPI document, GET / as a navigation and every file of the page
# (src/ui, LICENSE and all, an upper bound); returns the page's bytes as sent (gzip).
page_files = [os.path.relpath(os.path.join(folder, name), "src/ui")
              for folder, _, names in os.walk("src/ui") for name in names if not name.startswith(".")]
def scrape_every_endpoint(port):
    page_bytes = 0
    for path in ("/metrics", "/healthz", "/v1/host", "/v1/runs", "/v1/task", "/openapi.json"):
        status, _ = get(port, path)
        if status not in (200, 404):
            sys.exit("GET %s answered %d" % (path, status))
    for path in ["/"] + ["/ui/" + name for name in page_files if name != "index.html"]:
        status, body = get(port, path, {"Accept": "text/html,*/*;q=0.8",
                                        "Accept-Encoding": "gzip, deflate, br"})
        if status != 200:
            sys.exit("GET %s answered %d" % (path, status))
        page_bytes += len(body)
    return page_bytes

def latency_ms(text):
    number, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

def wrk_metrics(port, seconds):
    """/metrics under wrk -t2 -c16: (p99 ms, requests, errors)."""
    out = subprocess.run(["wrk", "-t2", "-c16", "-d%ds" % seconds, "--latency",
                          "http://127.0.0.1:%d/metrics" % port], capture_output=True, text=True).stdout
    errors = 0
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors += int(match.group(1)) if match else 0
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if match:
        errors += sum(int(x) for x in match.groups())
    p99 = re.search(r"99%\s+([\d.]+[a-z]+)", out)
    requests = re.search(r"(\d+) requests in", out)
    if not p99 or not requests:
        sys.exit("wrk printed no latency or request count:\n" + out)
    return latency_ms(p99.group(1)), int(requests.group(1)), errors

# The machine's floor for section 3 (bench/floor_server.cpp): cpp-httplib with a thread per
# connection and a constant body as large as the agent's /metrics, under the same wrk, in each
# round right after the agent. Built here when g++ and cpp-httplib's headers are at hand.
floor_scratch = tempfile.mkdtemp(prefix="footprint-floor-")
atexit.register(shutil.rmtree, floor_scratch, True)
floor_binary = os.path.join(floor_scratch, "floor_server")
floor_built = subprocess.run(["g++", "-O2", "-std=c++20", "bench/floor_server.cpp", "-o", floor_binary,
                              "-lcpp-httplib", "-lpthread"], capture_output=True, text=True)
if floor_built.returncode != 0:
    print("the floor server did not build (g++, libcpp-httplib-dev): " + floor_built.stderr[-300:])
floor_p99s = []

def floor_p99(body_bytes):
    port = free_port()
    server = subprocess.Popen([floor_binary, str(port), str(body_bytes), "16"])
    deadline = time.monotonic() + 5
    while not healthz_ok(port):
        if server.poll() is not None or time.monotonic() > deadline:
            sys.exit("the floor server did not start")
        time.sleep(0.005)
    p99, _, _ = wrk_metrics(port, 10)
    stop(server)
    return p99

starts, idle_rss, idle_anon, p99s = [], [], [], []
for round_number in range(ROUNDS):
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
    starts.append(statistics.median(times))

    # 2. idle RSS and anonymous memory after one GET of every endpoint and page file
    port = free_port()
    process = start(port)
    while not healthz_ok(port):
        time.sleep(0.001)
    wait_for_code_release()
    page_bytes = scrape_every_endpoint(port)
    time.sleep(IDLE_WAIT)
    rss, anon = memory_kib(process.pid)
    idle_rss.append(rss / 1024)
    idle_anon.append(anon / 1024)

    # 3. /metrics under wrk -t2 -c16 -d10s (with the page open in chromium: FOOTPRINT_PAGE=1)
    viewer = None
    if os.environ.get("FOOTPRINT_PAGE") == "1":
        viewer = subprocess.Popen(["nice", "-n", os.environ.get("FOOTPRINT_PAGE_NICE", "19"), "node",
                                   "bench/page_viewer.js", "http://127.0.0.1:%d/" % port, "10"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if viewer.stdout.readline().strip() != "page loaded":
            sys.exit("the page did not load in chromium:\n" + viewer.stdout.read())
    metrics_bytes = len(get(port, "/metrics")[1])
    p99, requests, errors = wrk_metrics(port, 10)
    rss_after, _ = memory_kib(process.pid)
    stop(process)
    p99s.append(p99)
    print("round %d: wrk %d requests in 10 s (%.0f/s), %d errors, RSS after load %.2f MiB"
          % (round_number + 1, requests, requests / 10, errors, rss_after / 1024))
    if floor_built.returncode == 0:
        floor_p99s.append(floor_p99(metrics_bytes))
        print("round %d: /metrics p99 %.2f ms; the floor server, %d bytes, %.2f ms (%.2fx)"
              % (round_number + 1, p99, metrics_bytes, floor_p99s[-1], p99 / floor_p99s[-1]))
    if viewer is not None:
        print("page in chromium: " + viewer.stdout.read().strip().replace("\n", "; "))
        if viewer.wait() != 0:
            failed.append("page viewer")
    if errors:
        failed.append("/metrics errors under wrk")

median_of_rounds("exec to first 200 /healthz (median)", starts, "ms", "<= 15", lambda v: v <= 15)
median_of_rounds("idle RSS after every endpoint", idle_rss, "MiB", "<= 8.0", lambda v: v <= 8.0)
median_of_rounds("idle anonymous memory", idle_anon, "MiB", "<= 1.5", lambda v: v <= 1.5)
report("page's first load, gzip (%d files)" % len(page_files), page_bytes / 1024, "KiB",
       "<= 150", page_bytes / 1024 <= 150)
median_of_rounds("/metrics p99 under wrk -t2 -c16", p99s, "ms", "<= 1.5", lambda v: v <= 1.5)
if floor_p99s:
    print("  the machine's floor (bench/floor_server.cpp, same wrk, same body size): p99 %.2f ms "
          "(%s); the agent's median is %.2fx it"
          % (statistics.median(floor_p99s), ", ".join("%.2f" % v for v in floor_p99s),
             statistics.median(p99s) / statistics.median(floor_p99s)))

# 4. CPU cost of a scrape: one client, scrapes one after another over keep-alive connections
# (reopened when the server closes one), so the figure is the exporter's work per scrape and
# not queueing. Ticks of /proc/<pid>/stat (utime + stime) before and after.
SCRAPES = int(os.environ.get("FOOTPRINT_SCRAPES", "2000"))
CLK_TCK = os.sysconf("SC_CLK_TCK")

def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime (fields 14, 15)

def scrape_cost(pid, port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    def scrape():
        connection.request("GET", "/metrics")
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit("GET /metrics answered %d" % response.status)
        if response.will_close:
            connection.close()
        return len(body)
    size = scrape()  # warm: first-scrape set-up is not the steady cost
    before, t0 = cpu_seconds(pid), time.perf_counter()
    for _ in range(SCRAPES):
        scrape()
    wall = time.perf_counter() - t0
    used = cpu_seconds(pid) - before
    connection.close()
    return used * 1000 / SCRAPES, wall * 1000 / SCRAPES, size

def wait_for_metrics(port, process, name):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(name + " exited during start-up")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        time.sleep(0.01)
    sys.exit(name + " did not answer /metrics within 10 s")

port = free_port()
process = start(port)
wait_for_metrics(port, process, "hostprobe")
ours, ours_wall, ours_size = scrape_cost(process.pid, port)
stop(process)
print("hostprobe CPU per 1000 GET /metrics      %10.2f s    (%.2f ms wall per scrape, %d bytes)"
      % (ours, ours_wall, ours_size))
node_exporter = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
if node_exporter:
    port = free_port()
    exporter = subprocess.Popen([node_exporter, "--web.listen-address=127.0.0.1:%d" % port],
                                stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        wait_for_metrics(port, exporter, "node_exporter")
        theirs, theirs_wall, theirs_size = scrape_cost(exporter.pid, port)
    finally:
        exporter.send_signal(signal.SIGTERM)
        exporter.wait(timeout=10)
    print("node_exporter CPU per 1000 GET /metrics  %10.2f s    (%.2f ms wall per scrape, %d bytes)"
          % (theirs, theirs_wall, theirs_size))
    if theirs > 0:
        print("hostprobe / node_exporter CPU per scrape %10.3f" % (ours / theirs))
else:
    print("node_exporter not installed (apt-get install prometheus-node-exporter): no comparison")

# 5. The ECS task stats reader (issue 28), agents side by side: outside ECS, and in a pretend
# ECS task (tests/support/fake_ecs.py serving a 20-container task) reading its stats every 10 s
# (the default), every second, and once (--ecs-stats-interval 3600). Its CPU per read is what the
# every-second agent used beyond the one outside ECS over FOOTPRINT_TASK_SECONDS (60), scaled to
# an hour at 10 s. Targets: idle RSS of the 10 s agent at most 0.5 MiB above the one outside
# ECS; /metrics p99 under wrk of the every-second agent not above the read-once one's (the same
# exposition: what the reads cost the scrapes), within 10% + 0.05 ms for the machine's noise.
TASK_SECONDS = int(os.environ.get("FOOTPRINT_TASK_SECONDS", "60"))
fixtures = "tests/fixtures/ecs/ecs_exporter"
with open(os.path.join(fixtures, "fargate_task_metadata.json")) as f:
    task = json.load(f)
with open(os.path.join(fixtures, "fargate_task_stats.json")) as f:
    stats = json.load(f)
running = next(c for c in task["Containers"] if stats.get(c["DockerId"]))
containers, task_stats = [], {}
for i in range(20):
    container = dict(running, Name="app-%02d" % i, DockerId="id-%02d" % i)
    containers.append(container)
    task_stats[container["DockerId"]] = dict(stats[running["DockerId"]], name=container["Name"])
task["Containers"] = containers
scratch = tempfile.mkdtemp(prefix="footprint-ecs-")
for name, document in (("task.json", task), ("stats.json", task_stats)):
    with open(os.path.join(scratch, name), "w") as f:
        json.dump(document, f)
fake = subprocess.Popen(["python3", "-u", "tests/support/fake_ecs.py", "--prefix", "/v4/bench",
                         "--cores", "0.01", "--task", os.path.join(scratch, "task.json"),
                         "--stats", os.path.join(scratch, "stats.json")],
                        stdout=subprocess.PIPE, text=True)
fake_port = int(fake.stdout.readline().split()[1])

def start_agent(port, interval):
    if not interval:
        return start(port)
    environment = dict(os.environ,
                       ECS_CONTAINER_METADATA_URI_V4="http://127.0.0.1:%d/v4/bench" % fake_port)
    return start(port, ["--ecs-stats-interval", str(interval)], environment)

agents = {}
try:
    intervals = {"outside": None, "every 10 s": 10, "every second": 1, "once": 3600}
    ports = {name: free_port() for name in intervals}
    agents = {name: start_agent(ports[name], interval) for name, interval in intervals.items()}
    for name, port in ports.items():
        wait_for_metrics(port, agents[name], "hostprobe (%s)" % name)
    before = {name: cpu_seconds(process.pid) for name, process in agents.items()}
    time.sleep(TASK_SECONDS)
    used = {name: cpu_seconds(process.pid) - before[name] for name, process in agents.items()}
    # Each scraped once more after the trimmer dropped start-up's code: the RSS then counts
    # what serving runs, and for the readers what reading runs.
    for port in ports.values():
        scrape_every_endpoint(port)
    time.sleep(IDLE_WAIT)
    rss = {name: memory_kib(process.pid)[0] / 1024 for name, process in agents.items()}
    per_read = max(used["every second"] - used["outside"], 0) / TASK_SECONDS
    per_hour = per_read * 360
    print("task stats reader, 20 containers: %.2f ms CPU per read; at 10 s: %.2f s CPU per hour "
          "(%.3f%% of 0.25 vCPU)" % (per_read * 1000, per_hour, per_hour / 900 * 100))
    print("idle RSS: outside ECS %.2f MiB, reading every 10 s %.2f MiB, every second %.2f MiB"
          % (rss["outside"], rss["every 10 s"], rss["every second"]))
    moved = rss["every 10 s"] - rss["outside"]
    report("idle RSS moved by the task stats reader", moved, "MiB", "<= 0.5", moved <= 0.5)
    p99 = {name: wrk_metrics(ports[name], 5)[0] for name in ("once", "every second", "outside")}
    print("/metrics p99 under wrk -t2 -c16: outside ECS %.2f ms; 20-container task read once "
          "%.2f ms, read every second %.2f ms"
          % (p99["outside"], p99["once"], p99["every second"]))
    report("/metrics p99, reads every second / once", p99["every second"] / p99["once"], "x",
           "<= 1.1 (+0.05 ms)", p99["every second"] <= p99["once"] * 1.1 + 0.05)
finally:
    for process in agents.values():
        stop(process)
    fake.terminate()
    fake.wait(timeout=5)
# 6. Finished runs leave nothing resident without reason: one run of each probe, then 100 cpu
# runs so that the history (--history-size 100) is full, and every endpoint scraped again;
# the RSS must come back within 1 MiB of the idle agent's.
def post_run(port, body, seconds):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=seconds + 30)
    connection.request("POST", "/v1/runs?wait=%d" % seconds, json.dumps(body),
                       {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.read()
    connection.close()
    if response.status not in (200, 202):
        sys.exit("POST /v1/runs %s answered %d: %s" % (body["probe"], response.status, answer[:300]))
    run = json.loads(answer)
    deadline = time.monotonic() + seconds + 60
    while run["state"] not in ("succeeded", "failed", "cancelled"):
        if time.monotonic() > deadline:
            sys.exit("the %s run did not finish" % body["probe"])
        time.sleep(0.2)
        run = json.loads(get(port, "/v1/runs/" + run["id"])[1])
    if run["state"] != "succeeded":
        sys.exit("the %s run ended %s: %s" % (body["probe"], run["state"], json.dumps(run)[:300]))

scratch_runs = tempfile.mkdtemp(prefix="footprint-runs-", dir=os.environ.get("BENCH_SCRATCH", "/var/tmp"))
port = free_port()
process = start(port, ["--disk-dir", scratch_runs, "--max-runs-per-minute", "0"])
try:
    while not healthz_ok(port):
        time.sleep(0.001)
    wait_for_code_release()
    scrape_every_endpoint(port)
    time.sleep(IDLE_WAIT)
    idle, _ = memory_kib(process.pid)
    after = {}
    for body, seconds in (
            ({"probe": "cpu"}, 10),
            ({"probe": "cipher", "params": {"ciphers": ["aes-128-gcm", "chacha20"], "block_sizes": [16, 8192],
                                            "seconds": 0.3}}, 30),
            ({"probe": "disk", "params": {"directory": scratch_runs, "size": "16m", "runtime": 1}}, 30),
            ({"probe": "files", "params": {"directory": scratch_runs, "files": 200}}, 30),
            ({"probe": "system", "params": {"seconds": 1}}, 120)):
        post_run(port, body, seconds)
        wait_for_code_release()
        scrape_every_endpoint(port)
        time.sleep(IDLE_WAIT)
        after[body["probe"]] = memory_kib(process.pid)[0]
    for _ in range(100):
        post_run(port, {"probe": "cpu"}, 10)
    wait_for_code_release()
    scrape_every_endpoint(port)
    time.sleep(IDLE_WAIT)
    full, _ = memory_kib(process.pid)
finally:
    stop(process)
    shutil.rmtree(scratch_runs, ignore_errors=True)
print("RSS after a run of each probe (MiB): idle %.2f; %s; history of 100 runs %.2f"
      % (idle / 1024, ", ".join("%s %.2f" % (name, kib / 1024) for name, kib in after.items()), full / 1024))
grown = (max(list(after.values()) + [full]) - idle) / 1024
report("RSS above idle after runs (largest)", grown, "MiB", "<= 1.0", grown <= 1.0)

# 7. The cost in the user's terms: the agent and node_exporter side by side, each alone in a
# child cgroup shaped like the smallest Fargate task (0.25 vCPU, 512 MiB), scraped as
# Prometheus scrapes (every 15 s, its Accept and gzip), the agent's page open in chromium
# (outside the cgroups, as a person's browser is) for FOOTPRINT_COST_SECONDS (300). CPU from
# each cgroup's accounting; memory as RSS and as the cgroup's charge (page cache included).
COST_SECONDS = int(os.environ.get("FOOTPRINT_COST_SECONDS", "300"))
PROMETHEUS_HEADERS = {"Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
                      "Accept-Encoding": "gzip", "X-Prometheus-Scrape-Timeout-Seconds": "10"}
exporters = {"hostprobe": lambda port: [binary, "serve", "--listen", "127.0.0.1:%d" % port]}
if node_exporter:
    exporters["node_exporter"] = lambda port: [node_exporter, "--web.listen-address=127.0.0.1:%d" % port]
groups, running, viewer = {}, {}, None
try:
    why_not = None
    for name in exporters:
        groups[name] = TaskCgroup("hostprobe-footprint-" + name.replace("_", "-"), 0.25, 512 << 20)
        why_not = why_not or groups[name].make()
    if why_not:
        print("cost in a 0.25 vCPU / 512 MiB task: skipped (%s)" % why_not)
    else:
        ports = {name: free_port() for name in exporters}
        for name, command in exporters.items():
            running[name] = subprocess.Popen(groups[name].command(command(ports[name])),
                                             stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        for name in exporters:
            wait_for_metrics(ports[name], running[name], name)
        if shutil.which("chromium") and os.path.isdir("tests/js/node_modules/puppeteer-core"):
            viewer = subprocess.Popen(["nice", "-n", "19", "node", "bench/page_viewer.js",
                                       "http://127.0.0.1:%d/" % ports["hostprobe"], str(COST_SECONDS + 30)],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if viewer.stdout.readline().strip() != "page loaded":
                sys.exit("the page did not load in chromium")
        for name in exporters:
            get(ports[name], "/metrics", PROMETHEUS_HEADERS)
        before = {name: groups[name].cpu_seconds() for name in exporters}
        t0 = time.monotonic()
        scrapes = 0
        while time.monotonic() - t0 < COST_SECONDS:
            next_scrape = t0 + 15 * (scrapes + 1)
            time.sleep(max(0.0, min(next_scrape, t0 + COST_SECONDS) - time.monotonic()))
            if time.monotonic() - t0 >= COST_SECONDS:
                break
            for name in exporters:
                status, _ = get(ports[name], "/metrics", PROMETHEUS_HEADERS)
                if status != 200:
                    sys.exit("%s answered a scrape with %d" % (name, status))
            scrapes += 1
        elapsed = time.monotonic() - t0
        print("cost in a 0.25 vCPU / 512 MiB task, %d s, %d scrapes every 15 s%s:"
              % (elapsed, scrapes, ", the page open" if viewer else " (no chromium: without the page)"))
        for name in exporters:
            per_hour = (groups[name].cpu_seconds() - before[name]) / elapsed * 3600
            share = per_hour / (0.25 * 3600) * 100
            rss, anon = memory_kib(running[name].pid)
            charged = groups[name].memory_bytes_charged()
            print("  %-13s CPU %.2f s per hour = %.3f%% of 0.25 vCPU; RSS %.2f MiB = %.2f%% of 512 MiB "
                  "(anonymous %.2f MiB; the cgroup's charge %.2f MiB = %.2f%%)"
                  % (name, per_hour, share, rss / 1024, rss / 1024 / 512 * 100, anon / 1024,
                     charged / 2**20, charged / 2**20 / 512 * 100))
            if name == "hostprobe":
                report("agent's CPU, share of 0.25 vCPU", share, "%", "<= 0.1", share <= 0.1)
finally:
    if viewer is not None:
        viewer.terminate()
        try:
            viewer.wait(timeout=10)
        except subprocess.TimeoutExpired:
            viewer.kill()
            viewer.wait()
    for process in running.values():
        stop(process)
    for group in groups.values():
        group.remove()

sys.exit(1 if failed else 0)
PY
