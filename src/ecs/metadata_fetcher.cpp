#include "ecs/metadata_fetcher.hpp"

namespace hostprobe::ecs {

MetadataFetcher::MetadataFetcher(std::string base_uri, Done done, int attempts)
    : base_uri_(std::move(base_uri)), done_(std::move(done)), attempts_(attempts) {}

MetadataFetcher::~MetadataFetcher() {
    if (thread_.joinable()) {
        thread_.request_stop();
        wake_.notify_all();
        thread_.join();
    }
}

void MetadataFetcher::start() {
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

void MetadataFetcher::run(std::stop_token stop) {
    Result<TaskMetadata> result = make_error(ErrorCode::unavailable, "not tried");
    for (int attempt = 0; attempt < attempts_ && !stop.stop_requested(); ++attempt) {
        if (attempt > 0) {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait_for(lock, stop, std::chrono::milliseconds(250 << attempt),
                           [] { return false; });
            if (stop.stop_requested()) return;
        }
        result = fetch_task_metadata(base_uri_, 1);
        // Malformed documents will not mend themselves; unreachable endpoints might.
        if (result || result.error().code == ErrorCode::parse_error ||
            result.error().code == ErrorCode::invalid_argument) {
            break;
        }
    }
    if (!stop.stop_requested()) done_(result);
}

}  // namespace hostprobe::ecs
