#!/usr/bin/env bash
# Which CPUs does Fargate give us, how fast are they, and what does a dollar buy on each?
# Prints the fleet summary of seed 000's survey (25 tasks, lscpu and `openssl speed` in each, by
# hand): from the one-shot survey tasks' JSON lines in CloudWatch Logs (--from-logs), or by
# starting N serving tasks, collecting what each agent found (GET /v1/host and its latest cipher
# run) and stopping them. See deploy/README.md.
set -euo pipefail

readonly DEFAULT_TASK_DEFINITION=hostprobe-survey-serve
readonly POLL_SECONDS=5
readonly RUN_TASK_MAX_COUNT=10       # ECS RunTask starts at most 10 tasks per call
readonly DESCRIBE_TASKS_MAX_COUNT=100 # DescribeTasks takes at most 100 tasks per call
# --from-logs: the survey's JSON lines only (the log group also holds the agents' logfmt logs),
# 1000 events a page, and at most 1000 pages: a million events is far more than any survey
# writes, and a bound on what a mistaken --since can cost.
readonly LOG_FILTER_PATTERN='{ ($.type = "hostprobe.host") || ($.type = "hostprobe.run") }'
# (SURVEY_LOG_PAGE_ITEMS smaller makes the tests page.)
readonly LOG_PAGE_ITEMS=${SURVEY_LOG_PAGE_ITEMS:-1000}
readonly LOG_MAX_PAGES=1000

usage() {
    cat <<'EOF'
Usage: deploy/survey.sh --cluster NAME --subnets ID[,ID...] [options]
       deploy/survey.sh --from-logs LOG_GROUP [--since DURATION] [--region REGION] [summary options]
       deploy/survey.sh --from-dir DIR [summary options]

Runs COUNT Fargate tasks of the hostprobe survey task definition, waits for each agent's cipher
run, saves one JSON per task (/v1/host and the run) into DIR, stops the tasks and prints the
fleet summary. The agents are reached at their private IPs on PORT: run this where those are
reachable (inside the VPC, or over a VPN or peering), with a security group that lets this host
reach PORT. The AWS CLI uses its usual credentials and region (AWS_PROFILE, AWS_REGION).

Survey options:
  --cluster NAME              ECS cluster (required)
  --subnets ID,...            subnets for the tasks' ENIs (required)
  --security-groups ID,...    security groups for the ENIs (default: the VPC's default group)
  --assign-public-ip          give the ENIs public IPs, so that tasks in a public subnet without
                              a NAT gateway can pull the image (the agents are still read over
                              their private IPs)
  --count N                   tasks to run (default 5)
  --task-definition FAMILY[:REVISION]
                              default hostprobe-survey-serve (task-definitions/fargate-survey-serve.json)
  --port PORT                 the agents' HTTP port (default 9740)
  --timeout SECONDS           for the tasks to start and their cipher runs to end (default 600)
  --out DIR                   where the per-task JSON goes (default survey-<UTC time>); an
                              existing DIR is added to, and the summary covers all of it
  --token-file FILE           the agents' bearer token (their --token-file): needed when they
                              run with --auth-reads, or to start a run from outside the task;
                              HOSTPROBE_TOKEN in the environment works too. It is sent in
                              clear over HTTP: only on a network you trust

From CloudWatch Logs (tasks of task-definitions/fargate-survey.json, `hostprobe survey`):
  --from-logs LOG_GROUP       read the JSON lines the survey tasks wrote to LOG_GROUP (their
                              awslogs-group) with `aws logs filter-log-events`, one task per log
                              stream, and print the same summary: no network path to the tasks,
                              which stopped by themselves once they had measured. Needs
                              logs:FilterLogEvents on the group.
  --since DURATION            how far back to read: 90s, 30m, 6h, 2d or 1w (default 24h)
  --region REGION             the log group's region (default: the AWS CLI's)

Summary options (also with --from-dir and --from-logs):
  --from-dir DIR              only summarize the JSON files in DIR; no AWS call
  --json                      machine-readable summary
  --cipher NAME               cipher to compare (default aes-128-gcm)
  --block-bytes N             block size to compare (default 8192)
  --price-vcpu-hour DOLLARS   with --price-gb-hour: price every task from its CPU and memory
  --price-gb-hour DOLLARS     limits, instead of the cost its agent reported
EOF
}

