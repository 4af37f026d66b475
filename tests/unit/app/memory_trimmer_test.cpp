#include "app/memory_trimmer.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stop_token>

#include "support/eventually.hpp"

using namespace hostprobe::app;
using namespace std::chrono_literals;

namespace {
constexpr std::uint64_t kBurst = TrimNotices::kActivityWorthATrim;
constexpr std::chrono::milliseconds kNever = 1h;
// Passes at once after a burst, and none but those.
constexpr TrimTimes kQuick{1ms, 1ms, kNever};

// Page faults a test moves by hand.
struct FakeFaults {
    std::atomic<std::uint64_t> count{0};
    ActivityCount reader() {
        return [this] { return count.load(); };
    }
};

bool passes_reach(const MemoryTrimmer& trimmer, unsigned long passes) {
    return hostprobe::testing::eventually([&] { return trimmer.counts().passes >= passes; }, 10s,
                                          1ms);
}
}  // namespace

TEST_CASE("notices wake the trimmer for a burst's worth of new pages or a freeing, not less") {
    FakeFaults faults;
    TrimNotices notices(faults.reader());
    const std::stop_source stop;
    faults.count = kBurst - 1;
    notices.worked();
    CHECK_FALSE(notices.wait_for_burst(stop.get_token(), 1ms));
    faults.count = kBurst;
    notices.worked();
    CHECK(notices.wait_for_burst(stop.get_token(), 10s));
    // Trimmed: the count starts again from there.
    notices.trimmed_at(notices.activity());
    notices.worked();
    CHECK_FALSE(notices.wait_for_burst(stop.get_token(), 1ms));
    notices.freed();
    CHECK(notices.freeings() == 1);
    CHECK(notices.activity() == 2 * kBurst);
    CHECK(notices.wait_for_burst(stop.get_token(), 10s));
}

TEST_CASE("a quiet trimmer passes twice after start-up, then only at the forced interval") {
    FakeFaults faults;
    TrimNotices notices(faults.reader());
    const MemoryTrimmer trimmer({1ms, 1ms, 20ms}, notices);
    REQUIRE(passes_reach(trimmer, 4));
    const auto counts = trimmer.counts();
    CHECK(counts.forced == counts.passes - 2);  // start-up's pass and the one after it
}

TEST_CASE("a burst brings a pass and one more after it, then the trimmer sleeps") {
    FakeFaults faults;
    TrimNotices notices(faults.reader());
    const MemoryTrimmer trimmer(kQuick, notices);
    REQUIRE(passes_reach(trimmer, 2));  // start-up's
    faults.count += kBurst;
    notices.worked();
    REQUIRE(passes_reach(trimmer, 4));
    // Less than a burst wakes nothing; a retired thread's freeing does: two passes more.
    faults.count += kBurst - 1;
    notices.worked();
    notices.freed();
    REQUIRE(passes_reach(trimmer, 6));
    const auto counts = trimmer.counts();
    // Asleep for an hour now: no pass can follow unless a notice woke it wrongly.
    CHECK(counts.passes == 6);
    CHECK(counts.forced == 0);
}

TEST_CASE("a burst noticed while the trimmer waits to follow one up is trimmed as its own") {
    FakeFaults faults;
    TrimNotices notices(faults.reader());
    // The follow-up is an hour away: only the new burst can bring the next passes.
    const MemoryTrimmer trimmer({1ms, kNever, kNever}, notices);
    REQUIRE(passes_reach(trimmer, 1));  // start-up's
    faults.count += kBurst;
    notices.worked();
    REQUIRE(passes_reach(trimmer, 2));
    CHECK(trimmer.counts().forced == 0);
}

TEST_CASE("the trimmer stops at once when destroyed, however long it sleeps") {
    // A hang here fails the CTest timeout.
    TrimNotices notices;
    const auto before = std::chrono::steady_clock::now();
    { const MemoryTrimmer asleep({kNever, kNever, kNever}, notices); }
    {
        const MemoryTrimmer trimmer(kQuick, notices);
        REQUIRE(passes_reach(trimmer, 1));
    }
    CHECK(std::chrono::steady_clock::now() - before < 5s);
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
    FakeFaults faults;
    TrimNotices notices(faults.reader());
    std::atomic<std::uint64_t> epoch{0};
    std::atomic<int> releases{0};
    const MemoryTrimmer trimmer(kQuick, notices,
                                CodeRelease{[&] { return epoch.load(); }, [&] { ++releases; }});
    // The first pass releases what start-up ran; passes after heap bursts do not.
    REQUIRE(passes_reach(trimmer, 2));
    for (unsigned long burst = 1; burst <= 3; ++burst) {
        faults.count += kBurst;
        notices.worked();
        REQUIRE(passes_reach(trimmer, 2 + 2 * burst));
    }
    CHECK(releases == 1);
    CHECK(trimmer.counts().code_releases == 1);
    // A finished run moves the epoch and tells the trimmer: one release more.
    epoch = 1;
    notices.freed();
    REQUIRE(hostprobe::testing::eventually([&] { return releases == 2; }, 10s, 1ms));
    REQUIRE(passes_reach(trimmer, 10));
    CHECK(releases == 2);
}

TEST_CASE("every pass asks the caches and releases the linker's tables") {
    FakeFaults faults;
    TrimNotices notices(faults.reader());
    std::atomic<unsigned long> asked{0};
    std::atomic<unsigned long> table_releases{0};
    const MemoryTrimmer trimmer(kQuick, notices, CodeRelease{{}, {}, [&] { ++table_releases; }},
                                [&] {
                                    ++asked;
                                    return false;
                                });
    REQUIRE(passes_reach(trimmer, 2));
    notices.freed();
    REQUIRE(passes_reach(trimmer, 4));
    const auto counts = trimmer.counts();
    CHECK(counts.passes == 4);
    CHECK(asked == 4);
    CHECK(table_releases == 4);
    CHECK(counts.table_releases == 4);
    CHECK(counts.code_releases == 0);  // no code release was given
}
