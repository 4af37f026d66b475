// The per-second p99 of a disk run's jobs together: merged like fio's group report, null for a
// second without completions, and memory that a job stuck in one I/O cannot grow.
#include "probes/disk/second_latencies.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::probes;

namespace {

LatencyHistogram repeated_latencies(std::initializer_list<std::pair<uint64_t, unsigned>> runs) {
    LatencyHistogram histogram;
    for (const auto& [nanoseconds, count] : runs) {
        for (unsigned i = 0; i < count; ++i)
            histogram.record(nanoseconds);
    }
    return histogram;
}

// What the histogram reports for latencies all equal to `nanoseconds`: its bucket's middle.
uint64_t reported_latency(uint64_t nanoseconds) {
    return LatencyHistogram::value_of(LatencyHistogram::bucket_of(nanoseconds));
}

}  // namespace

TEST_CASE("per-second p99: jobs merged, directions apart, null where nothing completed") {
    SecondLatencies seconds(2);
    const LatencyHistogram none;
    // Second 0: job 0 reads 98 fast I/Os, job 1 two slow ones; alone neither has the merged p99.
    const LatencyHistogram fast = repeated_latencies({{100'000, 98}});
    const LatencyHistogram slow = repeated_latencies({{5'000'000, 2}});
    seconds.hand_over(0, 0, fast, none, 2);
    CHECK(seconds.open_seconds() == 1);  // job 1 may still complete in second 0
    seconds.hand_over(1, 0, slow, repeated_latencies({{40'000, 3}}), 1);
    CHECK(seconds.open_seconds() == 0);
    // Second 1: job 1 alone; second 2: job 0 alone, writes only. Then both finish.
    seconds.hand_over(1, 1, repeated_latencies({{200'000, 10}}), none, 3);
    seconds.hand_over(0, 2, none, repeated_latencies({{70'000, 5}}), SIZE_MAX);
    seconds.hand_over(1, 3, none, none, SIZE_MAX);

    LatencyHistogram merged = fast;
    merged.merge(slow);
    const uint64_t merged_p99 = merged.percentiles({99})[0];
    CHECK(merged_p99 == reported_latency(5'000'000));
    const uint64_t p99_200us = reported_latency(200'000), p99_70us = reported_latency(70'000),
                   p99_40us = reported_latency(40'000);
    CHECK(seconds.read_p99(5) == LatencySeries{merged_p99, p99_200us, {}, {}, {}});
    CHECK(seconds.write_p99(5) == LatencySeries{p99_40us, {}, p99_70us, {}, {}});
    CHECK(seconds.read_p99(1) == LatencySeries{merged_p99});
    CHECK(seconds.open_seconds() == 0);
}

TEST_CASE("per-second p99: a job that stopped before measuring holds nothing open") {
    SecondLatencies seconds(2);
    seconds.finish(1);
    seconds.hand_over(0, 0, repeated_latencies({{1'000, 1}}), {}, 1);
    CHECK(seconds.open_seconds() == 0);
    seconds.hand_over(0, 1, {}, {}, SIZE_MAX);
    CHECK(seconds.read_p99(2) == LatencySeries{reported_latency(1'000), {}});
}

TEST_CASE("per-second p99: a job stuck in one I/O keeps at most kMaxOpenSeconds open") {
    SecondLatencies seconds(2);
    const LatencyHistogram one = repeated_latencies({{300'000, 1}});
    const size_t run_seconds = 3 * SecondLatencies::kMaxOpenSeconds;
    // Job 1 completes in second 0, then nothing until the end: it still holds second 0.
    for (size_t second = 0; second < run_seconds; ++second) {
        seconds.hand_over(0, second, one, {}, second + 1);
        CHECK(seconds.open_seconds() <= SecondLatencies::kMaxOpenSeconds);
    }
    seconds.hand_over(1, 0, one, {}, SIZE_MAX);  // too late for second 0: left out of it
    seconds.hand_over(0, run_seconds, {}, {}, SIZE_MAX);
    CHECK(seconds.open_seconds() == 0);
    const LatencySeries read = seconds.read_p99(run_seconds);
    for (const auto& p99 : read)
        CHECK(p99 == reported_latency(300'000));
}
