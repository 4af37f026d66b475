// /proc/cpuinfo text through lscpu's type state machine, then everything that consumes its
// result without touching the filesystem: ARM id decoding, the microarchitecture and EC2 guess,
// the architecture inference for dumps, and the JSON and text reports of the types.
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "fuzz_support.hpp"
#include "host/cpu_types.hpp"
#include "host/cpuinfo.hpp"
#include "host/guess.hpp"
#include "host/host_facts.hpp"
#include "report/host_json.hpp"
#include "report/host_text.hpp"

using namespace hostprobe;

namespace {

void check_consistent(const host::Cpuinfo& cpuinfo, const std::optional<CpuSet>& possible) {
    for (const auto& [cpu, type] : cpuinfo.cpu_type) {
        FUZZ_CHECK(type < cpuinfo.types.size(), "CPU " + std::to_string(cpu) + " has type " +
                                                    std::to_string(type) + " of " +
                                                    std::to_string(cpuinfo.types.size()));
        if (possible) FUZZ_CHECK(possible->contains(cpu), "CPU " + std::to_string(cpu));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);

    // lscpu drops blocks of CPUs that are not possible; a small machine makes that path common.
    const std::optional<CpuSet> four_cpus = CpuSet::parse_list("0-3").value();
    check_consistent(host::parse_cpuinfo(text, four_cpus), four_cpus);

    const host::Cpuinfo cpuinfo = host::parse_cpuinfo(text, std::nullopt);
    check_consistent(cpuinfo, std::nullopt);

    host::HostFacts facts;
    facts.architecture = host::infer_architecture(cpuinfo);
    for (const auto& raw : cpuinfo.types) {
        host::CpuType type = host::decode_cpu_type(raw);
        for (const auto& [cpu, index] : cpuinfo.cpu_type) {
            if (&cpuinfo.types[index] == &raw) type.cpus.push_back(cpu);
        }
        facts.cpu_types.push_back(std::move(type));
    }
    if (const host::CpuType* cpu = facts.default_type()) {
        facts.guess = host::guess_host(*cpu, facts.hypervisor);
    }
    // What GET /v1/host and `hostprobe cpu` would print for such a machine. dump() throws on
    // text that is not UTF-8, which would turn every GET /v1/host into a 500.
    (void)json_text(report::host_json(facts));
    (void)report::host_text(facts);
    return 0;
}
