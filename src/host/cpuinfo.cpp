#include "host/cpuinfo.hpp"

#include <algorithm>
#include <cctype>
#include <memory>

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

using Field = std::optional<std::string> RawCpuType::*;

// Keys that describe a CPU type (lscpu's type_patterns), exact and case-sensitive.
const std::map<std::string_view, Field>& type_keys() {
    static const std::map<std::string_view, Field> keys = {
        {"ASEs implemented", &RawCpuType::flags},
        {"Address Sizes", &RawCpuType::address_sizes},
        {"BogoMIPS", &RawCpuType::bogomips},
        {"CPU Family", &RawCpuType::family},
        {"CPU Revision", &RawCpuType::revision},
        {"CPU implementer", &RawCpuType::vendor},
        {"CPU part", &RawCpuType::model},
        {"CPU revision", &RawCpuType::revision},
        {"CPU variant", &RawCpuType::stepping},
        {"Features", &RawCpuType::flags},
        {"ISA", &RawCpuType::isa},
        {"Model Name", &RawCpuType::model_name},
        {"address sizes", &RawCpuType::address_sizes},
        {"bogomips per cpu", &RawCpuType::bogomips},
        {"cpu", &RawCpuType::model_name},
        {"cpu family", &RawCpuType::family},
        {"cpu model", &RawCpuType::model},
        {"family", &RawCpuType::family},
        {"features", &RawCpuType::flags},
        {"flags", &RawCpuType::flags},
        {"isa", &RawCpuType::isa},
        {"marchid", &RawCpuType::family},
        {"max thread id", &RawCpuType::max_thread_id},
        {"microcode", &RawCpuType::microcode},
        {"mimpid", &RawCpuType::model},
        {"model", &RawCpuType::model},
        {"model name", &RawCpuType::model_name},
        {"mvendorid", &RawCpuType::vendor},
        {"revision", &RawCpuType::revision},
        {"stepping", &RawCpuType::stepping},
        {"type", &RawCpuType::flags},
        {"uarch", &RawCpuType::model_name},
        {"vendor", &RawCpuType::vendor},
        {"vendor_id", &RawCpuType::vendor},
    };
    return keys;
}

// NULL sorts before any string, as in lscpu's strcmp_null.
int compare_optional(const std::optional<std::string>& a, const std::optional<std::string>& b) {
    if (!a && !b) return 0;
    if (!a) return -1;
    if (!b) return 1;
    return a->compare(*b) < 0 ? -1 : (a->compare(*b) > 0 ? 1 : 0);
}

int compare_types(const RawCpuType& a, const RawCpuType& b) {
    for (Field field : {&RawCpuType::vendor, &RawCpuType::model, &RawCpuType::model_name,
                        &RawCpuType::stepping}) {
        if (int order = compare_optional(a.*field, b.*field)) return order;
    }
    return 0;
}

// "processor 3" -> ("processor", 3); "cache5" -> ("cache", 5).
std::pair<std::string, long> split_key_number(std::string_view key) {
    key = trim(key);
    size_t digits = key.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(key[digits - 1])))
        --digits;
    if (digits == key.size() || key.size() - digits > 9) return {std::string(key), -1};
    const long number = std::stol(std::string(key.substr(digits)));
    return {std::string(trim(key.substr(0, digits))), number};
}

std::optional<size_t> leading_number(std::string_view value) {
    size_t end = 0;
    while (end < value.size() && end < 9 && std::isdigit(static_cast<unsigned char>(value[end]))) {
        ++end;
    }
    if (end == 0) return std::nullopt;
    return static_cast<size_t>(std::stoul(std::string(value.substr(0, end))));
}

struct ParseState {
    std::vector<std::unique_ptr<RawCpuType>> types;
    std::map<size_t, RawCpuType*> cpu_type;
    std::map<size_t, std::string> cpu_mhz;
    RawCpuType* current_type = nullptr;
    std::optional<size_t> current_cpu;
};

void on_type_key(ParseState& state, Field field, std::string_view value) {
    // A field that is already set starts a new type: each processor block becomes one.
    if (state.current_type != nullptr && (state.current_type->*field).has_value()) {
        state.current_type = nullptr;
    }
    if (state.current_type == nullptr) {
        state.types.push_back(std::make_unique<RawCpuType>());
        state.current_type = state.types.back().get();
    }
    state.current_type->*field = std::string(value);
}

