#!/usr/bin/env python3
"""Checks of deploy/cloudwatch/: the dashboard body and the Logs Insights queries.

  cloudwatch_checks.py dashboard DASHBOARD.json QUERIES.md [EMF_LINES]
      the put-dashboard body's structure (widgets on a 24-column grid, each with type, x, y,
      width, height and properties; metrics arrays; log widgets' queries, each one of
      QUERIES.md); with EMF_LINES (the agent's real EMF output), every SEARCH names a metric the
      agent emits under exactly those dimensions.
  cloudwatch_checks.py queries QUERIES.md LINES_DIR SUMMARY.json
      evaluates the queries tasks-per-cpu-model, cipher-throughput-by-cpu-model and
      data-per-dollar-by-cpu-model on the survey lines (LINES_DIR/*.out) with a small evaluator
      of the Logs Insights subset they use, and compares with deploy/survey.sh --json's summary.
"""
import glob
import json
import re
import statistics
import sys

GRID_COLUMNS = 24
WIDGET_TYPES = {"metric", "log", "text", "alarm", "explorer"}
SEARCH = re.compile(r"""SEARCH\('\{([^}]*)\} MetricName="([A-Za-z0-9]+)"', '([A-Za-z0-9.]+)', (\d+)\)""")


def fail(message):
    print("FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def read_queries(path):
    text = open(path).read()
    queries = dict(re.findall(r"^## ([a-z0-9-]+)\n.*?\n```\n(.*?)\n```", text, re.S | re.M))
    if not queries:
        fail("%s: no '## name' sections with a query" % path)
    return queries


# ---- the dashboard ------------------------------------------------------------------------

def emitted_metrics(path):
    """(namespace, frozenset(dimensions), metric) of every EMF directive in the lines."""
    emitted = set()
    for line in open(path):
        document = json.loads(line)
        for directive in document["_aws"]["CloudWatchMetrics"]:
            for dimensions in directive["Dimensions"]:
                for metric in directive["Metrics"]:
                    emitted.add((directive["Namespace"], frozenset(dimensions), metric["Name"]))
    return emitted


def check_metric_widget(where, properties, emitted, problems):
    metrics = properties.get("metrics")
    if not isinstance(metrics, list) or not metrics:
        problems.append(where + ": metrics must be a non-empty array")
        return
    ids = set()
    for index, row in enumerate(metrics):
        at = "%s metrics[%d]" % (where, index)
        if not isinstance(row, list) or not row:
            problems.append(at + " must be a non-empty array")
            continue
        options = row[-1] if isinstance(row[-1], dict) else {}
        plain = row[:-1] if isinstance(row[-1], dict) else row
        if "expression" in options:
            if plain:
                problems.append(at + ": an expression row holds only its options object")
            expression = options["expression"]
            if not re.fullmatch(r"[a-z][a-zA-Z0-9_]*", str(options.get("id", ""))):
                problems.append(at + ": an expression needs an id of a lower-case letter, letters, digits, _")
            searches = SEARCH.findall(expression)
            if not searches:
                problems.append(at + ": expression %r has no SEARCH('{namespace,...} MetricName=\"...\"', 'stat', period)" % expression)
            for schema, metric, stat, period in searches:
                namespace, *dimensions = [part.strip() for part in schema.split(",")]
                if namespace != "hostprobe":
                    problems.append(at + ": namespace %s is not hostprobe" % namespace)
                if int(period) % 60:
                    problems.append(at + ": period %s is not a multiple of 60" % period)
                if not re.fullmatch(r"(Sum|Average|Minimum|Maximum|SampleCount|p\d{1,2}(\.\d+)?)", stat):
                    problems.append(at + ": statistic %s" % stat)
                if emitted is not None and ("hostprobe", frozenset(dimensions), metric) not in emitted:
                    problems.append(at + ": the agent emits no %s with dimensions exactly %s" % (metric, dimensions))
        else:
            # ["Namespace", "MetricName", "DimName", "DimValue", ...] or "..." shorthands.
            if len(plain) < 2 or len(plain) % 2 or not all(isinstance(part, str) for part in plain):
                problems.append(at + ": a metric row is namespace, name and dimension name/value pairs")
        if "id" in options:
            if options["id"] in ids:
                problems.append(at + ": id %s twice" % options["id"])
            ids.add(options["id"])
    if not isinstance(properties.get("region"), str):
        problems.append(where + ": metric widgets need a region")
    if properties.get("view") not in ("timeSeries", "singleValue", "bar", "pie", "gauge", "table"):
        problems.append(where + ": view %r" % properties.get("view"))
    if "period" in properties and (not isinstance(properties["period"], int) or properties["period"] % 60):
        problems.append(where + ": period must be whole minutes in seconds")


def check_log_widget(where, properties, queries, problems):
    query = properties.get("query")
    match = re.fullmatch(r"SOURCE '([^']+)' \| (.*)", query or "", re.S)
    if not match:
        problems.append(where + ": query must be \"SOURCE '<log group>' | <query>\"")
        return
    if match.group(2) not in queries.values():
        problems.append(where + ": its query is none of insights-queries.md's")
    if not isinstance(properties.get("region"), str):
        problems.append(where + ": log widgets need a region")


def check_dashboard(path, queries_path, emf_lines=None):
    body = json.load(open(path))
    queries = read_queries(queries_path)
    emitted = emitted_metrics(emf_lines) if emf_lines else None
    problems = []
    widgets = body.get("widgets")
    if not isinstance(widgets, list) or not widgets:
        fail("%s: widgets must be a non-empty array" % path)
    if set(body) - {"widgets", "start", "end", "periodOverride", "variables"}:
        problems.append("unknown top-level members %s" % sorted(set(body) - {"widgets", "start", "end", "periodOverride", "variables"}))
    cells = {}
    counts = {}
    for index, widget in enumerate(widgets):
        title = (widget.get("properties") or {}).get("title", "")
        where = "widgets[%d] %s" % (index, title)
        kind = widget.get("type")
        counts[kind] = counts.get(kind, 0) + 1
        if kind not in WIDGET_TYPES:
            problems.append(where + ": type %r" % kind)
        geometry = [widget.get(key) for key in ("x", "y", "width", "height")]
        if not all(isinstance(value, int) and not isinstance(value, bool) for value in geometry):
            problems.append(where + ": x, y, width and height must be integers")
            continue
        x, y, width, height = geometry
        if x < 0 or y < 0 or width < 1 or height < 1 or x + width > GRID_COLUMNS or height > 1000:
            problems.append(where + ": (%d, %d) %dx%d is off the %d-column grid" % (x, y, width, height, GRID_COLUMNS))
        for column in range(x, x + width):
            for row in range(y, y + height):
                if (column, row) in cells:
                    problems.append(where + ": overlaps " + cells[(column, row)])
                    break
                cells[(column, row)] = where
            else:
                continue
            break
        properties = widget.get("properties")
        if not isinstance(properties, dict):
            problems.append(where + ": no properties object")
            continue
        if kind == "metric":
            check_metric_widget(where, properties, emitted, problems)
        elif kind == "log":
            check_log_widget(where, properties, queries, problems)
        elif kind == "text" and not isinstance(properties.get("markdown"), str):
            problems.append(where + ": a text widget needs markdown")
    if problems:
        fail("%s:\n  %s" % (path, "\n  ".join(problems)))
    print("%d widgets (%s) on the %d-column grid, no overlap; %s" % (
        len(widgets), ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())), GRID_COLUMNS,
        "every SEARCH names a metric the agent emits with those dimensions" if emitted is not None
        else "metric names unchecked (no EMF lines)"))


