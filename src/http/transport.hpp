// One accepted connection's bytes, plain or TLS, with every wait bounded by a deadline: the
// layer below ConnectionStream. The socket is non-blocking; waits are poll(2).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "core/unique_fd.hpp"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace hostprobe::http {

using Deadline = std::chrono::steady_clock::time_point;

struct IoResult {
    ssize_t bytes = -1;  // > 0 moved; 0: the peer ended its side (reads only); -1: failed
    bool timed_out = false;
};

class Transport {
  public:
    explicit Transport(int fd);  // takes the socket over
    virtual ~Transport();        // shuts the socket down (fd_ then closes it)
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;

    virtual IoResult receive(char* data, size_t size, Deadline deadline) = 0;
    virtual IoResult send(const char* data, size_t size, Deadline deadline) = 0;
    // Bytes already received below us (TLS records decrypted or not yet read by the caller).
    virtual bool has_buffered_input() const { return false; }
    int fd() const { return fd_.get(); }
    // Waits until the socket has input (or the peer closed it) or the deadline passes.
    bool wait_readable(Deadline deadline) const;
    bool wait_writable(Deadline deadline) const;

  private:
    core::UniqueFd fd_;
};

class PlainTransport final : public Transport {
  public:
    explicit PlainTransport(int fd);  // takes the socket over
    IoResult receive(char* data, size_t size, Deadline deadline) override;
    IoResult send(const char* data, size_t size, Deadline deadline) override;
};

class TlsTransport final : public Transport {
  public:
    // Takes the socket over and performs the server side of the handshake before the deadline.
    static Result<std::unique_ptr<TlsTransport>> accept(SSL_CTX* context, int fd,
                                                        Deadline deadline);
    ~TlsTransport() override;
    IoResult receive(char* data, size_t size, Deadline deadline) override;
    IoResult send(const char* data, size_t size, Deadline deadline) override;
    bool has_buffered_input() const override;

  private:
    TlsTransport(int fd, SSL* ssl);
    // Runs one SSL_* call until it completes, waiting as OpenSSL asks, until the deadline.
    template <typename Call>
    IoResult drive(Call call, Deadline deadline);

    SSL* ssl_;
};

}  // namespace hostprobe::http
