#!/usr/bin/env python3
"""The checks of tests/deploy/run.sh that read JSON, YAML or PromQL. Each subcommand prints what
it checked and exits 1 with the reason when a check fails. Standard library only."""
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

DASHBOARD_VARIABLES = {"$job": ".*", "$instance": ".*", "$model": ".*", "$cipher": ".*",
                       "$block_bytes": ".*", "$__rate_interval": "1m"}
# Series Prometheus makes itself for every target.
PROMETHEUS_SERIES = {"up"}
METRIC_NAME = re.compile(r"(?<![\w:.\"$-])([a-zA-Z_:][a-zA-Z0-9_:]*)")


class CheckFailed(Exception):
    pass


def require(condition, message):
    if not condition:
        raise CheckFailed(message)


def load_dashboard(path):
    with open(path) as source:
        return json.load(source)


def dashboard_panels(dashboard):
    return [panel for panel in dashboard["panels"] if panel.get("type") != "row"]


def dashboard_queries(dashboard):
    """Every PromQL text of the dashboard: panel targets and variable queries."""
    queries = []
    for panel in dashboard_panels(dashboard):
        for target in panel["targets"]:
            queries.append((panel["title"], target["expr"]))
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            queries.append(("variable " + variable["name"], variable["query"]["query"]))
    return queries


def check_dashboard(path):
    dashboard = load_dashboard(path)
    require(dashboard.get("schemaVersion", 0) >= 36, "schemaVersion %s is older than Grafana 9"
            % dashboard.get("schemaVersion"))
    variables = {variable["name"]: variable for variable in dashboard["templating"]["list"]}
    source = variables.get("datasource", {})
    require(source.get("type") == "datasource" and source.get("query") == "prometheus",
            "no Prometheus data source variable named datasource")
    for name in ("job", "instance", "model"):
        require(name in variables, "no template variable %s" % name)
        # Multi-value variables are regex-escaped by Grafana; model names hold "(R)" and ".".
        require(variables[name].get("multi") and variables[name].get("includeAll"),
                "variable %s must be multi-value with All" % name)
    ids = set()
    cells = set()
    panels = dashboard_panels(dashboard)
    for panel in dashboard["panels"]:
        require(panel["id"] not in ids, "panel id %s is used twice" % panel["id"])
        ids.add(panel["id"])
        grid = panel["gridPos"]
        require(grid["x"] + grid["w"] <= 24, "panel %r is wider than the grid" % panel["title"])
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                require((x, y) not in cells, "panel %r overlaps another" % panel["title"])
                cells.add((x, y))
    for panel in panels:
        require(panel.get("title") and panel.get("targets"), "a panel without title or query")
        require(panel["datasource"].get("uid") == "${datasource}",
                "panel %r does not use ${datasource}" % panel["title"])
        for target in panel["targets"]:
            require(target["datasource"].get("uid") == "${datasource}",
                    "a query of %r does not use ${datasource}" % panel["title"])
            require(target.get("expr"), "a query of %r has no expr" % panel["title"])
    print("  %d panels, %d queries, variables %s" % (
        len(panels), len(dashboard_queries(dashboard)), ", ".join(sorted(variables))))


def rule_expressions(path):
    """(name, expr) of every rule. Reads the subset of YAML the rules file uses: `expr:` holds
    one line, or a `|` block of deeper-indented lines."""
    lines = open(path).read().splitlines()
    rules = []
    name = None
    index = 0
    while index < len(lines):
        line = lines[index]
        named = re.match(r"\s*- (record|alert): (\S+)", line)
        if named:
            name = named.group(2)
        match = re.match(r"^(\s*)expr:\s*(.*)$", line)
        index += 1
        if not match:
            continue
        indent, value = len(match.group(1)), match.group(2)
        if value in ("|", ">", "|-", ">-"):
            block = []
            while index < len(lines) and (not lines[index].strip()
                                          or len(lines[index]) - len(lines[index].lstrip()) > indent):
                block.append(lines[index].strip())
                index += 1
            value = " ".join(block)
        rules.append((name, value))
    return rules


def recorded_names(path):
    return set(re.findall(r"^\s*- record: (\S+)", open(path).read(), re.MULTILINE))


PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless",
    "offset", "bool", "sum", "count", "avg", "min", "max", "quantile", "count_values", "topk",
    "bottomk", "stddev", "stdvar", "group", "rate", "irate", "increase", "clamp_max", "clamp_min",
    "label_values", "label_replace", "time", "inf", "nan", "d", "h", "m", "s", "w", "y", "ms"}


