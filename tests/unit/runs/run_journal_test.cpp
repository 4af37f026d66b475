#include "runs/run_journal.hpp"

#include <doctest/doctest.h>
#include <malloc.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/skip.hpp"
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
    record["text_report"] = run.text_report.text();
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

namespace {

// The journal line of a finished run, as record_finished writes it.
std::string finished_line(const Run& run) {
    nlohmann::json record = to_json(run);
    record["text_report"] = run.text_report.text();
    return nlohmann::json{{"event", "finished"}, {"run", record}}.dump() + "\n";
}

// `good` runs a1 and a2 around the `bad` lines; replays and returns what came back.
JournalReplay replay_between_good_lines(const std::vector<std::string>& bad) {
    TempTree state;
    std::string text = finished_line(make_run("a1", RunState::succeeded, 1));
    for (const auto& line : bad)
        text += line + "\n";
    text += finished_line(make_run("a2", RunState::succeeded, 2));
    state.write("runs.jsonl", text);
    JournalReplay replay;
    auto journal = RunJournal::open(state.root(), 100, replay);
    REQUIRE(journal.ok());
    REQUIRE(replay.finished.size() == 2);
    CHECK(replay.finished[0].id == "a1");
    CHECK(replay.finished[1].id == "a2");
    CHECK(read_file((*journal)->path()).find("bad") == std::string::npos);
    return replay;
}

std::string bad_finished_line(const std::string& run_fields) {
    return R"({"event": "finished", "run": {"id": "bad", "probe": "cipher", "state": "succeeded",)"
           R"( "created_at": "2026-01-01T00:00:00Z")" +
           run_fields + "}}";
}

}  // namespace

TEST_CASE("deep lines are skipped with a warning naming the line; the others come back") {
    // 100,000 nested arrays crashed the start (stack overflow copying the result); 15,000
    // (30 KB) printed as a 450 MB GET /v1/runs.
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    const std::string medium = std::string(15'000, '[') + std::string(15'000, ']');
    const JournalReplay replay =
        replay_between_good_lines({bad_finished_line(", \"result\": " + deep),
                                   bad_finished_line(", \"params\": {\"x\": " + medium + "}"),
                                   "{\"event\": \"finished\", \"run\": " + deep + "}"});
    REQUIRE(replay.warnings.size() == 3);
    CHECK(replay.warnings[0].rfind("line 2 of the run journal is torn or malformed; skipped: JSON "
                                   "nested deeper than 32 levels at byte ",
                                   0) == 0);
    CHECK(replay.warnings[1].rfind("line 3 ", 0) == 0);
    CHECK(replay.warnings[2].rfind("line 4 ", 0) == 0);
}

TEST_CASE("values of the wrong type or out of range are skipped, never thrown") {
    const JournalReplay replay = replay_between_good_lines({
        bad_finished_line(R"(, "result": {"x": 1e400})"),
        R"({"event": "finished", "run": {"id": 5, "probe": "cipher", "state": "succeeded"}})",
        bad_finished_line(R"(, "params": [1, 2])"),
        bad_finished_line(R"(, "error": {"text": "x"})"),
        bad_finished_line(R"(, "text_report": 7)"),
        bad_finished_line(R"(, "trigger": ")" + std::string(100, 't') + "\""),
        R"({"event": "finished", "run": {"id": "bad", "probe": "cipher", "state": "succeeded",)"
        R"( "created_at": "9999-12-31T23:59:59Z"}})",
        R"({"event": 1, "run": {}})",
        R"({"event": "finished", "run": "bad"})",
        R"(["bad"])",
    });
    CHECK(replay.warnings.size() == 10);
    for (const auto& warning : replay.warnings)
        CHECK(warning.find("torn or malformed; skipped") != std::string::npos);
    CHECK(replay.warnings[0].find("number out of range") != std::string::npos);
    CHECK(replay.warnings[1].find("id is not a string") != std::string::npos);
    CHECK(replay.warnings[6].find("created_at is out of range") != std::string::npos);
}

