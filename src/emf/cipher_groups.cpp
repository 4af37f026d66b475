#include <string>

#include "emf/probe_groups.hpp"

namespace hostprobe::emf {

std::vector<MetricGroup> cipher_groups(const probes::CipherResult& result) {
    std::vector<MetricGroup> groups;
    for (const auto& cell : result.measurements) {
        MetricGroup group;
        group.dimensions = {{"Cipher", cell.cipher},
                            {"BlockBytes", std::to_string(cell.block_bytes)},
                            {"Threads", std::to_string(cell.threads)}};
        group.add("CipherBytesPerSecond", Unit::bytes_per_second, cell.bytes_per_second);
        group.add("CipherCpuBytesPerSecond", Unit::bytes_per_second, cell.cpu_bytes_per_second);
        if (cell.seconds > 0)
            group.add("CipherOpsPerSecond", Unit::count_per_second,
                      static_cast<double>(cell.ops) / cell.seconds);
        groups.push_back(std::move(group));
    }
    return groups;
}

void add_cipher_run_metrics(const probes::CipherResult& result, MetricGroup& run) {
    run.add("CipherWallToCpuRatio", Unit::none, result.wall_to_cpu_ratio);
    run.add("CipherThrottled", Unit::count, result.throttled ? 1 : 0);
    if (result.steal_seconds) run.add("CipherStealSeconds", Unit::seconds, *result.steal_seconds);
    if (result.throttling)
        run.add("CipherThrottledSeconds", Unit::seconds, result.throttling->throttled_seconds);
}

}  // namespace hostprobe::emf
