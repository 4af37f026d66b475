#include "core/unique_fd.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>

using hostprobe::core::UniqueFd;

namespace {

bool is_open(int fd) {
    return ::fcntl(fd, F_GETFD) != -1;
}

}  // namespace

TEST_CASE("UniqueFd closes once when it goes, moves hand the descriptor on") {
    int raw = -1;
    {
        UniqueFd owner(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        raw = owner.get();
        REQUIRE(owner.valid());
        UniqueFd moved(std::move(owner));
        CHECK_FALSE(owner.valid());  // NOLINT(bugprone-use-after-move): the point of the test
        CHECK(moved.get() == raw);
        CHECK(is_open(raw));
    }
    CHECK_FALSE(is_open(raw));
}

TEST_CASE("UniqueFd: release gives the descriptor away, reset closes and keeps errno") {
    UniqueFd owner(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const int raw = owner.release();
    CHECK_FALSE(owner.valid());
    CHECK(is_open(raw));
    owner.reset(raw);
    errno = ENOSPC;
    owner.reset();
    CHECK(errno == ENOSPC);
    CHECK_FALSE(is_open(raw));
}
