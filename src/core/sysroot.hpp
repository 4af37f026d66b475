// SysRoot: the one door through which every /proc and /sys read passes. In production the prefix
// is "/"; in tests and `--sysroot DIR` it is a dump of another machine (lscpu's --sysroot,
// node_exporter's --path.procfs). It is passed to whoever needs it, never global.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace hostprobe {

class SysRoot {
  public:
    explicit SysRoot(std::string prefix = "/");

    // True when the prefix is the real root: only then may live-only sources (CPUID,
    // sched_getaffinity) be consulted, since a dump cannot answer them.
    bool is_live() const { return live_; }
    const std::string& prefix() const { return prefix_; }

    // Maps an absolute machine path ("/proc/cpuinfo") to where it lives under the prefix.
    std::string resolve(std::string_view machine_path) const;

    // Reads a whole file, up to a bound (kernel files report size 0, so we read to EOF).
    Result<std::string> read_file(std::string_view machine_path) const;
    // The same with a tighter bound, for files the kernel keeps short: a longer one is an Error
    // (too_large) before more than `max_bytes` are held.
    Result<std::string> read_file(std::string_view machine_path, size_t max_bytes) const;
    // First line of a sysfs attribute, trimmed: the common case for /sys.
    Result<std::string> read_line(std::string_view machine_path) const;
    bool exists(std::string_view machine_path) const;
    bool is_directory(std::string_view machine_path) const;
    // Entry names (not paths) of a directory, sorted; empty when it cannot be read.
    std::vector<std::string> list_directory(std::string_view machine_path) const;

    static constexpr size_t kMaxFileBytes = 16 * 1024 * 1024;

  private:
    std::string prefix_;
    bool live_;
};

}  // namespace hostprobe
