// The HTTP edge: a cpp-httplib server whose every request goes through our Router, with its
// thread pool sized by the caller (from the CPU budget).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "http/access_policy.hpp"
#include "http/listen_address.hpp"
#include "http/router.hpp"

namespace httplib {
class Server;
}

namespace hostprobe::http {

struct ServerOptions {
    ListenAddress address;
    size_t threads = 4;
    // Idle keep-alive connections each hold a pool thread in cpp-httplib, and shutdown waits
    // for them: keep the timeout short so SIGTERM ends us quickly.
    int keep_alive_seconds = 1;
    // Apache's MaxKeepAliveRequests: fairness between connections comes from taking turns a
    // request at a time, not from closing them; each reconnect costs an accept, a close and
    // the client's new handshake (with 5, /metrics under wrk -t2 -c16 served 25% fewer).
    size_t keep_alive_max_requests = 100;
    size_t max_body_bytes = 64 * 1024;
    size_t max_header_bytes = 16 * 1024;  // all header lines together; one line stays <= 8 KiB
    int request_timeout_seconds = 5;      // per read or write on a connection
    size_t max_connections = 64;          // served or waiting; more wait in the kernel's backlog
    AccessPolicy access;
    std::string tls_cert_file;  // both set: HTTPS with cpp-httplib's OpenSSL server
    std::string tls_key_file;
    // A serving thread ends after this long without work (http::BoundedPool).
    std::chrono::milliseconds thread_idle_retirement{5000};
    // Called on the serving thread after each connection's turn (app/memory_trimmer listens).
    std::function<void()> after_connection;
};

class BoundedPool;

class HttpServer {
  public:
    HttpServer(ServerOptions options, std::shared_ptr<const Router> router);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Binds the listening socket; a clear message when the port is taken or the host unknown.
    Status bind();
    int port() const { return bound_port_; }
    // Serves until stop(); in-flight requests finish before it returns.
    Status serve();
    // Safe from any thread, also before serve() started.
    void stop();
    // After stop(): lets in-flight requests finish until `deadline`, then ends the connections
    // still open (a request still arriving, a client that trickles, an idle keep-alive), so that
    // serve() returns promptly. Returns how many it ended.
    size_t drain(std::chrono::steady_clock::time_point deadline);

  private:
    ServerOptions options_;
    std::shared_ptr<const Router> router_;
    std::shared_ptr<BoundedPool> pool_;
    std::unique_ptr<httplib::Server> server_;
    int bound_port_ = 0;
    int listen_socket_ = -1;
    std::atomic<bool> serving_{false};
    std::atomic<bool> stop_requested_{false};
};

}  // namespace hostprobe::http
