#include "http/http_server.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "core/strings.hpp"
#include "core/unique_fd.hpp"
#include "http/answer_compression.hpp"
#include "http/bounded_pool.hpp"
#include "http/connection_closer.hpp"
#include "http/negotiation.hpp"
#include "http/owned_connection_server.hpp"
#include "http/reply.hpp"
#include "http/request_screen.hpp"
#include "http/security_headers.hpp"

namespace hostprobe::http {

namespace {

// cpp-httplib only says that binding failed; bind a probe socket ourselves to learn why.
std::string explain_bind_failure(const ListenAddress& address) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* results = nullptr;
    const std::string port = std::to_string(address.port);
    if (int status = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &results);
        status != 0) {
        return gai_strerror(status);
    }
    std::string reason = "unknown error";
    for (addrinfo* entry = results; entry != nullptr; entry = entry->ai_next) {
        const core::UniqueFd fd(socket(entry->ai_family, entry->ai_socktype, entry->ai_protocol));
        if (!fd) {
            reason = std::strerror(errno);
            continue;
        }
        int yes = 1;
        setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        if (::bind(fd.get(), entry->ai_addr, entry->ai_addrlen) != 0) {
            reason = std::strerror(errno);
        } else if (::listen(fd.get(), 1) != 0) {
            reason = std::strerror(errno);
        }
    }
    freeaddrinfo(results);
    return reason;
}

std::string reason_phrase(int status) {
    switch (status) {
        case 400: return "bad request";
        case 404: return "not found";
        case 405: return "method not allowed";
        case 411: return "length required";
        case 413: return "request body too large";
        case 414: return "request URI too long";
        case 431: return "request header fields too large";
        case 501: return "not implemented";
        case 503: return "service unavailable";
        default: return "HTTP error " + std::to_string(status);
    }
}

ConnectionSettings connection_settings(const ServerOptions& options,
                                       const std::shared_ptr<BoundedPool>& pool) {
    ConnectionSettings settings;
    settings.take_turn = [pool = std::weak_ptr<BoundedPool>(pool)](std::function<void()> next) {
        const auto alive = pool.lock();
        return alive && alive->requeue_if_others_wait(std::move(next));
    };
    settings.limits.max_header_bytes = options.max_header_bytes;
    settings.limits.request_timeout = std::chrono::seconds(options.request_timeout_seconds);
    settings.limits.write_timeout = std::chrono::seconds(options.request_timeout_seconds);
    settings.keep_alive = std::chrono::seconds(options.keep_alive_seconds);
    settings.max_requests = options.keep_alive_max_requests;
    return settings;
}

std::unique_ptr<httplib::Server> make_server(const ServerOptions& options,
                                             const std::shared_ptr<BoundedPool>& pool) {
    const ConnectionSettings settings = connection_settings(options, pool);
    if (options.tls_cert_file.empty())
        return std::make_unique<OwnedConnectionServer<httplib::Server>>(settings);
    return std::make_unique<OwnedConnectionServer<httplib::SSLServer>>(
        settings, options.tls_cert_file.c_str(), options.tls_key_file.c_str());
}

// cpp-httplib's own 400 for a request line it could not take, or for a method it knows but
// we route nowhere. A well-formed line (it got as far as the version) with a method we do
// not serve is 501 (RFC 9110 15.6.2), whatever cpp-httplib thought of it.
bool is_unimplemented_method(const httplib::Request& request) {
    const bool well_formed =
        !request.target.empty() && (request.version == "HTTP/1.1" || request.version == "HTTP/1.0");
    return well_formed && !request.method.empty() && !is_routed_method(request.method);
}

// Statuses after which the request's framing cannot be trusted, or its body was not read:
// the next bytes on the connection are not a request, so the connection ends.
bool ends_connection(const httplib::Request& request, const httplib::Response& response) {
    switch (response.status) {
        case 400:
        case 408:
        case 411:
        case 413:
        case 414:
        case 415:  // a compressed body is refused before any of it is read
        case 431:
        case 501: return true;
        default: break;
    }
    // HTTP/1.0 closes unless the client asked otherwise; cpp-httplib closes it but says
    // Keep-Alive.
    if (request.version == "HTTP/1.0" && request.get_header_value("Connection") != "Keep-Alive")
        return true;
    const std::optional<uint64_t> announced = declared_body_length(request);
    return !announced || request.body.size() != *announced ||
           request.has_header("Transfer-Encoding");
}

// Adds `token` to the answer's Vary unless it is there already.
void add_vary(httplib::Response& response, std::string_view token) {
    std::string vary = response.get_header_value("Vary");
    if (to_lower(vary).find(to_lower(token)) != std::string::npos) return;
    vary += vary.empty() ? std::string(token) : ", " + std::string(token);
    response.headers.erase("Vary");
    response.set_header("Vary", vary);
}

