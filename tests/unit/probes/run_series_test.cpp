// A run's series: slices from readings, their JSON, and what the analysis says of them.
#include "probes/common/run_series.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "probes/common/agent_cpu_time.hpp"
#include "probes/common/series_analysis.hpp"
#include "probes/common/series_sampler.hpp"
#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using nlohmann::json;

namespace {

// `seconds` of one-second slices of one phase, each with `work_per_second` work and the given
// steal and throttling.
void append_seconds(std::vector<SeriesSlice>& slices, int seconds, double work_per_second,
                    double steal_per_second = 0, uint64_t throttled_of_10 = 0) {
    for (int i = 0; i < seconds; ++i) {
        SeriesSlice slice;
        slice.start_seconds = slices.empty() ? 0 : slices.back().start_seconds + 1;
        slice.seconds = 1;
        slice.work = work_per_second;
        slice.cpu_seconds = 1;
        slice.periods = 10;
        slice.throttled_periods = throttled_of_10;
        slice.throttled_seconds = 0.01 * static_cast<double>(throttled_of_10);
        slice.steal_seconds = steal_per_second;
        slice.phase = "aes-128-gcm/8192";
        slices.push_back(slice);
    }
}

SeriesReading reading_at(double at, double work, double cpu) {
    SeriesReading reading;
    reading.at_seconds = at;
    reading.work = work;
    reading.cpu_seconds = cpu;
    reading.throttling = host::ThrottlingCounters{static_cast<uint64_t>(at * 10),
                                                  static_cast<uint64_t>(at * 10), at * 0.75};
    return reading;
}

}  // namespace

TEST_CASE("slices are 100 ms for the first 5 s, then 1 s up to 300 s, then 10 s") {
    CHECK(next_slice_end(0) == doctest::Approx(0.1));
    CHECK(next_slice_end(0.1) == doctest::Approx(0.2));
    CHECK(next_slice_end(0.13) == doctest::Approx(0.2));  // a late reading keeps the grid
    CHECK(next_slice_end(4.95) == doctest::Approx(5.0));
    CHECK(next_slice_end(5.0) == doctest::Approx(6.0));
    CHECK(next_slice_end(299.5) == doctest::Approx(300));
    CHECK(next_slice_end(300) == doctest::Approx(310));
    CHECK(next_slice_end(1795) == doctest::Approx(1800));
}

TEST_CASE("a series builder closes a slice at each slice end and keeps the counters' changes") {
    SeriesBuilder builder(reading_at(0, 0, 0));
    CHECK_FALSE(builder.add(reading_at(0.05, 50, 0.0125)));  // within the first slice
    CHECK(builder.add(reading_at(0.1, 100, 0.025)));
    CHECK(builder.add(reading_at(0.2, 200, 0.05)));
    builder.finish(reading_at(0.25, 250, 0.0625));
    const auto& slices = builder.slices();
    REQUIRE(slices.size() == 3);
    CHECK(slices[0].start_seconds == 0);
    CHECK(slices[0].seconds == doctest::Approx(0.1));
    CHECK(*slices[0].work == doctest::Approx(100));
    CHECK(*slices[0].cores_used() == doctest::Approx(0.25));
    CHECK(*slices[1].throttled_periods == 1);
    CHECK(*slices[1].throttled_seconds == doctest::Approx(0.075));
    CHECK(slices[2].seconds == doctest::Approx(0.05));  // the run's short last slice
    CHECK(*slices[2].work_rate() == doctest::Approx(1000));
}

TEST_CASE("a counter that went backwards or could not be read gives no figure, not a wrong one") {
    SeriesReading before = reading_at(1, 500, 2);
    SeriesReading after = reading_at(2, 100, 3);  // the work counter was reset
    after.steal_seconds = 4;                      // steal read only at the end
    const SeriesSlice slice = slice_between(before, after);
    CHECK_FALSE(slice.work.has_value());
    CHECK_FALSE(slice.steal_seconds.has_value());
    CHECK(*slice.cpu_seconds == doctest::Approx(1));
}

TEST_CASE("a series survives its JSON; a damaged one is refused") {
    std::vector<SeriesSlice> slices;
    append_seconds(slices, 3, 1e8, 0.01, 2);
    slices[1].steal_seconds.reset();
    const json document = series_json(slices, "bytes");
    CHECK(document[0]["bytes"] == 1e8);
    CHECK(document[0]["throttled_periods"] == 2);
    CHECK_FALSE(document[1].contains("steal_seconds"));
    const auto back = series_from_json(document, "bytes");
    REQUIRE(back.size() == 3);
    CHECK(series_json(back, "bytes") == document);

    CHECK_THROWS(series_from_json(json::object(), "bytes"));
    json negative = document;
    negative[0]["cpu_seconds"] = -1;
    CHECK_THROWS(series_from_json(negative, "bytes"));
    json untyped = document;
    untyped[2]["throttled_periods"] = "many";
    CHECK_THROWS(series_from_json(untyped, "bytes"));
    CHECK_THROWS(series_from_json(
        json(std::vector<json>(SeriesBuilder::kMaxSlices + 1, document[0])), "bytes"));
}

