#!/usr/bin/env bash
# Offline tests of deploy/: the Prometheus configuration, rules and their unit tests; the Grafana
# dashboard; every metric name both use, against real agents' /metrics and a real Prometheus;
# deploy/survey.sh against real agents behind a fake AWS CLI, and against saved results.
# Usage: tests/deploy/run.sh <path-to-hostprobe-binary>
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
sysroots=tests/fixtures/sysroots
for tool in promtool prometheus python3 curl; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is needed (Debian: prometheus, python3, curl)" >&2; exit 2; }
done

source tests/deploy/lib.sh
# Runs a command quietly; on failure shows its output and stops.
quietly() {
    local description=$1
    shift
    "$@" >"$work/output" 2>&1 || { cat "$work/output" >&2; fail "$description"; }
    ok "$description"
}
# `survey.sh ...`: stdout, stderr and status to $work/survey.{out,err,status}.
survey() {
    local status=0
    deploy/survey.sh "$@" >"$work/survey.out" 2>"$work/survey.err" || status=$?
    echo "$status" >"$work/survey.status"
    ! grep -q Traceback "$work/survey.out" "$work/survey.err" ||
        { cat "$work/survey.err" >&2; fail "survey.sh $* printed a Python traceback"; }
}
expect_status() {
    local status
    status=$(<"$work/survey.status")
    [[ $status == "$1" ]] || { cat "$work/survey.err" >&2; fail "$2: exit status $status, expected $1"; }
}
expect_in() {
    grep -qF -- "$2" "$work/$1" || { cat "$work/$1" >&2; fail "$3: no '$2' in its ${1#survey.}"; }
}
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() {
    local what=$1 seconds=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || fail "$what did not happen within $seconds s"
        sleep 0.2
    done
}

echo "# Prometheus configuration and rules"
quietly "promtool check config deploy/prometheus/prometheus.yml (its rule_files resolve)" \
    promtool check config deploy/prometheus/prometheus.yml
quietly "promtool check rules deploy/prometheus/hostprobe-rules.yml" \
    promtool check rules deploy/prometheus/hostprobe-rules.yml
quietly "promtool test rules deploy/prometheus/hostprobe-rules.test.yml" \
    promtool test rules deploy/prometheus/hostprobe-rules.test.yml

echo "# Grafana dashboard"
python3 -m json.tool deploy/grafana/hostprobe-dashboard.json >/dev/null ||
    fail "deploy/grafana/hostprobe-dashboard.json is not valid JSON"
python3 "$tests/checks.py" dashboard deploy/grafana/hostprobe-dashboard.json
ok "the dashboard is valid JSON: \${datasource} everywhere, job/instance/model variables, no overlapping panels"

echo "# three agents on replays of seed 000's Fargate hosts"
# Fargate gives the agent ECS task metadata and every container's stats: real captures of a
# 0.25 vCPU / 512 MiB task (two running containers, one stopped), its counters rising.
mkdir -p "$work/disk"
python3 -u tests/support/fake_ecs.py --prefix /v4/survey --cores 0.05 \
    --task tests/fixtures/ecs/ecs_exporter/fargate_task_metadata.json \
    --stats tests/fixtures/ecs/ecs_exporter/fargate_task_stats.json >"$work/ecs.log" 2>&1 &
