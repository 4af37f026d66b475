// A set of CPU numbers as the kernel writes them: lists ("0-3,8") in files such as
// /sys/devices/system/cpu/online, and hex masks ("ff,00000003") in shared_cpu_map.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace hostprobe {

class CpuSet {
  public:
    // Far above any real machine; bounds hostile input (a dump's "processor : 999999999").
    static constexpr size_t kMaxCpus = size_t{1} << 16;

    CpuSet() = default;

    static Result<CpuSet> parse_list(std::string_view text);
    static Result<CpuSet> parse_mask(std::string_view text);

    // CPU numbers from kMaxCpus on cannot be real and are ignored.
    void insert(size_t cpu);
    bool contains(size_t cpu) const { return cpu < bits_.size() && bits_[cpu]; }
    size_t count() const;
    bool empty() const { return count() == 0; }
    // Members in ascending order.
    std::vector<size_t> members() const;

    // lscpu's list form, with strides: {0,1} "0,1", 0..3 "0-3", evens to 62 "0-62:2".
    std::string to_list() const;

    bool operator==(const CpuSet& other) const;
    bool operator<(const CpuSet& other) const;  // any strict order, for use as a map key

  private:
    std::vector<bool>
        bits_;  // only insert() grows it, so it never ends in false: equal sets compare equal
};

}  // namespace hostprobe
