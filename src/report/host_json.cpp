#include "report/host_json.hpp"

#include "core/build_info.hpp"
#include "core/strings.hpp"

namespace hostprobe::report {

namespace {

using nlohmann::json;

template <typename T>
json optional_value(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

// x86 identity fields are decimal numbers; other architectures write free text.
json number_or_text(const std::optional<std::string>& text) {
    if (!text) return nullptr;
    if (auto number = parse_uint64(*text)) return *number;
    return *text;
}

json decimal_or_null(const std::optional<std::string>& text) {
    if (!text) return nullptr;
    if (auto number = parse_double(*text)) return *number;
    return nullptr;
}

json hex(uint32_t value) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%x", value);
    return buffer;
}

json arm_json(const host::ArmIdentity& arm) {
    return {{"implementer", hex(arm.implementer)},
            {"part", arm.part ? hex(*arm.part) : json(nullptr)},
            {"variant", optional_value(arm.variant)},
            {"revision", optional_value(arm.revision)}};
}

json cpu_type_identity(const host::CpuType& type) {
    json cpu = {{"vendor_id", optional_value(type.vendor_id)},
                {"model_name", optional_value(type.model_name)},
                {"family", number_or_text(type.family)},
                {"model", number_or_text(type.model)},
                {"stepping", number_or_text(type.stepping)},
                {"flags", type.flags},
                {"mhz", decimal_or_null(type.mhz)},
                {"bogomips", decimal_or_null(type.bogomips)},
                {"microcode", optional_value(type.microcode)},
                {"address_sizes", optional_value(type.address_sizes)}};
    if (type.arm) cpu["arm"] = arm_json(*type.arm);
    return cpu;
}

json cpu_json(const host::HostFacts& facts) {
    json cpu = facts.default_type() ? cpu_type_identity(*facts.default_type()) : json::object();
    cpu["architecture"] = facts.architecture;
    cpu["op_modes"] = optional_value(facts.op_modes);
    cpu["byte_order"] = optional_value(facts.byte_order);
    return cpu;
}

json cpu_types_json(const host::HostFacts& facts) {
    json types = json::array();
    for (const auto& type : facts.cpu_types) {
        CpuSet cpus;
        for (size_t cpu : type.cpus)
            cpus.insert(cpu);
        json entry = cpu_type_identity(type);
        entry["cpus"] = cpus.to_list();
        entry["cpu_count"] = type.cpus.size();
        entry["threads_per_core"] = type.topology.threads_per_core;
        entry["cores_per_socket"] = type.topology.cores_per_socket;
        entry["sockets"] = type.topology.sockets;
        types.push_back(std::move(entry));
    }
    return types;
}

json topology_json(const host::HostFacts& facts) {
    const host::CpuType* cpu = facts.default_type();
    json numa = json::array();
    for (const auto& node : facts.numa_nodes) {
        numa.push_back({{"node", node.id}, {"cpus", node.cpus.to_list()}});
    }
    json topology = {
        {"cpus", facts.present_cpus()},
        {"online_cpus", facts.online_cpus()},
        {"online_list", facts.cpu_lists.online ? facts.cpu_lists.online->to_list() : ""},
        {"threads_per_core", cpu ? cpu->topology.threads_per_core : 0},
        {"cores_per_socket", cpu ? cpu->topology.cores_per_socket : 0},
        {"sockets", cpu ? cpu->topology.sockets : 0},
        {"numa_nodes", facts.numa_nodes.size()},
        {"numa", std::move(numa)}};
    return topology;
}

json caches_json(const host::HostFacts& facts) {
    json caches = json::array();
    for (const auto& cache : facts.caches) {
        caches.push_back({{"name", cache.name},
                          {"level", cache.level},
                          {"type", cache.type},
                          {"size_bytes", cache.size_bytes},
                          {"total_bytes", cache.total_bytes},
                          {"instances", cache.instances}});
    }
    return caches;
}

json cpu_vulnerabilities_json(const std::vector<host::CpuVulnerability>& vulnerabilities) {
    json entries = json::array();
    for (const auto& vulnerability : vulnerabilities) {
        entries.push_back({{"name", vulnerability.name},
                           {"title", vulnerability.title},
                           {"status", host::vulnerability_status_name(vulnerability.status)},
                           {"text", vulnerability.text}});
    }
    return entries;
}

json syscall_costing_json(const std::vector<host::CpuVulnerability>& vulnerabilities) {
    json entries = json::array();
    for (const auto& costing : host::syscall_costing_mitigations(vulnerabilities)) {
        entries.push_back(
            {{"name", costing.name}, {"mitigation", costing.mitigation}, {"cost", costing.cost}});
    }
    return entries;
}

json hypervisor_json(const host::HypervisorFacts& hypervisor) {
    return {{"vendor", optional_value(hypervisor.vendor)},
            {"virtualization_type", optional_value(hypervisor.virtualization_type)},
            {"platform", optional_value(hypervisor.platform)},
            {"hardware_virtualization", optional_value(hypervisor.hardware_virtualization)},
            {"ec2_instance_type", optional_value(hypervisor.ec2_instance_type)},
            {"dmi",
             {{"sys_vendor", optional_value(hypervisor.dmi_sys_vendor)},
              {"product_name", optional_value(hypervisor.dmi_product_name)}}},
            {"evidence", hypervisor.evidence}};
}

json throttling_json(const std::optional<host::ThrottlingCounters>& counters) {
    if (!counters) return nullptr;
    return {{"periods", counters->periods},
            {"throttled_periods", counters->throttled_periods},
            {"throttled_seconds", counters->throttled_seconds}};
}

json cgroup_json(const host::CgroupFacts& cgroup,
                 const std::optional<host::ThrottlingCounters>& throttling) {
    const auto& quota = cgroup.cpu_quota;
    return {{"version", optional_value(cgroup.version)},
            {"cpu_cgroup",
             cgroup.cpu_cgroup_path.empty() ? json(nullptr) : json(cgroup.cpu_cgroup_path)},
            {"cpu_quota_cores", quota ? json(quota->cores()) : json(nullptr)},
            {"cpu_quota_us", quota ? json(quota->quota_us) : json(nullptr)},
            {"cpu_period_us", optional_value(cgroup.cpu_period_us)},
            {"cpu_quota_source", quota ? json(quota->cgroup_dir) : json(nullptr)},
            {"cpu_shares", optional_value(cgroup.cpu_shares)},
            {"cpu_weight", optional_value(cgroup.cpu_weight)},
            {"cpuset", cgroup.cpuset ? json(cgroup.cpuset->to_list()) : json(nullptr)},
            {"memory_limit_bytes", optional_value(cgroup.memory_limit_bytes)},
            {"throttling", throttling_json(throttling ? throttling : cgroup.throttling)}};
}

json guess_json(const host::HostGuess& guess) {
    return {{"microarchitecture", optional_value(guess.microarchitecture)},
            {"codename", optional_value(guess.codename)},
            {"graviton", optional_value(guess.graviton)},
            {"ec2_families", guess.ec2_families},
            {"notes", guess.notes}};
}

// The task's parts are null outside ECS and for `hostprobe cpu`, which knows only the host.
json host_json_of(const host::HostFacts& facts, const ecs::TaskMetadata* task_metadata,
                  const task::TaskCost* cost,
                  const std::optional<host::ThrottlingCounters>& throttling) {
    return {{"schema_version", kHostSchemaVersion},
            {"hostprobe_version", kVersion},
            {"sysroot", facts.sysroot},
            {"cpu", cpu_json(facts)},
            {"cpu_types", cpu_types_json(facts)},
            {"topology", topology_json(facts)},
            {"caches", caches_json(facts)},
            {"cpu_vulnerabilities", cpu_vulnerabilities_json(facts.cpu_vulnerabilities)},
            {"cpu_mitigations_costing_syscalls", syscall_costing_json(facts.cpu_vulnerabilities)},
            {"hypervisor", hypervisor_json(facts.hypervisor)},
            {"cgroup", cgroup_json(facts.cgroup, throttling)},
            {"cpu_budget", facts.cpu_budget},
            {"guess", guess_json(facts.guess)},
            {"openssl_cpu", facts.openssl_cpu ? json(*facts.openssl_cpu) : json(nullptr)},
            {"ecs", task_metadata ? ecs::to_json(*task_metadata) : json(nullptr)},
            {"cost", cost ? json{{"dollars_per_hour", cost->dollars_per_hour},
                                 {"vcpus", cost->vcpus},
                                 {"memory_gib", cost->memory_gib},
                                 {"source", cost->source}}
                          : json(nullptr)},
            {"warnings", facts.warnings}};
}

}  // namespace

json host_json(const host::HostFacts& facts,
               const std::optional<host::ThrottlingCounters>& throttling) {
    return host_json_of(facts, nullptr, nullptr, throttling);
}

json host_json(const task::TaskFacts& facts,
               const std::optional<host::ThrottlingCounters>& throttling) {
    return host_json_of(facts.host, facts.ecs ? &*facts.ecs : nullptr,
                        facts.cost ? &*facts.cost : nullptr, throttling);
}

}  // namespace hostprobe::report
