#include "app/memory_trimmer.hpp"

#include <doctest/doctest.h>

#include <atomic>

#include "support/eventually.hpp"

using namespace hostprobe::app;
using namespace std::chrono_literals;

namespace {
constexpr unsigned long kForcedEvery = MemoryTrimmer::kPassesBetweenForcedTrims;
}

TEST_CASE("the trimmer trims while there is activity and stops at once when destroyed") {
    {
        std::atomic<std::uint64_t> activity{0};
        const MemoryTrimmer trimmer(1ms,
                                    [&] { return activity += MemoryTrimmer::kActivityWorthATrim; });
        CHECK(
            hostprobe::testing::eventually([&] { return trimmer.counts().trims >= 3; }, 10s, 1ms));
        const auto counts = trimmer.counts();
        CHECK(counts.trims == counts.passes);
    }
    // An hour's interval: destruction must not wait for it (a hang here fails the CTest timeout).
    const auto before = std::chrono::steady_clock::now();
    {
        const MemoryTrimmer idle(1h, [] { return std::uint64_t{0}; });
    }
    CHECK(std::chrono::steady_clock::now() - before < 5s);
}

TEST_CASE("without activity the trimmer only looks, and trims once in a while") {
    const MemoryTrimmer trimmer(1ms, [] { return std::uint64_t{7}; });
    REQUIRE(hostprobe::testing::eventually(
        [&] { return trimmer.counts().passes >= 3 * kForcedEvery; }, 20s, 1ms));
    const auto counts = trimmer.counts();
    CHECK(counts.trims >= 1);
    CHECK(counts.trims <= counts.passes / kForcedEvery);
}

TEST_CASE("a burst trims on that pass and the next, then no more; less than a burst does not") {
    std::atomic<std::uint64_t> activity{0};
    const MemoryTrimmer trimmer(1ms, [&] { return activity.load(); });
    REQUIRE(hostprobe::testing::eventually([&] { return trimmer.counts().passes >= 1; }, 10s, 1ms));
    const auto before = trimmer.counts();
    activity = MemoryTrimmer::kActivityWorthATrim;
    REQUIRE(hostprobe::testing::eventually(
        [&] { return trimmer.counts().trims >= before.trims + 2; }, 10s, 1ms));
    // Two passes on, the pass after the burst is behind us too.
    const auto seen = trimmer.counts();
    REQUIRE(hostprobe::testing::eventually(
        [&] { return trimmer.counts().passes >= seen.passes + 2; }, 10s, 1ms));
    const auto burst = trimmer.counts();
    // Not quite a burst's worth more, and well short of a forced trim: nothing is trimmed.
    activity += MemoryTrimmer::kActivityWorthATrim - 1;
    REQUIRE(hostprobe::testing::eventually(
        [&] { return trimmer.counts().passes >= burst.passes + kForcedEvery / 2; }, 10s, 1ms));
    const auto after = trimmer.counts();
    if (after.passes + 2 < burst.passes + kForcedEvery) CHECK(after.trims == burst.trims);
}

TEST_CASE("this process's minor page faults grow when it touches new memory") {
    const std::uint64_t before = minor_page_faults();
    constexpr size_t kBytes = 8 << 20;
    auto* pages = static_cast<volatile char*>(::operator new(kBytes));
    for (size_t offset = 0; offset < kBytes; offset += 4096)
        pages[offset] = 1;
    ::operator delete(const_cast<char*>(pages));
    // At least one: with transparent huge pages one fault can bring in 2 MiB.
    CHECK(minor_page_faults() > before);
}

TEST_CASE("code is released on the first pass and after each new epoch, not on every pass") {
    std::atomic<std::uint64_t> epoch{0};
    std::atomic<int> releases{0};
    std::atomic<std::uint64_t> activity{0};
    const MemoryTrimmer trimmer(
        1ms, [&] { return activity += MemoryTrimmer::kActivityWorthATrim; },
        CodeRelease{[&] { return epoch.load(); }, [&] { ++releases; }});
    // The first pass releases what start-up ran; passes with heap bursts do not.
    REQUIRE(
        hostprobe::testing::eventually([&] { return trimmer.counts().passes >= 20; }, 10s, 1ms));
    CHECK(releases == 1);
    CHECK(trimmer.counts().code_releases == 1);
    // A finished run moves the epoch: one release more at the next pass.
    epoch = 1;
    REQUIRE(hostprobe::testing::eventually([&] { return releases == 2; }, 10s, 1ms));
    const auto passes = trimmer.counts().passes;
    REQUIRE(hostprobe::testing::eventually([&] { return trimmer.counts().passes >= passes + 20; },
                                           10s, 1ms));
    CHECK(releases == 2);
}

TEST_CASE("caches are asked on every pass, and a pass that dropped one trims without activity") {
    std::atomic<int> asked{0};
    std::atomic<bool> drop_next{false};
    const MemoryTrimmer trimmer(
        1ms, [] { return std::uint64_t{7}; }, CodeRelease{},
        [&] {
            ++asked;
            return drop_next.exchange(false);
        });
    REQUIRE(hostprobe::testing::eventually([&] { return trimmer.counts().passes >= 5; }, 10s, 1ms));
    CHECK(asked >= 5);
    // Without activity, trims come only every kForcedEvery passes: a dropped cache trims now.
    const auto before = trimmer.counts();
    drop_next = true;
    REQUIRE(hostprobe::testing::eventually([&] { return !drop_next.load(); }, 10s, 1ms));
    REQUIRE(hostprobe::testing::eventually(
        [&] { return trimmer.counts().passes >= before.passes + 2; }, 10s, 1ms));
    const auto after = trimmer.counts();
    INFO("passes " << before.passes << " -> " << after.passes << ", trims " << before.trims
                   << " -> " << after.trims);
    CHECK(after.trims >= before.trims + 1);
}

TEST_CASE("the linker tables are released on every pass that trims, and only then") {
    std::atomic<int> table_releases{0};
    std::atomic<bool> busy{true};
    std::atomic<std::uint64_t> activity{0};
    const MemoryTrimmer trimmer(
        1ms,
        [&] {
            if (busy) activity += MemoryTrimmer::kActivityWorthATrim;
            return activity.load();
        },
        CodeRelease{{}, {}, [&] { ++table_releases; }});
    REQUIRE(hostprobe::testing::eventually([&] { return trimmer.counts().trims >= 5; }, 10s, 1ms));
    // Idle: passes without trims release nothing.
    busy = false;
    const auto passes = trimmer.counts().passes;
    REQUIRE(hostprobe::testing::eventually([&] { return trimmer.counts().passes >= passes + 5; },
                                           10s, 1ms));
    const auto counts = trimmer.counts();
    INFO("passes " << counts.passes << ", trims " << counts.trims);
    CHECK(counts.table_releases == counts.trims);
    CHECK(counts.trims < counts.passes);
    CHECK(table_releases.load() >= static_cast<int>(counts.trims));
    CHECK(counts.code_releases == 0);  // no code release was given
}
