// CPU time of the agent and of the processes it started, for a run's series: the system probe's
// copies are helper processes reaped only when their test ends, so the process's own clock and
// RUSAGE_CHILDREN alone would show their work as one burst at the end. These are reads of our
// own processes, not of the machine a sysroot describes, so they go straight to /proc.
#pragma once

#include <string_view>

namespace hostprobe::probes {

// This process, the children it has reaped, and the children it still has (each with the
// children they reaped), in seconds.
double agent_cpu_seconds();

// utime + stime + cutime + cstime of a /proc/<pid>/stat line, in clock ticks; -1 when the line
// does not parse. Exposed for tests.
long long process_tree_ticks(std::string_view stat_line);

}  // namespace hostprobe::probes
