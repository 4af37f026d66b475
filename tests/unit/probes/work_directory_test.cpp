#include "probes/system/work_directory.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using hostprobe::testing::TempTree;

TEST_CASE("start-up cleanup of private work directories: unlocked ones of ours go, others stay") {
    TempTree tree;
    tree.write(".hostprobe-r1-system-AbC123/.lock", "")  // its agent was killed: unlocked
        .write(".hostprobe-r1-system-AbC123/.hostprobe-r1-copy-0", "data")
        .write(".hostprobe-r1-system-AbC123/shell/sort.out", "nested")
        .write(".hostprobe-r2-system-DeF456/.lock", "")  // a live agent holds this one
        .write(".hostprobe-r2-system-DeF456/.hostprobe-r2-copy-0", "data")
        .write(".hostprobe-r3-system-GhI789/x", "killed before its lock was made")
        .write(".hostprobe-r4-disk", "not a system directory: --disk-dir's cleanup decides")
        .write("someone-elses.txt", "not ours");
    std::filesystem::create_directory_symlink(tree.root() + "/.hostprobe-r2-system-DeF456",
                                              tree.root() + "/.hostprobe-r5-system-link");
    const std::string held_path = tree.root() + "/.hostprobe-r2-system-DeF456/.lock";
    const int held = ::open(held_path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(held >= 0);
    REQUIRE(::flock(held, LOCK_EX | LOCK_NB) == 0);

    std::FILE* sink = std::tmpfile();
    Logger log(sink);
    CHECK(WorkDirectory::remove_stale(tree.root(), log) == 2);
    std::fclose(sink);
    ::close(held);

    CHECK_FALSE(std::filesystem::exists(tree.root() + "/.hostprobe-r1-system-AbC123"));
    CHECK_FALSE(std::filesystem::exists(tree.root() + "/.hostprobe-r3-system-GhI789"));
    CHECK(
        std::filesystem::exists(tree.root() + "/.hostprobe-r2-system-DeF456/.hostprobe-r2-copy-0"));
    CHECK(std::filesystem::is_symlink(tree.root() + "/.hostprobe-r5-system-link"));
    CHECK(std::filesystem::exists(tree.root() + "/.hostprobe-r4-disk"));
    CHECK(std::filesystem::exists(tree.root() + "/someone-elses.txt"));
}

TEST_CASE("a missing temporary directory has nothing stale in it") {
    std::FILE* sink = std::tmpfile();
    Logger log(sink);
    CHECK(WorkDirectory::remove_stale("/nonexistent/hostprobe-test", log) == 0);
    std::fclose(sink);
}