def metric_names(expr):
    """Metric names an expression selects: identifiers that are not PromQL words, label names
    (inside {} or the () after by/on/...), or label values (inside quotes)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", "{}", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1", text)
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\boffset\s+\w+", "", text)
    # label_values(metric, label): the second argument is a label.
    text = re.sub(r"(label_values\s*\([^,]*),\s*\w+\s*\)", r"\1)", text)
    names = set()
    for match in METRIC_NAME.finditer(text):
        word = match.group(1)
        following = text[match.end():].lstrip()[:1]
        if word.lower() in PROMQL_WORDS or re.fullmatch(r"[0-9.e+]+", word):
            continue
        if following == "(" and ":" not in word:  # a function
            continue
        names.add(word)
    return names


def exposed_names(metrics_path):
    """Names a scrape exposes: every sample's name, and the family name of a histogram or
    summary (whose samples are <name>_bucket, _sum, _count)."""
    names = set(PROMETHEUS_SERIES)
    for line in open(metrics_path):
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif line.strip() and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def check_names(metrics_path, rules_path, dashboard_path):
    exposed = exposed_names(metrics_path)
    recorded = recorded_names(rules_path)
    rules = rule_expressions(rules_path)
    declared = re.findall(r"^\s*- (?:record|alert): ", open(rules_path).read(), re.MULTILINE)
    require(len(rules) == len(declared) and all(expr for _, expr in rules),
            "read %d expressions for %d rules in %s" % (len(rules), len(declared), rules_path))
    used = {}
    for name, expr in rules:
        for metric in metric_names(expr):
            used.setdefault(metric, set()).add("rule " + name)
    for where, expr in dashboard_queries(load_dashboard(dashboard_path)):
        for metric in metric_names(expr):
            used.setdefault(metric, set()).add("dashboard " + where)
    unknown = {metric: places for metric, places in used.items()
               if metric not in exposed and metric not in recorded}
    require(not unknown, "names no agent exposes and no rule records: " + "; ".join(
        "%s (in %s)" % (metric, ", ".join(sorted(places))) for metric, places in sorted(unknown.items())))
    for metric in sorted(used):
        kind = "recorded" if metric in recorded else "exposed"
        print("  %-62s %s" % (metric, kind))


def prometheus_query(base, expr):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            answer = json.load(response)
    except urllib.error.HTTPError as error:
        answer = json.load(error)
    require(answer.get("status") == "success", "%s: %s" % (expr, answer.get("error")))
    return answer["data"]["result"]


def check_queries(base, dashboard_path, rules_path, agents, timeout=60):
    """Waits until Prometheus has scraped every agent a few times and every recording rule has
    a value (rate() needs two samples), then runs every dashboard query."""
    recorded = sorted(recorded_names(rules_path))
    deadline = time.time() + timeout
    while True:
        try:
            scraped = prometheus_query(base, "count(count_over_time(up[1m]) >= 3)")
            empty = [name for name in recorded if not prometheus_query(base, name)]
            if scraped and int(scraped[0]["value"][1]) == agents and not empty:
                break
        except (OSError, CheckFailed) as error:
            empty = ["(Prometheus not ready: %s)" % error]
        require(time.time() < deadline, "after %d s, rules with no value from %d agents: %s"
                % (timeout, agents, ", ".join(empty)))
        time.sleep(0.5)
    for name in recorded:
        print("  %-68s %3d series" % ("rule " + name, len(prometheus_query(base, name))))
    for where, expr in dashboard_queries(load_dashboard(dashboard_path)):
        query = expr
        for variable, value in DASHBOARD_VARIABLES.items():
            query = query.replace(variable, value)
        if query.startswith("label_values("):
            query = "count(%s)" % re.match(r"label_values\((.*),\s*\w+\)$", query).group(1)
        result = prometheus_query(base, query)
        require(result, "dashboard %s: no data for %s" % (where, query))
        print("  %-68s %3d series" % ("dashboard " + where, len(result)))


def main(argv):
    commands = {
        "dashboard": lambda: check_dashboard(argv[1]),
        "names": lambda: check_names(argv[1], argv[2], argv[3]),
        "queries": lambda: check_queries(argv[1], argv[2], argv[3], int(argv[4])),
    }
    try:
        commands[argv[0]]()
    except CheckFailed as failure:
        print("FAILED: %s" % failure, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
