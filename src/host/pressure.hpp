// Pressure stall information (PSI, Documentation/accounting/psi.rst): the time tasks waited for
// CPU, memory or I/O, from /proc/pressure/{cpu,memory,io} for the whole machine and, on cgroup
// v2, the cgroup's cpu.pressure, memory.pressure and io.pressure. Absent where PSI is off
// (kernels before 4.20, psi=0, cgroup v1): that is no error.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "core/sysroot.hpp"

namespace hostprobe::host {

// The cumulative totals of one pressure file; "full" is absent from cpu files before Linux 5.13.
struct PressureTotals {
    double some_seconds = 0;
    std::optional<double> full_seconds;
};

enum class PressureResource { cpu, memory, io };
inline constexpr std::array<PressureResource, 3> kPressureResources = {
    PressureResource::cpu, PressureResource::memory, PressureResource::io};
const char* to_string(PressureResource resource);

// /proc/pressure/<resource>; an empty optional when the file does not exist.
Result<std::optional<PressureTotals>> read_host_pressure(const SysRoot& root,
                                                         PressureResource resource);
// <cgroup_dir>/<resource>.pressure (cgroup v2 only).
Result<std::optional<PressureTotals>> read_cgroup_pressure(const SysRoot& root,
                                                           const std::string& cgroup_dir,
                                                           PressureResource resource);

// Parser, exposed for tests and fuzzing: lines
// "some avg10=0.00 avg60=0.00 avg300=0.00 total=<usec>" and "full ..." (a "some" line required,
// each at most once, every avg a number in [0, 100], total an unsigned 64-bit count).
Result<PressureTotals> parse_pressure(std::string_view text);

}  // namespace hostprobe::host
