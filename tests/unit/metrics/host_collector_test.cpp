#include "metrics/host_collector.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <map>

#include "metrics/exposition.hpp"
#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;

namespace {

std::map<std::string, const prometheus::MetricFamily*> by_name(
    const std::vector<prometheus::MetricFamily>& families) {
    std::map<std::string, const prometheus::MetricFamily*> named;
    for (const auto& family : families)
        named[family.name] = &family;
    return named;
}

std::string label(const prometheus::ClientMetric& metric, const std::string& name) {
    for (const auto& l : metric.label) {
        if (l.name == name) return l.value;
    }
    return "<none>";
}

}  // namespace

TEST_CASE("host metrics carry the contract's names and labels") {
    const SysRoot root(testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4");
    const auto facts = host::collect_host_facts(root, host::NoCpuid(), std::nullopt);
    const auto families = metrics::HostCollector(root, task::TaskState(facts)).families();
    const auto named = by_name(families);
    for (const char* name :
         {"hostprobe_cpu_info", "hostprobe_cpu_flag_info", "hostprobe_cpus_online",
          "hostprobe_cpus_visible", "hostprobe_cpu_budget_cores", "hostprobe_cpu_workers",
          "hostprobe_cgroup_cpu_quota_cores", "hostprobe_cgroup_memory_limit_bytes",
          "hostprobe_cgroup_cpu_periods_total", "hostprobe_cgroup_cpu_throttled_periods_total",
          "hostprobe_cgroup_cpu_throttled_seconds_total", "hostprobe_ec2_family_candidate_info"}) {
        INFO(name);
        CHECK(named.count(name) == 1);
    }
    const auto& info = named.at("hostprobe_cpu_info")->metric.at(0);
    CHECK(label(info, "model_name") == "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz");
    CHECK(label(info, "microarchitecture") == "Broadwell");
    CHECK(label(info, "hypervisor") == "Xen");
    CHECK(named.at("hostprobe_cgroup_cpu_quota_cores")->metric.at(0).gauge.value == 0.25);
    CHECK(named.at("hostprobe_cgroup_cpu_throttled_seconds_total")->metric.at(0).counter.value ==
          6750.0);
    std::vector<std::string> flags;
    for (const auto& metric : named.at("hostprobe_cpu_flag_info")->metric)
        flags.push_back(label(metric, "flag"));
    CHECK(flags == std::vector<std::string>{"aes", "pclmulqdq", "avx", "avx2"});
}

TEST_CASE("no quota, no quota metric; counters are read afresh each time families() is asked") {
    testing::TempTree tree;
    std::filesystem::copy(testing::fixtures_dir() + "/sysroots/graviton2-8cpu", tree.root(),
                          std::filesystem::copy_options::recursive);
    tree.write("sys/fs/cgroup/cpu.max", "max 100000\n");
    const SysRoot root(tree.root());
    const auto facts = host::collect_host_facts(root, host::NoCpuid(), std::nullopt);
    const task::TaskState state(facts);
    const metrics::HostCollector collector(root, state);
    const auto unlimited = collector.families();
    CHECK(by_name(unlimited).count("hostprobe_cgroup_cpu_quota_cores") == 0);

    tree.write("sys/fs/cgroup/cpu.stat", "nr_periods 9\nnr_throttled 8\nthrottled_usec 7000000\n");
    const auto fresh = collector.families();
    const auto named = by_name(fresh);
    CHECK(named.at("hostprobe_cgroup_cpu_throttled_periods_total")->metric.at(0).counter.value ==
          8);
    CHECK(named.at("hostprobe_scrape_collector_success")->metric.at(0).gauge.value == 1);

    tree.write("sys/fs/cgroup/cpu.stat", "garbage\n");
    const auto broken_families = collector.families();
    const auto broken = by_name(broken_families);
    CHECK(broken.count("hostprobe_cgroup_cpu_throttled_periods_total") == 0);
    CHECK(broken.at("hostprobe_scrape_collector_success")->metric.at(0).gauge.value == 0);
}

TEST_CASE("the rendered text is the families serialized; the outcomes are their success samples") {
    const SysRoot root(testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4");
    const task::TaskState state(host::collect_host_facts(root, host::NoCpuid(), std::nullopt));
    const metrics::HostCollector collector(root, state);
    auto families = collector.families();
    REQUIRE(families.back().name == "hostprobe_scrape_collector_success");
    const auto success = metrics::outcomes_of(families.back());
    families.pop_back();
    std::string text;
    std::vector<metrics::CollectorOutcome> outcomes;
    collector.render(text, outcomes);
    CHECK(text == metrics::to_text(families));
    REQUIRE(outcomes.size() == success.size());
    for (size_t i = 0; i < outcomes.size(); ++i) {
        CHECK(outcomes[i].collector == success[i].collector);
        CHECK(outcomes[i].success == success[i].success);
    }
}

TEST_CASE("ECS metadata arriving shows at the next render; file readings are shared for 500 ms") {
    testing::TempTree tree;
    std::filesystem::copy(testing::fixtures_dir() + "/sysroots/graviton2-8cpu", tree.root(),
                          std::filesystem::copy_options::recursive);
    tree.write("sys/fs/cgroup/cpu.stat", "nr_periods 9\nnr_throttled 8\nthrottled_usec 7000000\n");
    const SysRoot root(tree.root());
    task::TaskState state(host::collect_host_facts(root, host::NoCpuid(), std::nullopt));
    const metrics::HostCollector collector(root, state);
    const auto render = [&] {
        std::string text;
        std::vector<metrics::CollectorOutcome> outcomes;
        collector.render(text, outcomes);
        return text;
    };
    const auto first_at = std::chrono::steady_clock::now();
    const std::string before = render();
    CHECK(before.find("hostprobe_ecs_task_info") == std::string::npos);
    CHECK(before.find("hostprobe_cgroup_cpu_throttled_periods_total 8\n") != std::string::npos);

    ecs::TaskMetadata task;
    task.cluster = "survey";
    task.cpu_limit_cores = 0.25;
    task.cpu_limit_source = "task";
    state.set_ecs(task);
    tree.write("sys/fs/cgroup/cpu.stat",
               "nr_periods 19\nnr_throttled 18\nthrottled_usec 7000000\n");
    const std::string after = render();
    const bool within_reading_age =
        std::chrono::steady_clock::now() - first_at < std::chrono::milliseconds(500);
    CHECK(after.find("cluster=\"survey\"") != std::string::npos);
    CHECK(after.find("hostprobe_ecs_task_cpu_limit_cores{source=\"task\"} 0.25\n") !=
          std::string::npos);
    // The counters come from the reading made for `before`, unless this machine took 500 ms.
    if (within_reading_age)
        CHECK(after.find("hostprobe_cgroup_cpu_throttled_periods_total 8\n") != std::string::npos);
    // A new collector reads afresh.
    const auto fresh_families = metrics::HostCollector(root, state).families();
    const auto fresh = by_name(fresh_families);
    CHECK(fresh.at("hostprobe_cgroup_cpu_throttled_periods_total")->metric.at(0).counter.value ==
          18);
}

TEST_CASE("the exposition renders Prometheus text") {
    metrics::Exposition exposition;
    exposition.add(std::make_shared<metrics::BuildInfoCollector>());
    const std::string text = exposition.render();
    CHECK(text.find("# TYPE hostprobe_build_info gauge") != std::string::npos);
    CHECK(text.find("hostprobe_build_info{version=\"") != std::string::npos);
    CHECK(text.find("openssl_version=\"3.") != std::string::npos);
}

TEST_CASE("one vulnerability sample per sysfs file, labelled by file name and status alone") {
    testing::TempTree tree;
    std::filesystem::copy(testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4", tree.root(),
                          std::filesystem::copy_options::recursive);
    const std::string folder = "sys/devices/system/cpu/vulnerabilities/";
    tree.write(folder + "meltdown", "Mitigation: PTI\n")
        .write(folder + "spectre_v2", "Vulnerable: Retpoline with unsafe module(s)\n")
        .write(folder + "l1tf", "Not affected\n")
        .write(folder + "mmio_stale_data", "Unknown: No mitigations\n")
        .write(folder + "Bad-Name", "Vulnerable\n");
    const SysRoot root(tree.root());
    const auto facts = host::collect_host_facts(root, host::NoCpuid(), std::nullopt);
    const auto families = metrics::HostCollector(root, task::TaskState(facts)).families();
    const auto named = by_name(families);
    REQUIRE(named.count("hostprobe_cpu_vulnerability_info") == 1);
    std::vector<std::string> samples;
    for (const auto& metric : named.at("hostprobe_cpu_vulnerability_info")->metric) {
        CHECK(metric.label.size() == 2);
        CHECK(metric.gauge.value == 1);
        samples.push_back(label(metric, "name") + " " + label(metric, "status"));
    }
    CHECK(samples == std::vector<std::string>{"l1tf not_affected", "meltdown mitigation",
                                              "mmio_stale_data unknown", "spectre_v2 vulnerable"});
    // Without the folder (the seed machines), no family at all.
    const SysRoot seed(testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4");
    const auto seed_facts = host::collect_host_facts(seed, host::NoCpuid(), std::nullopt);
    CHECK(by_name(metrics::HostCollector(seed, task::TaskState(seed_facts)).families())
              .count("hostprobe_cpu_vulnerability_info") == 0);
}
