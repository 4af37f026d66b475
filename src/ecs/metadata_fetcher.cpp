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

// An exception escaping this thread would end the whole daemon (std::terminate): whatever the
// endpoint sends, or the callback does with it, becomes at worst a warning.
void MetadataFetcher::run(std::stop_token stop) {
    try {
        fetch(stop);
    } catch (const std::exception& error) {
        report(stop, make_error(ErrorCode::internal,
                                std::string("reading the task metadata failed: ") + error.what()));
    } catch (...) {
        report(stop, make_error(ErrorCode::internal, "reading the task metadata failed"));
    }
}

void MetadataFetcher::report(const std::stop_token& stop, const Result<TaskMetadata>& result) {
    if (stop.stop_requested()) return;
    try {
        done_(result);
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing is left to tell, and no one to tell
    }
}

void MetadataFetcher::fetch(const std::stop_token& stop) {
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
    report(stop, result);
}

}  // namespace hostprobe::ecs
