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


class TaskCgroup:
    """A child cgroup shaped like a task: `cores` of CPU quota and `memory_bytes` of memory, with
    its CPU time and charged memory readable (cgroup v1: the cpu, cpuacct and memory
    hierarchies; v2: one folder). Needs root; make() says why not when the host says no."""

    def __init__(self, name, cores, memory_bytes):
        self.name, self.cores, self.memory_bytes = name, cores, memory_bytes
        self.folders = {}

    def make(self):
        period = 100000
        try:
            if os.path.exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
                for controller in ("cpu", "cpuacct", "memory"):
                    self.folders[controller] = "/sys/fs/cgroup/%s/%s" % (controller, self.name)
                    os.makedirs(self.folders[controller], exist_ok=True)
                self._write("cpu", "cpu.cfs_period_us", period)
                self._write("cpu", "cpu.cfs_quota_us", int(round(self.cores * period)))
                self._write("memory", "memory.limit_in_bytes", self.memory_bytes)
                return self._in_use()
            if {"cpu", "memory"} <= set(open("/sys/fs/cgroup/cgroup.controllers").read().split()):
                folder = "/sys/fs/cgroup/" + self.name
                os.makedirs(folder, exist_ok=True)
                self.folders = {"cpu": folder, "cpuacct": folder, "memory": folder}
                self._write("cpu", "cpu.max", "%d %d" % (int(round(self.cores * period)), period))
                self._write("memory", "memory.max", self.memory_bytes)
                return self._in_use()
            return "no cgroup cpu and memory controllers are mounted"
        except OSError as error:
            return "cannot create a child cgroup here: %s" % error

    def _in_use(self):
        """Processes an earlier run left in the cgroup would be counted as ours: refuse."""
        for folder in sorted(set(self.folders.values())):
            left = open(os.path.join(folder, "cgroup.procs")).read().split()
            if left:
                return "%s still holds processes %s: stop them first" % (folder, " ".join(left))
        return None

    def _write(self, controller, name, value):
        with open(os.path.join(self.folders[controller], name), "w") as f:
            f.write(str(value))

    def _read(self, controller, name):
        with open(os.path.join(self.folders[controller], name)) as f:
            return f.read()

    def command(self, command):
        """`command`, started inside every hierarchy of the cgroup."""
        folders = sorted(set(self.folders.values()))
        joins = " && ".join('echo $$ > "%s/cgroup.procs"' % folder for folder in folders)
        return ["sh", "-c", joins + ' && exec "$@"', "task-cgroup"] + command

    def cpu_seconds(self):
        if os.path.exists(os.path.join(self.folders["cpuacct"], "cpuacct.usage")):
            return int(self._read("cpuacct", "cpuacct.usage")) / 1e9
        usage = dict(line.split() for line in self._read("cpu", "cpu.stat").splitlines())
        return int(usage["usage_usec"]) / 1e6

    def memory_bytes_charged(self):
        """What the kernel charges the cgroup (page cache included), as ECS's usage."""
        for name in ("memory.usage_in_bytes", "memory.current"):
            if os.path.exists(os.path.join(self.folders["memory"], name)):
                return int(self._read("memory", name))
        return 0

    def remove(self):
        for folder in sorted(set(self.folders.values())):
            try:
                os.rmdir(folder)
            except OSError:
                pass
