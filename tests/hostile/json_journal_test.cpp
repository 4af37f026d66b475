// A damaged runs.jsonl against the real agent (issue 14, item 2): a line of 100,000 nested
// arrays crashed the start, and one of 15,000 (30 KB) printed as a 450 MB GET /v1/runs after
// a 1.3 GB start. Bad lines are skipped with a warning naming their number; good runs come back.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/raw_http.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

// A finished run as the journal writes it; `result` is JSON text.
std::string finished_line(const std::string& id, const std::string& probe,
                          const std::string& result, int second = 0) {
    const std::string time = "2026-01-01T00:00:0" + std::to_string(second) + ".000Z";
    return R"({"event":"finished","run":{"id":")" + id + R"(","probe":")" + probe +
           R"(","params":{},"trigger":"api","state":"succeeded","progress":1.0,"created_at":")" +
           time + R"(","started_at":")" + time + R"(","finished_at":")" + time +
           R"(","error":null,"result":)" + result + R"(,"text_report":"report of )" + id +
           R"(\n"}})" + "\n";
}

// Peak resident memory of the process so far, in KiB.
long peak_kib(const Daemon& daemon) {
    std::ifstream in("/proc/" + std::to_string(daemon.process.pid()) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
}

struct Listing {
    size_t bytes = 0;
    std::string ids;  // newest first, comma-separated
};

Listing list_runs(const Daemon& daemon) {
    auto response = daemon.client().Get("/v1/runs");
    REQUIRE(response);
    REQUIRE(response->status == 200);
    Listing listing{response->body.size(), {}};
    const json answer = json::parse(response->body);
    for (const auto& run : answer["runs"])
        listing.ids += (listing.ids.empty() ? "" : ",") + run["id"].get<std::string>();
    return listing;
}

}  // namespace

TEST_CASE("a journal line nested 100,000 deep is skipped; the agent starts with the good runs") {
    TempTree state;
    state.write("runs.jsonl",
                finished_line("good1", "cpu", R"({"cpus": 2})", 1) +
                    finished_line("deep", "cpu", hostprobe::testing::nested_arrays(100'000), 2) +
                    finished_line("good2", "cpu", R"({"cpus": 4})", 3));
    Daemon daemon({"--state-dir", state.root()});
    const Listing listing = list_runs(daemon);
    CHECK(listing.ids == "good2,good1");
    CHECK(daemon.process.errors().find(
              "line 2 of the run journal is torn or malformed; skipped: JSON nested deeper than "
              "32 levels at byte ") != std::string::npos);
    // The start rewrote the file without the bad line.
    const std::string journal = hostprobe::testing::file_text(state.root() + "/runs.jsonl");
    CHECK(journal.find("[[[[") == std::string::npos);
    CHECK(journal.find("good2") != std::string::npos);
}

TEST_CASE("30 KB of nesting in a journal line cannot blow up the listing or the start") {
    TempTree state;
    std::string lines = finished_line("good1", "cpu", R"({"cpus": 2})", 1);
    for (int i = 0; i < 5; ++i)
        lines += finished_line("deep" + std::to_string(i), "cpu",
                               hostprobe::testing::nested_arrays(15'000), 2);
    lines += finished_line("good2", "cpu", R"({"cpus": 4})", 3);
    state.write("runs.jsonl", lines);
    Daemon daemon({"--state-dir", state.root()});
    const Listing listing = list_runs(daemon);
    CHECK(listing.ids == "good2,good1");
    CHECK(listing.bytes < 4096);  // was 450 MB per such line
    CHECK(peak_kib(daemon) < 200 * 1024);
    for (int line = 2; line <= 6; ++line) {
        CHECK(daemon.process.errors().find("line " + std::to_string(line) +
                                           " of the run journal is torn or malformed") !=
              std::string::npos);
    }
}

TEST_CASE("numbers out of range, wrong types and unreadable results in the journal") {
    TempTree state;
    state.write("runs.jsonl",
                finished_line("good1", "cpu", R"({"cpus": 2})", 1) +
                    finished_line("overflow", "cpu", R"({"cpus": 1e400})", 2) +
                    R"({"event":"finished","run":{"id":7,"probe":"cpu","state":"succeeded"}})"
                    "\n" +
                    R"({"event":"finished","run":{"id":"x","probe":"cpu","state":"succeeded",)"
                    R"("created_at":"2026-01-01T00:00:00Z","progress":"all","params":[]}})"
                    "\n" +
                    finished_line("huge", "cpu", "\"" + std::string(2 << 20, 'x') + "\"", 2) +
                    // A cipher result without its measurements: the result gauges cannot read it.
                    finished_line("shapeless", "cipher", R"({"measurements": 5})", 4));
    Daemon daemon({"--state-dir", state.root()});
    const std::string errors = daemon.process.errors();
    CHECK(errors.find("line 2 of the run journal is torn or malformed; skipped: number out of "
                      "range at byte ") != std::string::npos);
    CHECK(errors.find("line 3 of the run journal is torn or malformed; skipped: id is not a "
                      "string") != std::string::npos);
    CHECK(errors.find("line 4 of the run journal is torn or malformed; skipped: params is not "
                      "an object") != std::string::npos);
    CHECK(errors.find("line 5 of the run journal is longer than 1048576 bytes; skipped") !=
          std::string::npos);
    CHECK(list_runs(daemon).ids == "shapeless,good1");
    // /metrics answered 500 (nlohmann's type_error) for as long as that run was the newest.
    auto metrics = daemon.client().Get("/metrics");
    REQUIRE(metrics);
    CHECK(metrics->status == 200);
    CHECK(metrics->body.find("hostprobe_cipher_throughput") == std::string::npos);
    // Only that probe's collector fails, as node_exporter does per collector.
    CHECK(metrics->body.find("hostprobe_scrape_collector_success{collector=\"cipher_result\"} 0") !=
          std::string::npos);
    CHECK(alive(daemon));
}