pids+=($!)
wait_for "the fake ECS metadata endpoint" 10 grep -q "^port" "$work/ecs.log"
ecs_uri="http://127.0.0.1:$(sed -n 's/^port \([0-9]*\)$/\1/p' "$work/ecs.log" | head -1)/v4/survey"
# The survey task definition's runs, made short.
echo '{"cipher": {"ciphers": ["aes-128-gcm"], "block_sizes": [8192], "seconds": 0.5}}' >"$work/params.json"
# A replay's cpu.stat never changes; this copy's counters rise as a busy 0.25 vCPU task's do,
# and so does its CPU use (cpuacct.usage: a quarter of a CPU, 125 ms each half second).
cp -r "$sysroots/fargate-e5-2686v4" "$work/sysroot-2686v4"
cpu_stat="$work/sysroot-2686v4/sys/fs/cgroup/cpu,cpuacct/cpu.stat"
cpu_usage="$work/sysroot-2686v4/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage"
(
    periods=120000 throttled=90000 usage=2950000000000
    while sleep 0.5; do
        periods=$((periods + 5)) throttled=$((throttled + 4)) usage=$((usage + 125000000))
        printf 'nr_periods %d\nnr_throttled %d\nthrottled_time %d\n' \
            "$periods" "$throttled" "$((throttled * 75000000))" >"$cpu_stat.new"
        mv "$cpu_stat.new" "$cpu_stat"
        echo "$usage" >"$cpu_usage.new"
        mv "$cpu_usage.new" "$cpu_usage"
    done
) &
pids+=($!)
start_agent() {
    local sysroot=$1 listen=$2 name=$3
    shift 3
    "$binary" serve --listen "$listen" --sysroot "$sysroot" --run-on-start cpu,cipher \
        --params-file "$work/params.json" --ecs-metadata-uri "$ecs_uri" "$@" 2>"$work/$name.log" &
    pids+=($!)
}
# One port on three loopback addresses: the survey reaches every task on the same port.
start_agent "$work/sysroot-2686v4" 127.0.0.2:0 agent-2686v4 --disk-dir "$work/disk"
wait_for "agent-2686v4 listening" 10 grep -q "msg=listening" "$work/agent-2686v4.log"
port=$(sed -n 's/.*msg=listening address=127.0.0.2:\([0-9]*\).*/\1/p' "$work/agent-2686v4.log")
start_agent "$sysroots/fargate-e5-2670v2" "127.0.0.3:$port" agent-2670v2
# This one wants a token even for reads: Prometheus and the survey must send it.
printf 'survey-test-token\n' >"$work/token"
start_agent "$sysroots/fargate-e5-2676v3" "127.0.0.4:$port" agent-2676v3 \
    --token-file "$work/token" --auth-reads
agents=(127.0.0.2 127.0.0.3 127.0.0.4)
for address in "${agents[@]}"; do
    wait_for "the agent on $address answering" 10 curl -fsS "http://$address:$port/healthz"
done
ok "agents for E5-2686 v4, E5-2670 v2, E5-2676 v3 (token for reads too) on port $port of ${agents[*]}, with ECS task metadata"

agent=http://127.0.0.2:$port
# The state of the run (or of the newest run of a list) that the agent answered with.
run_state() {
    python3 -c 'import json, sys; run = json.load(sys.stdin); print(run["runs"][0]["state"] if "runs" in run else run["state"])'
}
cipher_done() {
    [[ $(curl -fsS "$agent/v1/runs?probe=cipher&limit=1" | run_state) == succeeded ]]
}
wait_for "the start-up cipher run" 60 cipher_done
# Disk and files metrics exist only after such runs: one short run of each.
for run in '{"probe": "disk", "params": {"directory": "'"$work/disk"'", "size": "1m", "runtime": 1, "direct": false}}' \
    '{"probe": "files", "params": {"directory": "'"$work/disk"'", "files": 50}}'; do
    state=$(curl -fsS -X POST -H 'Content-Type: application/json' -d "$run" "$agent/v1/runs?wait=60" | run_state)
    [[ $state == succeeded ]] || fail "run $run ended $state"
done
curl -fsS "$agent/metrics" >"$work/metrics.txt"
ok "cipher, disk and files runs on the E5-2686 v4 agent; /metrics has $(grep -vc '^#' "$work/metrics.txt") samples"

echo "# metric names in the rules and the dashboard"
python3 "$tests/checks.py" names "$work/metrics.txt" deploy/prometheus/hostprobe-rules.yml \
    deploy/grafana/hostprobe-dashboard.json
ok "every metric name in the rules and the dashboard is on the agent's /metrics or recorded by a rule"

echo "# a real Prometheus scraping the agents with deploy/'s rules"
prometheus_port=$(free_port)
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $repo/deploy/prometheus/hostprobe-rules.yml
scrape_configs:
  - job_name: hostprobe
    authorization:
      credentials_file: $work/token
    static_configs:
      - targets: [$(printf '"%s:'"$port"'"\n' "${agents[@]}" | paste -sd,)]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prometheus_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
wait_for "Prometheus ready" 30 curl -fsS "http://127.0.0.1:$prometheus_port/-/ready"
python3 "$tests/checks.py" queries "http://127.0.0.1:$prometheus_port" \
    deploy/grafana/hostprobe-dashboard.json deploy/prometheus/hostprobe-rules.yml "${#agents[@]}"
ok "every recording rule has a value and every dashboard query returns series"

echo "# deploy/survey.sh against the agents, through a fake AWS CLI"
mkdir -p "$work/bin" "$work/aws"
ln -s "$repo/$tests/fake_aws.py" "$work/bin/aws"
PATH="$work/bin:$PATH" FAKE_AWS_DIR="$work/aws" FAKE_AWS_ADDRESSES="$(IFS=,; echo "${agents[*]}"),stopped" \
    survey --cluster survey-test --subnets subnet-0a,subnet-0b --security-groups sg-0c \
    --count 4 --port "$port" --timeout 60 --out "$work/survey-live" --token-file "$work/token"
