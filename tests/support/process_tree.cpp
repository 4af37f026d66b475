#include "support/process_tree.hpp"

#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

namespace hostprobe::testing {

std::vector<pid_t> children_of(pid_t pid, bool all) {
    std::vector<pid_t> children;
    std::error_code error;
    for (const auto& task :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
        std::ifstream list(task.path() / "children");
        pid_t child = 0;
        while (list >> child) {
            children.push_back(child);
            if (!all) continue;
            for (pid_t below : children_of(child, true))
                children.push_back(below);
        }
    }
    return children;
}

bool process_gone(pid_t pid) {
    return ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace hostprobe::testing
