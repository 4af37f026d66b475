#include "runs/run_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/json_text.hpp"
#include "core/time_format.hpp"

namespace hostprobe::runs {

namespace {

using nlohmann::json;

constexpr const char* kFileName = "runs.jsonl";

Error io_error(const std::string& what) {
    return make_error(ErrorCode::io_error, what + ": " + std::strerror(errno));
}

Result<WallClock::time_point> time_field(const json& record, const char* key) {
    auto value = record.find(key);
    if (value == record.end() || !value->is_string())
        return make_error(ErrorCode::parse_error, std::string("no ") + key);
    auto seconds = parse_rfc3339(value->get<std::string>());
    if (!seconds) return seconds.error();
    return WallClock::time_point(
        std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(*seconds)));
}

std::optional<WallClock::time_point> optional_time(const json& record, const char* key) {
    auto time = time_field(record, key);
    return time ? std::optional(*time) : std::nullopt;
}

std::string event_line(const char* event, const Run& run) {
    json record = to_json(run);
    record["text_report"] = run.text_report;
    return json_text(json{{"event", event}, {"run", record}}) + "\n";
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
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error("open " + directory);
    const int synced = ::fsync(fd);
    ::close(fd);
    return synced == 0 ? Status(Ok{}) : Status(io_error("fsync " + directory));
}

// Replays the lines: the last "finished" record of each run wins; a "started" one without
// a finish becomes an interrupted failure.
void replay_lines(std::istream& in, size_t keep, JournalReplay& replay,
                  std::deque<std::string>& finished_lines) {
    std::map<std::string, Run> started;
    std::vector<std::pair<std::string, Run>> finished;  // file order
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty()) continue;
        const json record = json::parse(line, nullptr, false);
        auto run = record.is_object() && record.contains("run")
                       ? run_from_json(record["run"])
                       : Result<Run>(make_error(ErrorCode::parse_error, "not a run record"));
        const std::string event = record.is_object() ? record.value("event", "") : "";
        if (record.is_discarded() || !run || (event != "started" && event != "finished")) {
            replay.warnings.push_back("line " + std::to_string(number) +
                                      " of the run journal is torn or malformed; skipped");
            continue;
        }
        if (event == "started") {
            started[run->id] = *run;
        } else {
            started.erase(run->id);
            finished.emplace_back(line, *run);
        }
    }
    std::stable_sort(finished.begin(), finished.end(), [](const auto& a, const auto& b) {
        return a.second.created_at < b.second.created_at;
    });
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

}  // namespace

Result<Run> run_from_json(const json& record) {
    if (!record.is_object()) return make_error(ErrorCode::parse_error, "not an object");
    Run run;
    run.id = record.value("id", "");
    run.probe = record.value("probe", "");
    if (run.id.empty() || run.probe.empty())
        return make_error(ErrorCode::parse_error, "a run needs an id and a probe");
    run.params = record.value("params", json::object());
    run.trigger = record.value("trigger", "");
    auto state = parse_run_state(record.value("state", ""));
    if (!state) return state.error();
    run.state = *state;
    run.progress = record.value("progress", 0.0);
    auto created = time_field(record, "created_at");
    if (!created) return created.error();
    run.created_at = *created;
    run.started_at = optional_time(record, "started_at");
    run.finished_at = optional_time(record, "finished_at");
    if (record.contains("error") && record["error"].is_string()) run.error = record["error"];
    run.result = record.value("result", json(nullptr));
    run.text_report = record.value("text_report", "");
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
    {
        std::ifstream in(directory + "/" + kFileName);
        replay_lines(in, keep, replay, finished_lines);
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
      finished_lines_(std::move(finished_lines)) {}

RunJournal::~RunJournal() {
    if (fd_ >= 0) ::close(fd_);
}

Status RunJournal::record_started(const Run& run) {
    const std::string line = event_line("started", run);
    std::lock_guard lock(mutex_);
    running_lines_[run.id] = line;
    return append(line);
}

Status RunJournal::record_finished(const Run& run) {
    const std::string line = event_line("finished", run);
    std::lock_guard lock(mutex_);
    running_lines_.erase(run.id);
    finished_lines_.push_back(line);
    while (finished_lines_.size() > keep_)
        finished_lines_.pop_front();
    if (auto written = write_all(fd_, line); !written) return written;
    if (::fdatasync(fd_) != 0) return io_error("fdatasync " + path_);
    // Two lines per run: rewrite once the file holds twice what it must keep.
    if (++lines_in_file_ > 4 * keep_ + 16) return compact();
    return Ok{};
}

Status RunJournal::append(const std::string& line) {
    if (auto written = write_all(fd_, line); !written) return written;
    if (::fdatasync(fd_) != 0) return io_error("fdatasync " + path_);
    ++lines_in_file_;
    return Ok{};
}

// A new file beside the old one, synced, then renamed over it: a crash leaves one or the other.
Status RunJournal::compact() {
    const std::string temporary = path_ + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return io_error("open " + temporary);
    std::string text;
    for (const auto& line : finished_lines_)
        text += line;
    for (const auto& [id, line] : running_lines_)
        text += line;
    Status written = write_all(fd, text);
    if (written && ::fsync(fd) != 0) written = io_error("fsync " + temporary);
    ::close(fd);
    if (written && ::rename(temporary.c_str(), path_.c_str()) != 0)
        written = io_error("rename " + temporary);
    if (!written) {
        ::unlink(temporary.c_str());
        return written;
    }
    if (auto synced = sync_directory(directory_); !synced) return synced;
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) return io_error("open " + path_);
    lines_in_file_ = finished_lines_.size() + running_lines_.size();
    return Ok{};
}

}  // namespace hostprobe::runs
