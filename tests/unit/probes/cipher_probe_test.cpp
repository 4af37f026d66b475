// The cipher probe for 0.1 s at a time: plausible, positive figures and the contract's fields.
#include "probes/cipher/cipher_probe.hpp"

#include <doctest/doctest.h>

#include <set>

#include "host/proc_stat.hpp"
#include "probes/cipher/speed_report.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

struct CipherHarness {
    SysRoot root{testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4"};  // budget: 1 worker
    host::HostFacts facts{host::collect_host_facts(root)};
    CipherProbe probe;
    std::stop_source stop;
    std::vector<double> progress;

    Result<runs::ProbeOutcome> run(const json& input) {
        auto params = probe.params().normalize(input);
        REQUIRE(params.ok());
        REQUIRE(probe.check(*params).ok());
        const runs::ProbeContext context{root, facts, stop.get_token(),
                                         [this](double p) { progress.push_back(p); }};
        return probe.run(context, *params);
    }
};

}  // namespace

TEST_CASE("a short run measures every cipher and size, in both clocks") {
    CipherHarness harness;
    auto outcome = harness.run(
        {{"ciphers", {"aes-128-gcm", "chacha20"}}, {"block_sizes", {16, 1024}}, {"seconds", 0.1}});
    REQUIRE(outcome.ok());
    CHECK_FALSE(outcome->partial);
    const json& result = outcome->result;
    REQUIRE(result["measurements"].size() == 4);
    for (const auto& m : result["measurements"]) {
        INFO(m.dump());
        CHECK(m["threads"] == 1);  // "auto" under the fixture's 0.25 CPU quota
        CHECK(m["ops"].get<uint64_t>() > 0);
        CHECK(m["bytes"] == m["ops"].get<uint64_t>() * m["block_bytes"].get<uint64_t>());
        // Each thread measures from its own start to the common deadline: on a loaded machine a
        // thread scheduled late measures less than the 0.1 s asked for, never more than a batch.
        CHECK(m["seconds"].get<double>() > 0);
        CHECK(m["seconds"].get<double>() < 5);
        CHECK(m["bytes_per_second"].get<double>() ==
              doctest::Approx(m["bytes"].get<double>() / m["seconds"].get<double>()));
        CHECK(m["cpu_seconds"].get<double>() > 0);
        CHECK(m["cpu_bytes_per_second"].get<double>() > 0);
        // Plausible for any CPU of the last decade, and for qemu-user: over 1 MB/s of CPU time
        // (the wall-clock figure also falls with the load of the machine), under 1 TB/s.
        CHECK(m["cpu_bytes_per_second"].get<double>() > 1e6);
        CHECK(m["bytes_per_second"].get<double>() < 1e12);
    }
    for (const char* field :
         {"throttling", "steal_seconds", "throttled", "explanation", "openssl_version",
          "cpu_budget", "wall_to_cpu_ratio", "threads", "mode", "decrypt"}) {
        INFO(field);
        CHECK(result.contains(field));
    }
    CHECK(result["openssl_version"].get<std::string>().rfind("OpenSSL 3", 0) == 0);
    CHECK(result["cpu_budget"]["workers"] == 1);
    CHECK(result["throttling"]["periods"] == 0);  // a dump's counters do not move
    CHECK(harness.progress.back() == 1.0);
    CHECK(std::is_sorted(harness.progress.begin(), harness.progress.end()));
    CHECK(outcome->text_report.find("The 'numbers' are in 1000s of bytes per second processed.") !=
          std::string::npos);
    CHECK(outcome->text_report.find("type             16 bytes   1024 bytes") != std::string::npos);
}

TEST_CASE("message and aead-record modes, encrypting and decrypting, with explicit threads") {
    CipherHarness harness;
    for (const char* mode : {"message", "aead-record"}) {
        for (bool decrypt : {false, true}) {
            INFO(mode << (decrypt ? " decrypt" : " encrypt"));
            auto outcome = harness.run({{"ciphers", {"aes-256-gcm", "chacha20-poly1305"}},
                                        {"block_sizes", {64}},
                                        {"seconds", 0.1},
                                        {"mode", mode},
                                        {"decrypt", decrypt},
                                        {"threads", 2}});
            REQUIRE(outcome.ok());
            for (const auto& m : outcome->result["measurements"]) {
                CHECK(m["threads"] == 2);
                CHECK(m["ops"].get<uint64_t>() > 0);
            }
        }
    }
    auto params =
        harness.probe.params().normalize({{"mode", "aead-record"}, {"ciphers", {"aes-128-ctr"}}});
    auto refused = harness.probe.check(*params);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("needs AEAD ciphers") != std::string::npos);
}

TEST_CASE("repetitions report the median with min and max") {
    CipherHarness harness;
    auto outcome = harness.run({{"ciphers", {"aes-128-ctr"}},
                                {"block_sizes", {256}},
                                {"seconds", 0.1},
                                {"repetitions", 3}});
    REQUIRE(outcome.ok());
    const json& m = outcome->result["measurements"][0];
    CHECK(m["repetitions"]["count"] == 3);
    const json& spread = m["repetitions"]["bytes_per_second"];
    CHECK(spread["min"].get<double>() <= spread["median"].get<double>());
    CHECK(spread["median"].get<double>() <= spread["max"].get<double>());
    CHECK(m["bytes_per_second"] == spread["median"]);
}

TEST_CASE("a stop request ends the run early with a partial result") {
    CipherHarness harness;
    harness.stop.request_stop();
    auto outcome = harness.run({{"seconds", 60}});
    REQUIRE(outcome.ok());
    CHECK(outcome->partial);
    CHECK(outcome->result["partial"] == true);
    CHECK(outcome->result["measurements"].empty());
}

