#include "ecs/bounded_get.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/untrusted_json.hpp"

namespace hostprobe::ecs {

namespace {

using nlohmann::json;

// Ends the client's request if it has not ended by the deadline: httplib 0.11 times out each
// read, never the request as a whole. The watchdog shuts down the request's socket (through a
// duplicate of its descriptor, taken when httplib creates it, so that a number closed and reused
// meanwhile is never touched), and the blocked read or connect returns. Nothing of httplib's is
// called from the watchdog's thread.
class RequestDeadline {
  public:
    RequestDeadline(httplib::Client& client, std::chrono::milliseconds deadline) {
        client.set_socket_options([this](socket_t socket) { watch(socket); });
        watchdog_ = std::jthread([this, deadline](std::stop_token stop) {
            std::unique_lock<std::mutex> lock(mutex_);
            if (!wake_.wait_for(lock, stop, deadline, [] { return false; }) &&
                !stop.stop_requested()) {
                expired_ = true;
                if (socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
            }
        });
    }
    ~RequestDeadline() { disarm(); }
    RequestDeadline(const RequestDeadline&) = delete;
    RequestDeadline& operator=(const RequestDeadline&) = delete;

    // After this the socket is never shut down; true when the deadline had passed.
    bool disarm() {
        if (watchdog_.joinable()) {
            watchdog_.request_stop();
            wake_.notify_all();
            watchdog_.join();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (socket_ >= 0) ::close(socket_);
        socket_ = -1;
        return expired_;
    }

  private:
    void watch(socket_t socket) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (socket_ >= 0) ::close(socket_);
        socket_ = ::fcntl(socket, F_DUPFD_CLOEXEC, 0);
        if (expired_ && socket_ >= 0) ::shutdown(socket_, SHUT_RDWR);
    }

    std::mutex mutex_;
    std::condition_variable_any wake_;
    bool expired_ = false;
    int socket_ = -1;  // our duplicate of the request's socket
    std::jthread watchdog_;
};

long long whole_seconds(std::chrono::milliseconds time) {
    return std::chrono::duration_cast<std::chrono::seconds>(time).count();
}

}  // namespace

http::HttpUrl with_path_suffix(http::HttpUrl base, const char* suffix) {
    base.path = (base.path == "/" ? std::string() : base.path) + suffix;
    return base;
}

Result<json> get_bounded_json(const http::HttpUrl& url, const GetLimits& limits) {
    // One request at a time in the process: httplib 0.11 (prebuilt) makes its function-local
    // statics, such as the regex that reads a response's status line, on first use, and the
    // metadata fetcher and the stats reader start at once. The one metadata endpoint never needs
    // two requests in flight, and each is bounded by its deadline.
    static std::mutex one_request_at_a_time;  // the one static here: a lock, no state
    const std::lock_guard<std::mutex> serialized(one_request_at_a_time);
    httplib::Client client(url.origin());
    const auto per_read = std::min(limits.deadline, std::chrono::milliseconds(1000));
    const auto seconds = whole_seconds(per_read);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(per_read).count() -
                        seconds * 1'000'000;
    client.set_connection_timeout(seconds, micros);
    client.set_read_timeout(seconds, micros);
    client.set_write_timeout(seconds, micros);
    std::string body;
    bool too_large = false;
    RequestDeadline deadline(client, limits.deadline);
    auto response = client.Get(
        url.path, [](const httplib::Response&) { return true; },
        [&](const char* data, size_t length) {
            too_large = body.size() + length > limits.max_bytes;
            if (!too_large) body.append(data, length);
            return !too_large;
        });
    const bool expired = deadline.disarm();
    if (too_large) {
        return make_error(ErrorCode::parse_error, url.path + ": the document is larger than " +
                                                      std::to_string(limits.max_bytes) + " bytes");
    }
    if (!response && expired) {  // a whole answer that beat the watchdog still counts
        return make_error(ErrorCode::unavailable, url.path + ": no whole answer within " +
                                                      std::to_string(limits.deadline.count()) +
                                                      " ms");
    }
    if (!response) {
        return make_error(ErrorCode::unavailable,
                          url.path + ": " + httplib::to_string(response.error()));
    }
    if (response->status != 200) {
        return make_error(ErrorCode::unavailable,
                          url.path + ": HTTP " + std::to_string(response->status));
    }
    const JsonLimits json_limits{
        .max_bytes = limits.max_bytes, .max_depth = kMaxJsonDepth, .max_values = limits.max_values};
    auto document = parse_untrusted_json(body, json_limits, limits.dropped_keys);
    if (!document)
        return make_error(ErrorCode::parse_error, url.path + ": " + document.error().message);
    return document;
}

}  // namespace hostprobe::ecs
