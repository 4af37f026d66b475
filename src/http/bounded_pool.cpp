#include "http/bounded_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <system_error>

namespace hostprobe::http {

BoundedPool::BoundedPool(size_t threads, size_t max_connections,
                         std::chrono::milliseconds idle_retirement,
                         std::function<void()> after_connection)
    : thread_count_(std::max<size_t>(1, threads)),
      max_connections_(std::max<size_t>(1, max_connections)),
      idle_retirement_(idle_retirement),
      after_connection_(std::move(after_connection)) {}

void BoundedPool::start() {
    std::lock_guard lock(mutex_);
    if (shutting_down_) return;
    started_ = true;
    spawn_if_work_lacks_a_thread();
}

BoundedPool::~BoundedPool() {
    shutdown();
}

void BoundedPool::enqueue(std::function<void()> connection) {
    std::vector<std::thread> exited;
    {
        std::unique_lock lock(mutex_);
        slot_free_.wait(lock, [this] { return in_flight_ < max_connections_ || released_; });
        ++in_flight_;
        pending_.push_back(std::move(connection));
        spawn_if_work_lacks_a_thread();
        work_available_.notify_one();
        exited.swap(exited_);
    }
    // Retired threads have left work(); joining only waits for the end of their exit.
    for (auto& thread : exited)
        thread.join();
}

bool BoundedPool::requeue_if_others_wait(std::function<void()> next_request) {
    std::lock_guard lock(mutex_);
    if (pending_.empty() || shutting_down_) return false;
    ++in_flight_;  // the connection's current turn ends (and is uncounted) when the caller returns
    pending_.push_back(std::move(next_request));
    return true;
}

void BoundedPool::shutdown() {
    std::vector<std::thread> joining;
    {
        std::lock_guard lock(mutex_);
        shutting_down_ = true;
        released_ = true;
        for (auto& [id, thread] : threads_)
            joining.push_back(std::move(thread));
        threads_.clear();
        std::move(exited_.begin(), exited_.end(), std::back_inserter(joining));
        exited_.clear();
    }
    work_available_.notify_all();
    slot_free_.notify_all();
    for (auto& thread : joining)
        thread.join();
}

void BoundedPool::release_waiters() {
    {
        std::lock_guard lock(mutex_);
        released_ = true;
    }
    slot_free_.notify_all();
}

size_t BoundedPool::in_flight() const {
    std::lock_guard lock(mutex_);
    return in_flight_;
}

size_t BoundedPool::live_threads() const {
    std::lock_guard lock(mutex_);
    return threads_.size();
}

std::uint64_t BoundedPool::retirements() const {
    std::lock_guard lock(mutex_);
    return retirements_;
}

// Work queued beyond what idle threads will take gets a new thread, while there is room.
// Before start() nothing starts: threads made earlier than the SignalWatcher would not have
// the shutdown signals blocked (later ones inherit the mask of the thread that enqueues).
void BoundedPool::spawn_if_work_lacks_a_thread() {
    if (!started_ || shutting_down_) return;
    if (pending_.size() <= idle_ || threads_.size() >= thread_count_) return;
    // The new thread waits for mutex_, held here, before it looks at anything.
    try {
        std::thread thread([this] { work(); });
        const auto id = thread.get_id();
        threads_.emplace(id, std::move(thread));
    } catch (const std::system_error&) {
        // No thread to be had (the task's pids limit): the work waits for a thread that
        // frees, and the next connection tries again.
    }
}

void BoundedPool::retire_this_thread() {
    auto node = threads_.extract(std::this_thread::get_id());
    if (!node.empty()) exited_.push_back(std::move(node.mapped()));
    ++retirements_;
}

// Queued connections are still served after shutdown(), as cpp-httplib's own pool does.
void BoundedPool::work() {
    // Named for top -H, perf and the tests that watch serving threads come and go.
    pthread_setname_np(pthread_self(), kThreadName);
    std::unique_lock lock(mutex_);
    while (true) {
        ++idle_;
        const bool has_work = work_available_.wait_for(
            lock, idle_retirement_, [this] { return shutting_down_ || !pending_.empty(); });
        --idle_;
        if (!has_work) {
            retire_this_thread();
            return;
        }
        if (pending_.empty()) return;  // shutting down
        auto connection = std::move(pending_.front());
        pending_.pop_front();
        lock.unlock();
        connection();
        connection = nullptr;  // what the connection held goes before the slot is freed
        if (after_connection_) after_connection_();
        lock.lock();
        --in_flight_;
        slot_free_.notify_one();
    }
}

SharedPoolQueue::SharedPoolQueue(std::shared_ptr<BoundedPool> pool) : pool_(std::move(pool)) {
    pool_->start();
}

void SharedPoolQueue::enqueue(std::function<void()> connection) {
    pool_->enqueue(std::move(connection));
}

void SharedPoolQueue::shutdown() {
    pool_->shutdown();
}

}  // namespace hostprobe::http