void on_processor(ParseState& state, long key_number, std::string_view value,
                  const std::optional<CpuSet>& possible) {
    std::optional<size_t> id = key_number >= 0
                                   ? std::optional<size_t>(static_cast<size_t>(key_number))
                                   : leading_number(value);
    if (!id && key_number < 0) id = 0;  // lscpu's strtou32 of a non-number
    // The type read so far belongs to the CPU of the previous processor line.
    if (state.current_cpu && state.current_type != nullptr) {
        state.cpu_type[*state.current_cpu] = state.current_type;
    }
    state.current_cpu.reset();
    if (id && *id >= CpuSet::kMaxCpus) return;  // not a real CPU: every later step would pay
    if (id && (!possible || possible->contains(*id))) state.current_cpu = id;
}

void on_cpu_value(ParseState& state, const std::string& key, std::string_view value) {
    const bool is_mhz = key == "cpu MHz" || key == "CPU MHz";
    if (is_mhz && state.current_cpu) state.cpu_mhz[*state.current_cpu] = std::string(value);
    if (state.current_type == nullptr) return;
    if (key == "bogomips" && !state.current_type->bogomips) {
        state.current_type->bogomips = std::string(value);
    }
    if (is_mhz && !state.current_type->mhz) state.current_type->mhz = std::string(value);
}

}  // namespace

Cpuinfo parse_cpuinfo(std::string_view text, const std::optional<CpuSet>& possible) {
    ParseState state;
    std::optional<std::string> arm_architecture;
    for (std::string_view raw_line : split_lines(text)) {
        std::string_view line = trim(raw_line);
        const size_t colon = line.find(':');
        if (line.empty() || colon == std::string_view::npos) continue;
        const std::string_view value = trim(line.substr(colon + 1));
        if (value.empty()) continue;  // "power management:" and the like
        const auto [key, key_number] =
            split_key_number(line.substr(0, std::min<size_t>(colon, 127)));
        if (auto it = type_keys().find(key); it != type_keys().end()) {
            on_type_key(state, it->second, value);
        } else if (key == "processor" || key == "cpu number") {
            on_processor(state, key_number, value, possible);
        } else if (key == "cpu MHz" || key == "CPU MHz" || key == "bogomips") {
            on_cpu_value(state, key, value);
        } else if (key == "CPU architecture" && !arm_architecture) {
            arm_architecture = std::string(value);
        }
    }
    if (state.current_cpu && state.cpu_type.count(*state.current_cpu) == 0 &&
        state.current_type != nullptr) {
        state.cpu_type[*state.current_cpu] = state.current_type;
    }

    // De-duplicate: a stable sort on the identifying fields, keeping the first of each run.
    std::vector<RawCpuType*> order;
    for (const auto& type : state.types)
        order.push_back(type.get());
    std::stable_sort(order.begin(), order.end(), [](const RawCpuType* a, const RawCpuType* b) {
        return compare_types(*a, *b) < 0;
    });
    std::map<const RawCpuType*, size_t> index_of;
    std::vector<RawCpuType*> kept;
    for (RawCpuType* type : order) {
        if (!kept.empty() && compare_types(*kept.back(), *type) == 0) {
            index_of[type] = kept.size() - 1;
            continue;
        }
        index_of[type] = kept.size();
        kept.push_back(type);
    }
    // Text outside the processor blocks (armv7's trailing global lines, ppc's "model") forms a
    // partial type; when it is a subset of the only other type, it is that type.
    if (kept.size() == 2) {
        const RawCpuType& partial = *kept[0];
        const RawCpuType& full = *kept[1];
        bool subset = true;
        for (Field field : {&RawCpuType::model, &RawCpuType::model_name, &RawCpuType::vendor,
                            &RawCpuType::bogomips, &RawCpuType::revision}) {
            if ((partial.*field) && partial.*field != full.*field) subset = false;
        }
        if (subset) {
            for (auto& [type, index] : index_of)
                index = 0;
            kept.erase(kept.begin());
        }
    }

    Cpuinfo result;
    for (const RawCpuType* type : kept)
        result.types.push_back(*type);
    for (const auto& [cpu, type] : state.cpu_type)
        result.cpu_type[cpu] = index_of[type];
    result.cpu_mhz = std::move(state.cpu_mhz);
    result.arm_architecture = std::move(arm_architecture);
    return result;
}

}  // namespace hostprobe::host
