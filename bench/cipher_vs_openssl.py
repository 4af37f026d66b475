"""The work of bench/cipher_vs_openssl.sh (see there)."""
import json
import re
import statistics
import subprocess
import sys

from probe_niceness import like_the_probe
from quota_cgroup import in_cgroup, make_quota_cgroup, remove_if_empty

BINARY = sys.argv[1]
ROUNDS = 5
SECONDS = 2
CIPHERS = ["aes-128-gcm", "aes-128-ctr", "chacha20"]
failed = []


def openssl_version():
    return subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()


# OpenSSL 3.x `speed -evp` runs GCM one whole message per block (key and IV set again each
# time: EVP_Update_loop_aead_enc); OpenSSL 1.x streamed it like every other cipher.
OPENSSL_3 = openssl_version().startswith("OpenSSL 3")


def mode_for(cipher):
    return "message" if OPENSSL_3 and cipher.endswith("-gcm") else "stream"



def hostprobe(cipher, size, threads, cgroup=None):
    command = [BINARY, "run", "cipher", "--ciphers", cipher, "--block-sizes", str(size), "--seconds", str(SECONDS),
               "--threads", str(threads), "--mode", mode_for(cipher), "--json"]
    run = json.loads(subprocess.run(in_cgroup(command, cgroup), capture_output=True, text=True, check=True).stdout)
    result = run["result"]
    measurement = result["measurements"][0]
    return {"wall": measurement["bytes_per_second"], "cpu": measurement["cpu_bytes_per_second"],
            "threads": measurement["threads"], "throttled": result["throttled"]}


def openssl(cipher, size, multi=1, cgroup=None):
    command = ["openssl", "speed", "-elapsed", "-seconds", str(SECONDS), "-bytes", str(size), "-evp", cipher]
    if multi > 1:
        command += ["-multi", str(multi)]
    out = subprocess.run(in_cgroup(command, cgroup), capture_output=True, text=True, check=True,
                         preexec_fn=like_the_probe).stdout
    value = re.findall(r"^\S+\s+([\d.]+)k\s*$", out, re.M)[-1]
    return float(value) * 1000


def interleaved(first, second):
    """ABBA rounds; medians of both."""
    a, b = [], []
    for round_number in range(ROUNDS):
        if round_number % 2 == 0:
            a.append(first()); b.append(second())
        else:
            b.append(second()); a.append(first())
    return a, b


def report(name, ratio, low, high=None):
    ok = ratio >= low and (high is None or ratio <= high)
    target = (">= %.2f" % low) if high is None else ("%.2f..%.2f" % (low, high))
    print("%-52s ratio %6.3f  target %-10s %s" % (name, ratio, target, "ok" if ok else "MISSED"))
    if not ok:
        failed.append(name)


def gb(value):
    return "%.3f GB/s" % (value / 1e9)


print("%s; hostprobe %s" % (openssl_version(),
                             subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout.strip()))
if OPENSSL_3:
    print("note: OpenSSL 3 speed -evp re-keys AES-GCM for every block; hostprobe's GCM runs use mode=message "
          "to match (mode=stream is the OpenSSL 1.x loop the seeds measured)")

print("\n== single thread, %d s, %d rounds, medians" % (SECONDS, ROUNDS))
unthrottled_cpu = {}
for cipher in CIPHERS:
    for size, low in ((16, 0.90), (8192, 0.97)):
        ours, theirs = interleaved(lambda: hostprobe(cipher, size, 1), lambda: openssl(cipher, size))
        wall = statistics.median(m["wall"] for m in ours)
        unthrottled_cpu[(cipher, size)] = statistics.median(m["cpu"] for m in ours)
        reference = statistics.median(theirs)
        print("  %-12s %5d B  hostprobe %s  openssl -elapsed %s" % (cipher, size, gb(wall), gb(reference)))
        report("%s %d B, 1 thread vs openssl -elapsed" % (cipher, size), wall / reference, low)

