// cpp-httplib's task queue with a cap on connections: at most `max_connections` are being
// served or waiting for a thread. Past that, accepting blocks, so further clients wait in the
// kernel's backlog instead of piling up as open sockets and queued work in our memory.
// Threads start when work finds none idle (up to `threads`) and end after `idle_retirement`
// without work: an exiting thread hands back its stack's pages and glibc's per-thread cache
// of freed chunks, which otherwise pins heap pages that malloc_trim cannot release.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace hostprobe::http {

class BoundedPool : public httplib::TaskQueue {
  public:
    // No thread starts before start(), and none until work comes.
    static constexpr const char* kThreadName = "http-worker";
    BoundedPool(size_t threads, size_t max_connections, std::chrono::milliseconds idle_retirement,
                std::function<void()> after_connection = {});
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
    size_t live_threads() const;
    // Threads that ended for want of work, since start.
    std::uint64_t retirements() const;

  private:
    void work();
    // With mutex_ held.
    void spawn_if_work_lacks_a_thread();
    void retire_this_thread();

    const size_t thread_count_;
    const size_t max_connections_;
    const std::chrono::milliseconds idle_retirement_;
    // Called on the serving thread, outside the lock, after each connection's turn (the memory
    // trimmer listens: app/memory_trimmer).
    const std::function<void()> after_connection_;
    mutable std::mutex mutex_;
    std::condition_variable work_available_;
    std::condition_variable slot_free_;
    std::deque<std::function<void()>> pending_;
    size_t in_flight_ = 0;  // pending plus being served
    size_t idle_ = 0;       // threads waiting for work
    std::uint64_t retirements_ = 0;
    bool started_ = false;
    bool shutting_down_ = false;
    bool released_ = false;
    std::unordered_map<std::thread::id, std::thread> threads_;
    std::vector<std::thread> exited_;  // retired, joined by the next enqueue or shutdown
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
