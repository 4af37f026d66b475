#!/usr/bin/env bash
# deploy/survey.sh --from-logs against a fake CloudWatch Logs (tests/deploy/fake_aws.py) that
# serves the real lines of 25 `hostprobe survey` runs on replays of seed 000's Fargate hosts, in
# its mix: 11 x E5-2670 v2, 4 x E5-2676 v3, 10 x E5-2686 v4 (tests/fixtures/sysroots), each with
# the ECS task metadata of a 0.25 vCPU / 0.5 GB task. Checks the printed table against figures
# computed here from the same lines.
# Usage: tests/deploy/survey_logs.sh <path-to-hostprobe-binary>
set -euo pipefail

if (($# != 1)); then
    echo "usage: $0 <path-to-hostprobe-binary>" >&2
    exit 2
fi
binary=$(realpath "$1")
[[ -x $binary ]] || { echo "$0: $1 is not an executable file" >&2; exit 2; }
cd "$(dirname "$0")/../.."
repo=$PWD
tests=tests/deploy
command -v python3 >/dev/null || { echo "$0: python3 is needed" >&2; exit 2; }

source tests/deploy/lib.sh

# The ECS task metadata endpoint of a 0.25 vCPU / 512 MiB Fargate task (a real capture).
mkdir -p "$work/ecs/v4/survey" "$work/tasks" "$work/bin" "$work/aws"
cp tests/fixtures/ecs/ecs_exporter/fargate_task_metadata.json "$work/ecs/v4/survey/task"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/ecs" >"$work/ecs.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q port "$work/ecs.log" && break; sleep 0.1; done
ecs_uri="http://127.0.0.1:$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$work/ecs.log" | head -1)/v4/survey"

echo "# 25 survey tasks on replayed hosts"
params='{"cipher": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192], "seconds": 0.2}}'
task=0
for mix in fargate-e5-2670v2:11 fargate-e5-2676v3:4 fargate-e5-2686v4:10; do
    for ((i = 0; i < ${mix#*:}; i++)); do
        task=$((task + 1))
        status=0
        "$binary" survey --sysroot "tests/fixtures/sysroots/${mix%:*}" --params "$params" \
            --ecs-metadata-uri "$ecs_uri" >"$work/tasks/$task.out" 2>"$work/tasks/$task.err" || status=$?
        ((status == 0)) || { cat "$work/tasks/$task.err" >&2; fail "survey $task on ${mix%:*}: exit $status"; }
    done
done
ok "25 hostprobe survey runs (11 / 4 / 10 over the three Fargate replays) exited 0"

# What the awslogs driver would have put in CloudWatch Logs: each task's stdout and stderr lines
# in its own stream; plus an older survey (outside --since) and another group's events.
python3 - "$work/tasks" "$work/events.jsonl" <<'PY'
import glob, json, os, sys, time
tasks_dir, events_file = sys.argv[1:]
now_ms = int(time.time() * 1000)
events = []
for path in sorted(glob.glob(os.path.join(tasks_dir, "*.out")), key=lambda p: int(os.path.basename(p)[:-4])):
    number = int(os.path.basename(path)[:-4])
    stream = "survey/hostprobe/%032x" % number
    lines = open(path[:-4] + ".err").read().splitlines() + open(path).read().splitlines()
    for index, line in enumerate(lines):
        events.append({"logGroupName": "/ecs/hostprobe", "logStreamName": stream,
                       "timestamp": now_ms - 3600_000 + number * 1000 + index, "message": line})
old = open(os.path.join(tasks_dir, "1.out")).read().splitlines()
for index, line in enumerate(old):
    events.append({"logGroupName": "/ecs/hostprobe", "logStreamName": "survey/hostprobe/old",
                   "timestamp": now_ms - 3 * 86400_000 + index, "message": line})
    events.append({"logGroupName": "/ecs/other", "logStreamName": "other/x",
                   "timestamp": now_ms - 60_000 + index, "message": line})
with open(events_file, "w") as out:
    for event in events:
        out.write(json.dumps(event) + "\n")
PY
ln -s "$repo/$tests/fake_aws.py" "$work/bin/aws"

survey_logs() {
    PATH="$work/bin:$PATH" FAKE_AWS_DIR="$work/aws" FAKE_AWS_LOG_EVENTS="$work/events.jsonl" \
        SURVEY_LOG_PAGE_ITEMS=10 deploy/survey.sh --from-logs /ecs/hostprobe --since 24h \
        --region us-east-1 "$@"
}
echo "# deploy/survey.sh --from-logs through a fake aws logs filter-log-events"
survey_logs >"$work/table.txt" 2>"$work/table.err" || { cat "$work/table.err" >&2; fail "survey.sh --from-logs exited $?"; }
sed 's/^./  &/' "$work/table.txt"
survey_logs --json >"$work/table.json" 2>"$work/table-json.err" ||
    { cat "$work/table-json.err" >&2; fail "survey.sh --from-logs --json"; }
python3 - "$work/tasks" "$work/table.txt" "$work/table.json" "$work/aws/calls.jsonl" <<'PY' || fail "the table"
import glob, json, statistics, sys, time
tasks_dir, table_txt, table_json, calls_file = sys.argv[1:]
models = {}
for path in glob.glob(tasks_dir + "/*.out"):
    lines = [json.loads(line) for line in open(path)]
    assert [line["type"] for line in lines] == ["hostprobe.host", "hostprobe.run", "hostprobe.run",
                                                "hostprobe.survey"], path
    host, cipher = lines[0]["host"], lines[2]["run"]
    wall = cipher["result"]["measurements"][0]["bytes_per_second"]
    dollars = host["cost"]["dollars_per_hour"]
    models.setdefault(host["cpu"]["model_name"], []).append((wall, wall * 3600 / 1e9 / dollars))
expected_counts = {"Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz": 11,
                   "Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz": 4,
                   "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz": 10}
assert {model: len(runs) for model, runs in models.items()} == expected_counts, models.keys()

text = open(table_txt).read()
assert text.startswith("25 tasks in log group /ecs/hostprobe, last 24h\n"), text[:200]
for model, count in expected_counts.items():
    assert "  %2d x %s\n" % (count, model) in text, (model, count)

summary = json.load(open(table_json))
assert summary["task_count"] == 25 and not summary["warnings"], summary["warnings"]
assert summary["source"] == "log group /ecs/hostprobe, last 24h"
assert len(summary["groups"]) == 3
for group in summary["groups"]:
    runs = models[group["model_name"]]
    assert group["tasks"] == group["measured"] == expected_counts[group["model_name"]], group
    assert group["vcpus"] == 0.25 and group["memory_gib"] == 0.5, group
    assert abs(group["dollars_per_hour"] - 0.0123425) < 1e-12, group
    wall = statistics.median(run[0] for run in runs) / 1e6
    per_dollar = statistics.median(run[1] for run in runs)
    assert abs(group["wall_mb_per_second"] - wall) < 1e-6 * wall, (group, wall)
    assert abs(group["gb_per_dollar"] - per_dollar) < 1e-6 * per_dollar, (group, per_dollar)
    # The text table shows the same figures.
    row = next(line for line in text.splitlines() if line.startswith(group["model_name"] + "  "))
    cells = row[len(group["model_name"]):].split()
    assert cells[4] == "%d" % group["tasks"] and cells[6] == "%.1f" % wall, (row, wall)
    assert cells[-1] == "%.0f" % per_dollar, (row, per_dollar)

calls = [json.loads(line) for line in open(calls_file)]
assert all(call[:2] == ["logs", "filter-log-events"] for call in calls), calls
first = calls[:len(calls) // 2]  # the text run, then the --json run
# 25 tasks x 3 matching lines (host, cpu run, cipher run) = 75 events, 10 a page: 8 pages.
assert len(first) == 8, len(first)
for index, call in enumerate(first):
    assert call[call.index("--log-group-name") + 1] == "/ecs/hostprobe"
    assert call[call.index("--filter-pattern") + 1] == \
        '{ ($.type = "hostprobe.host") || ($.type = "hostprobe.run") }'
    assert call[call.index("--region") + 1] == "us-east-1"
    assert call[call.index("--max-items") + 1] == "10"
    start = int(call[call.index("--start-time") + 1]) / 1000
    assert abs(start - (time.time() - 86400)) < 600, start
    assert ("--starting-token" in call) == (index > 0)
    if index > 0:
        assert call[call.index("--starting-token") + 1] == str(index * 10)
PY
ok "--from-logs: 25 tasks (not the 3-day-old one nor the other group's), 11 / 4 / 10 per model, medians and GB per dollar as computed from the lines, 8 pages of 10 events"

echo "# deploy/cloudwatch: the Logs Insights queries and the dashboard body"
python3 "$tests/cloudwatch_checks.py" queries deploy/cloudwatch/insights-queries.md "$work/tasks" "$work/table.json" ||
    fail "the Logs Insights queries"
ok "the Logs Insights queries, evaluated on the 25 tasks' lines, give the table's counts, medians and GB per dollar"
emf_lines=()
if "$binary" survey --help | grep -q -- '--emf '; then
    # The agent's own EMF lines, of every probe the dashboard shows: every metric it searches
    # must be among them.
    mkdir "$work/disk"
    emf_params='{"cipher": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192], "seconds": 0.2},
        "disk": {"directory": "'"$work/disk"'", "size": "1m", "runtime": 1, "direct": false},
        "files": {"directory": "'"$work/disk"'", "files": 50}}'
    "$binary" survey --emf --sysroot tests/fixtures/sysroots/fargate-e5-2686v4 --probes cpu,cipher,disk,files \
        --disk-dir "$work/disk" --params "$emf_params" --ecs-metadata-uri "$ecs_uri" 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    if "_aws" in json.loads(line):
        sys.stdout.write(line)' >"$work/emf.jsonl"
    emf_lines=("$work/emf.jsonl")
fi
python3 "$tests/cloudwatch_checks.py" dashboard deploy/cloudwatch/dashboard.json \
    deploy/cloudwatch/insights-queries.md "${emf_lines[@]}" || fail "deploy/cloudwatch/dashboard.json"
ok "deploy/cloudwatch/dashboard.json: a put-dashboard body on the 24-column grid; its log widgets run insights-queries.md's queries"
# Each way of breaking the body must be caught: a check that cannot fail proves nothing.
for mutation in 'widgets[1]["x"] = 20' 'widgets[2]["y"] = 3' 'widgets[1]["height"] = "6"' \
    'widgets[2]["properties"]["query"] += " | limit 5"' 'widgets[1]["properties"]["metrics"] = [["hostprobe"]]' \
    'widgets[3]["properties"]["metrics"][0][0]["expression"] = "SEARCH(\x27{AWS/EC2,InstanceId} MetricName=\"CPUUtilization\"\x27, \x27Average\x27, 300)"' \
    'widgets[0]["type"] = "chart"'; do
    python3 - "$mutation" <<'PY' >"$work/broken.json"
import json, sys
body = json.load(open("deploy/cloudwatch/dashboard.json"))
exec(sys.argv[1], {"widgets": body["widgets"]})
json.dump(body, sys.stdout)
PY
    if python3 "$tests/cloudwatch_checks.py" dashboard "$work/broken.json" deploy/cloudwatch/insights-queries.md \
        "${emf_lines[@]}" >/dev/null 2>&1; then
        fail "the dashboard check accepted a body with $mutation"
    fi
done
ok "the dashboard check rejects a widget off the grid, overlapping, with text for a number, a changed query, a bad metrics row, a foreign namespace, an unknown type"

echo "# deploy/survey.sh --from-logs on bad input"
status=0
survey_logs --since 5x >/dev/null 2>"$work/err" || status=$?
((status == 2)) && grep -q -- "--since must be a duration" "$work/err" || fail "--since 5x: status $status"
status=0
PATH="$work/bin:$PATH" FAKE_AWS_DIR="$work/aws" FAKE_AWS_LOG_EVENTS="$work/events.jsonl" \
    deploy/survey.sh --from-logs /ecs/missing >/dev/null 2>"$work/err" || status=$?
((status == 1)) && grep -q "ResourceNotFoundException" "$work/err" &&
    grep -q "filter-log-events failed" "$work/err" || { cat "$work/err" >&2; fail "missing group: status $status"; }
status=0
PATH="$work/bin:$PATH" FAKE_AWS_DIR="$work/aws" FAKE_AWS_LOG_EVENTS="$work/events.jsonl" \
    deploy/survey.sh --from-logs /ecs/other --since 1h >/dev/null 2>"$work/err" || status=$?
((status == 0)) || { cat "$work/err" >&2; fail "/ecs/other: status $status"; }
ok "--from-logs: a bad --since is a usage error (2); a missing group fails (1) with AWS's message"
echo "all $checked survey --from-logs checks passed"
