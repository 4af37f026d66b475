#include "app/memory_trimmer.hpp"

#include <doctest/doctest.h>

#include <thread>

using namespace hostprobe::app;
using namespace std::chrono_literals;

TEST_CASE("the trimmer trims repeatedly and stops at once when destroyed") {
    {
        const MemoryTrimmer trimmer(1ms);
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (trimmer.trims() < 3 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
        CHECK(trimmer.trims() >= 3);
    }
    // An hour's interval: destruction must not wait for it (a hang here fails the CTest timeout).
    const auto before = std::chrono::steady_clock::now();
    { const MemoryTrimmer idle(1h); }
    CHECK(std::chrono::steady_clock::now() - before < 5s);
}