print("\n== two threads vs openssl -multi 2, 8192 B")
for cipher in CIPHERS:
    ours, theirs = interleaved(lambda: hostprobe(cipher, 8192, 2), lambda: openssl(cipher, 8192, multi=2))
    wall, reference = statistics.median(m["wall"] for m in ours), statistics.median(theirs)
    print("  %-12s hostprobe %s  openssl -multi 2 %s" % (cipher, gb(wall), gb(reference)))
    report("%s 8192 B, 2 threads vs -multi 2" % cipher, wall / reference, 0.95)


SWEEP_COUNTS = [1, 2]


def hostprobe_sweep(cipher, size):
    """One run with --threads 1,2: the wall-clock figure at each count and the efficiency."""
    command = [BINARY, "run", "cipher", "--ciphers", cipher, "--block-sizes", str(size), "--seconds", str(SECONDS),
               "--threads", ",".join(map(str, SWEEP_COUNTS)), "--mode", mode_for(cipher), "--json"]
    run = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    steps = run["result"]["thread_sweep"]["scaling"][0]["steps"]
    return {step["threads"]: step for step in steps}


print("\n== seed 002's sweep in one run: --threads %s vs openssl speed -multi N, 8192 B" %
      ",".join(map(str, SWEEP_COUNTS)))
for cipher in ("aes-128-gcm", "aes-128-ctr"):
    ours, theirs = interleaved(lambda: hostprobe_sweep(cipher, 8192),
                               lambda: {n: openssl(cipher, 8192, multi=n) for n in SWEEP_COUNTS})
    reference_at_1 = statistics.median(t[1] for t in theirs)
    for n in SWEEP_COUNTS:
        wall = statistics.median(m[n]["bytes_per_second"] for m in ours)
        reference = statistics.median(t[n] for t in theirs)
        efficiency = statistics.median(m[n]["efficiency"] for m in ours)
        reference_efficiency = reference / (n * reference_at_1)
        print("  %-12s %d thread(s)  hostprobe %s (efficiency %.2f)  openssl -multi %d %s (efficiency %.2f)" %
              (cipher, n, gb(wall), efficiency, n, gb(reference), reference_efficiency))
        report("%s sweep, %d thread(s) vs -multi %d" % (cipher, n, n), wall / reference, 0.95 if n == 1 else 0.90)


cgroup, why_not = make_quota_cgroup("hostprobe-bench", 0.25)
print("\n== under a 0.25 CPU quota (cgroup %s), 8192 B" % (cgroup or "-"))
if cgroup is None:
    print("  SKIPPED: " + why_not + " (run as root on a host that allows child cgroups)")
else:
    try:
        for cipher in CIPHERS:
            ours, theirs = interleaved(lambda: hostprobe(cipher, 8192, "auto", cgroup),
                                       lambda: openssl(cipher, 8192, cgroup=cgroup))
            wall = statistics.median(m["wall"] for m in ours)
            cpu = statistics.median(m["cpu"] for m in ours)
            reference = statistics.median(theirs)
            print("  %-12s wall %s (openssl -elapsed %s)  cpu %s (unthrottled %s)  threads %s  throttled %s" %
                  (cipher, gb(wall), gb(reference), gb(cpu), gb(unthrottled_cpu[(cipher, 8192)]),
                   sorted({m["threads"] for m in ours}), sorted({m["throttled"] for m in ours})))
            report("%s quota 0.25: wall vs openssl -elapsed" % cipher, wall / reference, 0.90, 1.10)
            report("%s quota 0.25: cpu vs unthrottled cpu" % cipher, cpu / unthrottled_cpu[(cipher, 8192)], 0.90, 1.10)
            report("%s quota 0.25: threads auto = 1" % cipher, 1.0 if all(m["threads"] == 1 for m in ours) else 0.0, 1.0)
            report("%s quota 0.25: result.throttled" % cipher, 1.0 if all(m["throttled"] for m in ours) else 0.0, 1.0)
    finally:
        remove_if_empty(cgroup)

print("\n%s" % ("all targets met" if not failed else "MISSED: " + ", ".join(failed)))
sys.exit(1 if failed else 0)
