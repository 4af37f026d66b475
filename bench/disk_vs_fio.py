"""The work of bench/disk_vs_fio.sh (see there). hostprobe's jobs are threads, so fio runs with --thread."""
import glob
import json
import os
import statistics
import subprocess
import sys

from probe_niceness import like_the_probe

BINARY, DIRECTORY = sys.argv[1], sys.argv[2]
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RUNTIME = 10
SIZE = "256m"
SCENARIOS = [("randread", 1), ("randwrite", 1), ("randread", 4)]
failed = []


def hostprobe(rw, numjobs):
    run = json.loads(subprocess.run(
        [BINARY, "run", "disk", "--directory", DIRECTORY, "--rw", rw, "--bs", "16k", "--size", SIZE,
         "--numjobs", str(numjobs), "--runtime", str(RUNTIME), "--ioengine", "psync", "--direct", "true", "--json"],
        capture_output=True, text=True, check=True).stdout)
    result = run["result"]
    side = result["read" if rw.endswith("read") else "write"]
    return {"iops": side["iops"], "p50": side["clat_ns"]["percentile"]["50.000000"],
            "p99": side["clat_ns"]["percentile"]["99.000000"],
            "cpu_per_io": (result["usr_cpu_seconds"] + result["sys_cpu_seconds"]) / max(1, side["total_ios"])}


def fio(rw, numjobs):
    out = subprocess.run(
        ["fio", "--name=hostprobe-bench", "--directory=" + DIRECTORY, "--ioengine=psync", "--direct=1", "--rw=" + rw,
         "--bs=16k", "--size=" + SIZE, "--numjobs=%d" % numjobs, "--time_based", "--runtime=%d" % RUNTIME,
         "--group_reporting", "--norandommap", "--thread", "--output-format=json"],
        capture_output=True, text=True, check=True, preexec_fn=like_the_probe).stdout
    job = json.loads(out[out.index("{"):])["jobs"][0]
    side = job["read" if rw.endswith("read") else "write"]
    # fio's usr_cpu/sys_cpu are percent of the summed job runtime.
    cpu_seconds = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return {"iops": side["iops"], "p50": side["clat_ns"]["percentile"]["50.000000"],
            "p99": side["clat_ns"]["percentile"]["99.000000"], "cpu_per_io": cpu_seconds / max(1, side["total_ios"])}


def report(name, ratio, low, high):
    ok = low <= ratio <= high
    print("%-44s ratio %6.3f  target %.2f..%.2f  %s" % (name, ratio, low, high, "ok" if ok else "MISSED"))
    if not ok:
        failed.append(name)


print("fio %s and hostprobe on %s, file size %s, %d s, %d rounds" %
      (subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip(), DIRECTORY, SIZE, RUNTIME,
       ROUNDS))
try:
    for rw, numjobs in SCENARIOS:
        ours, theirs = [], []
        for round_number in range(ROUNDS):  # ABBA-style alternation
            if round_number % 2 == 0:
                ours.append(hostprobe(rw, numjobs)); theirs.append(fio(rw, numjobs))
            else:
                theirs.append(fio(rw, numjobs)); ours.append(hostprobe(rw, numjobs))
        median = lambda runs, key: statistics.median(run[key] for run in runs)
        name = "%s numjobs=%d" % (rw, numjobs)
        print("  per round p99 (us): hostprobe %s, fio %s" % ([round(o["p99"] / 1e3) for o in ours],
                                                         [round(t["p99"] / 1e3) for t in theirs]))
        print("  %s: IOPS %.0f vs %.0f, p50 %.1f vs %.1f us, p99 %.1f vs %.1f us, CPU/IO %.2f vs %.2f us" % (
            name, median(ours, "iops"), median(theirs, "iops"), median(ours, "p50") / 1e3, median(theirs, "p50") / 1e3,
            median(ours, "p99") / 1e3, median(theirs, "p99") / 1e3, median(ours, "cpu_per_io") * 1e6,
            median(theirs, "cpu_per_io") * 1e6))
        # Each round's pair ran back to back, so its ratio is free of the drift between rounds on a
        # shared machine; the median of those ratios is the figure held to the target.
        paired = lambda key: statistics.median(o[key] / t[key] for o, t in zip(ours, theirs))
        report(name + ": IOPS", paired("iops"), 0.90, 1.10)
        report(name + ": p50 clat", paired("p50"), 0.85, 1.15)
        report(name + ": p99 clat", paired("p99"), 0.85, 1.15)
        report(name + ": CPU per I/O", paired("cpu_per_io"), 0, 1.2)
finally:
    for leftover in glob.glob(os.path.join(DIRECTORY, "hostprobe-bench.*")):
        os.unlink(leftover)

print("\n%s" % ("all targets met" if not failed else "MISSED: " + ", ".join(failed)))
sys.exit(1 if failed else 0)
