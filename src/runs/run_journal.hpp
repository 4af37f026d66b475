// --state-dir: every run is appended to DIR/runs.jsonl as one fsynced JSON line when it starts
// and when it ends, so a restart brings the history (and the result gauges) back, and a run
// that was running when the process died is recorded as failed ("interrupted").
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/compressed_text.hpp"
#include "core/result.hpp"
#include "core/unique_fd.hpp"
#include "runs/run.hpp"

namespace hostprobe::runs {

// What the journal reads back, whatever the file holds. Lines longer than this are skipped: the
// largest record a probe writes (a files run whose four latency histograms fill every bucket)
// is about 150 KB. A restored run brings back at most its result printed in this many bytes
// (what GET /v1/runs serves of it) and params of a few KiB, so that start-up memory and the
// listing stay within a few MiB per run of --history-size.
inline constexpr size_t kMaxJournalLineBytes = 1 << 20;
inline constexpr size_t kMaxRestoredResultBytes = 1 << 20;  // pretty-printed, as served
inline constexpr size_t kMaxRestoredParamsBytes = 4 * 1024;
inline constexpr size_t kMaxRestoredNameBytes = 64;  // id, probe, trigger
inline constexpr size_t kMaxReplayWarnings = 20;     // then one line counts the rest
// A journal file larger than this stops the start (exit 1) before it is read: read whole, it
// would hold a start for minutes (a sparse file of a terabyte). The default history of 100 runs
// writes a few MB at most; only a history of thousands of the largest runs could come near.
inline constexpr uint64_t kMaxJournalFileBytes = uint64_t{1} << 30;

struct JournalReplay {
    std::vector<Run> finished;          // oldest first, at most `keep`
    std::vector<std::string> warnings;  // lines that were skipped, and why
    size_t interrupted = 0;             // runs that started and never finished
};

class RunJournal {
  public:
    // Creates DIR when needed, replays DIR/runs.jsonl, then rewrites it with the newest `keep`
    // runs. A torn, malformed, too long or too deep line is skipped with a warning naming its
    // number, never fatal. A runs.jsonl that is no regular file (a directory, a FIFO, a device,
    // a dangling link), larger than kMaxJournalFileBytes or unreadable is an Error: the start
    // stops and the file is left as it is.
    static Result<std::unique_ptr<RunJournal>> open(const std::string& directory, size_t keep,
                                                    JournalReplay& replay);
    ~RunJournal();
    RunJournal(const RunJournal&) = delete;
    RunJournal& operator=(const RunJournal&) = delete;

    // A record longer than kMaxJournalLineBytes is not written (an error says so): it would
    // only be skipped at the next start.
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
    core::UniqueFd fd_;  // the journal, open for appending
    // The newest `keep`, for compaction; deflated, as the history keeps results: a run's line
    // is about 10 KB, 1 MB of an agent's memory for 100 runs, 0.3 MB so.
    std::deque<core::CompressedText> finished_lines_;
    // Runs that started and have not finished, by id: compaction keeps their "started" line,
    // or a crash during a long run would leave no trace of it.
    std::map<std::string, std::string> running_lines_;
    size_t lines_in_file_ = 0;
};

// A run record as to_json writes it (plus "text_report"), back into a Run. Every field is read
// with its type and range checked, and the restored run is bounded as above.
Result<Run> run_from_json(const nlohmann::json& record);

}  // namespace hostprobe::runs