TEST_CASE("a fall in throughput is found where it happened and explained by steal or throttling") {
    SUBCASE("steal rose: CPU credits") {
        std::vector<SeriesSlice> slices;
        append_seconds(slices, 190, 100e6, 0.01);
        append_seconds(slices, 60, 40e6, 0.6);
        const auto change = find_series_change(slices);
        REQUIRE(change.has_value());
        CHECK(change->measure == "work_per_second");
        CHECK(change->at_seconds == doctest::Approx(190));
        CHECK(change->relative() == doctest::Approx(-0.6));
        const std::string told = describe_series(slices, "throughput");
        CHECK(told.find("throughput fell 60% after 190.0 s while steal rose from 0.01 to 0.60 "
                        "CPUs: CPU credits ran out (burstable instance?)") != std::string::npos);
    }
    SUBCASE("throttling rose: the quota was lowered") {
        std::vector<SeriesSlice> slices;
        append_seconds(slices, 10, 100e6, 0, 0);
        append_seconds(slices, 10, 50e6, 0, 9);
        const std::string told = describe_series(slices, "throughput");
        CHECK(told.find("throughput fell 50% after 10.0 s while CFS throttling rose from 0% to "
                        "90% of periods: the CPU quota was lowered during the run") !=
              std::string::npos);
    }
    SUBCASE("a steady run with noise has no change") {
        std::vector<SeriesSlice> slices;
        for (int i = 0; i < 40; ++i)
            append_seconds(slices, 1, i % 2 == 0 ? 95e6 : 105e6);
        CHECK_FALSE(find_series_change(slices).has_value());
        CHECK(describe_series(slices, "throughput").empty());
    }
    SUBCASE("cells of different block sizes are not compared with each other") {
        std::vector<SeriesSlice> slices;
        append_seconds(slices, 5, 100e6);
        append_seconds(slices, 5, 10e6);
        for (size_t i = 5; i < slices.size(); ++i)
            slices[i].phase = "aes-128-gcm/16";
        CHECK_FALSE(find_series_change(slices).has_value());
    }
}

TEST_CASE("the first seconds' 100 ms slices show the CFS rhythm of a 0.25 CPU quota") {
    SeriesBuilder builder(reading_at(0, 0, 0));
    for (int i = 1; i <= 50; ++i)
        builder.add(reading_at(i * 0.1, i * 100.0, i * 0.025));
    const auto rhythm = throttle_rhythm(builder.slices());
    REQUIRE(rhythm.has_value());
    CHECK(rhythm->slices == 50);
    CHECK(rhythm->throttled_slices == 50);
    CHECK(rhythm->cpu_ms_per_100ms == doctest::Approx(25));
    CHECK(rhythm->throttled_ms_per_100ms == doctest::Approx(75));
    CHECK(describe_series(builder.slices(), "throughput")
              .find("75 of every 100 ms throttled, 25 ms of CPU used") != std::string::npos);
    CHECK(series_summary_line(builder.slices())
              .find("throttled in 50 of 50 100 ms slices (25 ms CPU per 100 ms)") !=
          std::string::npos);
}

// The explanation from files as the kernel writes them: a replayed Fargate task whose /proc/stat
// shows steal climbing while the work slows down, read through the sysroot at each slice.
TEST_CASE("the steal explanation from replayed /proc/stat and cgroup files") {
    const testing::TempTree tree;
    std::filesystem::copy(testing::sysroot("fargate-e5-2686v4"), tree.root(),
                          std::filesystem::copy_options::recursive);
    const SysRoot root(tree.root());
    const host::HostFacts facts = host::collect_host_facts(root);
    REQUIRE(facts.cgroup.cpuset.has_value());
    const SeriesSources sources(root, facts);

    const long ticks = sysconf(_SC_CLK_TCK);
    auto write_proc_stat = [&](double steal_seconds) {
        const long per_cpu = static_cast<long>(steal_seconds * static_cast<double>(ticks) / 2);
        std::ofstream(tree.root() + "/proc/stat")
            << "cpu  100 0 100 1000 0 0 0 " << 2 * per_cpu << " 0 0\n"
            << "cpu0 50 0 50 500 0 0 0 " << per_cpu << " 0 0\n"
            << "cpu1 50 0 50 500 0 0 0 " << per_cpu << " 0 0\n";
    };
    double steal = 0;
    double work = 0;
    write_proc_stat(steal);
    SeriesReading first = sources.read(0);
    first.work = 0;
    SeriesBuilder builder(first);
    for (int second = 1; second <= 40; ++second) {
        const bool credits_left = second <= 20;
        steal += credits_left ? 0.02 : 1.2;  // CPUs' worth over both CPUs of the cpuset
        work += credits_left ? 200e6 : 80e6;
        write_proc_stat(steal);
        SeriesReading reading = sources.read(second);
        reading.work = work;
        builder.add(reading);
    }
    const auto& slices = builder.slices();
    REQUIRE(slices.size() >= 39);
    CHECK(slices.back().steal_seconds.has_value());
    const std::string told = describe_series(slices, "throughput");
    CHECK(told.find("throughput fell 60% after 20.0 s while steal rose") != std::string::npos);
    CHECK(told.find("CPU credits ran out (burstable instance?)") != std::string::npos);
}

TEST_CASE("the CPU time of a process tree from /proc/<pid>/stat, whatever its name holds") {
    // utime 11, stime 22, cutime 33, cstime 44 (fields 14 to 17).
    CHECK(process_tree_ticks("4242 (hostprobe) S 1 4242 4242 0 -1 4194560 100 0 0 0 11 22 33 44 "
                             "20 0 1 0 100 1000 10") == 110);
    CHECK(process_tree_ticks("7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0") == 10);
    CHECK(process_tree_ticks("") == -1);
    CHECK(process_tree_ticks("7 (cut) R 1 7 7 0 -1 0 0 0 0 0 1 2") == -1);
    CHECK(process_tree_ticks("7 (neg) R 1 7 7 0 -1 0 0 0 0 0 1 2 -3 4 20") == -1);
    const double before = agent_cpu_seconds();
    volatile double spin = 0;
    for (int i = 0; i < 20'000'000; ++i)
        spin = spin + 1;
    CHECK(agent_cpu_seconds() > before);
}
