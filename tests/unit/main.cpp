// The unit tests' main: doctest's, after the system probe's helper modes (copies, execl), which
// it reaches by re-executing /proc/self/exe: this binary, when unit tests run it.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "probes/system/copy_helper.hpp"

int main(int argc, char** argv) {
    if (const auto helper = hostprobe::probes::run_system_helper(argc, argv)) return *helper;
    return doctest::Context(argc, argv).run();
}
