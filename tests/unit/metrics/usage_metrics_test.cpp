// The scrape-time usage families (metrics/usage_metrics) over sysroots built from the fixtures in
// tests/fixtures/cgroup/usage: cgroup v1 with cpu and cpuacct apart (this host), cgroup v2 with
// PSI in the cgroup only, and damaged files that fail only their own collector. GET /v1/host's
// live readings (host/live_reading) read the same sources, so they are checked on the same trees.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "host/live_reading.hpp"
#include "host/proc_stat.hpp"
#include "metrics/host_collector.hpp"
#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using hostprobe::testing::TempTree;

namespace {

struct Scrape {
    std::vector<prometheus::MetricFamily> families;

    const prometheus::MetricFamily* find(const std::string& name) const {
        for (const auto& family : families) {
            if (family.name == name) return &family;
        }
        return nullptr;
    }
    bool has(const std::string& name) const { return find(name) != nullptr; }
    // The value of the sample with this label, or -1 when there is none.
    double value(const std::string& name, const std::string& label = "",
                 const std::string& label_value = "") const {
        const auto* family = find(name);
        if (family == nullptr) return -1;
        for (const auto& metric : family->metric) {
            bool match = label.empty();
            for (const auto& l : metric.label)
                match = match || (l.name == label && l.value == label_value);
            if (!match) continue;
            return family->type == prometheus::MetricType::Counter ? metric.counter.value
                                                                   : metric.gauge.value;
        }
        return -1;
    }
    double success(const std::string& collector) const {
        return value("hostprobe_scrape_collector_success", "collector", collector);
    }
};

Scrape scrape(const TempTree& tree) {
    const SysRoot root(tree.root());
    const auto facts = host::collect_host_facts(root, host::NoCpuid(), std::nullopt);
    const task::TaskState state(facts);
    return Scrape{metrics::HostCollector(root, state).families()};
}

std::string usage_fixture(const std::string& name) {
    return testing::fixtures_dir() + "/cgroup/usage/" + name;
}

const char* const kProcStat =
    "cpu  10 0 10 100 0 0 0 700 0 0\n"
    "cpu0 5 0 5 50 0 0 0 300 0 0\n"
    "cpu1 5 0 5 50 0 0 0 400 0 0\n";

// This host's layout: cpu, cpuacct, cpuset and memory each a v1 hierarchy of its own.
void write_v1_host(TempTree& tree) {
    const std::string path = "/task";
    tree.write("proc/self/cgroup", "4:memory:" + path + "\n3:cpuset:" + path +
                                       "\n2:cpuacct:" + path + "\n1:cpu:" + path + "\n0::/\n")
        .write("proc/self/mountinfo", "31 30 0:27 " + path +
                                          " /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
                                          "32 30 0:28 " +
                                          path +
                                          " /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
                                          "33 30 0:29 " +
                                          path +
                                          " /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
                                          "34 30 0:30 " +
                                          path +
                                          " /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n")
        .write("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n")
        .write("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n")
        .write("sys/fs/cgroup/cpu/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n")
        .copy(usage_fixture("v1_host/cpuacct.usage"), "sys/fs/cgroup/cpuacct/cpuacct.usage")
        .copy(usage_fixture("v1_host/cpuacct.stat"), "sys/fs/cgroup/cpuacct/cpuacct.stat")
        .write("sys/fs/cgroup/cpuset/cpuset.cpus", "1\n")
        .write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
        .copy(usage_fixture("v1_host/memory.usage_in_bytes"),
              "sys/fs/cgroup/memory/memory.usage_in_bytes")
        .write("proc/stat", kProcStat);
    for (const char* resource : {"cpu", "memory", "io"}) {
        tree.copy(usage_fixture(std::string("pressure_host/") + resource),
                  std::string("proc/pressure/") + resource);
    }
}

void write_v2(TempTree& tree) {
    std::filesystem::copy(testing::fixtures_dir() + "/sysroots/graviton2-8cpu", tree.root(),
                          std::filesystem::copy_options::recursive);
    tree.copy(testing::fixtures_dir() + "/cgroup/extracted/v2_docker/cpu.stat",
              "sys/fs/cgroup/cpu.stat");
    for (const char* file :
         {"cpu.pressure", "memory.pressure", "io.pressure", "memory.events", "memory.current"}) {
        tree.copy(usage_fixture(std::string("v2/") + file), std::string("sys/fs/cgroup/") + file);
    }
}

}  // namespace

