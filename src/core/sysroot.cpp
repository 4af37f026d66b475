#include "core/sysroot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/strings.hpp"
#include "core/unique_fd.hpp"

namespace hostprobe {

namespace {

std::string normalize_prefix(std::string prefix) {
    while (prefix.size() > 1 && prefix.back() == '/') {
        prefix.pop_back();
    }
    return prefix.empty() ? std::string("/") : prefix;
}

}  // namespace

SysRoot::SysRoot(std::string prefix)
    : prefix_(normalize_prefix(std::move(prefix))), live_(prefix_ == "/") {}

std::string SysRoot::resolve(std::string_view machine_path) const {
    std::string path(machine_path);
    if (path.empty() || path.front() != '/') {
        path.insert(path.begin(), '/');
    }
    return live_ ? path : prefix_ + path;
}

Result<std::string> SysRoot::read_file(std::string_view machine_path) const {
    const std::string path = resolve(machine_path);
    const core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        const int saved = errno;
        return make_error(saved == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                          std::string(machine_path) + ": " + std::strerror(saved));
    }
    std::string content;
    char buffer[16384];
    while (true) {
        ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return make_error(ErrorCode::io_error,
                              std::string(machine_path) + ": " + std::strerror(errno));
        }
        if (n == 0) {
            return content;
        }
        if (content.size() + static_cast<size_t>(n) > kMaxFileBytes) {
            return make_error(ErrorCode::io_error, std::string(machine_path) + ": larger than " +
                                                       std::to_string(kMaxFileBytes) + " bytes");
        }
        content.append(buffer, static_cast<size_t>(n));
    }
}

Result<std::string> SysRoot::read_line(std::string_view machine_path) const {
    auto content = read_file(machine_path);
    if (!content) {
        return content.error();
    }
    std::string_view text = *content;
    size_t end = text.find('\n');
    return std::string(trim(text.substr(0, end)));
}

bool SysRoot::exists(std::string_view machine_path) const {
    struct stat st {};
    return ::stat(resolve(machine_path).c_str(), &st) == 0;
}

bool SysRoot::is_directory(std::string_view machine_path) const {
    struct stat st {};
    return ::stat(resolve(machine_path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> SysRoot::list_directory(std::string_view machine_path) const {
    std::vector<std::string> names;
    DIR* dir = ::opendir(resolve(machine_path).c_str());
    if (dir == nullptr) {
        return names;
    }
    while (dirent* entry = ::readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..") {
            names.push_back(std::move(name));
        }
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace hostprobe