TEST_CASE("a restored run is bounded: line length, printed result and params") {
    // 20 levels deep, 90,000 numbers: 180 KB on the line, about 4 MB pretty-printed.
    std::string zeros = std::string(20, '[');
    for (int i = 0; i < 90'000; ++i)
        zeros += i == 0 ? "0" : ",0";
    zeros += std::string(20, ']');
    std::string params = R"({"names": [)";
    for (int i = 0; i < 1000; ++i)
        params += i == 0 ? "\"name\"" : ", \"name\"";
    params += "]}";
    const JournalReplay replay = replay_between_good_lines({
        bad_finished_line(", \"result\": " + zeros),
        bad_finished_line(", \"params\": " + params),
        bad_finished_line(", \"text_report\": \"" + std::string(2 << 20, 'x') + "\""),
    });
    REQUIRE(replay.warnings.size() == 3);
    CHECK(replay.warnings[0].find("the result prints in more than 1048576 bytes") !=
          std::string::npos);
    CHECK(replay.warnings[1].find("params are longer than 4096 bytes") != std::string::npos);
    CHECK(replay.warnings[2] == "line 4 of the run journal is longer than 1048576 bytes; skipped");
}

TEST_CASE("a file of many bad lines gives a bounded number of warnings") {
    const JournalReplay replay =
        replay_between_good_lines(std::vector<std::string>(1000, "{\"bad\": "));
    REQUIRE(replay.warnings.size() == kMaxReplayWarnings + 1);
    CHECK(replay.warnings.back() == "980 more lines of the run journal were skipped");
}

TEST_CASE("a record too long to read back is not written") {
    TempTree state;
    JournalReplay replay;
    auto journal = RunJournal::open(state.root(), 100, replay);
    REQUIRE(journal.ok());
    Run huge = make_run("huge", RunState::succeeded, 1);
    huge.text_report = std::string(kMaxJournalLineBytes, 'x');
    const Status written = (*journal)->record_finished(huge);
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().message.find("more than a journal line may hold") != std::string::npos);
    REQUIRE((*journal)->record_finished(make_run("small", RunState::succeeded, 2)).ok());
    CHECK(read_file((*journal)->path()).find("huge") == std::string::npos);
}

TEST_CASE("a runs.jsonl that is no regular file stops the open and is left as it is") {
    TempTree state;
    state.mkdir("runs.jsonl");
    JournalReplay replay;
    auto journal = RunJournal::open(state.root(), 10, replay);
    REQUIRE_FALSE(journal.ok());
    CHECK(journal.error().message == state.root() + "/runs.jsonl: a directory, not a regular file");
    CHECK(std::filesystem::is_directory(state.root() + "/runs.jsonl"));
}

TEST_CASE("whatever lies at runs.jsonl.tmp is replaced, never written through") {
    TempTree state;
    TempTree elsewhere;
    elsewhere.write("target", "not the journal's\n");
    // A FIFO nobody reads blocked the compaction's open; a link sent the journal elsewhere.
    REQUIRE(::mkfifo((state.root() + "/runs.jsonl.tmp").c_str(), 0600) == 0);
    {
        JournalReplay replay;
        auto journal = RunJournal::open(state.root(), 10, replay);
        REQUIRE(journal.ok());
        REQUIRE((*journal)->record_finished(make_run("a", RunState::succeeded, 1)).ok());
    }
    std::filesystem::create_symlink(elsewhere.root() + "/target", state.root() + "/runs.jsonl.tmp");
    JournalReplay replay;
    auto journal = RunJournal::open(state.root(), 10, replay);
    REQUIRE(journal.ok());
    REQUIRE(replay.finished.size() == 1);
    CHECK(replay.finished[0].id == "a");
    CHECK(read_file(elsewhere.root() + "/target") == "not the journal's\n");
    CHECK(std::filesystem::is_regular_file(
        std::filesystem::symlink_status(state.root() + "/runs.jsonl")));
}

TEST_CASE("the lines kept for compaction are deflated: 100 runs of 10 KB cost a fraction of that") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    SKIP_TEST("a sanitizer's allocator does not count in-use bytes as glibc's mallinfo2 does");
#endif
    TempTree state;
    JournalReplay replay;
    auto journal = RunJournal::open(state.root(), 100, replay);
    REQUIRE(journal.ok());
    // A result printed as about 10 KB, compressible as a real one is (repeated keys).
    nlohmann::json measurements = nlohmann::json::array();
    for (int i = 0; i < 100; ++i)
        measurements.push_back({{"block_bytes", 16 << (i % 10)}, {"bytes_per_second", 1.5e9 + i}});
    size_t line_bytes = 0;
    const size_t in_use_before = mallinfo2().uordblks;
    for (int i = 0; i < 100; ++i) {
        Run run = make_run("r" + std::to_string(100 + i), RunState::succeeded, i);
        run.result = {{"measurements", measurements}};
        line_bytes += run.result.pretty_size();
        REQUIRE((*journal)->record_finished(run).ok());
    }
    const size_t in_use_after = mallinfo2().uordblks;
    const size_t kept = in_use_after > in_use_before ? in_use_after - in_use_before : 0;
    INFO("results printed " << line_bytes << " bytes; the journal keeps " << kept << " in use");
    CHECK(line_bytes > 700'000);
    CHECK(kept < line_bytes / 3);
    // And they come back whole.
    journal->reset();
    JournalReplay again;
    auto reopened = RunJournal::open(state.root(), 100, again);
    REQUIRE(reopened.ok());
    REQUIRE(again.finished.size() == 100);
    CHECK(again.finished.back().result.pretty_size() == line_bytes / 100);
}