die_usage() {
    echo "survey.sh: $1" >&2
    echo "Try 'deploy/survey.sh --help'." >&2
    exit 2
}

log() { echo "survey: $*" >&2; }

# The JSON handling, HTTP collection and summary; subcommands collect, started-tasks,
# task-states and summarize. Standard library only.
read -r -d '' SURVEY_PY <<'PY' || true
import datetime
import glob
import json
import os
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

FINAL_STATES = ("succeeded", "failed", "cancelled")
# From --token-file or HOSTPROBE_TOKEN, through the environment: never on a command line.
TOKEN = os.environ.get("HOSTPROBE_TOKEN", "")
# Fargate Linux/x86 on-demand prices in us-east-1, the agent's defaults.
DEFAULT_VCPU_HOUR = 0.04048
DEFAULT_GB_HOUR = 0.004445
GIB = 1024 ** 3


def warn(message):
    print("survey: warning: " + message, file=sys.stderr)


def fail(message):
    print("survey: error: " + message, file=sys.stderr)
    sys.exit(1)


# ---- AWS CLI output -------------------------------------------------------------------------

def read_aws_json():
    text = sys.stdin.read()
    try:
        return json.loads(text)
    except ValueError:
        fail("the AWS CLI answered something that is not JSON: " + text[:200])


def started_tasks():
    """run-task output -> one task ARN a line; ECS's refusals as warnings."""
    answer = read_aws_json()
    for failure in answer.get("failures", []):
        warn("ECS did not start a task: %s %s" % (failure.get("reason", "?"), failure.get("detail", "")))
    for task in answer.get("tasks", []):
        print(task["taskArn"])


def private_ip(task):
    for attachment in task.get("attachments", []):
        if attachment.get("type") != "ElasticNetworkInterface":
            continue
        for detail in attachment.get("details", []):
            if detail.get("name") == "privateIPv4Address":
                return detail.get("value")
    for container in task.get("containers", []):
        for interface in container.get("networkInterfaces", []):
            if interface.get("privateIpv4Address"):
                return interface["privateIpv4Address"]
    return None


def task_states():
    """describe-tasks output -> "ARN STATUS IP-or-- REASON" a line."""
    answer = read_aws_json()
    for failure in answer.get("failures", []):
        print("%s MISSING - %s" % (failure.get("arn", "?"), failure.get("reason", "")))
    for task in answer.get("tasks", []):
        reason = (task.get("stoppedReason") or "").replace("\n", " ")
        print("%s %s %s %s" % (task["taskArn"], task.get("lastStatus", "?"), private_ip(task) or "-", reason))


# ---- collecting from one agent --------------------------------------------------------------

