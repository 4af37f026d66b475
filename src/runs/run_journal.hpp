// --state-dir: every run is appended to DIR/runs.jsonl as one fsynced JSON line when it starts
// and when it ends, so a restart brings the history (and the result gauges) back, and a run
// that was running when the process died is recorded as failed ("interrupted").
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "runs/run.hpp"

namespace hostprobe::runs {

struct JournalReplay {
    std::vector<Run> finished;          // oldest first, at most `keep`
    std::vector<std::string> warnings;  // lines that were skipped, and why
    size_t interrupted = 0;             // runs that started and never finished
};

class RunJournal {
  public:
    // Creates DIR when needed, replays DIR/runs.jsonl, then rewrites it with the newest `keep`
    // runs. A torn or malformed line is skipped with a warning, never fatal.
    static Result<std::unique_ptr<RunJournal>> open(const std::string& directory, size_t keep,
                                                    JournalReplay& replay);
    ~RunJournal();
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    Status record_started(const Run& run);
    Status record_finished(const Run& run);
    const std::string& path() const { return path_; }

  private:
    RunJournal(std::string directory, size_t keep, std::deque<std::string> finished_lines);
    Status append(const std::string& line);  // requires the lock
    Status compact();                        // requires the lock

    const std::string directory_;
    const std::string path_;
    const size_t keep_;
    std::mutex mutex_;
    int fd_ = -1;
    std::deque<std::string> finished_lines_;  // the newest `keep`, for compaction
    // Runs that started and have not finished, by id: compaction keeps their "started" line,
    // or a crash during a long run would leave no trace of it.
    std::map<std::string, std::string> running_lines_;
    size_t lines_in_file_ = 0;
};

// A run record as to_json writes it (plus "text_report"), back into a Run.
Result<Run> run_from_json(const nlohmann::json& record);

}  // namespace hostprobe::runs
