#include "probes/cpu/cpu_probe.hpp"

#include <doctest/doctest.h>

using namespace hostprobe;

TEST_CASE("the cpu probe says it takes no parameters rather than listing none") {
    const probes::CpuProbe probe;
    CHECK(probe.params().normalize(nlohmann::json::object()).ok());
    const auto given = probe.params().normalize({{"seconds", 3}});
    REQUIRE_FALSE(given.ok());
    CHECK(given.error().message == "unknown parameter 'seconds'; this probe takes no parameters");
}
