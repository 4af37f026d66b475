#include "core/sysroot.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "core/regular_file.hpp"
#include "core/strings.hpp"

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

// Only a regular file: a directory, FIFO, device or dangling link in a dump is an Error naming
// it (core/regular_file.hpp), which host facts turn into a warning.
Result<std::string> SysRoot::read_file(std::string_view machine_path) const {
    return read_file(machine_path, kMaxFileBytes);
}

Result<std::string> SysRoot::read_file(std::string_view machine_path, size_t max_bytes) const {
    return core::read_regular_file(resolve(machine_path), max_bytes, machine_path);
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
