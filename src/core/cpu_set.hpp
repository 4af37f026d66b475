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
    CpuSet() = default;

    static Result<CpuSet> parse_list(std::string_view text);
    static Result<CpuSet> parse_mask(std::string_view text);

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