# ---- the queries: a small Logs Insights evaluator --------------------------------------------

def flatten(document, prefix="", into=None):
    """Logs Insights' view of a JSON event: a.b.c and arrays as a.0.b."""
    into = {} if into is None else into
    if isinstance(document, dict):
        for key, value in document.items():
            flatten(value, prefix + key + ".", into)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            flatten(value, prefix + str(index) + ".", into)
    else:
        into[prefix[:-1]] = document
    return into


def field_name(token):
    return token.strip().strip("`")


def value_of(token, event):
    token = token.strip()
    if token.startswith('"'):
        return token.strip('"')
    if re.fullmatch(r"-?\d+(\.\d+)?", token):
        return float(token)
    return event.get(field_name(token))


def arithmetic(expression, event):
    parts = re.split(r"\s*([*/])\s*", expression.strip())
    result = value_of(parts[0], event)
    for operator, operand in zip(parts[1::2], parts[2::2]):
        value = value_of(operand, event)
        if result is None or value is None:
            return None
        result = result * value if operator == "*" else result / value
    return result


def matches(condition, event):
    for term in re.split(r"\s+and\s+", condition):
        left, operator, right = re.fullmatch(r"(.+?)\s*(!=|=|>)\s*(.+)", term.strip()).groups()
        a, b = value_of(left, event), value_of(right, event)
        if operator == "=" and a != b or operator == "!=" and a == b:
            return False
        if operator == ">" and not (a is not None and a > b):
            return False
    return True


