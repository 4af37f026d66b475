#include "http/bounded_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <latch>
#include <thread>

using hostprobe::http::BoundedPool;
using namespace std::chrono_literals;

TEST_CASE("a full pool makes the next connection wait until one ends") {
    BoundedPool pool(1, 1);
    pool.start();
    std::latch release(1);
    std::atomic<bool> first_running{false};
    pool.enqueue([&] {
        first_running = true;
        release.wait();
    });
    std::atomic<bool> second_accepted{false};
    std::atomic<bool> second_ran{false};
    std::thread acceptor([&] {
        pool.enqueue([&] { second_ran = true; });
        second_accepted = true;
    });
    while (!first_running)
        std::this_thread::sleep_for(1ms);
    // The slot is taken: the second enqueue must still be waiting (it cannot have returned).
    std::this_thread::sleep_for(100ms);
    CHECK_FALSE(second_accepted);
    CHECK(pool.in_flight() == 1);
    release.count_down();
    acceptor.join();
    CHECK(second_accepted);
    pool.shutdown();  // serves what was queued before the threads end
    CHECK(second_ran);
    CHECK(pool.in_flight() == 0);
}

TEST_CASE("release_waiters lets a stopping server's accept go on") {
    BoundedPool pool(1, 1);
    pool.start();
    std::latch release(1);
    pool.enqueue([&] { release.wait(); });
    std::thread acceptor([&] { pool.enqueue([] {}); });
    pool.release_waiters();
    acceptor.join();  // would hang without release_waiters
    release.count_down();
    pool.shutdown();
    CHECK(pool.in_flight() == 0);
}
