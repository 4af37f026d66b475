#include "runs/run_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "core/json_reads.hpp"
#include "core/json_text.hpp"
#include "core/regular_file.hpp"
#include "core/time_format.hpp"
#include "core/untrusted_json.hpp"

namespace hostprobe::runs {

namespace {

using nlohmann::json;

constexpr const char* kFileName = "runs.jsonl";

Error io_error(const std::string& what) {
    return make_error(ErrorCode::io_error, what + ": " + std::strerror(errno));
}

Result<WallClock::time_point> time_field(const json& record, const char* key) {
    const auto text = string_member(record, key);
    if (!text) return make_error(ErrorCode::parse_error, std::string("no ") + key);
    auto seconds = parse_rfc3339(*text);
    if (!seconds) return seconds.error();
    // A time the clock cannot hold (the year 9999 is 2.5e20 ns) would convert with undefined
    // behaviour.
    const double limit = std::chrono::duration<double>(WallClock::duration::max()).count() / 2;
    if (!(std::fabs(*seconds) < limit))
        return make_error(ErrorCode::parse_error, std::string(key) + " is out of range");
    return WallClock::time_point(
        std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(*seconds)));
}

std::optional<WallClock::time_point> optional_time(const json& record, const char* key) {
    auto time = time_field(record, key);
    return time ? std::optional(*time) : std::nullopt;
}

std::string event_line(const char* event, const Run& run) {
    json record = to_json(run);
    record["text_report"] = run.text_report.text();
    return json_text(json{{"event", event}, {"run", record}}) + "\n";
}

// The newline aside, as read_line counts.
Status fits_a_line(const std::string& line) {
    if (line.size() <= kMaxJournalLineBytes + 1) return Ok{};
    return make_error(ErrorCode::too_large, "the run's record is " + std::to_string(line.size()) +
                                                " bytes, more than a journal line may hold (" +
                                                std::to_string(kMaxJournalLineBytes) +
                                                "); not recorded");
}

Status write_all(int fd, const std::string& text) {
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return io_error("write");
        written += static_cast<size_t>(n);
    }
    return Ok{};
}

Status sync_directory(const std::string& directory) {
    const core::UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return io_error("open " + directory);
    if (::fsync(fd.get()) != 0) return io_error("fsync " + directory);
    return Ok{};
}

