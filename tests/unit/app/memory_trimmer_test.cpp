#include "app/memory_trimmer.hpp"

#include <doctest/doctest.h>

#include <thread>

#include "support/eventually.hpp"

using namespace hostprobe::app;
using namespace std::chrono_literals;

TEST_CASE("the trimmer trims repeatedly and stops at once when destroyed") {
    {
        const MemoryTrimmer trimmer(1ms);
        CHECK(hostprobe::testing::eventually([&] { return trimmer.trims() >= 3; }, 10s, 1ms));
    }
    // An hour's interval: destruction must not wait for it (a hang here fails the CTest timeout).
    const auto before = std::chrono::steady_clock::now();
    { const MemoryTrimmer idle(1h); }
    CHECK(std::chrono::steady_clock::now() - before < 5s);
}
