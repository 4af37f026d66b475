"""Driven by system_vs_unixbench.sh: see there."""
import json, os, re, statistics, subprocess, sys

from probe_niceness import like_the_probe

binary, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
# "run": each test as long as Run runs it (its index.base's second column: 10 s for the CPU
# tests, 30 s for execl, file copy and spawn, 60 s for the shell scripts); else one number.
seconds = None if sys.argv[4] == "run" else float(sys.argv[4])
unixbench = os.path.join(work, "UnixBench")
scratch = os.path.join(work, "tmp")  # both write their files here: one file system
os.makedirs(scratch)

# UnixBench's index tests, by Run's names, in its order.
RUN_TESTS = ["dhry2reg", "whetstone-double", "execl", "fstime", "fsbuffer", "fsdisk", "pipe",
             "context1", "spawn", "shell1", "shell8", "syscall"]

# When the copy lacks pgms/: UnixBench's published baselines (pgms/index.base, the same since
# 5.1: the SPARCstation 20-61 "George" scores 10.0) and what its multi.sh and tst.sh do in 6.0.0
# (each copy sorts sort.src 20 times over). Written here, in the scratch copy only.
INDEX_BASE = """\
dhry2reg|10|lps|116700|116700|2
whetstone-double|10|MWIPS|55.0|55.0|2
execl|30|lps|43.0|43.0|1
fstime|30|KBps|3960|3960|1
fsbuffer|30|KBps|1655|1655|1
fsdisk|30|KBps|5800|5800|1
pipe|10|lps|12440|12440|2
context1|10|lps|4000|4000|2
spawn|30|lps|126|126|2
shell1|60|lpm|42.4|42.4|1
shell8|60|lpm|6.0|6.0|1
syscall|10|lps|15000|15000|2
"""
MULTI_SH = """#!/bin/sh
i=1
while [ $i -le $1 ]; do /bin/sh "$UB_BINDIR/tst.sh" 20 & i=$(($i + 1)); done
wait
"""
TST_SH = """#!/bin/sh
text=$(cat sort.src)
printf "$text%.0s\\n" $(seq $1) | sort > sort.$$
od sort.$$ | sort -n -k 1 > od.$$
grep the sort.$$ | tee grep.$$ | wc > wc.$$
rm sort.$$ grep.$$ od.$$ wc.$$
"""


def supply_missing_pgms():
    pgms = os.path.join(unixbench, "pgms")
    os.makedirs(pgms, exist_ok=True)
    supplied = []
    for name, text in (("index.base", INDEX_BASE), ("multi.sh", MULTI_SH), ("tst.sh", TST_SH)):
        path = os.path.join(pgms, name)
        if not os.path.exists(path):
            with open(path, "w") as out:
                out.write(text)
            os.chmod(path, 0o755)
            supplied.append(name)
    return supplied


