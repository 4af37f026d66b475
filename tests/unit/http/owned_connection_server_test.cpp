#include "http/owned_connection_server.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include <atomic>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/bounded_pool.hpp"
#include "support/eventually.hpp"

using namespace hostprobe::http;
using hostprobe::testing::eventually;

TEST_CASE(
    "a keep-alive connection's next request waits its turn behind a connection waiting for "
    "the only thread") {
    auto pool = std::make_shared<BoundedPool>(1, 8, std::chrono::seconds(5));
    ConnectionSettings settings;
    settings.take_turn = [pool](std::function<void()> next) {
        return pool->requeue_if_others_wait(std::move(next));
    };
    OwnedConnectionServer<httplib::Server> server(settings);
    server.new_task_queue = [pool] { return new SharedPoolQueue(pool); };
    std::latch release_first(1);
    std::mutex order_mutex;
    std::vector<std::string> order;
    auto handler = [&](const httplib::Request& request, httplib::Response& response) {
        {
            std::lock_guard lock(order_mutex);
            order.push_back(request.path);
        }
        if (request.path == "/first") release_first.wait();
        response.set_content("ok", "text/plain");
    };
    for (const char* path : {"/first", "/first-again", "/other"})
        server.Get(path, handler);
    server.Get("/warm-up", [](const httplib::Request&, httplib::Response& response) {
        response.set_content("ok", "text/plain");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    REQUIRE(port > 0);
    std::thread listener([&] { server.listen_after_bind(); });
    REQUIRE(eventually([&] { return server.is_running(); }));
    // cpp-httplib's client makes function-local statics on first use, in a library ThreadSanitizer
    // cannot see synchronise: one request from this thread first, before the clients' threads.
    REQUIRE(httplib::Client("127.0.0.1", port).Get("/warm-up")->status == 200);

    httplib::Client first("127.0.0.1", port);
    first.set_keep_alive(true);
    std::thread first_client([&] {
        CHECK(first.Get("/first")->status == 200);
        CHECK(first.Get("/first-again")->status == 200);  // the same connection
    });
    REQUIRE(eventually([&] {
        std::lock_guard lock(order_mutex);
        return order.size() == 1;
    }));
    httplib::Client other("127.0.0.1", port);
    std::thread other_client([&] { CHECK(other.Get("/other")->status == 200); });
    REQUIRE(eventually([&] { return pool->in_flight() == 2; }));  // queued behind /first
    release_first.count_down();
    first_client.join();
    other_client.join();
    // Without turns the first connection keeps the thread for /first-again, which it sends as
    // soon as /first is answered, and /other waits for that connection to end.
    {
        std::lock_guard lock(order_mutex);  // to ThreadSanitizer a socket does not synchronise
        CHECK(order == std::vector<std::string>{"/first", "/other", "/first-again"});
    }
    server.stop();
    listener.join();
}
