#include "core/regular_file.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/sysroot.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using hostprobe::testing::TempTree;

namespace {

std::string regular_file_error(const std::string& path, size_t max = 1024) {
    auto text = core::read_regular_file(path, max);
    REQUIRE_FALSE(text.ok());
    return text.error().message;
}

}  // namespace

TEST_CASE("read_regular_file reads a regular file and a kernel file of size 0 whole") {
    TempTree tree;
    tree.write("plain", "some text\n");
    CHECK(*core::read_regular_file(tree.root() + "/plain", 1024) == "some text\n");
    auto stat = core::read_regular_file("/proc/self/stat", 4096);
    REQUIRE(stat.ok());
    CHECK(stat->find(std::to_string(::getpid()) + " (") == 0);
}

TEST_CASE("read_regular_file refuses what is not a regular file, before reading a byte") {
    TempTree tree;
    tree.mkdir("directory");
    REQUIRE(::mkfifo((tree.root() + "/fifo").c_str(), 0600) == 0);
    std::filesystem::create_symlink(tree.root() + "/nothing", tree.root() + "/dangling");
    std::filesystem::create_symlink("/dev/zero", tree.root() + "/zero");
    CHECK(regular_file_error(tree.root() + "/directory") ==
          tree.root() + "/directory: a directory, not a regular file");
    // Nobody writes the FIFO: a plain open would wait for a writer forever.
    CHECK(regular_file_error(tree.root() + "/fifo") ==
          tree.root() + "/fifo: a FIFO, not a regular file");
    CHECK(regular_file_error("/dev/urandom") ==
          "/dev/urandom: a character device, not a regular file");
    CHECK(regular_file_error(tree.root() + "/zero") ==
          tree.root() + "/zero: a character device, not a regular file");
    CHECK(regular_file_error(tree.root() + "/dangling") ==
          tree.root() + "/dangling: a symbolic link to " + tree.root() +
              "/nothing, which does not exist (dangling)");
    auto missing = core::read_regular_file(tree.root() + "/missing", 1024);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code == ErrorCode::not_found);  // absent, unlike a dangling link
    CHECK(core::read_regular_file(tree.root() + "/dangling", 1024).error().code ==
          ErrorCode::io_error);
}

TEST_CASE("read_regular_file refuses a file over its bound, by its size or as it reads") {
    TempTree tree;
    tree.write("exact", std::string(100, 'x')).write("over", std::string(101, 'x'));
    CHECK(core::read_regular_file(tree.root() + "/exact", 100)->size() == 100);
    CHECK(regular_file_error(tree.root() + "/over", 100) ==
          tree.root() + "/over: 101 bytes, larger than 100 bytes");
    // A kernel file says size 0 and is bounded as it is read. Not one of /proc/self: qemu-user,
    // which runs the arm64 suite, answers those from files of its own that have a size.
    struct stat kernel_file {};
    REQUIRE(::stat("/proc/version", &kernel_file) == 0);
    REQUIRE(kernel_file.st_size == 0);
    auto version = core::read_regular_file("/proc/version", 10);
    REQUIRE_FALSE(version.ok());
    CHECK(version.error().code == ErrorCode::too_large);
    CHECK(version.error().message == "/proc/version: larger than 10 bytes");
}

TEST_CASE("a file removed or truncated between open and read gives what is left, no error") {
    TempTree tree;
    tree.write("vanishing", "still here\n").write("shrinking", std::string(50'000, 'x'));
    auto vanishing = core::open_regular_file(tree.root() + "/vanishing");
    REQUIRE(vanishing.ok());
    std::filesystem::remove(tree.root() + "/vanishing");
    char buffer[64];
    auto n = core::read_some(vanishing->fd.get(), buffer, sizeof buffer, "vanishing");
    REQUIRE(n.ok());
    CHECK(std::string(buffer, *n) == "still here\n");

    auto shrinking = core::open_regular_file(tree.root() + "/shrinking");
    REQUIRE(shrinking.ok());
    CHECK(shrinking->size == 50'000);
    REQUIRE(::truncate((tree.root() + "/shrinking").c_str(), 10) == 0);
    size_t total = 0;
    for (size_t got = 1; got != 0; total += got) {
        auto read = core::read_some(shrinking->fd.get(), buffer, sizeof buffer, "shrinking");
        REQUIRE(read.ok());
        got = *read;
    }
    CHECK(total == 10);
}

TEST_CASE("a sysroot whose files are hostile or removed mid-way answers with errors") {
    TempTree tree;
    tree.mkdir("proc/cpuinfo");
    REQUIRE(::mkfifo((tree.root() + "/proc/stat").c_str(), 0600) == 0);
    std::filesystem::create_directories(tree.root() + "/sys/fs/cgroup");
    std::filesystem::create_symlink("/dev/zero", tree.root() + "/sys/fs/cgroup/cpu.max");
    tree.write("sys/devices/system/cpu/online", "0-1\n");
    const SysRoot root(tree.root());
    CHECK(root.read_file("/proc/cpuinfo").error().message ==
          "/proc/cpuinfo: a directory, not a regular file");
    CHECK(root.read_file("/proc/stat").error().message == "/proc/stat: a FIFO, not a regular file");
    CHECK(root.read_file("/sys/fs/cgroup/cpu.max").error().message ==
          "/sys/fs/cgroup/cpu.max: a character device, not a regular file");
    CHECK(*root.read_line("/sys/devices/system/cpu/online") == "0-1");
    std::filesystem::remove_all(tree.root() + "/sys");
    auto gone = root.read_line("/sys/devices/system/cpu/online");
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error().code == ErrorCode::not_found);
    CHECK(root.list_directory("/sys/devices/system/cpu").empty());
}