expect_status 0 "survey.sh with AWS"
expect_in survey.err "is STOPPED: CannotPullContainerError" "survey.sh with AWS"
expect_in survey.err "saved 3 of 4 result(s)" "survey.sh with AWS"
expect_in survey.out "1 x Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz" "survey.sh with AWS"
python3 - "$work/aws/calls.jsonl" "$work/survey-live" <<'EOF' || fail "survey.sh with AWS: calls or results"
import glob, json, sys
calls = [json.loads(line) for line in open(sys.argv[1])]
run = [call for call in calls if call[:2] == ["ecs", "run-task"]]
assert len(run) == 1, run
for expected in (["--task-definition", "hostprobe-survey-serve"], ["--launch-type", "FARGATE"], ["--count", "4"],
                 ["--network-configuration", "awsvpcConfiguration={subnets=[subnet-0a,subnet-0b],"
                  "assignPublicIp=DISABLED,securityGroups=[sg-0c]}"]):
    index = run[0].index(expected[0])
    assert run[0][index:index + 2] == expected, (expected, run[0])
stopped = sorted(call[call.index("--task") + 1] for call in calls if call[:2] == ["ecs", "stop-task"])
assert len(stopped) == 4 and len(set(stopped)) == 4, stopped
models = {}
for path in glob.glob(sys.argv[2] + "/*.json"):
    record = json.load(open(path))
    assert record["cipher_run"]["state"] == "succeeded", record["cipher_run"]
    assert record["host"]["ecs"]["launch_type"] == "FARGATE"
    models[record["address"].split(":")[0]] = record["host"]["cpu"]["model_name"]
assert models == {"127.0.0.2": "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz",
                  "127.0.0.3": "Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz",
                  "127.0.0.4": "Intel(R) Xeon(R) CPU E5-2676 v3 @ 2.40GHz"}, models
EOF
ok "survey.sh ran 4 Fargate tasks, waited past PENDING, skipped the STOPPED one, saved 3 results (one with the token), stopped all 4"
mkdir "$work/aws-no-token" "$work/aws-wrong-token" # fresh fake accounts: task indexes from 0
PATH="$work/bin:$PATH" FAKE_AWS_DIR="$work/aws-no-token" FAKE_AWS_ADDRESSES="127.0.0.2,127.0.0.4" \
    survey --cluster survey-test --subnets subnet-0a --count 2 --port "$port" --timeout 60 \
    --out "$work/survey-no-token"
expect_status 0 "survey.sh without the token"
expect_in survey.err "answered HTTP 401" "survey.sh without the token"
expect_in survey.err "the agent wants its bearer token: --token-file FILE or HOSTPROBE_TOKEN" \
    "survey.sh without the token"
expect_in survey.err "saved 1 of 2 result(s)" "survey.sh without the token"
PATH="$work/bin:$PATH" FAKE_AWS_DIR="$work/aws-wrong-token" FAKE_AWS_ADDRESSES="127.0.0.4" HOSTPROBE_TOKEN=wrong \
    survey --cluster survey-test --subnets subnet-0a --count 1 --port "$port" --timeout 60 \
    --out "$work/survey-wrong-token"
expect_in survey.err "the bearer token is not valid" "survey.sh with a wrong HOSTPROBE_TOKEN"
expect_in survey.err "is --token-file the agents' token?" "survey.sh with a wrong HOSTPROBE_TOKEN"
ok "survey.sh without the token, or with a wrong one, says so for that agent and saves the others"
survey --from-dir "$work/survey-live" --json
expect_status 0 "survey.sh --json on the live results"
python3 - "$work/survey.out" <<'EOF' || fail "survey.sh --json on the live results"
import json, sys
summary = json.load(open(sys.argv[1]))
assert summary["task_count"] == 3 and not summary["warnings"], summary
for group in summary["groups"]:
    assert group["measured"] == 1 and group["wall_mb_per_second"] > 0 and group["cpu_mb_per_second"] > 0, group
    # The ECS capture's 0.25 vCPU and 0.5 GB at the agent's default prices.
    assert group["vcpus"] == 0.25 and group["memory_gib"] == 0.5, group
    assert abs(group["dollars_per_hour"] - 0.0123425) < 1e-9, group
EOF
ok "survey.sh --json: one task per model, throughput measured, cost from the ECS task limits"

