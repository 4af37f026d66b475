#include "host/cpu_budget.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/json_reads.hpp"

namespace hostprobe::host {

void to_json(nlohmann::json& out, const CpuBudget& budget) {
    out = {{"cores", budget.cores},
           {"workers", budget.workers},
           {"visible_cpus", budget.visible_cpus},
           {"source", budget.source}};
}

void from_json(const nlohmann::json& in, CpuBudget& budget) {
    budget.cores = in.at("cores").get<double>();
    budget.workers = integer_or_throw<uint32_t>(in.at("workers"));
    budget.visible_cpus = integer_or_throw<uint32_t>(in.at("visible_cpus"));
    budget.source = in.at("source").get<std::string>();
}

CpuBudget compute_cpu_budget(const std::optional<CpuQuota>& quota, uint32_t visible_cpus) {
    CpuBudget budget;
    budget.visible_cpus = std::max<uint32_t>(visible_cpus, 1);
    if (quota) {
        budget.cores = quota->cores();
        budget.source = "cgroup";
    } else {
        budget.cores = budget.visible_cpus;
        budget.source = "cpus";
    }
    const double rounded_up = std::ceil(budget.cores - 1e-9);  // 2.0000000001 is still 2 CPUs
    budget.workers = static_cast<uint32_t>(
        std::max(1.0, std::min(rounded_up, static_cast<double>(budget.visible_cpus))));
    return budget;
}

std::optional<uint32_t> affinity_cpu_count() {
    // Large machines need more than a cpu_set_t; grow until the kernel accepts the size.
    for (size_t cpus = 1024; cpus <= 1u << 16; cpus *= 4) {
        cpu_set_t* set = CPU_ALLOC(cpus);
        const size_t size = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(size, set);
        const int status = sched_getaffinity(0, size, set);
        const int count = status == 0 ? CPU_COUNT_S(size, set) : -1;
        CPU_FREE(set);
        if (count > 0) return static_cast<uint32_t>(count);
    }
    return std::nullopt;
}

}  // namespace hostprobe::host
