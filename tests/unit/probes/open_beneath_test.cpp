// Opening below a directory's descriptor, both ways (openat2 and the per-component walk):
// a symlink at any depth, loops, files in the path, names that are not plain, missing
// components, and directories swapped for symlinks between and during opens.
#include "probes/storage/open_beneath.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::probes;
using hostprobe::testing::TempTree;
namespace fs = std::filesystem;

namespace {

bool kernel_has_openat2() {
    const int root = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    auto opened = open_beneath(root, "/", {}, BeneathIntent::pass_through, BeneathMethod::openat2);
    ::close(root);
    if (opened) ::close(*opened);
    return opened.ok() || opened.error().code != ErrorCode::unavailable;
}

// The methods a test runs with: the walk always, openat2 where the kernel has it.
std::vector<BeneathMethod> methods() {
    std::vector<BeneathMethod> all = {BeneathMethod::walk, BeneathMethod::automatic};
    if (kernel_has_openat2()) {
        all.push_back(BeneathMethod::openat2);
    } else {
        MESSAGE("this kernel has no openat2: only the walk is covered");
    }
    return all;
}

std::string name_of(BeneathMethod method) {
    switch (method) {
        case BeneathMethod::automatic: return "automatic";
        case BeneathMethod::openat2: return "openat2";
        case BeneathMethod::walk: return "walk";
    }
    return "?";
}

struct Root {
    TempTree tree;
    int fd = ::open(tree.root().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ~Root() { ::close(fd); }
    std::string path(const std::string& relative) const { return tree.root() + "/" + relative; }
};

Result<int> open_in(const Root& root, const std::vector<std::string>& components,
                    BeneathMethod method) {
    return open_beneath(root.fd, root.tree.root(), components, BeneathIntent::work_in, method);
}

// The code of a refusal, after checking it names `where`.
ErrorCode refusal(const Result<int>& opened, const std::string& where) {
    if (opened) ::close(*opened);
    REQUIRE_FALSE(opened.ok());
    INFO(opened.error().message);
    CHECK(opened.error().message.find(where) != std::string::npos);
    return opened.error().code;
}

bool same_directory(int fd, const std::string& path) {
    struct stat opened {};
    struct stat named {};
    return ::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 &&
           opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

}  // namespace

TEST_CASE("open below: the directory named, and the root itself for no components") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        root.tree.mkdir("a/b/c");
        auto opened = open_in(root, {"a", "b", "c"}, method);
        REQUIRE(opened.ok());
        CHECK(same_directory(*opened, root.path("a/b/c")));
        // Opened for work: files can be made relative to it.
        const int file = ::openat(*opened, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        CHECK(file >= 0);
        ::close(file);
        ::close(*opened);
        CHECK(fs::exists(root.path("a/b/c/f")));
        auto itself = open_in(root, {}, method);
        REQUIRE(itself.ok());
        CHECK(same_directory(*itself, root.tree.root()));
        ::close(*itself);
    }
}

TEST_CASE("a symlink at any depth is refused (403), wherever it points") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        const std::vector<std::string> components = {"a", "b", "c"};
        for (size_t depth = 0; depth < components.size(); ++depth) {
            INFO("symlink at depth " << depth);
            Root root;
            TempTree outside;
            outside.mkdir("b/c").mkdir("c");
            root.tree.mkdir("a/b/c");
            std::string prefix;
            for (size_t i = 0; i <= depth; ++i)
                prefix += (i ? "/" : "") + components[i];
            fs::remove_all(root.path(prefix));
            // Out of the root, with the rest of the path existing there.
            fs::create_directory_symlink(depth == 2 ? outside.root() + "/c" : outside.root(),
                                         root.path(prefix));
            CHECK(refusal(open_in(root, components, method), root.path(prefix)) ==
                  ErrorCode::forbidden);
            // Within the root, to a directory that could be opened by its own name.
            fs::remove(root.path(prefix));
            root.tree.mkdir("real/b/c");
            fs::create_directory_symlink(root.path("real"), root.path(prefix));
            CHECK(refusal(open_in(root, components, method), root.path(prefix)) ==
                  ErrorCode::forbidden);
            CHECK(fs::is_empty(outside.root() + "/c"));
        }
    }
}

TEST_CASE("symlink loops are refused (403), not reported as errors") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        fs::create_directory_symlink(root.path("self"), root.path("self"));
        fs::create_directory_symlink(root.path("ping"), root.path("pong"));
        fs::create_directory_symlink(root.path("pong"), root.path("ping"));
        fs::create_directory_symlink("loop", root.path("loop"));  // relative, to itself
        CHECK(refusal(open_in(root, {"self"}, method), root.path("self")) == ErrorCode::forbidden);
        CHECK(refusal(open_in(root, {"self", "x"}, method), root.path("self")) ==
              ErrorCode::forbidden);
        CHECK(refusal(open_in(root, {"ping", "x", "y"}, method), root.path("ping")) ==
              ErrorCode::forbidden);
        CHECK(refusal(open_in(root, {"loop"}, method), root.path("loop")) == ErrorCode::forbidden);
    }
}