// The journal's bytes, read in blocks from its descriptor, at most kMaxJournalFileBytes of them.
// A read error ends them, kept for the caller: the journal is then not rewritten.
class JournalBytes {
  public:
    JournalBytes(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
    int next() {
        if (at_ == filled_ && !fill()) return std::char_traits<char>::eof();
        return static_cast<unsigned char>(buffer_[at_++]);
    }
    const std::optional<Error>& error() const { return error_; }

  private:
    bool fill() {
        if (error_ || ended_) return false;
        if (total_ >= kMaxJournalFileBytes) {
            error_ = make_error(ErrorCode::too_large, name_ + ": grew past " +
                                                          std::to_string(kMaxJournalFileBytes) +
                                                          " bytes while it was read");
            return false;
        }
        auto n = core::read_some(fd_, buffer_, sizeof buffer_, name_);
        if (!n) {
            error_ = n.error();
            return false;
        }
        ended_ = *n == 0;
        total_ += *n;
        at_ = 0;
        filled_ = *n;
        return !ended_;
    }

    int fd_;
    std::string name_;
    char buffer_[65536];
    size_t at_ = 0;
    size_t filled_ = 0;
    uint64_t total_ = 0;
    bool ended_ = false;
    std::optional<Error> error_;
};

enum class LineRead { line, too_long, end };

// One line without its '\n', at most `max` bytes: a longer one is read to its end but not
// kept, so that no line of the file, however long, is held in memory.
LineRead read_line(JournalBytes& in, std::string& line, size_t max) {
    line.clear();
    bool too_long = false;
    bool any = false;
    for (int c = in.next(); c != std::char_traits<char>::eof(); c = in.next()) {
        if (c == '\n') return too_long ? LineRead::too_long : LineRead::line;
        any = true;
        if (line.size() < max) {
            line.push_back(static_cast<char>(c));
        } else {
            too_long = true;
        }
    }
    if (too_long) return LineRead::too_long;
    return any ? LineRead::line : LineRead::end;
}

// A files run's record, the largest, holds about 15,000 values.
const JsonLimits kLineLimits{
    .max_bytes = kMaxJournalLineBytes, .max_depth = kMaxJsonDepth, .max_values = 100'000};

struct Record {
    std::string event;  // "started" or "finished"
    Run run;
};

Result<Record> parse_record(const std::string& line) {
    auto record = parse_untrusted_json(line, kLineLimits);
    if (!record) return record.error();
    std::string event = string_member(*record, "event").value_or("");
    if (event != "started" && event != "finished")
        return make_error(ErrorCode::parse_error, "the event is neither started nor finished");
    const json* fields = find_member(*record, "run");
    if (fields == nullptr) return make_error(ErrorCode::parse_error, "no run");
    auto run = run_from_json(*fields);
    if (!run) return run.error();
    return Record{std::move(event), std::move(run).value()};
}

// Warnings for the first few skipped lines, then one that counts the rest.
class SkippedLines {
  public:
    explicit SkippedLines(std::vector<std::string>& warnings) : warnings_(warnings) {}
    void add(size_t number, const std::string& why) {
        if (++count_ <= kMaxReplayWarnings)
            warnings_.push_back("line " + std::to_string(number) + " of the run journal " + why);
    }
    void finish() {
        if (count_ > kMaxReplayWarnings)
            warnings_.push_back(std::to_string(count_ - kMaxReplayWarnings) +
                                " more lines of the run journal were skipped");
    }

  private:
    std::vector<std::string>& warnings_;
    size_t count_ = 0;
};

using FinishedRuns = std::vector<std::pair<std::string, Run>>;  // line, run

void sort_by_creation(FinishedRuns& finished) {
    std::stable_sort(finished.begin(), finished.end(), [](const auto& a, const auto& b) {
        return a.second.created_at < b.second.created_at;
    });
}

// Keeps the newest `keep` once twice as many are held: the same runs survive as when every
// line is sorted at the end, and a file of a million lines needs no more memory than `keep`.
void bound_finished(FinishedRuns& finished, size_t keep) {
    if (finished.size() < 2 * keep + 2) return;
    sort_by_creation(finished);
    finished.erase(finished.begin(), finished.end() - static_cast<std::ptrdiff_t>(keep));
}

// Runs still running when the process died are at most a queue and the workers; more than
// this many are a damaged file, and the oldest ids go first.
constexpr size_t kMaxInterrupted = 2048;

// Replays the lines: the last "finished" record of each run wins; a "started" one without
// a finish becomes an interrupted failure.
void replay_lines(JournalBytes& in, size_t keep, JournalReplay& replay,
                  std::deque<std::string>& finished_lines) {
    std::map<std::string, Run> started;
    FinishedRuns finished;  // file order, then by creation
    SkippedLines skipped(replay.warnings);
    std::string line;
    size_t number = 0;
    for (LineRead read; (read = read_line(in, line, kMaxJournalLineBytes)) != LineRead::end;) {
        ++number;
        if (read == LineRead::too_long) {
            skipped.add(number, "is longer than " + std::to_string(kMaxJournalLineBytes) +
                                    " bytes; skipped");
            continue;
        }
        if (line.empty()) continue;
        auto record = parse_record(line);
        if (!record) {
            skipped.add(number, "is torn or malformed; skipped: " + record.error().message);
            continue;
        }
        Run& run = record->run;
        if (record->event == "started") {
            // A started run has no result yet; an interrupted one will not get one.
            run.result = core::SharedJson();
            run.text_report = {};
            started[run.id] = std::move(run);
            if (started.size() > kMaxInterrupted + keep) started.erase(started.begin());
        } else {
            started.erase(run.id);
            finished.emplace_back(line, std::move(run));
            bound_finished(finished, keep);
        }
    }
    skipped.finish();
    sort_by_creation(finished);
    // Interrupted runs ended at this restart, after everything in the file: they go last, so
    // that the history keeps them however many newer runs finished while they ran.
    for (auto& [id, run] : started) {
        run.state = RunState::failed;
        run.error = "interrupted: hostprobe stopped while the run was running";
        run.finished_at = run.started_at;
        finished.emplace_back(event_line("finished", run), run);
        ++replay.interrupted;
    }
    const size_t skip = finished.size() > keep ? finished.size() - keep : 0;
    for (size_t i = skip; i < finished.size(); ++i) {
        std::string text = finished[i].first;
        if (text.empty() || text.back() != '\n') text += '\n';
        finished_lines.push_back(std::move(text));
        replay.finished.push_back(std::move(finished[i].second));
    }
}

// A string field of at most `max` bytes; absent or null is empty.
Result<std::string> bounded_string(const json& record, const char* key, size_t max) {
    const json* value = find_member(record, key);
    if (value == nullptr || value->is_null()) return std::string();
    if (!value->is_string())
        return make_error(ErrorCode::parse_error, std::string(key) + " is not a string");
    std::string text = value->get<std::string>();
    if (text.size() > max)
        return make_error(ErrorCode::parse_error,
                          std::string(key) + " is longer than " + std::to_string(max) + " bytes");
    return text;
}

}  // namespace

Result<Run> run_from_json(const json& record) {
    if (!record.is_object()) return make_error(ErrorCode::parse_error, "not an object");
    Run run;
    for (auto [key, target] : {std::pair{"id", &run.id}, std::pair{"probe", &run.probe},
                               std::pair{"trigger", &run.trigger}}) {
        auto text = bounded_string(record, key, kMaxRestoredNameBytes);
        if (!text) return text.error();
        *target = std::move(text).value();
    }
    if (run.id.empty() || run.probe.empty())
        return make_error(ErrorCode::parse_error, "a run needs an id and a probe");
    run.params = json::object();
    if (const json* params = find_member(record, "params"); params != nullptr) {
        if (!params->is_object())
            return make_error(ErrorCode::parse_error, "params is not an object");
        if (json_text(*params).size() > kMaxRestoredParamsBytes)
            return make_error(
                ErrorCode::parse_error,
                "params are longer than " + std::to_string(kMaxRestoredParamsBytes) + " bytes");
        run.params = *params;
    }
    auto state = parse_run_state(string_member(record, "state").value_or(""));
    if (!state) return state.error();
    run.state = *state;
    run.progress = std::clamp(number_member(record, "progress").value_or(0.0), 0.0, 1.0);
    auto created = time_field(record, "created_at");
    if (!created) return created.error();
    run.created_at = *created;
    run.started_at = optional_time(record, "started_at");
    run.finished_at = optional_time(record, "finished_at");
    auto error = bounded_string(record, "error", kMaxJournalLineBytes);
    if (!error) return error.error();
    run.error = std::move(error).value();
    if (const json* result = find_member(record, "result"); result != nullptr) {
        run.result = core::SharedJson(*result);
        if (run.result.pretty_size() > kMaxRestoredResultBytes)
            return make_error(ErrorCode::parse_error, "the result prints in more than " +
                                                          std::to_string(kMaxRestoredResultBytes) +
                                                          " bytes");
    }
    auto report = bounded_string(record, "text_report", kMaxJournalLineBytes);
    if (!report) return report.error();
    run.text_report = std::move(report).value();
    return run;
}

Result<std::unique_ptr<RunJournal>> RunJournal::open(const std::string& directory, size_t keep,
                                                     JournalReplay& replay) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (error)
        return make_error(ErrorCode::io_error, "cannot create the state directory " + directory +
                                                   ": " + error.message());
    std::deque<std::string> finished_lines;
    const std::string path = directory + "/" + kFileName;
    // No journal yet is a first start; anything else that cannot be read stops the start
    // rather than be rewritten as an empty history.
    auto file = core::open_regular_file(path);
    if (!file && file.error().code != ErrorCode::not_found) return file.error();
    if (file) {
        if (file->size > kMaxJournalFileBytes)
            return make_error(ErrorCode::too_large,
                              path + ": " + std::to_string(file->size) + " bytes, more than the " +
                                  std::to_string(kMaxJournalFileBytes) +
                                  " a journal may hold; move it away to start");
        JournalBytes bytes(file->fd.get(), path);
        replay_lines(bytes, keep, replay, finished_lines);
        if (bytes.error()) return *bytes.error();
    }
    std::unique_ptr<RunJournal> journal(new RunJournal(directory, keep, std::move(finished_lines)));
    std::lock_guard lock(journal->mutex_);
    if (auto compacted = journal->compact(); !compacted) return compacted.error();
    return journal;
}