TEST_CASE("cgroup v1: cpuacct usage, steal over the cpuset, host PSI, memory usage") {
    TempTree tree;
    write_v1_host(tree);
    const Scrape s = scrape(tree);
    CHECK(s.value("hostprobe_cgroup_cpu_usage_seconds_total") == doctest::Approx(5894.769561794));
    CHECK(s.value("hostprobe_cgroup_cpu_user_seconds_total") > 0);
    CHECK(s.value("hostprobe_cgroup_cpu_system_seconds_total") > 0);
    // cpuset "1": cpu1's 400 ticks, not the aggregate's 700.
    CHECK(s.value("hostprobe_cpu_steal_seconds_total") ==
          doctest::Approx(400.0 / sysconf(_SC_CLK_TCK)));
    CHECK(s.value("hostprobe_pressure_cpu_waiting_seconds_total", "scope", "host") ==
          doctest::Approx(1281.605244));
    CHECK(s.value("hostprobe_pressure_io_stalled_seconds_total", "scope", "host") ==
          doctest::Approx(6.554516));
    CHECK(s.value("hostprobe_pressure_cpu_waiting_seconds_total", "scope", "cgroup") == -1);
    CHECK(s.value("hostprobe_cgroup_memory_usage_bytes") == 747675648.0);
    CHECK_FALSE(s.has("hostprobe_cgroup_memory_events_total"));
    for (const char* collector :
         {"cgroup_cpu_stat", "cgroup_cpu_usage", "cpu_steal", "pressure", "cgroup_memory"}) {
        INFO(collector);
        CHECK(s.success(collector) == 1);
    }
    // Not applicable on v1: no sample, rather than a failure.
    CHECK(s.success("cgroup_pressure") == -1);
    CHECK(s.success("cgroup_memory_events") == -1);
}

TEST_CASE("cgroup v1 without cpuacct.stat still gives the total") {
    TempTree tree;
    write_v1_host(tree);
    std::filesystem::remove(tree.root() + "/sys/fs/cgroup/cpuacct/cpuacct.stat");
    const Scrape s = scrape(tree);
    CHECK(s.success("cgroup_cpu_usage") == 1);
    CHECK(s.has("hostprobe_cgroup_cpu_usage_seconds_total"));
    CHECK_FALSE(s.has("hostprobe_cgroup_cpu_user_seconds_total"));
}

TEST_CASE("cgroup v2: cpu.stat usage, cgroup PSI, memory.current and memory.events; no host PSI") {
    TempTree tree;
    write_v2(tree);
    const Scrape s = scrape(tree);
    CHECK(s.value("hostprobe_cgroup_cpu_usage_seconds_total") == doctest::Approx(26772.130245));
    CHECK(s.value("hostprobe_cgroup_cpu_user_seconds_total") == doctest::Approx(20979.069928));
    CHECK(s.value("hostprobe_cgroup_cpu_system_seconds_total") == doctest::Approx(5793.060316));
    CHECK(s.value("hostprobe_pressure_cpu_waiting_seconds_total", "scope", "cgroup") ==
          doctest::Approx(73.150934));
    CHECK(s.value("hostprobe_pressure_cpu_stalled_seconds_total", "scope", "cgroup") ==
          doctest::Approx(61.834122));
    CHECK(s.value("hostprobe_pressure_memory_waiting_seconds_total", "scope", "host") == -1);
    CHECK(s.value("hostprobe_cgroup_memory_usage_bytes") == 268435456.0);
    CHECK(s.value("hostprobe_cgroup_memory_events_total", "event", "oom_kill") == 1);
    CHECK(s.value("hostprobe_cgroup_memory_events_total", "event", "high") == 14);
    CHECK(s.find("hostprobe_cgroup_memory_events_total")->metric.size() == 6);
    // No /proc/pressure in this dump: PSI off, no metric and no failure.
    CHECK(s.success("pressure") == 1);
    for (const char* collector :
         {"cgroup_cpu_usage", "cgroup_pressure", "cgroup_memory", "cgroup_memory_events"}) {
        INFO(collector);
        CHECK(s.success(collector) == 1);
    }
    // No /proc/stat in this dump.
    CHECK(s.success("cpu_steal") == 0);
    CHECK_FALSE(s.has("hostprobe_cpu_steal_seconds_total"));
}

TEST_CASE("cgroup v2 before Linux 5.13: cpu.pressure without a full line") {
    TempTree tree;
    write_v2(tree);
    tree.copy(usage_fixture("v2/cpu.pressure.pre-5.13"), "sys/fs/cgroup/cpu.pressure");
    const Scrape s = scrape(tree);
    CHECK(s.success("cgroup_pressure") == 1);
    CHECK(s.value("hostprobe_pressure_cpu_waiting_seconds_total", "scope", "cgroup") ==
          doctest::Approx(0.00441));
    CHECK(s.value("hostprobe_pressure_cpu_stalled_seconds_total", "scope", "cgroup") == -1);
    CHECK(s.value("hostprobe_pressure_io_stalled_seconds_total", "scope", "cgroup") > 0);
}

