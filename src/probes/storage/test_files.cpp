#include "probes/storage/test_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hostprobe::probes {

namespace {

std::string errno_text(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

// A directory stream over `fd`, which then belongs to it (closedir closes it); null if not.
DIR* open_stream(core::UniqueFd fd) {
    if (!fd) return nullptr;
    DIR* dir = ::fdopendir(fd.get());
    if (dir != nullptr) fd.release();
    return dir;
}

void remove_directory_at(int parent, const std::string& name, int depth) {
    if (DIR* dir = open_stream(core::UniqueFd(
            ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)))) {
        std::vector<std::string> entries;
        while (dirent* entry = ::readdir(dir)) {
            const std::string entry_name = entry->d_name;
            if (entry_name != "." && entry_name != "..") entries.push_back(entry_name);
        }
        for (const auto& entry : entries) {
            if (::unlinkat(::dirfd(dir), entry.c_str(), 0) != 0 && errno == EISDIR && depth < 4)
                remove_directory_at(::dirfd(dir), entry, depth + 1);
        }
        ::closedir(dir);
    }
    ::unlinkat(parent, name.c_str(), AT_REMOVEDIR);
}

uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

}  // namespace

void remove_directory_tree(int parent, const std::string& name) {
    remove_directory_at(parent, name, 0);
}

std::string test_file_name(const std::string& run_id, const std::string& suffix) {
    return std::string(kTestFilePrefix) + run_id + "-" + suffix;
}

TestFiles::~TestFiles() {
    remove_all();
}

Result<core::UniqueFd> TestFiles::create_file(const std::string& name, bool direct) {
    const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | (direct ? O_DIRECT : 0);
    core::UniqueFd fd(::openat(directory_.fd(), name.c_str(), flags, 0600));
    if (!fd) {
        if (direct && errno == EINVAL) {
            return make_error(ErrorCode::invalid_argument,
                              "the filesystem at " + directory_.path() +
                                  " refuses O_DIRECT (tmpfs does); set \"direct\": false to "
                                  "measure through the page cache");
        }
        return make_error(ErrorCode::io_error,
                          errno_text("create " + directory_.path() + "/" + name));
    }
    files_.push_back(name);
    return fd;
}

Result<core::UniqueFd> TestFiles::create_directory(const std::string& name) {
    if (::mkdirat(directory_.fd(), name.c_str(), 0700) != 0) {
        return make_error(ErrorCode::io_error,
                          errno_text("create " + directory_.path() + "/" + name));
    }
    directories_.push_back(name);
    core::UniqueFd fd(
        ::openat(directory_.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd)
        return make_error(ErrorCode::io_error,
                          errno_text("open " + directory_.path() + "/" + name));
    return fd;
}

void TestFiles::remove_all() {
    for (const auto& name : files_)
        ::unlinkat(directory_.fd(), name.c_str(), 0);
    for (const auto& name : directories_)
        remove_directory_tree(directory_.fd(), name);
    files_.clear();
    directories_.clear();
}

std::vector<TestFileEntry> list_test_files(const DirectoryHandle& directory) {
    std::vector<TestFileEntry> found;
    // A duplicate: closedir closes it, not the handle's.
    DIR* dir = open_stream(core::UniqueFd(::dup(directory.fd())));
    if (dir == nullptr) return found;
    while (const dirent* entry = ::readdir(dir)) {
        TestFileEntry file{entry->d_name, {}};
        if (file.name.rfind(kTestFilePrefix, 0) != 0) continue;
        if (::fstatat(directory.fd(), file.name.c_str(), &file.info, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        found.push_back(std::move(file));
    }
    ::closedir(dir);
    return found;
}

size_t remove_stale_test_files(const std::string& directory, Logger& log) {
    auto handle = DirectoryHandle::open(directory);
    if (!handle) {
        log.warn("cannot look for stale test files",
                 {{"directory", directory}, {"reason", handle.error().message}});
        return 0;
    }
    const std::vector<TestFileEntry> stale = list_test_files(*handle);
    for (const auto& [name, info] : stale) {
        if (S_ISDIR(info.st_mode)) {
            remove_directory_tree(handle->fd(), name);
        } else {
            ::unlinkat(handle->fd(), name.c_str(), 0);
        }
        log.warn("removed a stale test file", {{"directory", directory}, {"name", name}});
    }
    return stale.size();
}

RandomFill::RandomFill(uint64_t seed) {
    // splitmix64 to spread the seed over xoshiro256**'s state.
    for (auto& word : state_) {
        seed += 0x9e3779b97f4a7c15ULL;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        word = z ^ (z >> 31);
    }
}

uint64_t RandomFill::next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
}

void RandomFill::fill(unsigned char* buffer, size_t size) {
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        const uint64_t word = next();
        std::memcpy(buffer + i, &word, 8);
    }
    if (i < size) {
        const uint64_t word = next();
        std::memcpy(buffer + i, &word, size - i);
    }
}

}  // namespace hostprobe::probes