RunJournal::RunJournal(std::string directory, size_t keep, std::deque<std::string> finished_lines)
    : directory_(std::move(directory)),
      path_(directory_ + "/" + kFileName),
      keep_(keep),
      finished_lines_(finished_lines.begin(), finished_lines.end()) {}

RunJournal::~RunJournal() = default;

Status RunJournal::record_started(const Run& run) {
    const std::string line = event_line("started", run);
    if (auto fits = fits_a_line(line); !fits) return fits;
    std::lock_guard lock(mutex_);
    running_lines_[run.id] = line;
    return append(line);
}

Status RunJournal::record_finished(const Run& run) {
    const std::string line = event_line("finished", run);
    if (auto fits = fits_a_line(line); !fits) {
        std::lock_guard lock(mutex_);
        running_lines_.erase(run.id);
        return fits;
    }
    std::lock_guard lock(mutex_);
    running_lines_.erase(run.id);
    finished_lines_.push_back(line);
    while (finished_lines_.size() > keep_)
        finished_lines_.pop_front();
    if (auto written = write_all(fd_.get(), line); !written) return written;
    if (::fdatasync(fd_.get()) != 0) return io_error("fdatasync " + path_);
    // Two lines per run: rewrite once the file holds twice what it must keep.
    if (++lines_in_file_ > 4 * keep_ + 16) return compact();
    return Ok{};
}