def http_json(url, body=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if TOKEN:
        request.add_header("Authorization", "Bearer " + TOKEN)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def collect(task_arn, address, out_file, deadline, cipher, block_bytes):
    base = "http://" + address

    def remaining():
        return deadline - time.time()

    last_error = None
    while True:
        try:
            http_json(base + "/healthz", timeout=5)
            break
        except (OSError, ValueError) as error:
            last_error = error
        if remaining() <= 0:
            fail("%s: the agent at %s never answered /healthz (%s)" % (task_arn, address, last_error))
        time.sleep(2)

    try:
        host = http_json(base + "/v1/host")
        runs = http_json(base + "/v1/runs?probe=cipher&limit=1").get("runs", [])
        if runs:
            run = runs[0]
        else:
            # The run-on-start runs are queued before the agent listens: none means the task
            # definition does not start one, so ask for the figure the summary needs.
            params = {"ciphers": [cipher], "block_sizes": [block_bytes]}
            wait = max(1, min(600, int(remaining())))
            run = http_json("%s/v1/runs?wait=%d" % (base, wait), {"probe": "cipher", "params": params},
                            timeout=wait + 30)
        while run.get("state") not in FINAL_STATES and remaining() > 0:
            time.sleep(3)
            run = http_json("%s/v1/runs/%s" % (base, urllib.parse.quote(run["id"])))
    except urllib.error.HTTPError as error:
        hint = ""
        if error.code == 401:
            hint = (" (is --token-file the agents' token?)" if TOKEN else
                    " (the agent wants its bearer token: --token-file FILE or HOSTPROBE_TOKEN)")
        fail("%s: %s answered HTTP %d: %s%s" % (task_arn, error.url, error.code,
                                                error.read(500).decode(errors="replace").strip(), hint))
    except (OSError, ValueError, KeyError) as error:
        fail("%s: collecting from %s failed: %s" % (task_arn, address, error))
    if run.get("state") not in FINAL_STATES:
        warn("%s: the cipher run was still %s at the deadline; saved as it was" % (task_arn, run.get("state")))

    record = {
        "survey_format": 1,
        "task_arn": task_arn,
        "address": address,
        "collected_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": host,
        "cipher_run": run,
    }
    partial = out_file + ".partial"
    with open(partial, "w") as out:
        json.dump(record, out, indent=1, sort_keys=True)
        out.write("\n")
    os.replace(partial, out_file)


# ---- reading CloudWatch Logs -----------------------------------------------------------------

def next_token():
    """filter-log-events output -> its NextToken, or nothing when it was the last page."""
    token = read_aws_json().get("NextToken")
    if token:
        print(token)


def from_logs(pages_dir, out_dir):
    """Pages of filter-log-events output -> one survey record per log stream (per task), in the
    layout collect() saves, so that the summary reads both alike."""
    streams = {}
    not_json = 0
    for path in sorted(glob.glob(os.path.join(pages_dir, "*.json"))):
        with open(path) as source:
            try:
                page = json.load(source)
            except ValueError:
                fail("the AWS CLI answered something that is not JSON (%s)" % path)
        for event in page.get("events") or []:
            try:
                document = json.loads(event.get("message") or "")
            except ValueError:
                not_json += 1
                continue
            if not isinstance(document, dict):
                continue
            entry = streams.setdefault(event.get("logStreamName") or "?", {})
            if document.get("type") == "hostprobe.host":
                entry["host"] = document.get("host")
            elif document.get("type") == "hostprobe.run" and dig(document, "run", "probe") == "cipher":
                entry["cipher_run"] = document.get("run")  # the last one counts
    if not_json:
        warn("%d log event(s) matched but are not whole JSON (the log driver splits lines over "
             "16 KiB); skipped" % not_json)
    for stream, entry in sorted(streams.items()):
        record = {"survey_format": 1, "source": "cloudwatch-logs", "log_stream": stream,
                  "task_arn": dig(entry, "host", "ecs", "task_arn"),
                  "host": entry.get("host"), "cipher_run": entry.get("cipher_run")}
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in stream) + ".json"
        with open(os.path.join(out_dir, name), "w") as out:
            json.dump(record, out)
    return len(streams)


# ---- the summary ----------------------------------------------------------------------------

def dig(document, *keys):
    for key in keys:
        if not isinstance(document, dict):
            return None
        document = document.get(key)
    return document


def number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def task_limits(host):
    """vCPUs and GiB from the ECS task limits, else the cgroup's."""
    vcpus = number(dig(host, "ecs", "cpu_limit_cores")) or number(dig(host, "cgroup", "cpu_quota_cores"))
    memory = number(dig(host, "ecs", "memory_limit_bytes")) or number(dig(host, "cgroup", "memory_limit_bytes"))
    return vcpus, (memory / GIB if memory else None)


def task_cost(host, vcpus, memory_gib, prices):
    """Dollars per hour and where the figure came from."""
    if prices is None:
        reported = number(dig(host, "cost", "dollars_per_hour"))
        if reported is not None:
            return reported, "agent (%s)" % dig(host, "cost", "source")
        prices = (DEFAULT_VCPU_HOUR, DEFAULT_GB_HOUR)
    if vcpus is None or memory_gib is None:
        return None, None
    return vcpus * prices[0] + memory_gib * prices[1], "limits x prices"


def cipher_figures(run, cipher, block_bytes):
    """(wall, cpu) bytes per second of the chosen measurement, or a reason why there is none."""
    if not isinstance(run, dict):
        return None, "no cipher run"
    if run.get("state") != "succeeded":
        return None, "cipher run %s%s" % (run.get("state"), ": " + run["error"] if run.get("error") else "")
    for measurement in dig(run, "result", "measurements") or []:
        if not isinstance(measurement, dict):
            continue
        if measurement.get("cipher") == cipher and measurement.get("block_bytes") == block_bytes:
            wall = number(measurement.get("bytes_per_second"))
            cpu = number(measurement.get("cpu_bytes_per_second"))
            if wall is None or cpu is None:
                return None, "the %s %d-byte measurement has no throughput" % (cipher, block_bytes)
            return (wall, cpu), None
    return None, "the cipher run has no %s %d-byte measurement" % (cipher, block_bytes)


