// The cipher probe's thread sweep (issue 16): which counts `threads` asks for and how they are
// bounded, the scaling figures and what they say, over fixed figures; the JSON, report and
// gauges of a fixed sweep; and one short real sweep.
#include "probes/cipher/thread_sweep.hpp"

#include <doctest/doctest.h>

#include "probes/cipher/cipher_probe.hpp"
#include "probes/cipher/cipher_result.hpp"
#include "probes/cipher/speed_report.hpp"
#include "support/paths.hpp"
#include "support/result_checks.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

const runs::ParamTable& sweep_cipher_params() {
    static const CipherProbe probe;
    return probe.params();
}

std::string sweep_param_error(const json& input) {
    auto result = sweep_cipher_params().normalize(input);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().code == ErrorCode::invalid_argument);
    return result.error().message;
}

// What CipherProbe::check says of params that each pass the table.
std::string sweep_check_error(const json& input) {
    const CipherProbe probe;
    auto params = probe.params().normalize(input);
    REQUIRE(params.ok());
    const Status checked = probe.check(*params);
    REQUIRE_FALSE(checked.ok());
    CHECK(checked.error().code == ErrorCode::invalid_argument);
    return checked.error().message;
}

const host::CpuBudget kTwoCoreQuota{
    .cores = 2, .workers = 2, .visible_cpus = 8, .source = "cgroup"};

host::ThrottlingCounters cfs_counters(uint64_t periods, uint64_t throttled, double seconds) {
    return {periods, throttled, seconds};
}

// Two cells at 1, 2 and 4 threads under a 2-core quota: they double to 2 threads, then stop,
// throttled at 4.
std::vector<SweepCellFigures> quota_bound_figures() {
    return {
        {"aes-128-ctr", 8192, 1, 100e6, 101e6, cfs_counters(20, 0, 0)},
        {"aes-128-ctr", 8192, 2, 198e6, 200e6, cfs_counters(20, 0, 0)},
        {"aes-128-ctr", 8192, 4, 203e6, 400e6, cfs_counters(20, 15, 1.5)},
        {"chacha20", 8192, 1, 50e6, 50e6, cfs_counters(20, 0, 0)},
        {"chacha20", 8192, 2, 97e6, 100e6, cfs_counters(20, 0, 0)},
        {"chacha20", 8192, 4, 98.5e6, 196e6, cfs_counters(20, 15, 1.5)},
    };
}

}  // namespace

TEST_CASE("sweep: powers of two up to the visible CPUs, and their count when it is not one") {
    CHECK(sweep_thread_counts(1) == std::vector<size_t>{1});
    CHECK(sweep_thread_counts(2) == std::vector<size_t>{1, 2});
    CHECK(sweep_thread_counts(6) == std::vector<size_t>{1, 2, 4, 6});
    CHECK(sweep_thread_counts(8) == std::vector<size_t>{1, 2, 4, 8});
    CHECK(sweep_thread_counts(0) == std::vector<size_t>{1});  // unknown: one
    CHECK(sweep_thread_counts(1000) == std::vector<size_t>{1, 2, 4, 8, 16, 32, 64, 128, 256});
}

TEST_CASE("threads: one count keeps today's run; a list or sweep is a sweep, ascending") {
    const ThreadCounts one = thread_counts_of(4, 2, 8);
    CHECK(one.counts == std::vector<size_t>{4});
    CHECK_FALSE(one.sweep);
    const ThreadCounts automatic = thread_counts_of("auto", 3, 8);
    CHECK(automatic.counts == std::vector<size_t>{3});
    CHECK_FALSE(automatic.sweep);
    CHECK(thread_counts_of("auto", 0, 8).counts == std::vector<size_t>{1});
    const ThreadCounts listed = thread_counts_of(json{8, 1, 2}, 2, 8);
    CHECK(listed.counts == std::vector<size_t>{1, 2, 8});
    CHECK(listed.sweep);
    const ThreadCounts swept = thread_counts_of("sweep", 2, 6);
    CHECK(swept.counts == std::vector<size_t>{1, 2, 4, 6});
    CHECK(swept.sweep);
}

