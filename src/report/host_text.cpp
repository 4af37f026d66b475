#include "report/host_text.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "core/strings.hpp"

namespace hostprobe::report {

namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

std::string bytes_text(uint64_t bytes) {
    return host::human_size(bytes);
}

void add_if(Rows& rows, const std::string& key, const std::optional<std::string>& value) {
    if (value) rows.emplace_back(key, *value);
}

void add_cpu_type(Rows& rows, const host::CpuType& type) {
    rows.emplace_back("Model name:", type.model_name.value_or("-"));
    add_if(rows, "CPU family:", type.family);
    add_if(rows, "Model:", type.model);
    const auto& topology = type.topology;
    rows.emplace_back("Thread(s) per core:", std::to_string(topology.threads_per_core));
    rows.emplace_back("Core(s) per socket:", std::to_string(topology.cores_per_socket));
    if (topology.books > 0) {
        rows.emplace_back("Socket(s) per book:", std::to_string(topology.sockets / topology.books));
        rows.emplace_back("Book(s):", std::to_string(topology.books));
    } else {
        rows.emplace_back("Socket(s):", std::to_string(topology.sockets));
    }
    add_if(rows, "Stepping:", type.stepping);
    add_if(rows, "Microcode version:", type.microcode);
    add_if(rows, "CPU MHz:", type.mhz);
    add_if(rows, "BogoMIPS:", type.bogomips);
    add_if(rows, "Flags:", type.flags_line);
}

void add_lscpu_rows(Rows& rows, const host::HostFacts& facts) {
    rows.emplace_back("Architecture:", facts.architecture);
    add_if(rows, "CPU op-mode(s):", facts.op_modes);
    if (const host::CpuType* cpu = facts.default_type())
        add_if(rows, "Address sizes:", cpu->address_sizes);
    add_if(rows, "Byte Order:", facts.byte_order);
    rows.emplace_back("CPU(s):", std::to_string(facts.present_cpus()));
    if (facts.cpu_lists.online) {
        rows.emplace_back("On-line CPU(s) list:", facts.cpu_lists.online->to_list());
        if (facts.cpu_lists.present && facts.cpu_lists.possible &&
            facts.online_cpus() != facts.present_cpus()) {
            CpuSet offline;
            for (size_t cpu : facts.cpu_lists.possible->members()) {
                if (facts.cpu_lists.present->contains(cpu) &&
                    !facts.cpu_lists.online->contains(cpu)) {
                    offline.insert(cpu);
                }
            }
            rows.emplace_back("Off-line CPU(s) list:", offline.to_list());
        }
    }
    if (const host::CpuType* cpu = facts.default_type()) add_if(rows, "Vendor ID:", cpu->vendor_id);
    for (const auto& type : facts.cpu_types)
        add_cpu_type(rows, type);
    add_if(rows, "Virtualization:", facts.hypervisor.hardware_virtualization);
    add_if(rows, "Hypervisor vendor:", facts.hypervisor.vendor);
    add_if(rows, "Virtualization type:", facts.hypervisor.virtualization_type);
    for (const auto& cache : facts.caches) {
        rows.emplace_back(cache.name + " cache:",
                          bytes_text(cache.total_bytes) + " (" + std::to_string(cache.instances) +
                              (cache.instances == 1 ? " instance)" : " instances)"));
    }
    if (!facts.numa_nodes.empty()) {
        rows.emplace_back("NUMA node(s):", std::to_string(facts.numa_nodes.size()));
        for (const auto& node : facts.numa_nodes) {
            rows.emplace_back("NUMA node" + std::to_string(node.id) + " CPU(s):",
                              node.cpus.to_list());
        }
    }
    for (const auto& vulnerability : facts.cpu_vulnerabilities)
        rows.emplace_back("Vulnerability " + vulnerability.title + ":", vulnerability.text);
}

void add_hostprobe_rows(Rows& rows, const host::HostFacts& facts,
                        const ecs::TaskMetadata* task_metadata, const task::TaskCost* cost,
                        const std::optional<host::ThrottlingCounters>& throttling,
                        const std::optional<std::string>& live,
                        const std::optional<std::string>& task_use) {
    add_if(rows, "Platform:", facts.hypervisor.platform);
    add_if(rows, "EC2 instance type:", facts.hypervisor.ec2_instance_type);
    const auto& cgroup = facts.cgroup;
    rows.emplace_back("cgroup version:",
                      cgroup.version ? std::to_string(*cgroup.version) : "none found");
    if (cgroup.cpu_quota) {
        rows.emplace_back("CPU quota:", format_fixed(cgroup.cpu_quota->cores(), 2) + " CPUs (" +
                                            std::to_string(cgroup.cpu_quota->quota_us) + "/" +
                                            std::to_string(cgroup.cpu_quota->period_us) + " us)");
    } else {
        rows.emplace_back("CPU quota:", "unlimited");
    }
    if (cgroup.cpuset) rows.emplace_back("cpuset:", cgroup.cpuset->to_list());
    rows.emplace_back("Memory limit:", cgroup.memory_limit_bytes
                                           ? bytes_text(*cgroup.memory_limit_bytes)
                                           : "unlimited");
    const auto& budget = facts.cpu_budget;
    rows.emplace_back("CPU budget:", format_fixed(budget.cores, 2) + " cores, " +
                                         std::to_string(budget.workers) + " worker(s), " +
                                         std::to_string(budget.visible_cpus) + " visible CPU(s)");
    const auto& counters = throttling ? throttling : cgroup.throttling;
    if (counters) {
        rows.emplace_back("CPU throttling:", std::to_string(counters->throttled_periods) + " of " +
                                                 std::to_string(counters->periods) + " periods, " +
                                                 format_fixed(counters->throttled_seconds, 3) +
                                                 " s throttled");
    }
    if (facts.openssl_cpu)
        rows.emplace_back("OpenSSL CPU:", host::openssl_cpu_summary(*facts.openssl_cpu));
    add_if(rows, "Live:", live);
    if (task_metadata) {
        rows.emplace_back("ECS task:", task_metadata->family + ":" + task_metadata->revision +
                                           " (" + task_metadata->launch_type + ", " +
                                           task_metadata->availability_zone + ")");
    }
    add_if(rows, "Task use:", task_use);
    if (cost) {
        rows.emplace_back("Task cost:", "$" + format_fixed(cost->dollars_per_hour, 5) +
                                            " per hour (" + format_fixed(cost->vcpus, 2) +
                                            " vCPU, " + format_fixed(cost->memory_gib, 2) +
                                            " GiB)");
    }
    const auto& guess = facts.guess;
    add_if(rows, "Microarchitecture:", guess.microarchitecture);
    add_if(rows, "Codename:", guess.codename);
    if (!guess.ec2_families.empty()) {
        rows.emplace_back("EC2 candidates:", join(guess.ec2_families, ", ") + " (a guess)");
    }
    for (const auto& warning : facts.warnings)
        rows.emplace_back("Warning:", warning);
}

// The task's rows are left out outside ECS and for `hostprobe cpu`, which knows only the host.
std::string host_text_of(const host::HostFacts& facts, const ecs::TaskMetadata* task_metadata,
                         const task::TaskCost* cost,
                         const std::optional<host::ThrottlingCounters>& throttling,
                         const std::optional<std::string>& live,
                         const std::optional<std::string>& task_use) {
    Rows rows;
    add_lscpu_rows(rows, facts);
    add_hostprobe_rows(rows, facts, task_metadata, cost, throttling, live, task_use);
    size_t width = 0;
    for (const auto& row : rows)
        width = std::max(width, row.first.size());
    std::string out;
    for (const auto& [key, value] : rows) {
        out += key + std::string(width - key.size() + 1, ' ') + value + "\n";
    }
    return out;
}

}  // namespace

std::string host_text(const host::HostFacts& facts,
                      const std::optional<host::ThrottlingCounters>& throttling,
                      const std::optional<std::string>& live) {
    return host_text_of(facts, nullptr, nullptr, throttling, live, std::nullopt);
}

std::string host_text(const task::TaskFacts& facts,
                      const std::optional<host::ThrottlingCounters>& throttling,
                      const std::optional<std::string>& live,
                      const std::optional<std::string>& task_use) {
    return host_text_of(facts.host, facts.ecs ? &*facts.ecs : nullptr,
                        facts.cost ? &*facts.cost : nullptr, throttling, live, task_use);
}

}  // namespace hostprobe::report
