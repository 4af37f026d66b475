// A probe for runner and API tests whose runs the test controls: it can block until released
// (or cancelled), fail, or throw, and it records how many of its runs overlapped.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "metrics/family_builder.hpp"
#include "runs/probe.hpp"

namespace hostprobe::testing {

class FakeProbe final : public runs::Probe {
  public:
    FakeProbe(std::string name, bool exclusive) : name_(std::move(name)), exclusive_(exclusive) {
        using runs::ParamSpec;
        using runs::ParamType;
        params_ = runs::ParamTable({
            ParamSpec{.name = "block",
                      .type = ParamType::boolean,
                      .default_value = false,
                      .description = "wait for release"},
            ParamSpec{.name = "fail",
                      .type = ParamType::boolean,
                      .default_value = false,
                      .description = "return an error"},
            ParamSpec{.name = "throw",
                      .type = ParamType::boolean,
                      .default_value = false,
                      .description = "throw"},
            ParamSpec{.name = "value",
                      .type = ParamType::integer,
                      .default_value = 1,
                      .description = "echoed",
                      .min = 0,
                      .max = 100},
        });
    }

    std::string name() const override { return name_; }
    std::string description() const override { return "a test probe"; }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return exclusive_; }
    double expected_seconds(const nlohmann::json&) const override { return 3; }

    Result<runs::ProbeOutcome> run(const runs::ProbeContext& context,
                                   const nlohmann::json& params) const override {
        const int now = ++running_;
        int seen = max_running_.load();
        while (now > seen && !max_running_.compare_exchange_weak(seen, now)) {
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            ++started_;
        }
        changed_.notify_all();
        struct Leave {
            std::atomic<int>& running;
            ~Leave() { --running; }
        } leave{running_};
        context.report_progress(0.5);
        if (params["throw"].get<bool>()) throw std::runtime_error("boom");
        if (params["fail"].get<bool>())
            return make_error(ErrorCode::internal, "it failed on purpose");
        bool stopped = false;
        if (params["block"].get<bool>()) {
            // The callback takes the mutex so that its wake-up cannot fall between the waiter's
            // check and its sleep; it is made before the lock so it may run at once.
            std::stop_callback wake(context.stop, [this] {
                { std::lock_guard<std::mutex> barrier(mutex_); }
                changed_.notify_all();
            });
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return released_ || context.stop.stop_requested(); });
            stopped = context.stop.stop_requested();
        }
        // The niceness the runner gave this thread, for the runner's tests.
        const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
        return runs::ProbeOutcome{{{"value", params["value"]}, {"nice", nice}},
                                  "value " + params["value"].dump() + "\n",
                                  stopped};
    }

    // hostprobe_fake_value{probe} = the result's value; counts how often it was asked.
    Result<std::vector<prometheus::MetricFamily>> result_metrics(const nlohmann::json& result,
                                                                 double) const override {
        ++metrics_built_;
        std::vector<prometheus::MetricFamily> families;
        metrics::append(families, metrics::gauge("hostprobe_fake_value", "the echoed value")
                                      .add(result.value("value", 0.0), {{"probe", name_}}));
        return families;
    }
    int metrics_built() const { return metrics_built_; }

    // Lets every blocked run (and later ones) finish.
    void release() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            released_ = true;
        }
        changed_.notify_all();
    }
    // Waits until `count` runs have started; false after 10 s.
    bool wait_started(int count) const {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return started_ >= count; });
    }
    int max_running() const { return max_running_; }
    int started() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return started_;
    }

  private:
    std::string name_;
    bool exclusive_;
    runs::ParamTable params_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    mutable int started_ = 0;
    bool released_ = false;
    mutable std::atomic<int> running_{0};
    mutable std::atomic<int> max_running_{0};
    mutable std::atomic<int> metrics_built_{0};
};

}  // namespace hostprobe::testing
