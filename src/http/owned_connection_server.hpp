// cpp-httplib's server with the connection loop replaced by ours: the request parsing,
// routing and answer writing stay cpp-httplib's (Server::process_request), but the stream
// lives for the whole connection (see ConnectionStream) and the keep-alive loop is ours.
// cpp-httplib 0.11 declares process_and_close_socket private and virtual, so a subclass may
// override it; process_request is protected.
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

#include "http/connection_stream.hpp"

namespace hostprobe::http {

struct ConnectionSettings {
    StreamLimits limits;
    std::chrono::milliseconds keep_alive{1000};  // idle time allowed between requests
    size_t max_requests = 100;                   // per connection; the last says "close"
    // Takes a connection's next request to serve it later, behind connections waiting for a
    // thread (BoundedPool::requeue_if_others_wait); false: serve it now. Unset: always now.
    std::function<bool(std::function<void()>)> take_turn;
};

template <typename Base>
class OwnedConnectionServer final : public Base {
  public:
    template <typename... Args>
    explicit OwnedConnectionServer(ConnectionSettings settings, Args&&... base_arguments)
        : Base(std::forward<Args>(base_arguments)...), settings_(settings) {}

  private:
    // One connection between its requests; a turn on a pool thread may serve several.
    struct Connection {
        Connection(std::unique_ptr<Transport> transport, const ConnectionSettings& settings)
            : stream(std::move(transport), settings.limits),
              remaining(settings.max_requests),
              idle(settings.limits.request_timeout) {}
        ConnectionStream stream;
        size_t remaining;
        // The first request may take as long as any request; later ones must start within
        // the keep-alive time.
        std::chrono::milliseconds idle;
    };

    bool process_and_close_socket(socket_t socket) override {
        std::unique_ptr<Transport> transport = open_transport(socket);
        if (!transport) return false;
        serve(std::make_shared<Connection>(std::move(transport), settings_));
        return true;
    }

    // Serves requests until the connection ends (the last owner going closes it) or its next
    // request takes its turn behind others.
    void serve(const std::shared_ptr<Connection>& connection) {
        ConnectionStream& stream = connection->stream;
        while (connection->remaining > 0 && this->svr_sock_ != INVALID_SOCKET &&
               stream.wait_for_request(connection->idle)) {
            stream.begin_request();
            bool connection_closed = false;
            const bool last = --connection->remaining == 0;
            const bool served =
                this->process_request(stream, last, connection_closed, ignore_ranges);
            if (!served || connection_closed || stream.must_close() || last) return;
            connection->idle = settings_.keep_alive;
            if (settings_.take_turn &&
                settings_.take_turn([this, connection] { serve(connection); }))
                return;
        }
    }

    std::unique_ptr<Transport> open_transport(socket_t socket) {
        if constexpr (std::is_same_v<Base, httplib::Server>) {
            return std::make_unique<PlainTransport>(socket);
        } else {
            auto tls = TlsTransport::accept(
                this->ssl_context(), socket,
                std::chrono::steady_clock::now() + settings_.limits.request_timeout);
            return tls ? std::move(tls).value() : nullptr;
        }
    }

    // The API serves whole bodies only (RFC 9110 14.2 lets a server ignore Range): and
    // cpp-httplib 0.11 would build every range asked for, so that a 600-byte header made a
    // 151 MB answer.
    static void ignore_ranges(httplib::Request& request) { request.ranges.clear(); }

    ConnectionSettings settings_;
};

}  // namespace hostprobe::http
