// Reads ECS task metadata in the background: start-up and /healthz never wait for it. A few
// tries with backoff; stopping interrupts the waits between them.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ecs/task_metadata.hpp"

namespace hostprobe::ecs {

class MetadataFetcher {
  public:
    using Done = std::function<void(const Result<TaskMetadata>&)>;
    MetadataFetcher(std::string base_uri, Done done, int attempts = 5);
    ~MetadataFetcher();  // stops waiting and joins (an in-flight request ends within its 2 s
                         // deadline)
    MetadataFetcher(const MetadataFetcher&) = delete;
    MetadataFetcher& operator=(const MetadataFetcher&) = delete;
    void start();

  private:
    void run(std::stop_token stop);  // never throws
    void fetch(const std::stop_token& stop);
    void report(const std::stop_token& stop, const Result<TaskMetadata>& result);

    std::string base_uri_;
    Done done_;
    int attempts_;
    std::mutex mutex_;
    std::condition_variable_any wake_;
    std::jthread thread_;
};

}  // namespace hostprobe::ecs
