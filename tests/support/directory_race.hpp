// A hostile writer inside an allowed directory, for the race tests: a thread that swaps a
// directory and a symlink as fast as it can, and an inotify watch that sees every name created
// in the directories it watches (a file made and removed again too).
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace hostprobe::testing {

// Names created in the watched directories since the watch began.
class CreationWatch {
  public:
    explicit CreationWatch(const std::vector<std::string>& directories)
        : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
        REQUIRE(fd_ >= 0);
        for (const auto& directory : directories)
            REQUIRE(::inotify_add_watch(fd_, directory.c_str(), IN_CREATE | IN_MOVED_TO) >= 0);
    }
    ~CreationWatch() { ::close(fd_); }
    CreationWatch(const CreationWatch&) = delete;
    CreationWatch& operator=(const CreationWatch&) = delete;

    std::vector<std::string> created() {
        alignas(inotify_event) char buffer[16384];
        for (;;) {
            const ssize_t length = ::read(fd_, buffer, sizeof buffer);
            if (length <= 0) break;
            for (ssize_t at = 0; at < length;) {
                const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
                if (event->len > 0) names_.emplace_back(event->name);
                if (event->mask & IN_Q_OVERFLOW) names_.emplace_back("(inotify queue overflow)");
                at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            }
        }
        return names_;
    }

  private:
    int fd_;
    std::vector<std::string> names_;
};

// Exchanges `a` and `b` (a directory and a symlink) atomically until stopped.
class Swapper {
  public:
    Swapper(std::string a, std::string b)
        : a_(std::move(a)), b_(std::move(b)), thread_([this] { loop(); }) {}
    ~Swapper() { stop(); }
    Swapper(const Swapper&) = delete;
    Swapper& operator=(const Swapper&) = delete;
    void stop() {
        done_ = true;
        if (thread_.joinable()) thread_.join();
    }
    int swaps() const { return swaps_; }

  private:
    void loop() {
        while (!done_) {
            if (::renameat2(AT_FDCWD, a_.c_str(), AT_FDCWD, b_.c_str(), RENAME_EXCHANGE) == 0)
                swaps_.fetch_add(1);
        }
    }
    std::string a_, b_;
    std::atomic<bool> done_{false};
    std::atomic<int> swaps_{0};
    std::thread thread_;
};

inline std::string join_names(const std::vector<std::string>& names) {
    std::string joined;
    for (const auto& name : names)
        joined += (joined.empty() ? "" : ", ") + name;
    return joined;
}

}  // namespace hostprobe::testing
