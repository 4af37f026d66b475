#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "probes/system/copy_helper.hpp"

int main(int argc, char** argv) {
    // First: the system probe runs its copies, and its execl test, in this binary's helper
    // modes; an exec then costs only what starting the binary costs.
    if (const auto helper = hostprobe::probes::run_system_helper(argc, argv)) return *helper;
    std::vector<std::string> args(argv + 1, argv + argc);
    return hostprobe::cli::run(args, hostprobe::cli::process_environment());
}
