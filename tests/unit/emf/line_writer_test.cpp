// The EMF line writer: whole lines or none, and never a wait for the caller, whatever the
// reader does (reads, goes away, stops reading).
#include "emf/line_writer.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include "support/eventually.hpp"

using namespace hostprobe;
using hostprobe::testing::eventually;

namespace {

struct EmfTestPipe {
    EmfTestPipe() {
        int ends[2];
        REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
        read_end = core::UniqueFd(ends[0]);
        write_end = core::UniqueFd(ends[1]);
    }
    // What the pipe holds now, without waiting.
    std::string drain() const {
        (void)::fcntl(read_end.get(), F_SETFL, O_NONBLOCK);
        std::string text;
        char buffer[65536];
        ssize_t n;
        while ((n = ::read(read_end.get(), buffer, sizeof buffer)) > 0)
            text.append(buffer, static_cast<size_t>(n));
        return text;
    }
    core::UniqueFd read_end;
    core::UniqueFd write_end;
};

}  // namespace

TEST_CASE("EMF lines reach a pipe whole, each with its newline, in order") {
    EmfTestPipe pipe;
    auto target = emf::open_output_target(pipe.write_end.get());
    CHECK(target.kind == emf::TargetKind::pipe);
    emf::LineWriter writer(std::move(target));
    writer.write_line("{\"a\":1}");
    writer.write_line("{\"b\":2}");
    REQUIRE(writer.flush_for(std::chrono::seconds(20)));
    CHECK(pipe.drain() == "{\"a\":1}\n{\"b\":2}\n");
    CHECK(writer.lines_written() == 2);
    CHECK(writer.lines_dropped() == 0);
}

TEST_CASE("EMF lines to a pipe whose reader is gone are dropped and counted, not a SIGPIPE") {
    EmfTestPipe pipe;
    emf::LineWriter writer(emf::open_output_target(pipe.write_end.get()));
    pipe.read_end.reset();
    writer.write_line("{}");
    writer.write_line("{}");
    REQUIRE(writer.flush_for(std::chrono::seconds(20)));
    CHECK(writer.lines_dropped() == 2);
    CHECK(writer.lines_written() == 0);
}

TEST_CASE("a pipe nobody reads: lines that do not fit whole are dropped, none is cut") {
    EmfTestPipe pipe;
    emf::LineWriter writer(emf::open_output_target(pipe.write_end.get()),
                           {.max_queued_lines = 8, .line_timeout = std::chrono::milliseconds(20)});
    const std::string line(3000, 'x');
    for (int i = 0; i < 100; ++i)
        writer.write_line(line);  // never waits: queued or dropped at once
    REQUIRE(eventually([&] { return writer.lines_written() + writer.lines_dropped() == 100; }));
    CHECK(writer.lines_dropped() > 0);
    CHECK(writer.lines_written() > 0);
    const std::string held = pipe.drain();
    CHECK(held.size() == writer.lines_written() * (line.size() + 1));
    CHECK(held.back() == '\n');
}

TEST_CASE("a closed stdout drops every line; a later file on its number never gets one") {
    EmfTestPipe pipe;
    const int number = pipe.write_end.release();
    ::close(number);
    auto target = emf::open_output_target(number);
    CHECK(target.kind == emf::TargetKind::closed);
    emf::LineWriter writer(std::move(target));
    writer.write_line("{}");
    CHECK(writer.lines_dropped() == 1);
    CHECK(writer.flush_for(std::chrono::seconds(1)));
}
