#include "host/caches.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/cpu_set.hpp"
#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

struct CacheInstance {
    std::string type;
    uint32_t level = 0;
    int64_t id = 0;
    std::string name;
    uint64_t size = 0;
    std::optional<CpuSet> shared;
};

std::string index_dir(size_t cpu, size_t index) {
    return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" +
           std::to_string(index);
}

// Without a kernel id, an instance is the first cache of that type and level that shares
// this CPU (lscpu's mk_cache_id).
int64_t derive_id(const std::vector<CacheInstance>& caches, size_t cpu, const std::string& type,
                  uint32_t level) {
    int64_t index = 0;
    for (const auto& cache : caches) {
        if (cache.level != level || cache.type != type) continue;
        if (cache.shared && cache.shared->contains(cpu)) return index;
        ++index;
    }
    return index;
}

std::string cache_name(uint32_t level, const std::string& type) {
    std::string name = "L" + std::to_string(level);
    if (type == "Data") name += "d";
    if (type == "Instruction") name += "i";
    return name;
}

}  // namespace

uint64_t parse_cache_size(const std::string& text) {
    std::string_view value = trim(text);
    size_t digits = 0;
    while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9')
        ++digits;
    auto number = parse_uint64(value.substr(0, digits));
    if (!number) return 0;
    const std::string_view suffix = value.substr(digits);
    if (suffix.rfind('K', 0) == 0) return *number << 10;
    if (suffix.rfind('M', 0) == 0) return *number << 20;
    if (suffix.rfind('G', 0) == 0) return *number << 30;
    return *number;
}

std::string human_size(uint64_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    int exponent = 10;
    while (exponent < 60 && bytes >= (uint64_t{1} << (exponent + 10)))
        exponent += 10;
    const char unit = "KMGTPE"[exponent / 10 - 1];
    uint64_t whole = bytes >> exponent;
    uint64_t fraction = bytes & ((uint64_t{1} << exponent) - 1);
    if (fraction != 0) {
        // Three digits, then rounded to one, as util-linux's size_to_human_string does.
        fraction = fraction >= UINT64_MAX / 1000
                       ? ((fraction / 1024) * 1000) / (uint64_t{1} << (exponent - 10))
                       : (fraction * 1000) / (uint64_t{1} << exponent);
        fraction = ((fraction + 50) / 100) * 10;
        if (fraction == 100) {
            ++whole;
            fraction = 0;
        }
    }
    std::string number = std::to_string(whole);
    if (fraction != 0) number += "." + std::to_string(fraction / 10);
    return number + " " + unit + "iB";
}

std::vector<CacheSummary> read_caches(const SysRoot& root, const std::vector<size_t>& cpus) {
    std::vector<CacheInstance> caches;
    for (size_t cpu : cpus) {
        for (size_t index = 0; root.is_directory(index_dir(cpu, index)); ++index) {
            const std::string dir = index_dir(cpu, index);
            auto level_text = root.read_line(dir + "/level");
            auto type = root.read_line(dir + "/type");
            if (!level_text || !type || type->empty()) continue;
            auto level = parse_uint64(*level_text);
            if (!level || *level > 16) continue;
            int64_t id = -1;
            if (auto id_text = root.read_line(dir + "/id")) {
                if (auto parsed = parse_int64(*id_text)) id = *parsed;
            }
            if (id < 0) id = derive_id(caches, cpu, *type, static_cast<uint32_t>(*level));
            auto found = std::find_if(caches.begin(), caches.end(), [&](const CacheInstance& c) {
                return c.id == id && c.level == *level && c.type == *type;
            });
            if (found == caches.end()) {
                CacheInstance instance;
                instance.type = *type;
                instance.level = static_cast<uint32_t>(*level);
                instance.id = id;
                instance.name = cache_name(instance.level, instance.type);
                if (auto size = root.read_line(dir + "/size"))
                    instance.size = parse_cache_size(*size);
                caches.push_back(std::move(instance));
                found = caches.end() - 1;
            }
            if (!found->shared) {
                if (auto map = root.read_file(dir + "/shared_cpu_map")) {
                    if (auto shared = CpuSet::parse_mask(*map)) found->shared = *shared;
                }
            }
        }
    }
    std::stable_sort(
        caches.begin(), caches.end(),
        [](const CacheInstance& a, const CacheInstance& b) { return a.name < b.name; });
    std::vector<CacheSummary> summaries;
    for (const auto& cache : caches) {
        if (summaries.empty() || summaries.back().name != cache.name) {
            summaries.push_back(CacheSummary{cache.name, cache.level, cache.type, 0, 0, 0});
        }
        CacheSummary& summary = summaries.back();
        summary.size_bytes = std::max(summary.size_bytes, cache.size);
        summary.total_bytes += cache.size;
        summary.instances += 1;
    }
    // lscpu leaves out caches whose size it cannot read.
    summaries.erase(std::remove_if(summaries.begin(), summaries.end(),
                                   [](const CacheSummary& s) { return s.total_bytes == 0; }),
                    summaries.end());
    return summaries;
}

}  // namespace hostprobe::host
