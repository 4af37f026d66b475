// How many requests may hold an HTTP thread while they wait for a run (POST /v1/runs?wait=N).
// cpp-httplib gives each connection a thread; without a bound, as many waiting clients as
// threads (4 on a 0.25 vCPU task) would make /healthz wait for the runs, and ECS would
// replace a healthy task. Past the bound a request is refused at once (429) before its run
// starts, so the caller knows to start it without ?wait and poll.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>

namespace hostprobe::api {

class WaitSlots {
  public:
    explicit WaitSlots(size_t capacity) : capacity_(capacity) {}
    WaitSlots(const WaitSlots&) = delete;
    WaitSlots& operator=(const WaitSlots&) = delete;

    // Holds a slot until destroyed.
    class Slot {
      public:
        explicit Slot(WaitSlots& owner) : owner_(&owner) {}
        Slot(Slot&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
        Slot& operator=(Slot&&) = delete;
        ~Slot() {
            if (owner_) owner_->give_back();
        }

      private:
        WaitSlots* owner_;
    };

    std::optional<Slot> try_take();
    size_t capacity() const { return capacity_; }

  private:
    void give_back();

    const size_t capacity_;
    std::mutex mutex_;
    size_t taken_ = 0;
};

// Half the HTTP threads, at least one: the other half stays for /healthz, /metrics and reads.
size_t wait_slots_for(size_t http_threads);

}  // namespace hostprobe::api
