"""Driven by system_vs_reference.sh: see there."""
import json, re, shutil, statistics, subprocess, sys

from probe_niceness import like_the_probe
from quota_cgroup import in_cgroup, make_quota_cgroup, remove_if_empty

binary, reference, rounds, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
linked_reference = sys.argv[5]
failed = []


def hostprobe(tests, copies, cgroup=None):
    command = [binary, "run", "system", "--json", "--tests", ",".join(tests),
               "--copies", ",".join(str(c) for c in copies), "--seconds", str(seconds)]
    out = subprocess.run(in_cgroup(command, cgroup), capture_output=True, text=True, check=True).stdout
    result = json.loads(out)["result"]
    return {(t["name"], t["copies"]): t["value"] for t in result["tests"]}, result


def reference_rate(test, program=None):
    return float(subprocess.run([program or reference, test, str(seconds)], capture_output=True,
                                text=True, check=True, preexec_fn=like_the_probe).stdout)


def perf_pipe_rate():
    """perf bench sched pipe for about `seconds`: ops/s (one op = one round trip)."""
    out = subprocess.run(["perf", "bench", "sched", "pipe", "-l", str(int(40000 * seconds))],
                         capture_output=True, text=True, check=True, preexec_fn=like_the_probe).stdout
    return float(re.search(r"(\d+)\s+ops/sec", out).group(1))


def report(name, ratio, low, high):
    ok = low <= ratio <= high
    print("  %-52s %6.3f  (target %.2f-%.2f)  %s" % (name, ratio, low, high, "ok" if ok else "MISSED"))
    if not ok:
        failed.append(name)


have_perf = shutil.which("perf") is not None and subprocess.run(
    ["perf", "bench", "sched", "pipe", "-l", "10"], capture_output=True).returncode == 0
print("hostprobe system probe vs references: %d rounds of %.0f s, interleaved" % (rounds, seconds))
samples = {"syscall": [], "spawn": [], "context_switch": [], "perf": [], "spawn_linked": []}
for round_index in range(rounds):
    ours, _ = hostprobe(["syscall", "spawn", "context_switch"], [1])
    row = []
    for test in ("syscall", "spawn", "context_switch"):
        theirs = reference_rate(test)
        samples[test].append((ours[(test, 1)], theirs))
        row.append("%s %.0f/%.0f" % (test, ours[(test, 1)], theirs))
    theirs = reference_rate("spawn", linked_reference)
    samples["spawn_linked"].append((ours[("spawn", 1)], theirs))
    row.append("spawn linked like hostprobe %.0f" % theirs)
    if have_perf:
        theirs = perf_pipe_rate()
        samples["perf"].append((ours[("context_switch", 1)], theirs))
        row.append("perf sched pipe %.0f" % theirs)
    print("  round %d: %s" % (round_index + 1, ", ".join(row)))

print("\n== hostprobe / reference (median of the rounds' ratios)")
for test in ("syscall", "context_switch"):
    ratio = statistics.median(ours / theirs for ours, theirs in samples[test])
    report("%s vs system_reference.c" % test, ratio, 0.8, 1.2)
ratio = statistics.median(ours / theirs for ours, theirs in samples["spawn_linked"])
report("spawn vs system_reference.c linked like hostprobe", ratio, 0.8, 1.2)
ratio = statistics.median(ours / theirs for ours, theirs in samples["spawn"])
print("  %-52s %6.3f  (no target: a libc-only process has ~25 mappings, hostprobe's helper ~90;"
      " fork and exit copy and tear down each)" % ("spawn vs system_reference.c (libc only)", ratio))
if have_perf:
    ratio = statistics.median(ours / theirs for ours, theirs in samples["perf"])
    report("context_switch vs perf bench sched pipe", ratio, 0.8, 1.2)
else:
    print("  (perf is not installed: context_switch vs perf bench sched pipe skipped)")



print("\n== single vs parallel copies (dhrystone, syscall), without and with a 0.5 CPU quota")
tests = ["dhrystone", "syscall"]
free, free_result = hostprobe(tests, [1, 2])
cpus = free_result["cpu_budget"]["visible_cpus"]
for test in tests:
    print("  no quota   %-10s 1 copy %14.1f   2 copies %14.1f   x%.2f" %
          (test, free[(test, 1)], free[(test, 2)], free[(test, 2)] / free[(test, 1)]))
cgroup, why_not = make_quota_cgroup("hostprobe-bench-system", 0.5)
if cgroup is None:
    print("  SKIPPED the quota part: " + why_not + " (run as root on a host that allows child cgroups)")
else:
    try:
        quota, quota_result = hostprobe(tests, [1, 2], cgroup)
        print("  quota 0.5: the probe sees budget %.2f, %d worker(s); copies auto = %s" %
              (quota_result["cpu_budget"]["cores"], quota_result["cpu_budget"]["workers"],
               json.loads(subprocess.run(in_cgroup([binary, "run", "system", "--json", "--tests", "syscall",
                                                    "--seconds", "1"], cgroup),
                                         capture_output=True, text=True, check=True).stdout)["result"]["copies"]))
        for test in tests:
            parallel = quota[(test, 2)] / quota[(test, 1)]
            print("  quota 0.5  %-10s 1 copy %14.1f   2 copies %14.1f   x%.2f" %
                  (test, quota[(test, 1)], quota[(test, 2)], parallel))
            # One copy already gets the whole 0.5 CPU: a second one can only share it.
            report("%s quota 0.5: 2 copies / 1 copy" % test, parallel, 0.8, 1.2)
            report("%s quota 0.5: 1 copy / 1 copy without quota" % test,
                   quota[(test, 1)] / free[(test, 1)], 0.4, 0.6)
    finally:
        remove_if_empty(cgroup)

print("\n%s" % ("all targets met" if not failed else "MISSED: " + ", ".join(failed)))
sys.exit(1 if failed else 0)