TEST_CASE("the threads param takes a list or sweep, from JSON and from command-line text") {
    const auto& table = sweep_cipher_params();
    CHECK((*table.normalize({{"threads", {1, 2, 4, 8}}}))["threads"] == json{1, 2, 4, 8});
    CHECK((*table.normalize({{"threads", {2, 1, 2}}}))["threads"] == json{2, 1});  // repeats drop
    CHECK((*table.normalize({{"threads", "sweep"}}))["threads"] == "sweep");
    CHECK((*table.normalize({{"threads", 4}}))["threads"] == 4);
    CHECK((*table.normalize_text({{"threads", "1,2,4,8"}}))["threads"] == json{1, 2, 4, 8});
    CHECK((*table.normalize_text({{"threads", " sweep "}}))["threads"] == "sweep");
    CHECK((*table.normalize_text({{"threads", "4"}}))["threads"] == 4);  // one count, as before
    CHECK((*table.normalize_text({{"threads", "auto"}}))["threads"] == "auto");
    const json described = table.describe()[3];
    CHECK(described["name"] == "threads");
    CHECK(described["type"] == "\"auto\", \"sweep\", integer or integer list");
    CHECK(described["max"] == 256);
    CHECK(described["max_items"] == 16);
}

TEST_CASE("bad thread lists are refused, naming what is wrong") {
    CHECK(sweep_param_error({{"threads", json::array()}}) == "'threads' must not be empty");
    CHECK(sweep_param_error({{"threads", {1, 0}}}) ==
          "an item of 'threads' is 0; it must be from 1 to 256");
    CHECK(sweep_param_error({{"threads", {1, 257}}}) ==
          "an item of 'threads' is 257; it must be from 1 to 256");
    CHECK(sweep_param_error({{"threads", {1, "2"}}}) == "an item of 'threads' must be an integer");
    CHECK(sweep_param_error({{"threads", {1, 2.5}}}) == "an item of 'threads' must be an integer");
    CHECK(sweep_param_error({{"threads", json(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                               12, 13, 14, 15, 16, 17})}}) ==
          "'threads' has 17 items; at most 16 are allowed");
    CHECK(sweep_param_error({{"threads", "all"}}) ==
          "'threads' must be \"auto\" or an integer from 1 to 256, \"sweep\", or a list of at most "
          "16 such integers");
    CHECK(sweep_param_error({{"threads", json::object({{"n", 1}})}}).find("\"sweep\"") !=
          std::string::npos);
    const auto text = sweep_cipher_params().normalize_text({{"threads", "1,two"}});
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message == "--threads: 'two' is not a number");
    const auto empty = sweep_cipher_params().normalize_text({{"threads", ","}});
    REQUIRE_FALSE(empty.ok());
    CHECK(empty.error().message == "'threads' must not be empty");
}

TEST_CASE("a sweep stays within 128 cells and 30 minutes of measuring, and is not sustained") {
    CHECK(
        check_sweep_size({.ciphers = 8, .block_sizes = 16, .thread_counts = 1, .seconds = 1}).ok());
    CHECK(check_sweep_size({.ciphers = 8, .block_sizes = 16, .thread_counts = 2, .seconds = 1})
              .error()
              .message ==
          "a thread sweep of 8 cipher(s) x 16 block size(s) x 2 thread counts is 256 cells; at "
          "most 128 are allowed: give fewer ciphers, block sizes or thread counts");
    CHECK(
        check_sweep_size(
            {.ciphers = 1, .block_sizes = 1, .repetitions = 10, .thread_counts = 4, .seconds = 60})
            .error()
            .message ==
        "a thread sweep of 1 cipher(s) x 1 block size(s) x 4 thread counts x 10 repetition(s) "
        "x 60 s measures 2400 s; at most 1800 s are allowed: give fewer cells, repetitions or "
        "seconds");
    CHECK(
        check_sweep_size(
            {.ciphers = 1, .block_sizes = 1, .repetitions = 10, .thread_counts = 3, .seconds = 60})
            .ok());
    // Through the probe's check, after the table.
    CHECK(sweep_check_error({{"ciphers", {"aes-128-gcm", "aes-128-ctr", "chacha20"}},
                             {"block_sizes", {16, 64, 256, 1024, 8192, 16384}},
                             {"threads", {1, 2, 3, 4, 5, 6, 7, 8}}})
              .find("is 144 cells; at most 128") != std::string::npos);
    CHECK(sweep_check_error({{"ciphers", {"aes-128-ctr"}},
                             {"block_sizes", {8192}},
                             {"threads", {1, 2}},
                             {"sustained_seconds", 60}}) ==
          "sustained_seconds measures at one thread count: give threads a number or \"auto\", "
          "not a list or \"sweep\"");
    const CipherProbe probe;
    const auto defaults_listed = probe.params().normalize({{"threads", {1, 2, 4}}});
    REQUIRE(defaults_listed.ok());
    CHECK(probe.check(*defaults_listed).ok());
    // seconds per cell per count: 3 ciphers x 6 sizes x 3 counts x 3 s.
    CHECK(probe.expected_seconds(*defaults_listed) == 162);
    const auto one_count = probe.params().normalize({{"threads", 4}});
    CHECK(probe.expected_seconds(*one_count) == 54);
}

