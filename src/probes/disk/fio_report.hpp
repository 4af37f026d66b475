// The disk probe's text report, in fio's layout: the job line, `read: IOPS=..., BW=...`,
// `clat (usec): ...` and the percentile block of each direction that did I/O, and the CPU line.
#pragma once

#include <string>

#include "probes/disk/disk_result.hpp"

namespace hostprobe::probes {

std::string fio_report(const DiskResult& result);

}  // namespace hostprobe::probes
