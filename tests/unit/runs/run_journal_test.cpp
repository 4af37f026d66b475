#include "runs/run_journal.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "support/temp_tree.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using hostprobe::testing::TempTree;

namespace {

Run make_run(const std::string& id, RunState state, int second) {
    Run run;
    run.id = id;
    run.probe = "cipher";
    run.params = {{"seconds", 1}};
    run.trigger = "api";
    run.state = state;
    run.created_at = WallClock::time_point(std::chrono::seconds(1'700'000'000 + second));
    run.started_at = run.created_at + std::chrono::milliseconds(5);
    if (is_finished(state)) run.finished_at = run.created_at + std::chrono::seconds(1);
    if (state == RunState::succeeded) {
        run.result = {{"measurements", {{{"bytes_per_second", 1.5e9}}}}};
        run.text_report = "type 8192 bytes\n";
    }
    return run;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

size_t line_count(const std::string& path) {
    const std::string text = read_file(path);
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Runs "r<100+i>" for i in [first, last], each started and finished, created i s apart.
void record_short_runs(RunJournal& journal, int first, int last) {
    for (int i = first; i <= last; ++i) {
        const Run run = make_run("r" + std::to_string(100 + i), RunState::succeeded, i);
        REQUIRE(journal.record_started(run).ok());
        REQUIRE(journal.record_finished(run).ok());
    }
}

}  // namespace

TEST_CASE("a run record survives the round trip through JSON") {
    const Run run = make_run("a1", RunState::succeeded, 1);
    nlohmann::json record = to_json(run);
    record["text_report"] = run.text_report;
    auto back = run_from_json(record);
    REQUIRE(back.ok());
    CHECK(back->id == "a1");
    CHECK(back->state == RunState::succeeded);
    CHECK(back->result == run.result);
    CHECK(back->text_report == run.text_report);
    CHECK(back->created_at == run.created_at);
    CHECK(back->finished_at == run.finished_at);
    CHECK_FALSE(run_from_json(nlohmann::json::object()).ok());
    CHECK_FALSE(run_from_json({{"id", "x"}, {"probe", "cpu"}, {"state", "odd"}}).ok());
}

TEST_CASE("finished runs come back; a run that never finished comes back failed") {
    TempTree state;
    {
        JournalReplay replay;
        auto journal = RunJournal::open(state.root() + "/state", 100, replay);
        REQUIRE(journal.ok());
        CHECK(replay.finished.empty());
        Run done = make_run("a1", RunState::running, 1);
        REQUIRE((*journal)->record_started(done).ok());
        done = make_run("a1", RunState::succeeded, 1);
        REQUIRE((*journal)->record_finished(done).ok());
        REQUIRE((*journal)->record_started(make_run("a2", RunState::running, 2)).ok());
        // The process "dies" here: a2 never finishes.
    }
    JournalReplay replay;
    auto journal = RunJournal::open(state.root() + "/state", 100, replay);
    REQUIRE(journal.ok());
    REQUIRE(replay.finished.size() == 2);
    CHECK(replay.interrupted == 1);
    CHECK(replay.warnings.empty());
    CHECK(replay.finished[0].id == "a1");
    CHECK(replay.finished[0].state == RunState::succeeded);
    CHECK(replay.finished[0].text_report == "type 8192 bytes\n");
    CHECK(replay.finished[1].id == "a2");
    CHECK(replay.finished[1].state == RunState::failed);
    CHECK(replay.finished[1].error.find("interrupted") != std::string::npos);
    // Compacted at open: one line per finished run, the interruption now written down.
    CHECK(line_count((*journal)->path()) == 2);
}

TEST_CASE("a torn last line is skipped with a warning") {
    TempTree state;
    {
        JournalReplay replay;
        auto journal = RunJournal::open(state.root(), 100, replay);
        REQUIRE(journal.ok());
        REQUIRE((*journal)->record_finished(make_run("a1", RunState::succeeded, 1)).ok());
    }
    {
        std::ofstream append(state.root() + "/runs.jsonl", std::ios::app);
        append << R"({"event": "finished", "run": {"id": "a2", "pro)";
    }
    JournalReplay replay;
    auto journal = RunJournal::open(state.root(), 100, replay);
    REQUIRE(journal.ok());
    REQUIRE(replay.finished.size() == 1);
    CHECK(replay.finished[0].id == "a1");
    REQUIRE(replay.warnings.size() == 1);
    CHECK(replay.warnings[0].find("line 2") != std::string::npos);
    CHECK(read_file((*journal)->path()).find("\"a2\"") == std::string::npos);
}

TEST_CASE("the journal keeps the newest runs only") {
    TempTree state;
    JournalReplay first;
    auto journal = RunJournal::open(state.root(), 3, first);
    REQUIRE(journal.ok());
    record_short_runs(**journal, 0, 39);
    // Compacted while running once the file held far more than it must keep.
    CHECK(line_count((*journal)->path()) <= 4 * 3 + 16 + 2);
    journal->reset();
    JournalReplay replay;
    auto reopened = RunJournal::open(state.root(), 3, replay);
    REQUIRE(reopened.ok());
    REQUIRE(replay.finished.size() == 3);
    CHECK(replay.finished[0].id == "r137");
    CHECK(replay.finished[2].id == "r139");
    CHECK(line_count((*reopened)->path()) == 3);
}

TEST_CASE("a long run survives compaction: after a crash it comes back as interrupted") {
    TempTree state;
    JournalReplay first;
    auto journal = RunJournal::open(state.root(), 3, first);
    REQUIRE(journal.ok());
    REQUIRE((*journal)->record_started(make_run("long", RunState::running, 0)).ok());
    record_short_runs(**journal, 1, 40);  // enough to compact the file more than once
    CHECK(line_count((*journal)->path()) <= 4 * 3 + 16 + 2);
    journal->reset();  // the process dies with "long" still running
    JournalReplay replay;
    auto reopened = RunJournal::open(state.root(), 3, replay);
    REQUIRE(reopened.ok());
    CHECK(replay.interrupted == 1);
    REQUIRE(replay.finished.size() == 3);
    CHECK(replay.finished[1].id == "r140");
    CHECK(replay.finished[2].id == "long");  // the newest news, kept however old
    CHECK(replay.finished[2].state == RunState::failed);
    CHECK(replay.finished[2].error.find("interrupted") == 0);
}

TEST_CASE("a state directory that cannot be made is an error, not a crash") {
    TempTree state;
    state.write("file", "x");
    JournalReplay replay;
    auto journal = RunJournal::open(state.root() + "/file/below", 10, replay);
    CHECK_FALSE(journal.ok());
    CHECK(journal.error().message.find("state directory") != std::string::npos);
}
