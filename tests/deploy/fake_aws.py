#!/usr/bin/env python3
"""A stand-in for the AWS CLI's `aws ecs run-task | describe-tasks | stop-task` and
`aws logs filter-log-events`, enough for deploy/survey.sh: answers with the shapes ECS and
CloudWatch Logs answer with, and logs every call.

FAKE_AWS_DIR        where the state and calls.jsonl (one JSON argv a line) go
FAKE_AWS_ADDRESSES  the private IP of each task in start order, comma separated; "stopped" makes
                    a task that stops before it runs, as one whose image cannot be pulled
FAKE_AWS_LOG_EVENTS a JSON-lines file of log events ({"logGroupName", "logStreamName",
                    "timestamp", "message"}) that filter-log-events serves
Each task is PENDING when first described and RUNNING (or STOPPED) afterwards.
filter-log-events keeps the events of the group from --start-time on whose message is JSON with
a "type" among those of the filter pattern `{ ($.type = "A") || ($.type = "B") }` (the only
pattern form it understands), and pages them as the CLI does with --max-items and
--starting-token (a "NextToken" member while more remain).
"""
import json
import os
import re
import sys

ACCOUNT_REGION = "us-east-1:111122223333"
STATE_DIR = os.environ["FAKE_AWS_DIR"]
STATE_FILE = os.path.join(STATE_DIR, "state.json")


def option(argv, name):
    index = argv.index(name)
    return argv[index + 1]


def options_list(argv, name):
    values = []
    for value in argv[argv.index(name) + 1:]:
        if value.startswith("--"):
            break
        values.append(value)
    return values


def load_state():
    if os.path.exists(STATE_FILE):
        with open(STATE_FILE) as source:
            return json.load(source)
    return {"tasks": []}


def save_state(state):
    with open(STATE_FILE, "w") as out:
        json.dump(state, out)


def run_task(argv, state):
    count = int(option(argv, "--count"))
    if count > 10:
        print("An error occurred (InvalidParameterException) when calling the RunTask operation: "
              "count must be between 1 and 10", file=sys.stderr)
        sys.exit(254)
    cluster = option(argv, "--cluster")
    addresses = os.environ["FAKE_AWS_ADDRESSES"].split(",")
    started = []
    for _ in range(count):
        index = len(state["tasks"])
        task = {"taskArn": "arn:aws:ecs:%s:task/%s/%032x" % (ACCOUNT_REGION, cluster, index + 1),
                "address": addresses[index], "described": 0}
        state["tasks"].append(task)
        started.append({"taskArn": task["taskArn"], "lastStatus": "PROVISIONING",
                        "desiredStatus": "RUNNING", "launchType": "FARGATE",
                        "taskDefinitionArn": "arn:aws:ecs:%s:task-definition/%s:1"
                        % (ACCOUNT_REGION, option(argv, "--task-definition"))})
    return {"tasks": started, "failures": []}


def described(task):
    answer = {"taskArn": task["taskArn"], "launchType": "FARGATE", "cpu": "256", "memory": "512"}
    if task["described"] == 1:
        answer["lastStatus"] = "PENDING"
    elif task["address"] == "stopped":
        answer["lastStatus"] = "STOPPED"
        answer["stoppedReason"] = ("CannotPullContainerError: pull image manifest has been "
                                   "retried 5 time(s)")
    else:
        answer["lastStatus"] = "RUNNING"
        answer["attachments"] = [{"type": "ElasticNetworkInterface", "status": "ATTACHED",
                                  "details": [{"name": "subnetId", "value": "subnet-0a"},
                                              {"name": "privateIPv4Address",
                                               "value": task["address"]}]}]
        answer["containers"] = [{"name": "hostprobe", "lastStatus": "RUNNING",
                                 "networkInterfaces": [{"privateIpv4Address": task["address"]}]}]
    return answer


def describe_tasks(argv, state):
    wanted = options_list(argv, "--tasks")
    tasks, failures = [], []
    for arn in wanted:
        task = next((task for task in state["tasks"] if task["taskArn"] == arn), None)
        if task is None:
            failures.append({"arn": arn, "reason": "MISSING"})
            continue
        task["described"] += 1
        tasks.append(described(task))
    return {"tasks": tasks, "failures": failures}


def stop_task(argv, state):
    arn = option(argv, "--task")
    return {"task": {"taskArn": arn, "lastStatus": "STOPPED", "desiredStatus": "STOPPED",
                     "stoppedReason": option(argv, "--reason")}}


def pattern_types(pattern):
    """The types of `{ ($.type = "A") || ($.type = "B") }`; anything else is refused."""
    terms = re.findall(r'\(\$\.type = "([^"]+)"\)', pattern)
    rebuilt = "{ " + " || ".join('($.type = "%s")' % term for term in terms) + " }"
    if not terms or rebuilt != pattern.strip():
        print("fake aws: unsupported filter pattern: %s" % pattern, file=sys.stderr)
        sys.exit(252)
    return set(terms)


def message_type(message):
    try:
        document = json.loads(message)
    except ValueError:
        return None
    return document.get("type") if isinstance(document, dict) else None


def filter_log_events(argv, state):
    group = option(argv, "--log-group-name")
    start = int(option(argv, "--start-time")) if "--start-time" in argv else 0
    types = pattern_types(option(argv, "--filter-pattern"))
    max_items = int(option(argv, "--max-items"))
    offset = int(option(argv, "--starting-token")) if "--starting-token" in argv else 0
    with open(os.environ["FAKE_AWS_LOG_EVENTS"]) as source:
        events = [json.loads(line) for line in source if line.strip()]
    if not any(event["logGroupName"] == group for event in events):
        print("An error occurred (ResourceNotFoundException) when calling the FilterLogEvents "
              "operation: The specified log group does not exist.", file=sys.stderr)
        sys.exit(254)
    matching = [{"logStreamName": event["logStreamName"], "timestamp": event["timestamp"],
                 "message": event["message"], "ingestionTime": event["timestamp"] + 500,
                 "eventId": "%056d" % index}
                for index, event in enumerate(events)
                if event["logGroupName"] == group and event["timestamp"] >= start
                and message_type(event["message"]) in types]
    answer = {"events": matching[offset:offset + max_items], "searchedLogStreams": []}
    if offset + max_items < len(matching):
        answer["NextToken"] = str(offset + max_items)
    return answer


def main(argv):
    with open(os.path.join(STATE_DIR, "calls.jsonl"), "a") as log:
        log.write(json.dumps(argv) + "\n")
    commands = {("ecs", "run-task"): run_task, ("ecs", "describe-tasks"): describe_tasks,
                ("ecs", "stop-task"): stop_task, ("logs", "filter-log-events"): filter_log_events}
    command = commands.get(tuple(argv[:2]))
    if command is None:
        print("fake aws: unsupported command: %s" % " ".join(argv), file=sys.stderr)
        sys.exit(252)
    state = load_state()
    answer = command(argv, state)
    save_state(state)
    json.dump(answer, sys.stdout, indent=4)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
