#include "http/bounded_pool.hpp"

#include <algorithm>

namespace hostprobe::http {

BoundedPool::BoundedPool(size_t threads, size_t max_connections)
    : thread_count_(std::max<size_t>(1, threads)),
      max_connections_(std::max<size_t>(1, max_connections)) {}

void BoundedPool::start() {
    std::lock_guard lock(mutex_);
    if (!threads_.empty() || shutting_down_) return;
    for (size_t i = 0; i < thread_count_; ++i)
        threads_.emplace_back([this] { work(); });
}

BoundedPool::~BoundedPool() {
    shutdown();
}

void BoundedPool::enqueue(std::function<void()> connection) {
    std::unique_lock lock(mutex_);
    slot_free_.wait(lock, [this] { return in_flight_ < max_connections_ || released_; });
    ++in_flight_;
    pending_.push_back(std::move(connection));
    work_available_.notify_one();
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
        joining.swap(threads_);
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

// Queued connections are still served after shutdown(), as cpp-httplib's own pool does.
void BoundedPool::work() {
    while (true) {
        std::function<void()> connection;
        {
            std::unique_lock lock(mutex_);
            work_available_.wait(lock, [this] { return shutting_down_ || !pending_.empty(); });
            if (pending_.empty()) return;
            connection = std::move(pending_.front());
            pending_.pop_front();
        }
        connection();
        {
            std::lock_guard lock(mutex_);
            --in_flight_;
        }
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
