// docs/ADDING_A_PROBE.md followed for a small probe, registered the real way (make_probe with
// the agent's ProbeSetup into a ProbeRegistry) and run through the real Runner, journal-restore
// path and /metrics exposition: what a new probe gets without touching anything else.
#include <doctest/doctest.h>

#include <chrono>

#include "api/openapi.hpp"
#include "core/json_reads.hpp"
#include "metrics/exposition.hpp"
#include "metrics/family_builder.hpp"
#include "metrics/host_collector.hpp"
#include "probes/probe_setup.hpp"
#include "probes/registry.hpp"
#include "runs/latest_result_metrics.hpp"
#include "runs/run_text.hpp"
#include "runs/runner.hpp"
#include "runs/typed_probe.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace std::chrono_literals;
using nlohmann::json;

namespace example {

// Step 1: the result, a plain struct with nlohmann's ADL pair in its own namespace.
struct BudgetEcho {
    uint32_t workers = 0;
    uint32_t visible_cpus = 0;
    std::string allowed_dir;  // from the ProbeSetup the agent gave
};

void to_json(json& out, const BudgetEcho& result) {
    out = {{"workers", result.workers},
           {"visible_cpus", result.visible_cpus},
           {"allowed_dir", result.allowed_dir}};
}

void from_json(const json& in, BudgetEcho& result) {
    result.workers = integer_or_throw<uint32_t>(in.at("workers"));
    result.visible_cpus = integer_or_throw<uint32_t>(in.at("visible_cpus"));
    result.allowed_dir = in.at("allowed_dir").get<std::string>();
}

// Step 2: the probe, only what is its own.
class BudgetEchoProbe final : public runs::TypedProbe<BudgetEcho> {
  public:
    // Step 3: what it needs from the agent comes from the setup.
    explicit BudgetEchoProbe(const probes::ProbeSetup& setup)
        : allowed_dir_(setup.storage.allowed_dirs.empty() ? std::string()
                                                          : setup.storage.allowed_dirs.front()) {}
    std::string name() const override { return "budget-echo"; }
    std::string description() const override { return "echoes the CPU budget"; }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return false; }
    double expected_seconds(const json&) const override { return 0.1; }

  protected:
    Result<BudgetEcho> measure(const runs::ProbeContext& context, const json&) const override {
        context.report_progress(1);
        return BudgetEcho{context.host.cpu_budget.workers, context.host.cpu_budget.visible_cpus,
                          allowed_dir_};
    }
    std::string text_report(const BudgetEcho& result) const override {
        return "workers " + std::to_string(result.workers) + " of " +
               std::to_string(result.visible_cpus) + " CPUs\n";
    }
    std::vector<prometheus::MetricFamily> metrics(const BudgetEcho& result, double) const override {
        std::vector<prometheus::MetricFamily> out;
        metrics::append(
            out,
            metrics::gauge("hostprobe_budget_echo_workers", "echoed workers").add(result.workers));
        return out;
    }

  private:
    std::string allowed_dir_;
    runs::ParamTable params_;
};

}  // namespace example

namespace {

struct Agent {
    explicit Agent(std::vector<runs::Run> restored = {}) {
        probes::ProbeSetup setup;
        setup.storage.allowed_dirs = {"/data"};
        registry = probes::builtin_probes(setup);
        // Step 4: the one registry line, as src/probes/registry.cpp has it.
        registry.add(probes::make_probe<example::BudgetEchoProbe>(setup));
        runner.restore(std::move(restored));
        exposition.add(std::make_shared<metrics::HostCollector>(root, host_state));
        exposition.add(std::make_shared<runs::LatestResultMetrics>(runner, registry));
        runner.start();
    }
    ~Agent() { runner.shutdown(); }

    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    task::TaskState host_state{host::collect_host_facts(root)};
    runs::ProbeRegistry registry;
    runs::Runner runner{runs::RunnerOptions{4, 10, 1}, registry,
                        runs::ProbeContextSource{root, host_state}};
    metrics::Exposition exposition;
};

runs::Run restored_run(const json& result) {
    runs::Run run;
    run.id = "0000000000000001";
    run.probe = "budget-echo";
    run.params = json::object();
    run.trigger = "api";
    run.state = runs::RunState::succeeded;
    run.created_at = WallClock::now();
    run.started_at = run.created_at;
    run.finished_at = run.created_at;
    run.result = result;
    return run;
}

}  // namespace

TEST_CASE("a probe added as docs/ADDING_A_PROBE.md says runs, reports and exports") {
    Agent agent;
    REQUIRE(agent.registry.find("budget-echo") != nullptr);
    auto submitted = agent.runner.submit("budget-echo", json::object(), "api");
    REQUIRE(submitted.ok());
    const auto run = agent.runner.wait(submitted->id, 10s);
    REQUIRE(run.has_value());
    REQUIRE(run->state == runs::RunState::succeeded);
    CHECK(run->result.get() == json{{"workers", 2}, {"visible_cpus", 8}, {"allowed_dir", "/data"}});
    // The text is rendered again from the result when asked for, not kept (runs/run_text).
    CHECK(run->text_report.empty());
    CHECK(runs::run_text(*run, agent.registry) ==
          "workers 2 of 8 CPUs\n");  // the fixture has a 2-CPU quota
    const std::string page = agent.exposition.render();
    CHECK(page.find("hostprobe_budget_echo_workers 2") != std::string::npos);
    CHECK(page.find("hostprobe_scrape_collector_success{collector=\"budget-echo_result\"} 1") !=
          std::string::npos);
}

TEST_CASE("a restored result that does not parse drops only its probe's metrics, collector 0") {
    Agent agent({restored_run(json{{"workers", -3}})});
    const std::string page = agent.exposition.render();
    CHECK(page.find("hostprobe_budget_echo_workers") == std::string::npos);
    CHECK(page.find("hostprobe_scrape_collector_success{collector=\"budget-echo_result\"} 0") !=
          std::string::npos);
    // One collector-success family on the page, holding the host collector's sample too.
    CHECK(page.find("hostprobe_scrape_collector_success{collector=\"cgroup_cpu_stat\"}") !=
          std::string::npos);
    CHECK(page.find("# TYPE hostprobe_scrape_collector_success") ==
          page.rfind("# TYPE hostprobe_scrape_collector_success"));
}

TEST_CASE("a probe added as docs/ADDING_A_PROBE.md says is described in GET /openapi.json") {
    Agent agent;
    const json schemas = api::openapi_document({}, agent.registry)["components"]["schemas"];
    CHECK(schemas["RunRequest"]["discriminator"]["mapping"]["budget-echo"] ==
          "#/components/schemas/RunRequest.budget-echo");
    CHECK(schemas["Params.budget-echo"]["properties"] == json::object());
    // The result's members, from its struct's to_json.
    const json& result = schemas["Result.budget-echo"];
    CHECK(result["required"] == json{"allowed_dir", "visible_cpus", "workers"});
    CHECK(result["properties"]["workers"]["type"] == "integer");
    CHECK(result["properties"]["workers"]["format"] == "int64");
    CHECK(result["properties"]["allowed_dir"] == json{{"type", "string"}});
}