def load_tasks(directory, cipher, block_bytes, prices, warnings):
    tasks = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        name = os.path.basename(path)

        def note(message):
            warnings.append({"file": name, "message": message})
            warn("%s: %s" % (path, message))

        try:
            with open(path) as source:
                document = json.load(source)
        except ValueError as error:
            note("not valid JSON (%s); skipped" % error)
            continue
        except OSError as error:
            note("cannot be read (%s); skipped" % error.strerror)
            continue
        host = dig(document, "host")
        model = dig(host, "cpu", "model_name")
        if not isinstance(model, str) or not model:
            note("no host.cpu.model_name (not a survey result, or cut short); skipped")
            continue
        vcpus, memory_gib = task_limits(host)
        cost, cost_source = task_cost(host, vcpus, memory_gib, prices)
        figures, problem = cipher_figures(dig(document, "cipher_run"), cipher, block_bytes)
        if problem:
            note(problem + "; counted without throughput")
        tasks.append({"file": name, "task_arn": dig(document, "task_arn"), "model_name": model,
                      "vcpus": vcpus, "memory_gib": memory_gib,
                      "dollars_per_hour": cost, "cost_source": cost_source,
                      "wall_bytes_per_second": figures[0] if figures else None,
                      "cpu_bytes_per_second": figures[1] if figures else None})
    return tasks


def median_or_none(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def summarize_group(model, vcpus, memory_gib, members):
    measured = [task for task in members if task["wall_bytes_per_second"] is not None]
    per_dollar = [task["wall_bytes_per_second"] * 3600 / 1e9 / task["dollars_per_hour"]
                  for task in measured if task["dollars_per_hour"]]
    wall = median_or_none([task["wall_bytes_per_second"] for task in measured])
    cpu = median_or_none([task["cpu_bytes_per_second"] for task in measured])
    return {
        "model_name": model, "vcpus": vcpus, "memory_gib": memory_gib,
        "tasks": len(members), "measured": len(measured),
        "wall_mb_per_second": None if wall is None else wall / 1e6,
        "cpu_mb_per_second": None if cpu is None else cpu / 1e6,
        "wall_to_cpu": median_or_none([task["wall_bytes_per_second"] / task["cpu_bytes_per_second"]
                                       for task in measured if task["cpu_bytes_per_second"]]),
        "dollars_per_hour": median_or_none([task["dollars_per_hour"] for task in members]),
        "gb_per_dollar": median_or_none(per_dollar),
    }


def size_label(vcpus, memory_gib):
    def short(value):
        return "?" if value is None else "%g" % value
    return "%s vCPU %s GB" % (short(vcpus), short(memory_gib))


def print_text(summary):
    count = summary["task_count"]
    print("%d task%s in %s" % (count, "" if count == 1 else "s", summary.get("source") or summary["directory"]))
    if summary["warnings"]:
        print("%d warning(s), printed above" % len(summary["warnings"]))
    print()
    print("CPU models:")
    width = max(len(str(model["tasks"])) for model in summary["models"])
    for model in summary["models"]:
        print("  %*d x %s" % (width, model["tasks"], model["model_name"]))
    print()
    print("%s, %d-byte blocks, medians per CPU model and task size" % (summary["cipher"], summary["block_bytes"]))
    print("(wall: what the task gets; cpu: what `openssl speed` without -elapsed prints)")
    print()

    def figure(value, pattern):
        return "-" if value is None else pattern % value

    header = ("CPU model", "task size", "tasks", "measured", "wall MB/s", "cpu MB/s", "wall/cpu", "$/hour", "GB per $")
    rows = [(group["model_name"], size_label(group["vcpus"], group["memory_gib"]), str(group["tasks"]),
             str(group["measured"]), figure(group["wall_mb_per_second"], "%.1f"),
             figure(group["cpu_mb_per_second"], "%.1f"), figure(group["wall_to_cpu"], "%.2f"),
             figure(group["dollars_per_hour"], "%.5f"), figure(group["gb_per_dollar"], "%.0f"))
            for group in summary["groups"]]
    widths = [max(len(row[column]) for row in rows + [header]) for column in range(len(header))]
    for row in [header] + rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:])]
        print("  ".join(cells).rstrip())


