// Our cgroup's memory at scrape time: current usage (v1 memory.usage_in_bytes, v2
// memory.current) and, on v2, memory.events (how often the limits were hit, OOM kills).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "core/sysroot.hpp"
#include "host/cgroup.hpp"

namespace hostprobe::host {

// The memory.events keys we report, in the kernel's order
// (Documentation/admin-guide/cgroup-v2.rst); any other key is skipped, so the metric's label set
// stays bounded.
const std::vector<std::string>& reported_memory_events();

// (event, count) for each reported key the file has, in the file's order.
using MemoryEvents = std::vector<std::pair<std::string, uint64_t>>;

Result<uint64_t> read_cgroup_memory_usage(const SysRoot& root, const CgroupSource& source);
// v2 only: an error for a v1 source.
Result<MemoryEvents> read_cgroup_memory_events(const SysRoot& root, const CgroupSource& source);

// Parsers, exposed for tests and fuzzing.
// memory.usage_in_bytes / memory.current: one unsigned 64-bit count of bytes.
Result<uint64_t> parse_memory_usage(std::string_view text);
// memory.events: "<key> <count>" lines; a malformed line or a repeated reported key is an error.
Result<MemoryEvents> parse_memory_events(std::string_view text);

}  // namespace hostprobe::host