TEST_CASE("throttling verdicts say why the clocks differ") {
    ThrottleEvidence evidence;
    evidence.wall_to_cpu = 0.97;
    CHECK_FALSE(judge_throttling(evidence).throttled);

    evidence.wall_to_cpu = 0.24;
    evidence.quota_cores = 0.25;
    evidence.periods = 30;
    evidence.throttled_periods = 29;
    evidence.throttled_seconds = 2.2;
    const ThrottleVerdict quota = judge_throttling(evidence);
    CHECK(quota.throttled);
    CHECK(quota.explanation.find("24%") != std::string::npos);
    CHECK(quota.explanation.find("cgroup CPU quota (0.25 CPUs) throttled the task in 29 of 30") !=
          std::string::npos);
    CHECK(quota.explanation.find("openssl speed") != std::string::npos);

    evidence.throttled_periods = 0;
    evidence.steal_seconds = 1.5;
    evidence.wall_seconds = 3;
    CHECK(judge_throttling(evidence).explanation.find("hypervisor stole 1.50 s") !=
          std::string::npos);
    evidence.steal_seconds = 0;
    evidence.threads = 4;
    evidence.visible_cpus = 2;
    CHECK(judge_throttling(evidence).explanation.find("4 threads shared 2 CPUs") !=
          std::string::npos);
}

TEST_CASE("the threads param: auto follows the budget") {
    CipherHarness harness;
    const runs::ProbeContext context{harness.root, harness.facts, {}, [](double) {}};
    harness.facts.cpu_budget.workers = 1;
    CHECK(context.count_or_workers("auto") == 1);
    harness.facts.cpu_budget.workers = 4;
    CHECK(context.count_or_workers("auto") == 4);
    CHECK(context.count_or_workers(8) == 8);
}

TEST_CASE("steal time from /proc/stat") {
    CHECK(*host::parse_steal_seconds("cpu  10 0 5 100 0 0 0 250 0 0\ncpu0 1 2 3 4 5 6 7 8\n",
                                     100) == 2.5);
    CHECK_FALSE(host::parse_steal_seconds("cpu  1 2 3\n", 100).ok());
    CHECK(host::parse_steal_seconds("intr 5\n", 100).error().code == ErrorCode::not_found);
}

TEST_CASE("a run's series counts every byte the cells measured, slice by slice, by cell") {
    CipherHarness harness;
    auto outcome = harness.run(
        {{"ciphers", {"aes-128-ctr"}}, {"block_sizes", {1024, 8192}}, {"seconds", 0.3}});
    REQUIRE(outcome.ok());
    const json& result = outcome->result;
    REQUIRE(result["series"].is_array());
    double series_bytes = 0;
    std::set<std::string> phases;
    for (const auto& slice : result["series"]) {
        CHECK(slice["seconds"].get<double>() > 0);
        CHECK(slice["seconds"].get<double>() < 0.5);  // 100 ms slices in the first seconds
        CHECK(slice.contains("cpu_seconds"));
        series_bytes += slice["bytes"].get<double>();
        if (slice.contains("phase")) phases.insert(slice["phase"].get<std::string>());
    }
    const double cell_bytes = result["measurements"][0]["bytes"].get<double>() +
                              result["measurements"][1]["bytes"].get<double>();
    CHECK(series_bytes == doctest::Approx(cell_bytes));
    CHECK(phases == std::set<std::string>{"aes-128-ctr/1024", "aes-128-ctr/8192"});
    CHECK_FALSE(result.contains("sustained"));  // only a sustained run has one
    CHECK(outcome->text_report.find("\nSeries: ") != std::string::npos);
}

TEST_CASE("sustained_seconds runs one cipher and block size for up to 30 minutes") {
    const CipherProbe probe;
    auto checked = [&](const json& input) {
        auto params = probe.params().normalize(input);
        REQUIRE_MESSAGE(params.ok(), params.error().message);
        return probe.check(*params);
    };
    const json one_cell = {{"ciphers", {"aes-128-gcm"}}, {"block_sizes", {8192}}};
    json long_run = one_cell;
    long_run["sustained_seconds"] = 1800;
    CHECK(checked(long_run).ok());
    CHECK(probe.expected_seconds(*probe.params().normalize(long_run)) == 1800);
    const auto two_sizes = checked(
        {{"ciphers", {"aes-128-gcm"}}, {"block_sizes", {16, 8192}}, {"sustained_seconds", 120}});
    REQUIRE_FALSE(two_sizes.ok());
    CHECK(two_sizes.error().message.find("one cipher and one block size") != std::string::npos);
    long_run["sustained_seconds"] = 1801;
    CHECK_FALSE(probe.params().normalize(long_run).ok());
    CHECK_FALSE(probe.params().normalize({{"seconds", 61}}).ok());  // `seconds` keeps its limit

    CipherHarness harness;
    auto outcome =
        harness.run({{"ciphers", {"chacha20"}}, {"block_sizes", {8192}}, {"sustained_seconds", 1}});
    REQUIRE(outcome.ok());
    CHECK(outcome->result["seconds_per_measurement"] == 1);
    const json& sustained = outcome->result["sustained"];
    CHECK(sustained["window_seconds"].get<double>() == doctest::Approx(0.5).epsilon(0.1));
    CHECK(sustained["first_bytes_per_second"].get<double>() > 1e6);
    CHECK(sustained["last_bytes_per_second"].get<double>() > 1e6);
    CHECK(outcome->text_report.find("Sustained: ") != std::string::npos);
}