Status RunJournal::append(const std::string& line) {
    if (auto written = write_all(fd_.get(), line); !written) return written;
    if (::fdatasync(fd_.get()) != 0) return io_error("fdatasync " + path_);
    ++lines_in_file_;
    return Ok{};
}

// A new file beside the old one, synced, then renamed over it: a crash leaves one or the other.
Status RunJournal::compact() {
    const std::string temporary = path_ + ".tmp";
    // Whatever a crash (or anyone) left under the temporary name goes first, and the new file
    // is made, never opened: a FIFO there would block the open, a symbolic link would send the
    // journal anywhere.
    if (::unlink(temporary.c_str()) != 0 && errno != ENOENT) return io_error("unlink " + temporary);
    core::UniqueFd fd(
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd) return io_error("open " + temporary);
    // A line at a time: the whole text inflated at once would be as large as the journal.
    Status written = Ok{};
    for (const auto& line : finished_lines_) {
        if (written) written = write_all(fd.get(), line.text());
    }
    for (const auto& [id, line] : running_lines_) {
        if (written) written = write_all(fd.get(), line);
    }
    if (written && ::fsync(fd.get()) != 0) written = io_error("fsync " + temporary);
    fd.reset();  // written and synced: closed before it replaces the journal
    if (written && ::rename(temporary.c_str(), path_.c_str()) != 0)
        written = io_error("rename " + temporary);
    if (!written) {
        ::unlink(temporary.c_str());
        return written;
    }
    if (auto synced = sync_directory(directory_); !synced) return synced;
    fd_.reset(::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (!fd_) return io_error("open " + path_);
    lines_in_file_ = finished_lines_.size() + running_lines_.size();
    return Ok{};
}

}  // namespace hostprobe::runs
