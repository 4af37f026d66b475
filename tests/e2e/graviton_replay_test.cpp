// End to end: the Graviton3 and Graviton4 sysroots replayed through `hostprobe cpu --json`,
// the generation, flags, EC2 candidates and CPU budget as a task would read them.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

json graviton_cpu_json(const std::string& machine) {
    const auto run = run_to_end(binary(), {"cpu", "--json", "--sysroot", sysroot(machine)});
    INFO(run.errors);
    REQUIRE(run.status.code == 0);
    return json::parse(run.output);
}

bool lists_flag(const json& flags, const std::string& flag) {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

}  // namespace

TEST_CASE("hostprobe cpu --json names a replayed Graviton3 and its 4-CPU quota") {
    const json document = graviton_cpu_json("graviton3-8cpu");
    CHECK(document["cpu"]["architecture"] == "aarch64");
    CHECK(document["cpu"]["model_name"] == "Neoverse-V1");
    CHECK(document["cpu"]["arm"]["part"] == "0xd40");
    CHECK(document["guess"]["graviton"] == "Graviton3");
    CHECK(document["guess"]["microarchitecture"] == "Neoverse-V1");
    for (const char* flag : {"sve", "sha512", "i8mm", "bf16"})
        CHECK_MESSAGE(lists_flag(document["cpu"]["flags"], flag), flag);
    CHECK(document["guess"]["ec2_families"] ==
          json::array({"c7g", "c7gd", "c7gn", "hpc7g", "m7g", "m7gd", "r7g", "r7gd"}));
    CHECK(document["cgroup"]["version"] == 2);
    CHECK(document["cgroup"]["cpu_quota_cores"] == 4.0);
    CHECK(document["cpu_budget"]["cores"] == 4.0);
    CHECK(document["cpu_budget"]["workers"] == 4);
    CHECK(document["cpu_budget"]["visible_cpus"] == 8);
    CHECK(document["warnings"].empty());
}

TEST_CASE("hostprobe cpu --json names a replayed Graviton4 and its ECS task's 1.5-CPU quota") {
    const json document = graviton_cpu_json("graviton4-4cpu");
    CHECK(document["cpu"]["architecture"] == "aarch64");
    CHECK(document["cpu"]["model_name"] == "Neoverse-V2");
    CHECK(document["cpu"]["arm"]["part"] == "0xd4f");
    CHECK(document["guess"]["graviton"] == "Graviton4");
    CHECK(document["guess"]["microarchitecture"] == "Neoverse-V2");
    for (const char* flag : {"sve", "sve2", "sha512", "i8mm", "bf16", "bti"})
        CHECK_MESSAGE(lists_flag(document["cpu"]["flags"], flag), flag);
    CHECK(document["guess"]["ec2_families"] == json::array({"c8g", "i8g", "m8g", "r8g", "x8g"}));
    CHECK(document["cgroup"]["version"] == 2);
    CHECK(document["cgroup"]["cpu_quota_cores"] == 1.5);
    CHECK(document["cgroup"]["memory_limit_bytes"] == 3221225472ull);
    CHECK(document["cpu_budget"]["cores"] == 1.5);
    CHECK(document["cpu_budget"]["workers"] == 2);
    CHECK(document["cpu_budget"]["visible_cpus"] == 4);
    CHECK(document["warnings"].empty());
}