TEST_CASE("scaling: efficiency against the smallest count, and where it stops growing") {
    const ThreadSweep sweep = analyse_thread_sweep(quota_bound_figures(), {1, 2, 4}, kTwoCoreQuota);
    CHECK(sweep.thread_counts == std::vector<size_t>{1, 2, 4});
    REQUIRE(sweep.scaling.size() == 2);
    const CellScaling& ctr = sweep.scaling[0];
    CHECK(ctr.cipher == "aes-128-ctr");
    REQUIRE(ctr.steps.size() == 3);
    CHECK(ctr.steps[0].efficiency == doctest::Approx(1));
    CHECK(ctr.steps[1].efficiency == doctest::Approx(0.99));  // 198 / (2 x 100)
    CHECK(ctr.steps[2].efficiency == doctest::Approx(0.5075));
    CHECK_FALSE(ctr.steps[1].above_budget);  // 2 threads, 2 cores
    CHECK(ctr.steps[2].above_budget);
    REQUIRE(ctr.steps[2].throttling);
    CHECK(ctr.steps[2].throttling->throttled_periods == 15);
    REQUIRE(sweep.by_threads.size() == 3);
    CHECK_FALSE(sweep.by_threads[0].wall_growth);
    CHECK(*sweep.by_threads[1].wall_growth == doctest::Approx(0.96));
    CHECK(sweep.by_threads[1].median_efficiency == doctest::Approx(0.98));
    REQUIRE(sweep.by_threads[2].throttling);
    CHECK(sweep.by_threads[2].throttling->throttled_periods == 30);  // summed over the cells
    CHECK(sweep.by_threads[2].throttling->periods == 40);
    CHECK(sweep.stops_growing_above == 2);
    CHECK(sweep.explanation ==
          "Above 2 threads the wall-clock figure stops growing (4 threads: +2% where linear is "
          "+100%, median efficiency 50%): the CPU budget is 2 cores (the cgroup CPU quota). The "
          "cgroup "
          "throttled the task in 30 of 40 scheduler periods (3.00 s) at 4 threads, in 0 of 40 "
          "scheduler periods (0.00 s) at 2 threads.");
}

TEST_CASE("scaling: growing at every step, or stopping within the budget, is said so") {
    const std::vector<SweepCellFigures> linear = {{"aes-128-gcm", 16, 1, 10e6, 10e6, {}},
                                                  {"aes-128-gcm", 16, 2, 20e6, 20e6, {}},
                                                  {"aes-128-gcm", 16, 4, 36e6, 40e6, {}}};
    const host::CpuBudget cpus{.cores = 4, .workers = 4, .visible_cpus = 4, .source = "cpus"};
    const ThreadSweep growing = analyse_thread_sweep(linear, {1, 2, 4}, cpus);
    CHECK_FALSE(growing.stops_growing_above);
    CHECK(growing.explanation ==
          "The wall-clock figure grows at every step up to 4 threads (median efficiency 90%); the "
          "CPU budget is 4 cores (the visible CPUs).");
    CHECK_FALSE(growing.by_threads[2].throttling);  // counters unread: none, not zero

    const std::vector<SweepCellFigures> shared = {{"aes-128-gcm", 16, 1, 10e6, 10e6, {}},
                                                  {"aes-128-gcm", 16, 2, 10.4e6, 20e6, {}}};
    const ThreadSweep held_back = analyse_thread_sweep(shared, {1, 2}, cpus);
    CHECK(held_back.stops_growing_above == 1);
    CHECK(held_back.explanation ==
          "Above 1 thread the wall-clock figure stops growing (2 threads: +4% where linear is "
          "+100%, median efficiency 52%) although 2 threads fit the CPU budget of 4 cores (the "
          "visible CPUs): something "
          "else holds them back (other work on the CPUs, hypervisor steal, or SMT siblings "
          "sharing a core).");

    const ThreadSweep one = analyse_thread_sweep({{"chacha20", 64, 2, 5e6, 5e6, {}}}, {2}, cpus);
    CHECK(one.explanation == "Measured at 2 threads only: no scaling to compare.");
    CHECK(one.scaling[0].steps[0].efficiency == 1);
    const host::CpuBudget one_cpu{.cores = 1, .workers = 1, .visible_cpus = 1, .source = "cpus"};
    CHECK(analyse_thread_sweep(linear, {1, 2, 4}, one_cpu)
              .explanation.ends_with("the CPU budget is 1 core (the visible CPUs)."));
    CHECK(growth_text(-0.001) == "+0%");
    CHECK(growth_text(-0.05) == "-5%");
}

