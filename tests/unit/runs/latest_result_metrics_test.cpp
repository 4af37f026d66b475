#include "runs/latest_result_metrics.hpp"

#include <doctest/doctest.h>

#include "runs/runner.hpp"
#include "support/fake_probe.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using hostprobe::testing::FakeProbe;
using namespace std::chrono_literals;

namespace {

struct Fixture {
    Fixture() {
        auto probe = std::make_unique<FakeProbe>("measure", false);
        fake = probe.get();
        fake->release();  // runs finish at once
        registry.add(std::move(probe));
        runner->start();
    }
    ~Fixture() { runner->shutdown(); }
    void finish_run(const nlohmann::json& params) {
        auto run = runner->submit("measure", params, "api");
        REQUIRE(run);
        REQUIRE(runner->wait(run->id, 10s).has_value());
    }
    std::string scrape() const {
        std::string out;
        metrics.append_to(out);
        return out;
    }

    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    host::HostFacts facts{host::collect_host_facts(root)};
    host::HostState host_state{facts};
    ProbeRegistry registry;
    FakeProbe* fake = nullptr;
    std::unique_ptr<Runner> runner = std::make_unique<Runner>(RunnerOptions{16, 100, 2}, registry,
                                                              ProbeEnvironment{root, host_state});
    LatestResultMetrics metrics{*runner, registry};
};

}  // namespace

TEST_CASE("LatestResultMetrics: nothing before a run succeeds, then the newest result") {
    Fixture fixture;
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
    Fixture fixture;
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
