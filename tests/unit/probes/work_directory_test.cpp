// The system probe's work directory: made, used and removed through descriptors only, so a
// writer who swaps its parent for a symlink to somewhere else moves nothing there; and the
// start-up cleanup of the private ones that kill -9 leaves.
#include "probes/system/work_directory.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>

#include "app/orphan_reaper.hpp"
#include "probes/system/system_measurement.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using hostprobe::testing::TempTree;
namespace fs = std::filesystem;

namespace {

DirectoryHandle open_directory(const std::string& path) {
    auto opened = DirectoryHandle::open(path);
    REQUIRE(opened.ok());
    return std::move(*opened);
}

// Names created in a directory since the watch began (so a file made and removed is seen).
class CreationWatch {
  public:
    explicit CreationWatch(const std::string& directory)
        : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
        REQUIRE(fd_ >= 0);
        REQUIRE(::inotify_add_watch(fd_, directory.c_str(), IN_CREATE | IN_MOVED_TO) >= 0);
    }
    ~CreationWatch() { ::close(fd_); }
    CreationWatch(const CreationWatch&) = delete;
    CreationWatch& operator=(const CreationWatch&) = delete;
    size_t created() const {
        alignas(inotify_event) char buffer[4096];
        size_t count = 0;
        for (ssize_t length; (length = ::read(fd_, buffer, sizeof buffer)) > 0;) {
            for (ssize_t at = 0; at < length; ++count) {
                at += static_cast<ssize_t>(sizeof(inotify_event) +
                                           reinterpret_cast<inotify_event*>(buffer + at)->len);
            }
        }
        return count;
    }

  private:
    int fd_;
};

// tree/sub, where the run made its work directory, becomes tree/moved, and tree/sub a symlink
// to `outside`, which has a directory of the work directory's name: a path through tree/sub
// now leads there.
void swap_parent_for_symlink(const TempTree& tree, const TempTree& outside,
                             const std::string& work_name) {
    fs::rename(tree.root() + "/sub", tree.root() + "/moved");
    fs::create_directory_symlink(outside.root(), tree.root() + "/sub");
    fs::create_directory(outside.root() + "/" + work_name);
}

}  // namespace

TEST_CASE("the work directory is made, used and removed relative to descriptors") {
    TempTree tree, outside;
    tree.mkdir("sub");
    const std::string name = ".hostprobe-r1-system";
    {
        auto work = WorkDirectory::create(open_directory(tree.root() + "/sub"), "r1",
                                          WorkDirectory::Kind::in_allowed_directory);
        REQUIRE(work.ok());
        CHECK(work->path() == tree.root() + "/sub/" + name);
        struct stat made {};
        REQUIRE(::stat(work->path().c_str(), &made) == 0);
        CHECK((made.st_mode & 0777) == 0700);
        CHECK(fs::exists(work->path() + "/.lock"));

        swap_parent_for_symlink(tree, outside, name);
        const int file = ::openat(work->fd(), "made-after", O_WRONLY | O_CREAT | O_EXCL, 0600);
        REQUIRE(file >= 0);
        ::close(file);
        CHECK(fs::exists(tree.root() + "/moved/" + name + "/made-after"));
        CHECK(testing::entry_count(outside.root() + "/" + name) == 0);
    }
    // Removed where it is, not where its old path leads now.
    CHECK(testing::entry_count(tree.root() + "/moved") == 0);
    CHECK(fs::is_directory(outside.root() + "/" + name));
}

TEST_CASE("a parent swapped for a symlink after the work directory was made redirects no helper") {
    TempTree tree, outside;
    tree.mkdir("sub");
    const std::string name = ".hostprobe-r2-system";
    auto work = WorkDirectory::create(open_directory(tree.root() + "/sub"), "r2",
                                      WorkDirectory::Kind::in_allowed_directory);
    REQUIRE(work.ok());
    swap_parent_for_symlink(tree, outside, name);
    CreationWatch watch(outside.root() + "/" + name);

    std::vector<std::string> tests = {"file_copy_256"};
    if (::access("/bin/sh", X_OK) == 0) tests.push_back("shell_1");
    std::stop_source stop;
    for (const auto& test : tests) {
        CAPTURE(test);
        SystemMeasurementSpec spec{find_system_test(test), 2, 0.2, {}};
        spec.environment.stop = stop.get_token();
        spec.environment.directory_fd = work->fd();
        spec.environment.directory = work->path();
        spec.environment.file_prefix = ".hostprobe-r2";
        spec.environment.shell = "/bin/sh";
        spec.environment.self_exe = "/proc/self/exe";  // the unit tests' main has the helper mode
        spec.environment.process_loops = HOSTPROBE_PROCESS_LOOPS;
        bool seen_inside = false;  // the copies' files, while they run
        auto measured = measure_system_test(spec, [&](double) {
            seen_inside = seen_inside || testing::entry_count(tree.root() + "/moved/" + name) > 1;
        });
        REQUIRE(measured.ok());
        CHECK(measured->value > 0);
        CHECK(seen_inside);
        CHECK(watch.created() == 0);
        CHECK(testing::entry_count(tree.root() + "/moved/" + name) ==
              1);  // .lock: the copies cleaned up
    }
    CHECK(app::current_children().empty());
}

