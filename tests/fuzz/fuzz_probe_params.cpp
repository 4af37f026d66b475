// Every probe's parameters, as POST /v1/runs and `hostprobe run` give them. The first line names
// the probe (another name picks one by its first byte, so every input reaches some table); the
// rest is either the JSON "params" object:
//   disk
//   {"directory": "/tmp", "bs": "4k", "rw": "randrw"}
// or, when it starts with "--", command-line flags, one per line ("--name value"):
//   cipher
//   --block-sizes 16,8192
// Normalized params must normalize to themselves, and pass through the probe's own checks and
// duration estimate without an exception.
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/strings.hpp"
#include "fuzz_support.hpp"
#include "probes/registry.hpp"

using namespace hostprobe;
using nlohmann::json;

namespace {

// The storage probes may use /tmp; free space is pretended so that checks do not depend on
// the machine.
const runs::ProbeRegistry& registry() {
    static const runs::ProbeRegistry probes = [] {
        probes::StoragePolicy storage;
        storage.allowed_dirs = probes::resolve_allowed_dirs({"/tmp"}).value();
        storage.free_space = [](const std::string&) -> Result<uint64_t> {
            return uint64_t{64} << 30;
        };
        runs::ProbeRegistry built = probes::builtin_probes({.storage = storage});
        // Sanity of the tables themselves: the defaults alone must be valid.
        for (const auto& probe : built.probes()) {
            auto defaults = probe->params().normalize(json::object());
            FUZZ_CHECK(defaults, probe->name() + ": " + defaults.error().message);
            (void)probe->params().describe().dump();
        }
        return built;
    }();
    return probes;
}

const runs::Probe& probe_for(std::string_view first_line) {
    const auto& probes = registry().probes();
    for (const auto& probe : probes) {
        if (probe->name() == trim(first_line)) return *probe;
    }
    const size_t index = first_line.empty() ? 0 : static_cast<unsigned char>(first_line[0]);
    return *probes[index % probes.size()];
}

// "--name value" or "--name=value" per line, as the CLI hands them to normalize_text.
std::vector<std::pair<std::string, std::string>> flags_of(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> flags;
    for (std::string_view line : split_lines(text)) {
        if (line.rfind("--", 0) != 0) continue;
        line.remove_prefix(2);
        const size_t cut = line.find_first_of(" =");
        const std::string_view name = line.substr(0, cut);
        const std::string_view value = cut == std::string_view::npos ? "" : line.substr(cut + 1);
        flags.emplace_back(std::string(name), std::string(value));
    }
    return flags;
}

void check_normalized(const runs::Probe& probe, const json& params, const std::string& input) {
    // The runner stores normalized params, and journal replay and the scheduler submit them
    // again: normalizing must be idempotent.
    auto again = probe.params().normalize(params);
    FUZZ_CHECK(again, probe.name() + ": " + input + " -> " + params.dump() + " -> " +
                          again.error().message);
    FUZZ_CHECK(*again == params, probe.name() + ": " + params.dump() + " -> " + again->dump());
    (void)probe.check(params);
    const double seconds = probe.expected_seconds(params);
    FUZZ_CHECK(std::isfinite(seconds) && seconds >= 0,
               probe.name() + ": " + params.dump() + " -> " + std::to_string(seconds));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const size_t newline = text.find('\n');
    const runs::Probe& probe = probe_for(text.substr(0, newline));
    const std::string_view body = newline == std::string_view::npos ? "" : text.substr(newline + 1);

    if (body.rfind("--", 0) == 0) {
        if (auto normalized = probe.params().normalize_text(flags_of(body)))
            check_normalized(probe, *normalized, std::string(body));
        return 0;
    }
    const json params = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (params.is_discarded()) return 0;
    auto normalized = probe.params().normalize(params);
    if (!normalized) {
        // API clients get the message in a JSON body.
        (void)json(normalized.error().message).dump();
        return 0;
    }
    // ... and the normalized params in the run record.
    (void)normalized->dump();
    check_normalized(probe, *normalized, std::string(body));
    return 0;
}
