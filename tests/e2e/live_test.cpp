// GET /v1/host's `live` object end to end: a daemon replaying a seed sysroot (the readings do
// not move, so rates are zero once there is an earlier reading) and one on this machine.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/paths.hpp"

using namespace hostprobe::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

json live_of(const Daemon& daemon) {
    auto client = daemon.client();
    auto reply = client.Get("/v1/host");
    REQUIRE(reply);
    REQUIRE(reply->status == 200);
    const json host = json::parse(reply->body);
    REQUIRE(host.contains("live"));
    return host["live"];
}

// Asks again until an answer carries rates (the first within a second of the first request
// has none); the deadline only bounds a failure.
json live_with_rates(const Daemon& daemon) {
    json live;
    CHECK(eventually(
        [&] {
            live = live_of(daemon);
            return !live["rates"].is_null();
        },
        20s, 100ms));
    return live;
}

}  // namespace

TEST_CASE("live: a replayed machine's totals, then rates of zero against the earlier reading") {
    Daemon daemon({"--sysroot", sysroot("fargate-e5-2686v4")});
    const json first = live_of(daemon);
    CHECK(first["rates"].is_null());
    CHECK(first["budget_cores"] == 0.25);
    CHECK(first["cgroup_cpu"].contains("usage_seconds_total"));
    CHECK(first["throttling"].contains("throttled_periods_total"));
    CHECK(first["memory"].contains("usage_bytes"));
    CHECK_FALSE(first.contains("steal"));     // the dump has no /proc/stat
    CHECK_FALSE(first.contains("pressure"));  // nor PSI files

    const json later = live_with_rates(daemon);
    CHECK(later["cgroup_cpu"] == first["cgroup_cpu"]);
    const json& rates = later["rates"];
    CHECK(rates["interval_seconds"].get<double>() >= 1.0);
    CHECK(rates["cpu_cores_used"] == 0.0);
    CHECK(rates["budget_used_ratio"] == 0.0);
    CHECK_FALSE(rates.contains("steal_cores"));
    CHECK_FALSE(rates.contains("throttled_periods_ratio"));  // no period elapsed

    auto client = daemon.client();
    auto text = client.Get("/v1/host?format=text");
    REQUIRE(text);
    CHECK(text->body.find("Live:") != std::string::npos);
    CHECK(text->body.find("0.00 of 0.25 cores used (0.0% of budget)") != std::string::npos);
}

TEST_CASE("live: this machine's readings and, after the second request, its rates") {
    Daemon daemon;
    const json first = live_of(daemon);
    CHECK(first["rates"].is_null());
    CHECK(first["budget_cores"].get<double>() > 0);
    REQUIRE(first.contains("steal"));  // /proc/stat is always there
    CHECK(first["steal"]["cpus"].get<int>() >= 1);

    const json later = live_with_rates(daemon);
    const json& rates = later["rates"];
    CHECK(rates["interval_seconds"].get<double>() >= 1.0);
    CHECK(rates["steal_cores"].get<double>() >= 0);
    CHECK(rates["steal_ratio_per_cpu"].get<double>() <= 1.0);
    if (later.contains("cgroup_cpu")) {
        CHECK(rates["cpu_cores_used"].get<double>() >= 0);
        CHECK(rates.contains("budget_used_ratio"));
    }
    if (later.contains("pressure") && later["pressure"].contains("host")) {
        for (const auto& [resource, ratios] : rates["pressure"]["host"].items()) {
            CAPTURE(resource);
            CHECK(ratios["some_ratio"].get<double>() >= 0);
            CHECK(ratios["some_ratio"].get<double>() <= 1.0 + 1e-9);
        }
    }
}