TEST_CASE("an existing directory of the work directory's name is never taken over") {
    TempTree tree;
    tree.write(".hostprobe-r3-system/someone-elses", "kept");
    {
        auto work = WorkDirectory::create(open_directory(tree.root()), "r3",
                                          WorkDirectory::Kind::in_allowed_directory);
        REQUIRE_FALSE(work.ok());
        CHECK(work.error().message ==
              "cannot create " + tree.root() + "/.hostprobe-r3-system: File exists");
    }
    CHECK(fs::exists(tree.root() + "/.hostprobe-r3-system/someone-elses"));
}

TEST_CASE("a directory put in place of the one just made is not taken for it") {
    TempTree tree;
    tree.mkdir("made").mkdir("theirs");
    const auto check_in = [&](const std::string& directory) {
        const int fd = ::open((tree.root() + "/" + directory).c_str(), O_RDONLY | O_DIRECTORY);
        REQUIRE(fd >= 0);
        const int file = ::openat(fd, ".lock", O_RDWR | O_CREAT | O_EXCL, 0600);
        REQUIRE(file >= 0);
        Status verdict = check_made_here(fd, file, tree.root() + "/" + directory);
        ::close(file);
        ::close(fd);
        return verdict;
    };
    CHECK(check_in("made").ok());
    // Someone else's: only root can make one for the test.
    if (::geteuid() != 0 || ::chown((tree.root() + "/theirs").c_str(), 65534, 65534) != 0) return;
    auto theirs = check_in("theirs");
    REQUIRE_FALSE(theirs.ok());
    CHECK(theirs.error().code == ErrorCode::forbidden);
    CHECK(theirs.error().message.find("was replaced by someone else's directory (owner 65534)") !=
          std::string::npos);
}

TEST_CASE("a private work directory: a fresh name each time, locked while it lives, then gone") {
    TempTree tree;
    std::FILE* sink = std::tmpfile();
    Logger log(sink);
    std::string first_path;
    {
        auto first = WorkDirectory::create(open_directory(tree.root()), "r4",
                                           WorkDirectory::Kind::private_directory);
        auto second = WorkDirectory::create(open_directory(tree.root()), "r4",
                                            WorkDirectory::Kind::private_directory);
        REQUIRE(first.ok());
        REQUIRE(second.ok());
        first_path = first->path();
        CHECK(first_path.rfind(tree.root() + "/.hostprobe-r4-system-", 0) == 0);
        CHECK(first_path.size() == (tree.root() + "/.hostprobe-r4-system-").size() + 6);
        CHECK(first->path() != second->path());
        CHECK(WorkDirectory::remove_stale(tree.root(), log) == 0);  // both are held
        CHECK(fs::is_directory(first_path));
    }
    std::fclose(sink);
    CHECK(testing::entry_count(tree.root()) == 0);
}

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

TEST_CASE("a missing temporary directory has nothing stale in it, and no private directory") {
    std::FILE* sink = std::tmpfile();
    Logger log(sink);
    CHECK(WorkDirectory::remove_stale("/nonexistent/hostprobe-test", log) == 0);
    std::fclose(sink);
    const char* before = std::getenv("TMPDIR");
    const std::string saved = before ? before : "";
    ::setenv("TMPDIR", "/nonexistent/hostprobe-test", 1);
    auto parent = WorkDirectory::open_private_parent();
    if (before) {
        ::setenv("TMPDIR", saved.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
    REQUIRE_FALSE(parent.ok());
    CHECK(parent.error().message ==
          "cannot create a private directory in /nonexistent/hostprobe-test: "
          "/nonexistent/hostprobe-test: No such file or directory; give the system probe a "
          "directory inside --disk-dir");
}
