#include "core/sysroot.hpp"

#include <doctest/doctest.h>

#include "support/temp_tree.hpp"

using namespace hostprobe;

TEST_CASE("a sysroot maps machine paths below its prefix") {
    testing::TempTree tree;
    tree.write("proc/cpuinfo", "processor : 0\n")
        .write("sys/a/b", "  42 \nsecond\n")
        .mkdir("sys/dir/x");
    const SysRoot root(tree.root() + "/");
    CHECK_FALSE(root.is_live());
    CHECK(root.resolve("/proc/cpuinfo") == tree.root() + "/proc/cpuinfo");
    CHECK(*root.read_file("/proc/cpuinfo") == "processor : 0\n");
    CHECK(*root.read_line("/sys/a/b") == "42");
    CHECK(root.exists("/sys/a/b"));
    CHECK(root.is_directory("/sys/dir"));
    CHECK(root.list_directory("/sys") == std::vector<std::string>{"a", "dir"});
    CHECK(root.list_directory("/missing").empty());
    auto missing = root.read_file("/proc/missing");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == ErrorCode::not_found);
}

TEST_CASE("a sysroot read with a tighter bound refuses a longer file") {
    testing::TempTree tree;
    tree.write("sys/short", "Not affected\n").write("sys/long", std::string(100, 'x'));
    const SysRoot root(tree.root());
    CHECK(*root.read_file("/sys/short", 16) == "Not affected\n");
    auto long_file = root.read_file("/sys/long", 16);
    REQUIRE_FALSE(long_file.ok());
    CHECK(long_file.error().code == ErrorCode::too_large);
}

TEST_CASE("the live root reads the real machine") {
    const SysRoot root("/");
    CHECK(root.is_live());
    CHECK(root.resolve("/proc/self/stat") == "/proc/self/stat");
    CHECK(root.read_file("/proc/self/stat").ok());  // a kernel file that reports size 0
}
