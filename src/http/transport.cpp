#include "http/transport.hpp"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace hostprobe::http {

namespace {

// Rounded up, so that a poll that times out has reached the deadline.
int milliseconds_until(Deadline deadline) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

bool wait_for(int fd, short events, Deadline deadline) {
    for (;;) {
        pollfd entry{fd, events, 0};
        const int ready = ::poll(&entry, 1, milliseconds_until(deadline));
        if (ready > 0) return true;
        if (ready < 0 && errno != EINTR) return false;
        if (ready == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    }
}

bool timed_out(Deadline deadline) {
    return std::chrono::steady_clock::now() >= deadline;
}

}  // namespace

Transport::Transport(int fd) : fd_(fd) {
    const int flags = ::fcntl(fd_.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd_.get(), F_SETFL, flags | O_NONBLOCK);
}

Transport::~Transport() {
    ::shutdown(fd_.get(), SHUT_RDWR);
}

bool Transport::wait_readable(Deadline deadline) const {
    return wait_for(fd_.get(), POLLIN, deadline);
}

bool Transport::wait_writable(Deadline deadline) const {
    return wait_for(fd_.get(), POLLOUT, deadline);
}

PlainTransport::PlainTransport(int fd) : Transport(fd) {}

IoResult PlainTransport::receive(char* data, size_t size, Deadline deadline) {
    for (;;) {
        const ssize_t n = ::recv(fd(), data, size, 0);
        if (n >= 0) return IoResult{n, false};
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return IoResult{};
        if (!wait_readable(deadline)) return IoResult{-1, timed_out(deadline)};
    }
}

IoResult PlainTransport::send(const char* data, size_t size, Deadline deadline) {
    size_t sent = 0;
    while (sent < size) {
        const ssize_t n = ::send(fd(), data + sent, size - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return IoResult{};
        if (!wait_writable(deadline)) return IoResult{-1, timed_out(deadline)};
    }
    return IoResult{static_cast<ssize_t>(sent), false};
}

Result<std::unique_ptr<TlsTransport>> TlsTransport::accept(SSL_CTX* context, int fd,
                                                           Deadline deadline) {
    core::UniqueFd socket(fd);
    SSL* ssl = SSL_new(context);
    if (ssl == nullptr) {
        ::shutdown(socket.get(), SHUT_RDWR);
        return make_error(ErrorCode::internal, "SSL_new failed");
    }
    SSL_set_fd(ssl, socket.get());
    std::unique_ptr<TlsTransport> transport(new TlsTransport(socket.release(), ssl));
    const IoResult handshake = transport->drive([ssl] { return SSL_accept(ssl); }, deadline);
    if (handshake.bytes <= 0) {
        return make_error(ErrorCode::io_error,
                          handshake.timed_out ? "TLS handshake timed out" : "TLS handshake failed");
    }
    return transport;
}

TlsTransport::TlsTransport(int fd, SSL* ssl) : Transport(fd), ssl_(ssl) {}

TlsTransport::~TlsTransport() {
    SSL_shutdown(ssl_);  // one close_notify, not waiting for the peer's
    SSL_free(ssl_);
}

template <typename Call>
IoResult TlsTransport::drive(Call call, Deadline deadline) {
    for (;;) {
        ERR_clear_error();
        const int n = call();
        if (n > 0) return IoResult{n, false};
        switch (SSL_get_error(ssl_, n)) {
            case SSL_ERROR_WANT_READ:
                if (!wait_readable(deadline)) return IoResult{-1, timed_out(deadline)};
                break;
            case SSL_ERROR_WANT_WRITE:
                if (!wait_writable(deadline)) return IoResult{-1, timed_out(deadline)};
                break;
            case SSL_ERROR_ZERO_RETURN: return IoResult{0, false};
            default: return IoResult{};
        }
    }
}

IoResult TlsTransport::receive(char* data, size_t size, Deadline deadline) {
    const int length = static_cast<int>(std::min<size_t>(size, 1 << 30));
    return drive([&] { return SSL_read(ssl_, data, length); }, deadline);
}

IoResult TlsTransport::send(const char* data, size_t size, Deadline deadline) {
    size_t sent = 0;
    while (sent < size) {
        const int length = static_cast<int>(std::min<size_t>(size - sent, 1 << 30));
        const IoResult part = drive([&] { return SSL_write(ssl_, data + sent, length); }, deadline);
        if (part.bytes <= 0) return IoResult{-1, part.timed_out};
        sent += static_cast<size_t>(part.bytes);
    }
    return IoResult{static_cast<ssize_t>(sent), false};
}

bool TlsTransport::has_buffered_input() const {
    return SSL_has_pending(ssl_) == 1;
}

}  // namespace hostprobe::http