// `bytes` as the answer's body, sent as they are; `owner` (null for static storage) keeps them
// alive until cpp-httplib has sent them.
void provide_bytes(httplib::Response& response, std::string_view bytes,
                   const std::string& content_type, std::shared_ptr<const std::string> owner) {
    response.set_content_provider(
        bytes.size(), content_type,
        [bytes, owner = std::move(owner)](size_t offset, size_t length, httplib::DataSink& sink) {
            if (offset >= bytes.size()) return false;
            return sink.write(bytes.data() + offset, std::min(length, bytes.size() - offset));
        });
}

// Every body is handed to cpp-httplib as a content provider, which it sends as it is: no
// copy, and no compression of its own (answer_compression.hpp says why). A body made at
// request time is moved, not copied (a listing can be hundreds of KiB), and gzip-compressed
// here when the client accepts it.
void send_reply(const httplib::Request& request, Reply reply, httplib::Response& response) {
    response.status = reply.status;
    for (const auto& [name, value] : reply.headers)
        response.set_header(name, value);
    if (!reply.static_body.empty()) {
        provide_bytes(response, reply.static_body, reply.content_type, nullptr);
        return;
    }
    if (reply.body.empty()) {
        if (!reply.content_type.empty()) response.set_header("Content-Type", reply.content_type);
        return;
    }
    if (varies_with_encoding(reply.content_type, reply.body.size()) &&
        !response.has_header("Content-Encoding")) {
        add_vary(response, "Accept-Encoding");
        if (accepts_gzip(request.get_header_value("Accept-Encoding"))) {
            if (auto compressed = gzip_compress(reply.body)) {
                reply.body = std::move(*compressed);
                response.set_header("Content-Encoding", "gzip");
            }
        }
    }
    auto body = std::make_shared<const std::string>(std::move(reply.body));
    provide_bytes(response, *body, reply.content_type, body);
}

// Whether a handler has already put an answer in `response` (a body, or a content provider).
bool has_answer(const httplib::Response& response) {
    return !response.body.empty() || response.content_length_ > 0;
}

}  // namespace