def summarize(arguments):
    directory, output_format, cipher, block_bytes, price_vcpu, price_gb, source = arguments
    block_bytes = int(block_bytes)
    prices = (float(price_vcpu), float(price_gb)) if price_vcpu else None
    if not os.path.isdir(directory):
        fail("%s: %s" % (directory, "not a directory" if os.path.exists(directory) else "no such directory"))
    warnings = []
    tasks = load_tasks(directory, cipher, block_bytes, prices, warnings)
    if not tasks:
        if source:
            fail("%s: no survey results (hostprobe.host lines with host.cpu.model_name)" % source)
        fail("%s: no survey results (*.json with host.cpu.model_name) to summarize" % directory)

    models = {}
    groups = {}
    for task in tasks:
        models[task["model_name"]] = models.get(task["model_name"], 0) + 1
        groups.setdefault((task["model_name"], task["vcpus"], task["memory_gib"]), []).append(task)

    def group_order(key):
        model, vcpus, memory_gib = key
        return (model, vcpus is None, vcpus or 0, memory_gib is None, memory_gib or 0)

    summary = {
        "directory": None if source else directory,
        "task_count": len(tasks),
        "cipher": cipher,
        "block_bytes": block_bytes,
        "prices": None if prices is None else {"vcpu_hour": prices[0], "gb_hour": prices[1]},
        "warnings": warnings,
        "models": [{"model_name": model, "tasks": count} for model, count in sorted(models.items())],
        "groups": [summarize_group(*key, groups[key]) for key in sorted(groups, key=group_order)],
        "tasks": tasks,
    }
    if source:
        summary["source"] = source
    if output_format == "json":
        json.dump(summary, sys.stdout, indent=2)
        print()
    else:
        print_text(summary)


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    try:
        if command == "started-tasks":
            started_tasks()
        elif command == "task-states":
            task_states()
        elif command == "collect":
            task_arn, address, out_file, deadline, cipher, block_bytes = arguments
            collect(task_arn, address, out_file, float(deadline), cipher, int(block_bytes))
        elif command == "summarize":
            summarize(arguments)
        elif command == "next-token":
            next_token()
        elif command == "from-logs":
            pages_dir, out_dir = arguments
            from_logs(pages_dir, out_dir)
    except KeyboardInterrupt:
        sys.exit(130)
PY

survey_py() { HOSTPROBE_TOKEN=$token python3 -c "$SURVEY_PY" "$@"; }

cluster="" subnets="" security_groups="" assign_public_ip=DISABLED count=5
task_definition=$DEFAULT_TASK_DEFINITION port=9740 timeout=600 out_dir="" from_dir=""
output=text cipher=aes-128-gcm block_bytes=8192 price_vcpu_hour="" price_gb_hour=""
token_file="" token=${HOSTPROBE_TOKEN:-} from_logs="" since=24h region=""

takes_value() { (($# >= 2)) || die_usage "$1 needs a value"; }
while (($# > 0)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --assign-public-ip) assign_public_ip=ENABLED ;;
        --json) output=json ;;
        --cluster) takes_value "$@"; cluster=$2; shift ;;
        --subnets) takes_value "$@"; subnets=$2; shift ;;
        --security-groups) takes_value "$@"; security_groups=$2; shift ;;
        --count) takes_value "$@"; count=$2; shift ;;
        --task-definition) takes_value "$@"; task_definition=$2; shift ;;
        --port) takes_value "$@"; port=$2; shift ;;
        --timeout) takes_value "$@"; timeout=$2; shift ;;
        --out) takes_value "$@"; out_dir=$2; shift ;;
        --token-file) takes_value "$@"; token_file=$2; shift ;;
        --from-dir) takes_value "$@"; from_dir=$2; shift ;;
        --from-logs) takes_value "$@"; from_logs=$2; shift ;;
        --since) takes_value "$@"; since=$2; shift ;;
        --region) takes_value "$@"; region=$2; shift ;;
        --cipher) takes_value "$@"; cipher=$2; shift ;;
        --block-bytes) takes_value "$@"; block_bytes=$2; shift ;;
        --price-vcpu-hour) takes_value "$@"; price_vcpu_hour=$2; shift ;;
        --price-gb-hour) takes_value "$@"; price_gb_hour=$2; shift ;;
        *) die_usage "unknown option $1" ;;
    esac
    shift