TEST_CASE("scaling: above the budget but never throttled, other work held the threads back") {
    std::vector<SweepCellFigures> figures = quota_bound_figures();
    for (auto& cell : figures)
        cell.throttling = cfs_counters(20, 0, 0);
    const ThreadSweep sweep = analyse_thread_sweep(figures, {1, 2, 4}, kTwoCoreQuota);
    CHECK(sweep.stops_growing_above == 2);
    CHECK(sweep.explanation.ends_with(
        "the CPU budget is 2 cores (the cgroup CPU quota). The cgroup did not throttle the task "
        "at 4 threads, though: other work on the CPUs held it back before the quota did."));
}

TEST_CASE("scaling: a sweep stopped early compares only what it measured") {
    std::vector<SweepCellFigures> figures = quota_bound_figures();
    figures.erase(figures.begin() + 2);  // aes-128-ctr at 4 threads
    figures.pop_back();                  // chacha20 at 4 threads
    const ThreadSweep sweep = analyse_thread_sweep(figures, {1, 2, 4}, kTwoCoreQuota);
    CHECK(sweep.by_threads.size() == 2);
    CHECK_FALSE(sweep.stops_growing_above);
}

TEST_CASE("a sweep result: JSON round trip, report and gauges") {
    CipherResult result;
    const ThreadSweep sweep = analyse_thread_sweep(quota_bound_figures(), {1, 2, 4}, kTwoCoreQuota);
    for (const auto& figures : quota_bound_figures()) {
        result.measurements.push_back({.cipher = figures.cipher,
                                       .block_bytes = figures.block_bytes,
                                       .threads = figures.threads,
                                       .bytes_per_second = figures.bytes_per_second,
                                       .cpu_bytes_per_second = figures.cpu_bytes_per_second});
    }
    result.threads = 4;
    result.seconds_per_measurement = 1;
    result.openssl_version = "OpenSSL 3.0.11 19 Sep 2023";
    result.explanation = "why. " + sweep.explanation;
    result.thread_sweep = sweep;

    const json written = result;
    CHECK(written["threads"] == 4);
    CHECK(written["thread_sweep"]["thread_counts"] == json{1, 2, 4});
    CHECK(written["thread_sweep"]["stops_growing_above"] == 2);
    CHECK(written["thread_sweep"]["scaling"][0]["steps"][2]["throttling"]["throttled_periods"] ==
          15);
    CHECK(written["thread_sweep"]["by_threads"][0]["wall_growth"].is_null());
    const auto restored = written.get<CipherResult>();
    REQUIRE(restored.thread_sweep);
    CHECK(json(restored).dump() == written.dump());
    // A result without a sweep writes no thread_sweep at all (the contract is additive).
    CHECK_FALSE(json(CipherResult{}).contains("thread_sweep"));
    json damaged = written;
    damaged["thread_sweep"]["scaling"][0]["steps"] = 3;
    CHECK_THROWS(damaged.get<CipherResult>());

    CHECK(speed_report(result) ==
          "hostprobe cipher: threads 1, 2, 4, 1 s per measurement, mode stream, encrypt, OpenSSL "
          "3.0.11 19 Sep 2023\n"
          "\n"
          "Thread sweep, wall clock (what `openssl speed -elapsed -multi N` prints, in 1000s of "
          "bytes per second; efficiency = rate at N / (N x rate at 1)):\n"
          "type           bytes           1 thread          2 threads          4 threads\n"
          "aes-128-ctr     8192    100000.00k 100%    198000.00k  99%    203000.00k  51%\n"
          "chacha20        8192     50000.00k 100%     97000.00k  97%     98500.00k  49%\n"
          "\n"
          "Thread sweep, CPU time (what `openssl speed -multi N` prints; the percentage is the "
          "wall-clock figure's share of it):\n"
          "type           bytes           1 thread          2 threads          4 threads\n"
          "aes-128-ctr     8192    101000.00k  99%    200000.00k  99%    400000.00k  51%\n"
          "chacha20        8192     50000.00k 100%    100000.00k  97%    196000.00k  50%\n"
          "\n"
          "Per thread count, over every cell:\n"
          "  1 thread: median efficiency 100%, within the CPU budget (2.00 cores), throttled in 0 "
          "of 40 periods (0.00 s)\n"
          "  2 threads: +96% over the previous count, median efficiency 98%, within the CPU "
          "budget (2.00 cores), throttled in 0 of 40 periods (0.00 s)\n"
          "  4 threads: +2% over the previous count, median efficiency 50%, above the CPU budget "
          "(2.00 cores), throttled in 30 of 40 periods (3.00 s)\n"
          "\n"
          "Throttled: no. " +
              result.explanation + "\n");

    const CipherProbe probe;
    const runs::Probe& as_probe = probe;
    auto families = as_probe.result_metrics(written, 1700000000);
    REQUIRE(families.ok());
    const std::string text = testing::families_text(*families);
    CHECK(text.find("hostprobe_cipher_throughput_bytes_per_second{cipher=chacha20,block_bytes="
                    "8192,threads=4,clock=wall,} 98500000\n") != std::string::npos);
    CHECK(text.find("hostprobe_cipher_scaling_efficiency_ratio{cipher=aes-128-ctr,block_bytes="
                    "8192,threads=2,} 0.98999") != std::string::npos);  // 0.99 at %.17g
    CHECK(text.find("hostprobe_cipher_scaling_efficiency_ratio{cipher=chacha20,block_bytes=8192,"
                    "threads=1,} 1\n") != std::string::npos);
}