def aggregate(function, rows):
    name, _, argument = function.partition("(")
    argument = argument.rstrip(")")
    if name == "count":
        return len(rows)
    field, _, percent = argument.partition(",")
    values = [row[field_name(field)] for row in rows if row.get(field_name(field)) is not None]
    if name == "avg":
        return statistics.mean(values) if values else None
    if name == "pct" and float(percent) == 50:
        return statistics.median(values) if values else None  # CloudWatch's is approximate
    raise ValueError("unsupported aggregate " + function)


def run_query(query, events):
    rows = events
    for stage in [stage.strip() for stage in query.split("\n|")]:
        command, _, rest = stage.partition(" ")
        if command == "filter":
            rows = [row for row in rows if matches(rest, row)]
        elif command == "fields":
            for row in rows:
                for item in re.split(r",\s*(?![^()]*\))", rest):
                    expression, _, alias = item.rpartition(" as ")
                    row[alias.strip()] = arithmetic(expression, row)
        elif command == "stats":
            functions, _, by = rest.partition(" by ")
            groups = {}
            for row in rows:
                groups.setdefault(row.get(field_name(by)), []).append(row)
            rows = []
            for key, members in groups.items():
                result = {field_name(by): key}
                for item in re.split(r",\s*(?![^()]*\))", functions):
                    function, _, alias = item.rpartition(" as ")
                    result[alias.strip()] = aggregate(function.strip(), members)
                rows.append(result)
        elif command == "sort":
            name, _, order = rest.partition(" ")
            rows.sort(key=lambda row: row.get(name), reverse=order.strip() == "desc")
        else:
            raise ValueError("unsupported stage " + stage)
    return rows


def check_queries(queries_path, lines_dir, summary_path):
    queries = read_queries(queries_path)
    events = []
    for path in sorted(glob.glob(lines_dir + "/*.out")):
        events += [flatten(json.loads(line)) for line in open(path)]
    summary = json.load(open(summary_path))
    groups = {group["model_name"]: group for group in summary["groups"]}

    tasks = {row["host.cpu.model_name"]: row["tasks"] for row in run_query(queries["tasks-per-cpu-model"], events)}
    expected = {model["model_name"]: model["tasks"] for model in summary["models"]}
    if tasks != expected:
        fail("tasks-per-cpu-model gives %s, survey.sh %s" % (tasks, expected))

    def close(a, b):
        return a is not None and b is not None and abs(a - b) <= 1e-6 * abs(b)

    for name, column, figure in (("cipher-throughput-by-cpu-model", "median_wall_mb_per_second", "wall_mb_per_second"),
                                 ("cipher-throughput-by-cpu-model", "median_cpu_mb_per_second", "cpu_mb_per_second"),
                                 ("data-per-dollar-by-cpu-model", "median_gb_per_dollar", "gb_per_dollar")):
        rows = run_query(queries[name], events)
        if len(rows) != len(groups):
            fail("%s: %d rows for %d CPU models" % (name, len(rows), len(groups)))
        for row in rows:
            group = groups[row["task.model_name"]]
            if row["tasks"] != group["measured"] or not close(row[column], group[figure]):
                fail("%s: %s: %s %s, survey.sh %s" % (name, row["task.model_name"], column, row[column], group[figure]))
        if "| sort %s desc" % column in queries[name]:
            order = [row[column] for row in rows]
            if order != sorted(order, reverse=True):
                fail("%s: not sorted by %s" % (name, column))
    print("tasks-per-cpu-model, cipher-throughput-by-cpu-model and data-per-dollar-by-cpu-model "
          "give survey.sh's counts, medians and GB per dollar")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "dashboard":
        check_dashboard(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "queries":
        check_queries(*sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
