#include "core/scheduler_slice.hpp"

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>

using namespace hostprobe;
using namespace std::chrono_literals;

namespace {

int own_niceness() {
    return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
}

// Each case runs in a thread of its own: the test binary's other threads keep their slice.
template <typename Body>
void in_own_thread(Body body) {
    std::thread(body).join();
}

}  // namespace

TEST_CASE("a short scheduler slice keeps the thread's niceness and is inherited by new threads") {
    in_own_thread([] {
        REQUIRE(setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 7) == 0);
        REQUIRE(request_scheduler_slice(kResponsiveSlice));
        CHECK(own_niceness() == 7);
        const auto slice = current_scheduler_slice();
        // Kernels before 6.12 accept and forget it (sched_runtime reads back 0).
        if (slice == 0ns) return;
        CHECK(slice == kResponsiveSlice);
        std::chrono::nanoseconds inherited{};
        std::thread([&] { inherited = current_scheduler_slice(); }).join();
        CHECK(inherited == kResponsiveSlice);
    });
}

TEST_CASE("the measuring threads' default slice comes back, niceness unchanged") {
    in_own_thread([] {
        REQUIRE(setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10) == 0);
        REQUIRE(request_scheduler_slice(kResponsiveSlice));
        REQUIRE(restore_default_scheduler_slice());
        CHECK(current_scheduler_slice() != kResponsiveSlice);  // 0 before 6.12, else the default
        CHECK(own_niceness() == 10);
    });
}

TEST_CASE("a zero or negative slice is refused rather than taken as the default") {
    CHECK_FALSE(request_scheduler_slice(0us));
    CHECK_FALSE(request_scheduler_slice(-5us));
}
