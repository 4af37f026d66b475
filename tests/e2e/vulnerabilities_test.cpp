// The CPU's vulnerabilities end to end: `hostprobe cpu` prints this machine's "Vulnerability"
// rows exactly as the installed lscpu does, and /metrics of a replayed util-linux dump carries
// one bounded hostprobe_cpu_vulnerability_info sample per file, accepted by promtool.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/daemon.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

using namespace hostprobe::testing;

namespace {

// lscpu on PATH, as a shell would find it.
std::optional<std::string> installed_lscpu() {
    const char* path = std::getenv("PATH");
    std::istringstream folders(path ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        const std::string candidate = folder + "/lscpu";
        if (!folder.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

// "Vulnerability <name>:" lines with the padding between key and value squeezed to one space
// (the two align their columns over different sets of rows).
std::vector<std::string> vulnerability_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("Vulnerability ", 0) != 0) continue;
        const size_t colon = line.find(':');
        const size_t value = line.find_first_not_of(' ', colon + 1);
        lines.push_back(line.substr(0, colon + 1) + " " +
                        (value == std::string::npos ? "" : line.substr(value)));
    }
    return lines;
}

std::vector<std::string> metric_lines(const std::string& metrics, const std::string& name) {
    std::vector<std::string> lines;
    std::istringstream in(metrics);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(name + "{", 0) == 0) lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("hostprobe cpu's Vulnerability rows are the installed lscpu's, on this machine") {
    const auto lscpu = installed_lscpu();
    if (!lscpu) SKIP_TEST("lscpu is not installed (Debian: util-linux)");
    const auto expected = run_to_end(*lscpu, {}, {{"LC_ALL", "POSIX"}});
    REQUIRE(expected.status.code == 0);
    const auto actual = run_to_end(binary(), {"cpu"});
    REQUIRE(actual.status.code == 0);
    if (vulnerability_lines(expected.output).empty())
        SKIP_TEST("this kernel has no /sys/devices/system/cpu/vulnerabilities");
    CHECK(vulnerability_lines(actual.output) == vulnerability_lines(expected.output));
}

TEST_CASE("/metrics of a replayed dump: one vulnerability sample per file, promtool-clean") {
    Daemon daemon({"--sysroot", std::string(HOSTPROBE_LSCPU_DUMPS_DIR) + "/x86_64-64cpu-linux6.2"});
    auto reply = daemon.client().Get("/metrics");
    REQUIRE(reply);
    REQUIRE(reply->status == 200);
    CHECK(
        metric_lines(reply->body, "hostprobe_cpu_vulnerability_info") ==
        std::vector<std::string>{
            R"(hostprobe_cpu_vulnerability_info{name="itlb_multihit",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="l1tf",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="mds",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="meltdown",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="mmio_stale_data",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="retbleed",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="spec_store_bypass",status="mitigation"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="spectre_v1",status="mitigation"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="spectre_v2",status="mitigation"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="srbds",status="not_affected"} 1)",
            R"(hostprobe_cpu_vulnerability_info{name="tsx_async_abort",status="not_affected"} 1)"});
    CHECK_MESSAGE(promtool_accepts(reply->body),
                  "promtool check metrics failed (is Debian's prometheus package installed?)");
}