TEST_CASE("a regular file in the path is not a directory (400)") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        root.tree.write("a/file", "x").mkdir("a/dir");
        CHECK(refusal(open_in(root, {"a", "file"}, method), root.path("a/file")) ==
              ErrorCode::invalid_argument);
        CHECK(refusal(open_in(root, {"a", "file", "below"}, method), root.path("a/file")) ==
              ErrorCode::invalid_argument);
        // A FIFO, too: not a directory, and never opened (which would block).
        REQUIRE(::mkfifo(root.path("a/fifo").c_str(), 0600) == 0);
        CHECK(refusal(open_in(root, {"a", "fifo"}, method), root.path("a/fifo")) ==
              ErrorCode::invalid_argument);
    }
}

TEST_CASE("missing components are not found (404), naming the first one missing") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        root.tree.mkdir("a");
        CHECK(refusal(open_in(root, {"a", "missing", "deeper"}, method), root.path("a/missing")) ==
              ErrorCode::not_found);
        CHECK(refusal(open_in(root, {"missing"}, method), root.path("missing")) ==
              ErrorCode::not_found);
    }
}

TEST_CASE("names that are not plain (\"..\", \".\", empty, with '/', absolute) are refused") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        root.tree.mkdir("a/b");
        for (const std::vector<std::string>& components :
             std::vector<std::vector<std::string>>{{"a", ".."},
                                                   {"..", "etc"},
                                                   {"a", "."},
                                                   {"a", ""},
                                                   {"a/b"},
                                                   {"/etc"},
                                                   {"/"},
                                                   {std::string("a\0b", 3)}}) {
            auto opened = open_in(root, components, method);
            if (opened) ::close(*opened);
            REQUIRE_FALSE(opened.ok());
            CHECK(opened.error().code == ErrorCode::invalid_argument);
        }
    }
}

TEST_CASE(
    "a directory swapped for a symlink between opens: refused, and the first open stays "
    "where it was") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        TempTree outside;
        root.tree.mkdir("sub/deep");
        outside.mkdir("deep");
        auto before = open_in(root, {"sub", "deep"}, method);
        REQUIRE(before.ok());
        fs::rename(root.path("sub"), root.path("sub.moved"));
        fs::create_directory_symlink(outside.root(), root.path("sub"));
        CHECK(refusal(open_in(root, {"sub", "deep"}, method), root.path("sub")) ==
              ErrorCode::forbidden);
        // The descriptor opened before still means the directory it opened.
        const int file = ::openat(*before, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        CHECK(file >= 0);
        ::close(file);
        ::close(*before);
        CHECK(fs::exists(root.path("sub.moved/deep/f")));
        CHECK(fs::is_empty(outside.root() + "/deep"));
    }
}

TEST_CASE("a directory swapped for a symlink while opens run: nothing is ever made outside") {
    for (BeneathMethod method : methods()) {
        INFO(name_of(method));
        Root root;
        TempTree outside;
        root.tree.mkdir("sub/deep");
        outside.mkdir("deep");
        const std::string link = root.path("link");
        fs::create_directory_symlink(outside.root(), link);
        // Swaps sub and the symlink out atomically (RENAME_EXCHANGE), as fast as it can.
        std::atomic<bool> done{false};
        std::atomic<int> swaps{0};
        std::thread swapper([&] {
            const std::string sub = root.path("sub");
            while (!done) {
                if (::renameat2(AT_FDCWD, sub.c_str(), AT_FDCWD, link.c_str(), RENAME_EXCHANGE) ==
                    0)
                    swaps.fetch_add(1);
            }
        });
        int opened_count = 0, refused_count = 0;
        bool escaped = false;
        for (int i = 0; i < 2000 && !escaped; ++i) {
            // The swapped directory in the middle of the path, and in the last place.
            const bool last = i % 2 == 1;
            auto opened = open_in(
                root,
                last ? std::vector<std::string>{"sub"} : std::vector<std::string>{"sub", "deep"},
                method);
            if (!opened) {
                ++refused_count;
                INFO(opened.error().message);
                CHECK(opened.error().code == ErrorCode::forbidden);
                continue;
            }
            ++opened_count;
            const std::string name = "f" + std::to_string(i);
            const int file = ::openat(*opened, name.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
            if (file >= 0) ::close(file);
            escaped =
                !fs::is_empty(outside.root() + "/deep") || fs::exists(outside.root() + "/" + name);
            ::unlinkat(*opened, name.c_str(), 0);
            ::close(*opened);
        }
        done = true;
        swapper.join();
        MESSAGE(name_of(method) << ": " << opened_count << " opened, " << refused_count
                                << " refused, " << swaps.load() << " swaps");
        CHECK(swaps.load() > 0);
        CHECK_FALSE(escaped);
    }
}