def run_unixbench(copies):
    """{title: value} and the index score of `./Run -c copies -i 1` over the index tests."""
    out = subprocess.run(["./Run", "-c", str(copies), "-i", "1"] + RUN_TESTS, cwd=unixbench,
                         capture_output=True, text=True, check=True, preexec_fn=like_the_probe,
                         env=dict(os.environ, UB_TMPDIR=scratch)).stdout
    section = out[out.rindex("System Benchmarks Index Values"):]
    values = {}
    for line in section.splitlines()[1:]:
        if "========" in line:
            break
        match = re.match(r"^(.*?)\s{2,}([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        if match:
            values[match.group(1).strip()] = float(match.group(3))
    score = float(re.search(r"System Benchmarks Index Score\s+([\d.]+)", section).group(1))
    return values, score


# The probe's tests grouped by how long Run runs them (index.base: execl, fstime/fsbuffer/fsdisk
# and spawn 30 s, shell1/shell8 60 s, the rest 10 s).
RUN_SECONDS = {10: ["dhrystone", "whetstone", "pipe", "context_switch", "syscall"],
               30: ["execl", "file_copy", "spawn"], 60: ["shell"]}


def run_hostprobe_tests(copies, tests, test_seconds):
    command = [binary, "run", "system", "--json", "--copies", str(copies), "--seconds",
               str(test_seconds), "--tests", ",".join(tests)]
    out = subprocess.run(command, capture_output=True, text=True, check=True,
                         env=dict(os.environ, TMPDIR=scratch)).stdout
    result = json.loads(out)["result"]
    if result["skipped"]:
        sys.exit("hostprobe skipped tests: %s" % result["skipped"])
    return result


def run_hostprobe(copies):
    """{title: value} and the index score; with Run's durations, from one run per duration,
    the index then computed as Run does (10 x the geometric mean of value / baseline)."""
    if seconds is not None:
        result = run_hostprobe_tests(copies, sum(RUN_SECONDS.values(), []), seconds)
        values = {t["title"]: t["value"] for t in result["tests"] if t["copies"] == copies}
        return values, result["index"][str(copies)]
    values, indexes = {}, []
    for test_seconds, tests in RUN_SECONDS.items():
        for test in run_hostprobe_tests(copies, tests, test_seconds)["tests"]:
            if test["copies"] == copies:
                values[test["title"]] = test["value"]
                indexes.append(test["index"])  # 10 x value / its index.base baseline
    return values, statistics.geometric_mean(indexes)


def budget_workers():
    out = subprocess.run([binary, "cpu", "--json"], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)["cpu_budget"]["workers"]


supplied = supply_missing_pgms()
if supplied:
    print("UnixBench's copy has no pgms/%s: supplied from its published baselines and scripts"
          % ", pgms/".join(supplied))
subprocess.run(["make", "-s"], cwd=unixbench, check=True, capture_output=True)
passes = sorted({1, budget_workers()})
print("hostprobe system probe vs UnixBench 6.0.0 (Run -i 1): %d rounds, copies %s, hostprobe "
      "%s, interleaved" % (rounds, passes, "as long as Run per test" if seconds is None
                           else "%.0f s per test" % seconds))
samples = {copies: [] for copies in passes}  # per round: (theirs, ours, their score, our score)
for round_index in range(rounds):
    for copies in passes:
        if round_index % 2 == 0:
            theirs, their_score = run_unixbench(copies)
            ours, our_score = run_hostprobe(copies)
        else:
            ours, our_score = run_hostprobe(copies)
            theirs, their_score = run_unixbench(copies)
        samples[copies].append((theirs, ours, their_score, our_score))
        print("  round %d, %d cop%s: index UnixBench %.1f, hostprobe %.1f (%.3f); %s" % (
            round_index + 1, copies, "y" if copies == 1 else "ies", their_score, our_score,
            our_score / their_score, ", ".join(
                "%s %.3f" % (title.split(" (")[0], ours[title] / theirs[title])
                for title in theirs if title in ours)), flush=True)

failed = []


def report(name, theirs, ours, low, high, per_round):
    ratio = ours / theirs
    ok = low <= ratio <= high
    print("  %-40s %14.1f %14.1f %7.3f  %-5s %s" % (
        name, theirs, ours, ratio, "ok" if ok else "MISSED",
        " ".join("%.3f" % r for r in per_round)))
    if not ok:
        failed.append(name)


for copies in passes:
    rows = samples[copies]
    print("\n== %d cop%s: median of %d rounds (UnixBench, hostprobe, ratio; per round)"
          % (copies, "y" if copies == 1 else "ies", len(rows)))
    for title in rows[0][0]:
        theirs = statistics.median(r[0][title] for r in rows)
        ours = statistics.median(r[1][title] for r in rows)
        report(title, theirs, ours, 0.95, 1.05, [r[1][title] / r[0][title] for r in rows])
    report("System Benchmarks Index Score", statistics.median(r[2] for r in rows),
           statistics.median(r[3] for r in rows), 0.97, 1.03, [r[3] / r[2] for r in rows])

print("\nall within bounds" if not failed else "\nMISSED: %s" % ", ".join(failed))
sys.exit(1 if failed else 0)
