#include "http/connection_closer.hpp"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>
#include <optional>

namespace hostprobe::http {

namespace {

std::optional<int> fd_number(const char* name) {
    int fd = -1;
    const char* end = name + std::strlen(name);
    auto [rest, error] = std::from_chars(name, end, fd);
    if (error != std::errc{} || rest != end) return std::nullopt;
    return fd;
}

int local_port(int fd) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return -1;
    if (address.ss_family == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
    if (address.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
    return -1;
}

bool is_listening(int fd) {
    int listening = 0;
    socklen_t length = sizeof listening;
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening != 0;
}

}  // namespace

size_t shut_down_connections_on_port(int port) {
    DIR* descriptors = opendir("/proc/self/fd");
    if (descriptors == nullptr) return 0;
    size_t count = 0;
    while (const dirent* entry = readdir(descriptors)) {
        const auto fd = fd_number(entry->d_name);
        if (!fd || *fd == dirfd(descriptors)) continue;
        if (local_port(*fd) != port || is_listening(*fd)) continue;
        if (shutdown(*fd, SHUT_RDWR) == 0) ++count;
    }
    closedir(descriptors);
    return count;
}

}  // namespace hostprobe::http
