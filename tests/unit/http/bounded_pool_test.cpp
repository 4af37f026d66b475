#include "http/bounded_pool.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/eventually.hpp"

using hostprobe::http::BoundedPool;
using hostprobe::testing::eventually;
using namespace std::chrono_literals;

namespace {

// A thread of this process's scheduler state ('R' running, 'S' asleep in the kernel...);
// '?' once it has ended.
char thread_state(pid_t thread) {
    std::ifstream in("/proc/self/task/" + std::to_string(thread) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t name_end = stat.rfind(") ");
    return name_end == std::string::npos || stat.size() <= name_end + 2 ? '?' : stat[name_end + 2];
}

}  // namespace

TEST_CASE("a full pool makes the next connection wait until one ends") {
    BoundedPool pool(1, 1, 5s);
    pool.start();
    std::latch release(1);
    std::atomic<bool> first_running{false};
    pool.enqueue([&] {
        first_running = true;
        release.wait();
    });
    std::atomic<bool> second_accepted{false};
    std::atomic<bool> second_ran{false};
    std::atomic<pid_t> acceptor_id{0};
    REQUIRE(eventually([&] { return first_running.load(); }));
    std::thread acceptor([&] {
        acceptor_id = ::gettid();
        pool.enqueue([&] { second_ran = true; });
        second_accepted = true;
    });
    // The slot is taken: the second enqueue must wait. It is asleep in the kernel (not merely
    // not yet run) and has not returned; an enqueue that did not wait would have ended the
    // thread instead, and its state could not be read.
    REQUIRE(eventually([&] { return acceptor_id != 0 && thread_state(acceptor_id) == 'S'; }));
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
    BoundedPool pool(1, 1, 5s);
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

TEST_CASE(
    "a connection's next request goes behind the connections waiting, and only when some do") {
    BoundedPool pool(1, 4, 5s);
    pool.start();
    std::latch second_queued(1);
    std::mutex order_mutex;
    std::vector<std::string> order;
    auto record = [&](const char* what) {
        std::lock_guard lock(order_mutex);
        order.emplace_back(what);
    };
    std::atomic<bool> requeued_alone{true};
    std::atomic<bool> requeued_behind{false};
    std::latch asked_alone(1);
    pool.enqueue([&] {
        record("first, request 1");
        requeued_alone = pool.requeue_if_others_wait([] {});  // nobody waits yet
        asked_alone.count_down();
        second_queued.wait();
        requeued_behind = pool.requeue_if_others_wait([&] { record("first, request 2"); });
    });
    // Only once the first has asked alone may the second come (under qemu the first's thread
    // can be slow enough to ask after it).
    asked_alone.wait();
    pool.enqueue([&] { record("second, request 1"); });
    second_queued.count_down();
    REQUIRE(eventually([&] { return pool.in_flight() == 0; }));
    CHECK_FALSE(requeued_alone);
    CHECK(requeued_behind);
    CHECK(order ==
          std::vector<std::string>{"first, request 1", "second, request 1", "first, request 2"});
    pool.shutdown();
    CHECK_FALSE(pool.requeue_if_others_wait([] {}));
}

TEST_CASE("threads start when work comes, up to the pool's size, and end after idling") {
    BoundedPool pool(2, 8, 100ms);
    pool.start();
    CHECK(pool.live_threads() == 0);  // an agent nobody asked anything has no serving thread

    // Three connections that each hold a thread: two run at once, the third waits for one.
    std::latch release(1);
    std::atomic<int> running{0};
    std::atomic<int> done{0};
    for (int i = 0; i < 3; ++i)
        pool.enqueue([&] {
            ++running;
            release.wait();
            ++done;
        });
    REQUIRE(eventually([&] { return running.load() == 2; }));
    CHECK(pool.live_threads() == 2);
    CHECK(running.load() == 2);
    release.count_down();
    REQUIRE(eventually([&] { return done.load() == 3; }));

    // Without work both end (glibc then frees their stacks' pages and their caches of chunks).
    REQUIRE(eventually([&] { return pool.live_threads() == 0; }, 10s));
    CHECK(pool.retirements() == 2);
    CHECK(pool.in_flight() == 0);

    // Work after that is served by a new thread.
    std::atomic<bool> served{false};
    pool.enqueue([&] { served = true; });
    REQUIRE(eventually([&] { return served.load(); }));
    CHECK(pool.live_threads() <= 1);
    pool.shutdown();
    CHECK(pool.live_threads() == 0);
}

TEST_CASE("a busy pool keeps its threads: only a wait without work ends one") {
    BoundedPool pool(1, 8, 2s);
    pool.start();
    std::atomic<int> served{0};
    // A connection every 50 ms for half a second: the one thread never idles 2 s.
    for (int i = 0; i < 10; ++i) {
        pool.enqueue([&] { ++served; });
        REQUIRE(eventually([&] { return served.load() == i + 1; }));
        std::this_thread::sleep_for(50ms);  // the gap between requests is what is tested
    }
    CHECK(pool.retirements() == 0);
    CHECK(pool.live_threads() == 1);
    pool.shutdown();
}

TEST_CASE("a serving thread tells when it served a connection, after its work") {
    std::atomic<int> told{0};
    std::atomic<int> served{0};
    BoundedPool pool(2, 8, 5s, [&] {
        // Each tell follows its own connection's work.
        CHECK(told.load() < served.load());
        ++told;
    });
    pool.start();
    for (int i = 0; i < 3; ++i)
        pool.enqueue([&] { ++served; });
    REQUIRE(eventually([&] { return told.load() == 3; }));
    pool.shutdown();
    CHECK(served.load() == 3);
}