TEST_CASE("a real sweep at 1 and 2 threads measures every cell at both, with its scaling") {
    SysRoot root{testing::fixtures_dir() + "/sysroots/fargate-e5-2686v4"};  // 0.25 CPU quota
    const host::HostFacts facts = host::collect_host_facts(root);
    const CipherProbe probe;
    auto params = probe.params().normalize({{"ciphers", {"aes-128-ctr"}},
                                            {"block_sizes", {1024, 8192}},
                                            {"seconds", 0.1},
                                            {"threads", {2, 1}}});
    REQUIRE(params.ok());
    REQUIRE(probe.check(*params).ok());
    std::stop_source stop;
    std::vector<double> progress;
    const runs::ProbeContext context{root, facts, stop.get_token(),
                                     [&](double p) { progress.push_back(p); }};
    auto outcome = probe.run(context, *params);
    REQUIRE(outcome.ok());
    const json& result = outcome->result;
    CHECK(result["threads"] == 2);
    REQUIRE(result["measurements"].size() == 4);
    CHECK(result["measurements"][0]["threads"] == 1);  // by cipher, size, then thread count
    CHECK(result["measurements"][1]["threads"] == 2);
    CHECK(result["measurements"][1]["block_bytes"] == 1024);
    const json& sweep = result["thread_sweep"];
    CHECK(sweep["thread_counts"] == json{1, 2});
    CHECK(sweep["budget_cores"] == 0.25);
    REQUIRE(sweep["scaling"].size() == 2);
    for (const auto& cell : sweep["scaling"]) {
        INFO(cell.dump());
        REQUIRE(cell["steps"].size() == 2);
        CHECK(cell["steps"][0]["efficiency"] == 1);
        CHECK(cell["steps"][1]["efficiency"].get<double>() > 0);
        CHECK(cell["steps"][1]["above_budget"] == true);        // 2 threads over 0.25 cores
        CHECK(cell["steps"][1]["throttling"]["periods"] == 0);  // a dump's counters stay
    }
    CHECK(result["explanation"].get<std::string>().find(sweep["explanation"].get<std::string>()) !=
          std::string::npos);
    CHECK(progress.back() == 1.0);
    CHECK(std::is_sorted(progress.begin(), progress.end()));
    CHECK(outcome->text_report.find("2 threads") != std::string::npos);
}
