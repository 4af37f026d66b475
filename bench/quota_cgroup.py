"""A child cgroup with a CPU quota, for the benches that compare single and parallel runs (or
hostprobe and a reference tool) under a task-sized CPU limit. Needs root."""
import os


def make_quota_cgroup(name, cores):
    """A child cgroup `name` allowed `cores` CPUs (cgroup v1 or v2): (path, None), or
    (None, the reason) when the host says no."""
    period = 100000
    quota = int(round(cores * period))
    try:
        if os.path.exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
            path = "/sys/fs/cgroup/cpu/" + name
            os.makedirs(path, exist_ok=True)
            open(path + "/cpu.cfs_period_us", "w").write(str(period))
            open(path + "/cpu.cfs_quota_us", "w").write(str(quota))
            return path, None
        if "cpu" in open("/sys/fs/cgroup/cgroup.controllers").read().split():
            path = "/sys/fs/cgroup/" + name
            os.makedirs(path, exist_ok=True)
            open(path + "/cpu.max", "w").write("%d %d" % (quota, period))
            return path, None
        return None, "no cgroup cpu controller is mounted"
    except OSError as error:
        return None, "cannot create a child cgroup here: %s" % error


def in_cgroup(command, cgroup):
    """`command`, started inside `cgroup` (as it is when cgroup is None)."""
    if cgroup is None:
        return command
    return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup] + command


def remove_if_empty(cgroup):
    if not open(cgroup + "/cgroup.procs").read().strip():
        os.rmdir(cgroup)
