// The CPU budget: how much CPU we may really use, which sizes every later probe's threads.
// A 0.25 vCPU Fargate task sees 2 CPUs but may use a quarter of one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "host/cgroup.hpp"

namespace hostprobe::host {

struct CpuBudget {
    double cores = 0;           // quota/period, or the visible CPUs when unlimited
    uint32_t workers = 1;       // max(1, min(ceil(cores), visible CPUs))
    uint32_t visible_cpus = 0;  // our affinity mask (live) or the online CPUs (sysroot)
    std::string source;         // "cgroup" when a quota limits us, else "cpus"
};

// {"cores", "workers", "visible_cpus", "source"}: the one JSON of the budget, in GET /v1/host
// and in every result that was sized by it.
void to_json(nlohmann::json& out, const CpuBudget& budget);
void from_json(const nlohmann::json& in, CpuBudget& budget);

CpuBudget compute_cpu_budget(const std::optional<CpuQuota>& quota, uint32_t visible_cpus);

// CPUs in our affinity mask; empty when it cannot be read.
std::optional<uint32_t> affinity_cpu_count();

}  // namespace hostprobe::host
