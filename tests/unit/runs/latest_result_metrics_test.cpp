#include "runs/latest_result_metrics.hpp"

#include <doctest/doctest.h>

#include "probes/registry.hpp"
#include "runs/runner.hpp"
#include "support/fake_probe.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using hostprobe::testing::FakeProbe;
using namespace std::chrono_literals;

namespace {

struct MetricsFixture {
    MetricsFixture() {
        auto probe = std::make_unique<FakeProbe>("measure", false);
        fake = probe.get();
        fake->release();  // runs finish at once
        registry.add(std::move(probe));
        runner->start();
    }
    ~MetricsFixture() { runner->shutdown(); }
    void finish_run(const nlohmann::json& params) {
        auto run = runner->submit("measure", params, "api");
        REQUIRE(run);
        REQUIRE(runner->wait(run->id, 10s).has_value());
    }
    std::string scrape() const {
        std::string out;
        std::vector<metrics::CollectorOutcome> outcomes;
        metrics.render(out, outcomes);
        return out;
    }

    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    host::HostFacts facts{host::collect_host_facts(root)};
    task::TaskState host_state{facts};
    ProbeRegistry registry;
    FakeProbe* fake = nullptr;
    std::unique_ptr<Runner> runner = std::make_unique<Runner>(RunnerOptions{16, 100, 2}, registry,
                                                              ProbeContextSource{root, host_state});
    LatestResultMetrics metrics{*runner, registry};
};

}  // namespace

TEST_CASE("LatestResultMetrics: nothing before a run succeeds, then the newest result") {
    MetricsFixture fixture;
    CHECK(fixture.scrape().empty());
    fixture.finish_run({{"value", 3}});
    const std::string first = fixture.scrape();
    CHECK(first.find("# TYPE hostprobe_fake_value gauge") != std::string::npos);
    CHECK(first.find("hostprobe_fake_value{probe=\"measure\"} 3") != std::string::npos);

    fixture.finish_run({{"value", 5}});
    const std::string second = fixture.scrape();
    CHECK(second.find("hostprobe_fake_value{probe=\"measure\"} 5") != std::string::npos);
    CHECK(second.find("} 3") == std::string::npos);

    fixture.finish_run({{"value", 7}, {"fail", true}});  // a failed run changes nothing
    CHECK(fixture.scrape() == second);
}

TEST_CASE("LatestResultMetrics: a result is rendered once, however often it is scraped") {
    MetricsFixture fixture;
    fixture.finish_run({{"value", 3}});
    const std::string first = fixture.scrape();
    for (int i = 0; i < 5; ++i)
        CHECK(fixture.scrape() == first);
    CHECK(fixture.fake->metrics_built() == 1);
    fixture.finish_run({{"value", 4}});
    fixture.scrape();
    fixture.scrape();
    CHECK(fixture.fake->metrics_built() == 2);
}

TEST_CASE(
    "LatestResultMetrics: a restored result its probe cannot read gives no gauges, not a "
    "failed scrape") {
    MetricsFixture fixture;
    Run restored;
    restored.id = "old";
    restored.probe = "measure";
    restored.state = RunState::succeeded;
    restored.finished_at = WallClock::now();
    restored.result = nlohmann::json{{"value", "not a number"}};  // from a damaged journal
    fixture.runner->restore({restored});
    std::string scraped;
    CHECK_NOTHROW(scraped = fixture.scrape());
    CHECK(scraped.empty());
    fixture.finish_run({{"value", 4}});  // the next run's result is served as ever
    CHECK(fixture.scrape().find("hostprobe_fake_value{probe=\"measure\"} 4") != std::string::npos);
}

TEST_CASE("every probe's result gauges refuse a result of the wrong shape as a parse error") {
    probes::StoragePolicy storage;
    const ProbeRegistry registry = probes::builtin_probes({.storage = storage});
    // Missing keys were const operator[] (undefined behaviour); -1 and 1e300 as a size_t were
    // undefined conversions.
    const std::vector<nlohmann::json> damaged = {
        nlohmann::json(nullptr),
        nlohmann::json::object(),
        nlohmann::json(5),
        nlohmann::json::parse(R"({"measurements": [{}], "tests": [{}], "ops": {"x": {}},
            "directory": "/d", "job_options": {"rw": "read", "bs": "4k"}, "read": {}})"),
        nlohmann::json::parse(R"({"measurements": [{"cipher": "c", "block_bytes": -1,
            "threads": 1e300}], "tests": [{"name": "t", "copies": -1, "value": 1, "unit": "u",
            "index": 1}], "index": {}, "directory": "/d",
            "ops": {"x": {"ops_per_second": 1, "lat_ns": {"N": 1e300, "mean": 1}}},
            "job_options": {"rw": "read", "bs": "4k"},
            "read": {"iops": 1, "bw_bytes": 1, "clat_ns": {"N": -5, "mean": 1}}})"),
    };
    for (const auto& probe : registry.probes()) {
        for (const auto& result : damaged) {
            CAPTURE(probe->name());
            CAPTURE(result.dump());
            // Every probe parses its result into its struct first: a damaged one is an error
            // value (parse_error), never an exception and never gauges made of garbage. The
            // cpu probe has no result gauges, so it has nothing to refuse.
            Result<std::vector<prometheus::MetricFamily>> families{
                std::vector<prometheus::MetricFamily>{}};
            CHECK_NOTHROW(families = probe->result_metrics(result, 0));
            if (probe->name() == "cpu") {
                CHECK((families && families->empty()));
            } else {
                REQUIRE_FALSE(families);
                CHECK(families.error().code == ErrorCode::parse_error);
            }
        }
    }
}
