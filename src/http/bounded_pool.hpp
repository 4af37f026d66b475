// cpp-httplib's task queue with a cap on connections: at most `max_connections` are being
// served or waiting for a thread. Past that, accepting blocks, so further clients wait in the
// kernel's backlog instead of piling up as open sockets and queued work in our memory.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hostprobe::http {

class BoundedPool : public httplib::TaskQueue {
  public:
    // No thread starts before start(): threads made earlier than the SignalWatcher would not
    // have the shutdown signals blocked.
    BoundedPool(size_t threads, size_t max_connections);
    void start();
    ~BoundedPool() override;
    BoundedPool(const BoundedPool&) = delete;
    BoundedPool& operator=(const BoundedPool&) = delete;

    void enqueue(std::function<void()> connection) override;
    // A served connection's next request, put behind the connections waiting for a thread when
    // there are any (it keeps its place in the count; no slot is waited for): busy keep-alive
    // connections then take turns a request at a time, where each used to keep its thread for
    // all its requests while others waited (the tail of /metrics latency under load). False,
    // and nothing queued, when none wait or the pool is stopping: the caller goes on serving.
    bool requeue_if_others_wait(std::function<void()> next_request);
    void shutdown() override;
    // Stops enqueue from waiting (the server is stopping and must not hang on a full pool).
    void release_waiters();
    size_t in_flight() const;

  private:
    void work();

    const size_t thread_count_;
    const size_t max_connections_;
    mutable std::mutex mutex_;
    std::condition_variable work_available_;
    std::condition_variable slot_free_;
    std::deque<std::function<void()>> pending_;
    size_t in_flight_ = 0;  // pending plus being served
    bool shutting_down_ = false;
    bool released_ = false;
    std::vector<std::thread> threads_;
};

// cpp-httplib deletes the task queue it is given when it stops listening; the pool itself stays
// its owner's (so that stop() can reach it): hand cpp-httplib one of these.
class SharedPoolQueue : public httplib::TaskQueue {
  public:
    explicit SharedPoolQueue(std::shared_ptr<BoundedPool> pool);
    void enqueue(std::function<void()> connection) override;
    void shutdown() override;

  private:
    std::shared_ptr<BoundedPool> pool_;
};

}  // namespace hostprobe::http