TEST_CASE("a damaged file fails only its own collector") {
    TempTree tree;
    write_v2(tree);
    tree.write("proc/stat", kProcStat)
        .copy(usage_fixture("malformed/pressure.bad-total"), "proc/pressure/memory")
        .copy(usage_fixture("malformed/pressure.no-total"), "sys/fs/cgroup/io.pressure")
        .copy(usage_fixture("malformed/memory.events.bad-count"), "sys/fs/cgroup/memory.events")
        .copy(usage_fixture("malformed/memory.current.negative"), "sys/fs/cgroup/memory.current")
        .copy(usage_fixture("malformed/cpu.stat.no-usage"), "sys/fs/cgroup/cpu.stat");
    const Scrape s = scrape(tree);
    for (const char* collector : {"cgroup_cpu_usage", "pressure", "cgroup_pressure",
                                  "cgroup_memory", "cgroup_memory_events"}) {
        INFO(collector);
        CHECK(s.success(collector) == 0);
    }
    CHECK(s.success("cpu_steal") == 1);
    CHECK(s.value("hostprobe_cpu_steal_seconds_total") > 0);
    CHECK_FALSE(s.has("hostprobe_cgroup_cpu_usage_seconds_total"));
    CHECK_FALSE(s.has("hostprobe_cgroup_memory_usage_bytes"));
    CHECK_FALSE(s.has("hostprobe_cgroup_memory_events_total"));
    // The readable cgroup pressure files still give their metrics.
    CHECK(s.value("hostprobe_pressure_cpu_waiting_seconds_total", "scope", "cgroup") > 0);
    CHECK(s.value("hostprobe_pressure_io_waiting_seconds_total", "scope", "cgroup") == -1);
    CHECK(s.value("hostprobe_pressure_memory_waiting_seconds_total", "scope", "host") == -1);
}

TEST_CASE("cpu seconds per mode over the cpuset: 8 series, no cpu label") {
    TempTree tree;
    write_v1_host(tree);
    const Scrape s = scrape(tree);
    CHECK(s.success("cpu_modes") == 1);
    const auto* family = s.find("hostprobe_cpu_seconds_total");
    REQUIRE(family != nullptr);
    REQUIRE(family->metric.size() == host::kCpuModes.size());
    for (const auto& metric : family->metric) {
        REQUIRE(metric.label.size() == 1);
        CHECK(metric.label[0].name == "mode");
    }
    const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
    // cpuset "1": cpu1's line only.
    CHECK(s.value("hostprobe_cpu_seconds_total", "mode", "user") == doctest::Approx(5 / hz));
    CHECK(s.value("hostprobe_cpu_seconds_total", "mode", "idle") == doctest::Approx(50 / hz));
    CHECK(s.value("hostprobe_cpu_seconds_total", "mode", "steal") ==
          s.value("hostprobe_cpu_steal_seconds_total"));

    // A kernel without the steal column: 7 series; a malformed line: none, and only cpu_modes
    // fails.
    tree.write("proc/stat", "cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\ncpu1 1 2 3 4 5 6 7\n");
    const Scrape old_kernel = scrape(tree);
    CHECK(old_kernel.find("hostprobe_cpu_seconds_total")->metric.size() == 7);
    CHECK(old_kernel.value("hostprobe_cpu_seconds_total", "mode", "steal") == -1);
    tree.write("proc/stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 x 3 4\n");
    const Scrape broken = scrape(tree);
    CHECK(broken.success("cpu_modes") == 0);
    CHECK_FALSE(broken.has("hostprobe_cpu_seconds_total"));
    CHECK(broken.success("cgroup_cpu_usage") == 1);
}

TEST_CASE("live readings: the scrape's sources, absent ones empty") {
    TempTree v1;
    write_v1_host(v1);
    const SysRoot v1_root(v1.root());
    const auto v1_facts = host::collect_host_facts(v1_root, host::NoCpuid(), std::nullopt);
    const auto at = std::chrono::steady_clock::now();
    const auto v1_reading = host::read_live(v1_root, v1_facts, at);
    CHECK(v1_reading.at == at);
    REQUIRE(v1_reading.cgroup_cpu);
    CHECK(v1_reading.cgroup_cpu->total_seconds == doctest::Approx(5894.769561794));
    REQUIRE(v1_reading.steal_seconds);
    CHECK(*v1_reading.steal_seconds == doctest::Approx(400.0 / sysconf(_SC_CLK_TCK)));
    CHECK(v1_reading.steal_cpus == 1);  // cpuset "1"
    REQUIRE(v1_reading.throttling);
    CHECK(v1_reading.host_pressure[0]);
    CHECK_FALSE(v1_reading.cgroup_pressure[0]);  // v1: no cgroup PSI
    CHECK(v1_reading.memory_usage_bytes == 747675648u);
    CHECK_FALSE(v1_reading.memory_events);

    TempTree v2;
    write_v2(v2);
    const SysRoot v2_root(v2.root());
    const auto v2_facts = host::collect_host_facts(v2_root, host::NoCpuid(), std::nullopt);
    const auto v2_reading = host::read_live(v2_root, v2_facts, at);
    CHECK_FALSE(v2_reading.steal_seconds);  // no /proc/stat
    CHECK_FALSE(v2_reading.host_pressure[0]);
    REQUIRE(v2_reading.cgroup_pressure[0]);
    CHECK(*v2_reading.cgroup_pressure[0]->full_seconds == doctest::Approx(61.834122));
    REQUIRE(v2_reading.memory_events);
    CHECK(v2_reading.memory_events->size() == 6);
}
