#include "app/orphan_reaper.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hostprobe::app {

std::vector<pid_t> children_from_stat() {
    std::vector<pid_t> children;
    const pid_t self = getpid();
    std::error_code error;
    // increment(error), not ++: a range-for's ++ throws when a read of the directory fails.
    for (auto it = std::filesystem::directory_iterator("/proc", error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        const auto& entry = *it;
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        const auto after_comm = line.rfind(')');
        if (after_comm == std::string::npos) continue;
        std::istringstream fields(line.substr(after_comm + 1));
        char state = 0;
        pid_t parent = 0;
        if (fields >> state >> parent && parent == self)
            children.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return children;
}

std::vector<pid_t> current_children() {
    // Orphans are re-parented to the thread group, but the list is kept per thread.
    std::vector<pid_t> children;
    std::error_code error;
    bool listed = false;
    for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
         !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
        std::ifstream list(it->path() / "children");
        if (!list) continue;
        listed = true;
        pid_t pid = 0;
        while (list >> pid)
            children.push_back(pid);
    }
    return listed ? children : children_from_stat();
}

int reap_orphans(const OwnedChildren& owned) {
    int reaped = 0;
    const auto lock = owned.claim_lock();
    for (pid_t pid : current_children()) {
        if (owned.owns(pid, lock)) continue;
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) ++reaped;
    }
    return reaped;
}

}  // namespace hostprobe::app