echo "# deploy/survey.sh --from-dir on saved results"
fixtures=$tests/fixtures/survey
survey --from-dir "$fixtures"
expect_status 0 "survey.sh --from-dir $fixtures"
diff -u "$tests/fixtures/survey-summary.txt" "$work/survey.out" ||
    fail "survey.sh --from-dir $fixtures differs from $tests/fixtures/survey-summary.txt"
sed 's/^./  &/' "$work/survey.out"
ok "survey.sh --from-dir $fixtures prints $tests/fixtures/survey-summary.txt"
survey --from-dir "$fixtures" --json
expect_status 0 "survey.sh --from-dir $fixtures --json"
python3 - "$work/survey.out" "$tests/fixtures/survey-summary.json" <<'EOF' ||
import json, sys
actual, expected = (json.load(open(path)) for path in sys.argv[1:])
sys.exit(actual != expected)
EOF
    { diff -u "$tests/fixtures/survey-summary.json" "$work/survey.out" >&2; fail "survey.sh --json differs"; }
ok "survey.sh --from-dir $fixtures --json gives $tests/fixtures/survey-summary.json"
survey --from-dir "$fixtures" --json --price-vcpu-hour 0.05056 --price-gb-hour 0.00553
expect_status 0 "survey.sh with prices"
python3 - "$work/survey.out" <<'EOF' || fail "survey.sh --price-vcpu-hour/--price-gb-hour"
import json, sys
summary = json.load(open(sys.argv[1]))
for group in summary["groups"]:
    assert abs(group["dollars_per_hour"] - (0.25 * 0.05056 + 0.5 * 0.00553)) < 1e-12, group
EOF
ok "survey.sh --price-vcpu-hour 0.05056 --price-gb-hour 0.00553 prices every task from its limits"

echo "# deploy/survey.sh on bad input"
mkdir "$work/bad" "$work/empty"
fixture_files=("$fixtures"/*.json)
cp "${fixture_files[@]:0:3}" "$work/bad/"
head -c 300 "${fixture_files[3]}" >"$work/bad/truncated.json"
echo '{"hello": "world"}' >"$work/bad/not-a-survey.json"
python3 - "${fixture_files[4]}" "$work/bad/failed-run.json" <<'EOF'
import json, sys
record = json.load(open(sys.argv[1]))
record["cipher_run"].update(state="failed", error="out of memory", result=None)
json.dump(record, open(sys.argv[2], "w"))
EOF
survey --from-dir "$work/bad"
expect_status 0 "survey.sh on a directory with bad files"
expect_in survey.err "truncated.json: not valid JSON" "survey.sh on a truncated file"
expect_in survey.err "not-a-survey.json: no host.cpu.model_name" "survey.sh on a file that is no survey result"
expect_in survey.err "failed-run.json: cipher run failed: out of memory; counted without throughput" \
    "survey.sh on a failed cipher run"
expect_in survey.out "4 tasks in $work/bad" "survey.sh on a directory with bad files"
expect_in survey.out "3 warning(s), printed above" "survey.sh on a directory with bad files"
ok "survey.sh warns about a truncated file, a foreign JSON and a failed run, and summarizes the rest"
survey --from-dir "$work/missing"
expect_status 1 "survey.sh --from-dir on a missing directory"
expect_in survey.err "survey: error: $work/missing: no such directory" "survey.sh on a missing directory"
ok "survey.sh --from-dir on a missing directory: exit 1, 'no such directory'"
survey --from-dir "$work/empty"
expect_status 1 "survey.sh --from-dir on an empty directory"
expect_in survey.err "no survey results" "survey.sh on an empty directory"
ok "survey.sh --from-dir on an empty directory: exit 1, 'no survey results'"
survey --from-dir "$fixtures" --count many
expect_status 2 "survey.sh with a bad option value"
expect_in survey.err "--count must be a positive whole number" "survey.sh --count many"
survey --cluster c
expect_status 2 "survey.sh without --subnets"
expect_in survey.err "--subnets is needed" "survey.sh without --subnets"
survey --cluster c --subnets s --token-file "$work/missing-token"
expect_status 2 "survey.sh with a missing --token-file"
expect_in survey.err "--token-file: cannot read" "survey.sh with a missing --token-file"
: >"$work/empty-token"
survey --cluster c --subnets s --token-file "$work/empty-token"
expect_status 2 "survey.sh with an empty --token-file"
expect_in survey.err "is empty" "survey.sh with an empty --token-file"
ok "survey.sh usage errors exit 2 and say what is wrong"

echo "all $checked deploy checks passed"
