#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "probes/system/execl_helper.hpp"

int main(int argc, char** argv) {
    // First: the system probe's execl test re-executes this binary and times only the exec.
    if (const auto helper = hostprobe::probes::run_execl_helper(argc, argv)) return *helper;
    std::vector<std::string> args(argv + 1, argv + argc);
    return hostprobe::cli::run(args, hostprobe::cli::process_environment());
}