HttpServer::HttpServer(ServerOptions options, std::shared_ptr<const Router> router)
    : options_(std::move(options)),
      router_(std::move(router)),
      pool_(std::make_shared<BoundedPool>(options_.threads, options_.max_connections,
                                          options_.thread_idle_retirement,
                                          options_.after_connection)),
      server_(make_server(options_, pool_)) {
    server_->new_task_queue = [pool = pool_] { return new SharedPoolQueue(pool); };
    server_->set_read_timeout(options_.request_timeout_seconds, 0);
    server_->set_write_timeout(options_.request_timeout_seconds, 0);
    server_->set_keep_alive_timeout(options_.keep_alive_seconds);
    server_->set_keep_alive_max_count(options_.keep_alive_max_requests);
    server_->set_payload_max_length(options_.max_body_bytes);
    server_->set_tcp_nodelay(true);
    // cpp-httplib's default also sets SO_REUSEPORT, which would let a second daemon share our
    // port silently; a port in use must be an error.
    server_->set_socket_options([this](socket_t socket) {
        int yes = 1;
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        listen_socket_ = socket;
    });

    auto handle = [router = router_](const httplib::Request& request, httplib::Response& response) {
        send_reply(request, router->dispatch(request), response);
    };
    const ScreenRules rules{options_.access, options_.max_body_bytes};
    // A request without Content-Length or Transfer-Encoding has an empty body (RFC 9112 6.3),
    // but cpp-httplib 0.11 would wait for the peer to close before routing a bodiless POST:
    // answer such requests before it tries to read a body.
    // The screen comes first, so a refused caller cannot make us read a body.
    server_->set_pre_routing_handler(
        [router = router_, rules](const httplib::Request& request, httplib::Response& response) {
            if (auto refusal = screen_request(request, rules)) {
                send_reply(request, std::move(*refusal), response);
                return httplib::Server::HandlerResponse::Handled;
            }
            const bool announces_body = request.has_header("Content-Length");
            const bool reads_body = request.method == "POST" || request.method == "PUT" ||
                                    request.method == "PATCH" || request.method == "DELETE";
            if (announces_body || !reads_body) return httplib::Server::HandlerResponse::Unhandled;
            send_reply(request, router->dispatch(request), response);
            return httplib::Server::HandlerResponse::Handled;
        });
    // "Expect: 100-continue" asks whether to send the body: say no at once to a request the
    // screen refuses (too large, not allowed), rather than invite a body and then refuse it.
    server_->set_expect_100_continue_handler(
        [rules](const httplib::Request& request, httplib::Response& response) {
            if (auto refusal = screen_request(request, rules)) {
                const int status = refusal->status;
                send_reply(request, std::move(*refusal), response);
                return status;
            }
            return 100;
        });
    // Every answer: no ranges are served (see OwnedConnectionServer), the security headers
    // (security_headers.hpp), and a connection whose next bytes cannot be trusted says it
    // closes, without a contradicting Keep-Alive.
    server_->set_post_routing_handler(
        [](const httplib::Request& request, httplib::Response& response) {
            response.headers.erase("Accept-Ranges");
            response.set_header("Accept-Ranges", "none");
            for (const auto& [name, value] : kSecurityHeaders) {
                response.headers.erase(std::string(name));
                response.set_header(std::string(name), std::string(value));
            }
            // cpp-httplib says "Content-Length: 0" for every empty body; a 304 must not
            // (RFC 9110 8.6: it would be the length of the 200 it stands for).
            if (response.status == kNotModified) response.headers.erase("Content-Length");
            const bool closing = ends_connection(request, response) ||
                                 response.get_header_value("Connection") == "close";
            if (closing) {
                response.headers.erase("Keep-Alive");
                response.headers.erase("Connection");
                response.set_header("Connection", "close");
            }
        });
    const std::string everything = ".*";
    server_->Get(everything, handle);
    server_->Post(everything, handle);
    server_->Put(everything, handle);
    server_->Patch(everything, handle);
    server_->Delete(everything, handle);
    server_->Options(everything, handle);
    // Errors cpp-httplib raises itself (413 for an oversized body, 400 for a bad request line)
    // get the same JSON shape as ours.
    server_->set_error_handler([](const httplib::Request& request, httplib::Response& response) {
        // A malformed Range gets here (416) with the ranges parsed before the bad one, which
        // cpp-httplib would cut this answer into. The request is cpp-httplib's own non-const
        // object, handed to us as const; no range is ever served.
        const_cast<httplib::Request&>(request).ranges.clear();
        if (has_answer(response)) return;
        if (response.status == 400 && is_unimplemented_method(request)) {
            response.status = 501;
            send_reply(request,
                       error_reply(501, "method " + excerpt(request.method) +
                                            " is not implemented (see GET / for the endpoints)"),
                       response);
            return;
        }
        if (response.status == 416) {
            send_reply(request,
                       error_reply(416,
                                   "the Range header is malformed; this API serves whole "
                                   "bodies only (send no Range)"),
                       response);
            return;
        }
        send_reply(request, error_reply(response.status, reason_phrase(response.status)), response);
    });
    server_->set_exception_handler(
        [](const httplib::Request& request, httplib::Response& response, std::exception_ptr error) {
            std::string message = "internal error";
            try {
                if (error) std::rethrow_exception(error);
            } catch (const std::exception& exception) {
                message += std::string(": ") + exception.what();
            } catch (...) {
            }
            send_reply(request, error_reply(500, message), response);
        });
}

HttpServer::~HttpServer() {
    stop();
}

Status HttpServer::bind() {
    const ListenAddress& address = options_.address;
    if (!server_->is_valid()) {
        return make_error(ErrorCode::invalid_argument,
                          "cannot serve TLS with " + options_.tls_cert_file + " and " +
                              options_.tls_key_file +
                              ": not a PEM certificate and its private key");
    }
    if (address.port == 0) {
        bound_port_ = server_->bind_to_any_port(address.host);
    } else if (server_->bind_to_port(address.host, address.port)) {
        bound_port_ = address.port;
    }
    if (bound_port_ <= 0) {
        return make_error(ErrorCode::unavailable, "cannot listen on " + address.to_string() + ": " +
                                                      explain_bind_failure(address));
    }
    // cpp-httplib 0.11 listens with a backlog of 5: a burst of connections (a load balancer,
    // wrk -c16) overflows it and each dropped handshake costs a 200 ms to 1 s retransmit.
    // Listening again on the same socket raises the backlog.
    if (listen_socket_ >= 0) {
        ::listen(listen_socket_, SOMAXCONN);
    }
    return Ok{};
}

Status HttpServer::serve() {
    serving_ = true;
    const bool clean = stop_requested_ || server_->listen_after_bind();
    serving_ = false;
    if (!clean) return make_error(ErrorCode::io_error, "the HTTP server stopped unexpectedly");
    return Ok{};
}

void HttpServer::stop() {
    stop_requested_ = true;
    // serve() may be between its check and the start of listening, when cpp-httplib would
    // ignore a stop: wait (briefly) until it listens or has returned.
    for (int i = 0; i < 2000 && serving_ && !server_->is_running(); ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    pool_->release_waiters();  // an accept waiting for a free slot must not hold us up
    server_->stop();
}

size_t HttpServer::drain(std::chrono::steady_clock::time_point deadline) {
    while (serving_ && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!serving_ || bound_port_ <= 0) return 0;
    return shut_down_connections_on_port(bound_port_);
}

}  // namespace hostprobe::http
