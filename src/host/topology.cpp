#include "host/topology.hpp"

#include <algorithm>
#include <cctype>

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

std::string cpu_path(size_t cpu, const std::string& leaf) {
    return std::string(kCpuDir) + "/cpu" + std::to_string(cpu) + "/" + leaf;
}

std::optional<CpuSet> read_mask(const SysRoot& root, const std::string& path) {
    auto text = root.read_file(path);
    if (!text) return std::nullopt;
    auto mask = CpuSet::parse_mask(*text);
    if (!mask) return std::nullopt;
    return *mask;
}

// Appends the set unless it shares a CPU with one already recorded (lscpu's add_cpuset_to_array).
void add_disjoint(std::vector<CpuSet>& sets, const std::optional<CpuSet>& candidate) {
    if (!candidate) return;
    for (const CpuSet& existing : sets) {
        for (size_t cpu : candidate->members()) {
            if (existing.contains(cpu)) return;
        }
    }
    sets.push_back(*candidate);
}

std::optional<int64_t> online_hotplug_state(const SysRoot& root) {
    auto states = root.read_file(std::string(kCpuDir) + "/hotplug/states");
    if (!states) return std::nullopt;
    for (std::string_view line : split_lines(*states)) {
        const size_t colon = line.find(':');
        if (colon != std::string_view::npos && trim(line.substr(colon + 1)) == "online") {
            auto number = parse_int64(line.substr(0, colon));
            if (number) return *number;
        }
    }
    return std::nullopt;
}

}  // namespace

CpuLists read_cpu_lists(const SysRoot& root) {
    CpuLists lists;
    const std::pair<const char*, std::optional<CpuSet>*> files[] = {
        {"possible", &lists.possible}, {"present", &lists.present}, {"online", &lists.online}};
    for (const auto& [name, target] : files) {
        auto text = root.read_file(std::string(kCpuDir) + "/" + name);
        if (!text) {
            if (text.error().code != ErrorCode::not_found)
                lists.warnings.push_back(text.error().message);
            continue;
        }
        auto cpus = CpuSet::parse_list(*text);
        if (!cpus) {
            lists.warnings.push_back(std::string(kCpuDir) + "/" + name + ": " +
                                     cpus.error().message);
            continue;
        }
        *target = *cpus;
    }
    return lists;
}

TypeTopology read_type_topology(const SysRoot& root, const std::vector<size_t>& cpus,
                                const std::optional<std::string>& max_thread_id) {
    const std::optional<int64_t> online_state = online_hotplug_state(root);
    std::vector<CpuSet> cores, sockets, books, drawers;
    uint32_t threads = 0;
    for (size_t cpu : cpus) {
        if (!root.exists(cpu_path(cpu, "topology/thread_siblings"))) continue;
        if (online_state && *online_state > 0) {
            auto state = root.read_line(cpu_path(cpu, "hotplug/state"));
            if (state) {
                auto value = parse_int64(*state);
                if (value && *value != *online_state) continue;  // not fully online
            }
        }
        const auto thread_siblings = read_mask(root, cpu_path(cpu, "topology/thread_siblings"));
        const size_t siblings = thread_siblings ? thread_siblings->count() : 0;
        threads = std::max<uint32_t>(threads, static_cast<uint32_t>(siblings == 0 ? 1 : siblings));
        add_disjoint(cores, thread_siblings);
        add_disjoint(sockets, read_mask(root, cpu_path(cpu, "topology/core_siblings")));
        add_disjoint(books, read_mask(root, cpu_path(cpu, "topology/book_siblings")));
        add_disjoint(drawers, read_mask(root, cpu_path(cpu, "topology/drawer_siblings")));
    }
    TypeTopology topology;
    topology.threads_per_core = threads;
    if (max_thread_id) {
        if (auto id = parse_uint64(*max_thread_id))
            topology.threads_per_core = static_cast<uint32_t>(*id + 1);
    }
    topology.cores = static_cast<uint32_t>(cores.size());
    topology.sockets = static_cast<uint32_t>(sockets.size());
    topology.books = static_cast<uint32_t>(books.size());
    topology.drawers = static_cast<uint32_t>(drawers.size());
    topology.cores_per_socket = sockets.empty() ? 0 : topology.cores / topology.sockets;
    return topology;
}

std::vector<NumaNode> read_numa_nodes(const SysRoot& root) {
    std::vector<NumaNode> nodes;
    const std::string node_dir = "/sys/devices/system/node";
    for (const std::string& name : root.list_directory(node_dir)) {
        if (name.size() <= 4 || name.rfind("node", 0) != 0 || name.size() > 13 ||
            !std::all_of(name.begin() + 4, name.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
            !root.is_directory(node_dir + "/" + name)) {
            continue;
        }
        NumaNode node;
        node.id = static_cast<uint32_t>(std::stoul(name.substr(4)));
        if (auto cpus = read_mask(root, node_dir + "/" + name + "/cpumap")) node.cpus = *cpus;
        nodes.push_back(std::move(node));
    }
    std::sort(nodes.begin(), nodes.end(),
              [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
    return nodes;
}

}  // namespace hostprobe::host