done

is_count() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
is_price() { [[ $1 =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]]; }
is_count "$count" || die_usage "--count must be a positive whole number, not '$count'"
if ! is_count "$port" || ((port > 65535)); then die_usage "--port must be 1..65535, not '$port'"; fi
is_count "$timeout" || die_usage "--timeout must be a positive number of seconds, not '$timeout'"
is_count "$block_bytes" || die_usage "--block-bytes must be a positive whole number, not '$block_bytes'"
if [[ -n $price_vcpu_hour || -n $price_gb_hour ]]; then
    [[ -n $price_vcpu_hour && -n $price_gb_hour ]] ||
        die_usage "--price-vcpu-hour and --price-gb-hour go together"
    is_price "$price_vcpu_hour" || die_usage "--price-vcpu-hour must be a number, not '$price_vcpu_hour'"
    is_price "$price_gb_hour" || die_usage "--price-gb-hour must be a number, not '$price_gb_hour'"
fi
if [[ -n $token_file ]]; then
    [[ -f $token_file && -r $token_file ]] || die_usage "--token-file: cannot read '$token_file'"
    token=$(<"$token_file")
    token=${token#"${token%%[![:space:]]*}"} # trimmed like the agent trims its --token-file
    token=${token%"${token##*[![:space:]]}"}
    [[ -n $token ]] || die_usage "--token-file: '$token_file' is empty"
fi
[[ $since =~ ^([1-9][0-9]{0,6})([smhdw])$ ]] ||
    die_usage "--since must be a duration such as 90s, 30m, 6h, 2d or 1w, not '$since'"
declare -A SECONDS_PER_UNIT=([s]=1 [m]=60 [h]=3600 [d]=86400 [w]=604800)
since_seconds=$((BASH_REMATCH[1] * SECONDS_PER_UNIT[${BASH_REMATCH[2]}]))
[[ -z $region || $region =~ ^[a-z]{2}(-[a-z]+)+-[0-9]+$ ]] || die_usage "--region must be a region such as us-east-1, not '$region'"
[[ $LOG_PAGE_ITEMS =~ ^[1-9][0-9]{0,4}$ ]] || die_usage "SURVEY_LOG_PAGE_ITEMS must be 1..99999"
[[ -z $from_logs || -z $from_dir ]] || die_usage "give --from-logs or --from-dir, not both"
command -v python3 >/dev/null || { echo "survey.sh: python3 is needed" >&2; exit 1; }

# The AWS CLI with --region when one was given.
aws_cli() { aws "$@" ${region:+--region "$region"}; }

summarize() {
    survey_py summarize "$1" "$output" "$cipher" "$block_bytes" "$price_vcpu_hour" "$price_gb_hour" "${2:-}"
}

if [[ -n $from_dir ]]; then
    summarize "$from_dir"
    exit
fi

# --from-logs: every page of the survey's lines from the log group, then the summary.
summarize_logs() {
    command -v aws >/dev/null || { echo "survey.sh: the AWS CLI (aws) is needed" >&2; exit 1; }
    local work pages=0 token="" page start_ms
    work=$(mktemp -d)
    # shellcheck disable=SC2064 # expand now: $work is local
    trap "rm -rf '$work'" EXIT
    mkdir "$work/pages" "$work/tasks"
    start_ms=$((($(date +%s) - since_seconds) * 1000))
    log "reading $from_logs from $(date -u -d "@$((start_ms / 1000))" +%Y-%m-%dT%H:%M:%SZ) on"
    while true; do
        page=$work/pages/$(printf '%05d' "$pages").json
        aws_cli logs filter-log-events --log-group-name "$from_logs" --start-time "$start_ms" \
            --filter-pattern "$LOG_FILTER_PATTERN" --max-items "$LOG_PAGE_ITEMS" \
            ${token:+--starting-token "$token"} --output json >"$page" ||
            { log "aws logs filter-log-events failed"; exit 1; }
        pages=$((pages + 1))
        token=$(survey_py next-token <"$page")
        [[ -n $token ]] || break
        if ((pages >= LOG_MAX_PAGES)); then
            log "stopped after $pages pages of $LOG_PAGE_ITEMS events: the summary covers the oldest; narrow --since"
            break
        fi
    done
    survey_py from-logs "$work/pages" "$work/tasks"
    summarize "$work/tasks" "log group $from_logs, last $since"
}

if [[ -n $from_logs ]]; then
    summarize_logs
    exit
fi

[[ -n $cluster ]] || die_usage "--cluster is needed (or --from-dir to summarize saved results)"
[[ -n $subnets ]] || die_usage "--subnets is needed"
command -v aws >/dev/null || { echo "survey.sh: the AWS CLI (aws) is needed" >&2; exit 1; }
out_dir=${out_dir:-survey-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out_dir"

network="awsvpcConfiguration={subnets=[$subnets],assignPublicIp=$assign_public_ip"
[[ -z $security_groups ]] || network+=",securityGroups=[$security_groups]"
network+="}"

tasks=()
stop_tasks() {
    ((${#tasks[@]} > 0)) || return 0
    log "stopping ${#tasks[@]} task(s)"
    local task
    for task in "${tasks[@]}"; do
        aws_cli ecs stop-task --cluster "$cluster" --task "$task" --reason "hostprobe survey done" \
            --output json >/dev/null || log "could not stop $task; stop it by hand"
    done
    tasks=()
}
# Tasks cost money while they run: stop them however this script ends.
trap stop_tasks EXIT
trap 'exit 130' INT TERM

log "starting $count task(s) of $task_definition in $cluster"
remaining=$count
while ((remaining > 0)); do
    batch=$((remaining < RUN_TASK_MAX_COUNT ? remaining : RUN_TASK_MAX_COUNT))
    answer=$(aws_cli ecs run-task --cluster "$cluster" --task-definition "$task_definition" \
        --launch-type FARGATE --count "$batch" --network-configuration "$network" \
        --started-by hostprobe-survey --output json)
    mapfile -t started < <(survey_py started-tasks <<<"$answer")
    tasks+=("${started[@]}")
    remaining=$((remaining - batch))
done
((${#tasks[@]} > 0)) || { log "ECS started no task"; exit 1; }

deadline=$(($(date +%s) + timeout))
declare -A task_address=() reason_logged=()
while true; do
    pending=0
    for ((first = 0; first < ${#tasks[@]}; first += DESCRIBE_TASKS_MAX_COUNT)); do
        answer=$(aws_cli ecs describe-tasks --cluster "$cluster" \
            --tasks "${tasks[@]:first:DESCRIBE_TASKS_MAX_COUNT}" --output json)
        while read -r arn status ip reason; do
            case $status in
                RUNNING)
                    if [[ $ip == - ]]; then
                        task_address[$arn]=none reason="no private IP (not awsvpc?)"
                    else
                        task_address[$arn]=$ip:$port
                    fi
                    ;;
                DEACTIVATING | STOPPING | DEPROVISIONING | STOPPED | DELETED | MISSING)
                    task_address[$arn]=none ;;
                *) pending=$((pending + 1)) ;;
            esac
            if [[ -n $reason && -z ${reason_logged[$arn]:-} ]]; then
                log "${arn##*/} is $status: $reason"
                reason_logged[$arn]=1
            fi
        done < <(survey_py task-states <<<"$answer")
    done
    ((pending > 0)) || break
    if (($(date +%s) >= deadline)); then
        log "$pending task(s) still not running after ${timeout} s; collecting the others"
        break
    fi
    log "waiting for $pending task(s) to start"
    sleep "$POLL_SECONDS"
done

collected=0
for arn in "${tasks[@]}"; do
    address=${task_address[$arn]:-none}
    if [[ $address == none ]]; then
        log "skipping ${arn##*/}: not running"
        continue
    fi
    log "collecting ${arn##*/} from $address"
    if survey_py collect "$arn" "$address" "$out_dir/${arn##*/}.json" "$deadline" "$cipher" "$block_bytes"; then
        collected=$((collected + 1))
    fi
done
stop_tasks
log "saved $collected of $count result(s) in $out_dir"
summarize "$out_dir"
