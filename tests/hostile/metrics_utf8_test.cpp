// /metrics stays valid whatever the host reports (issue 14, class 10): bytes that are not UTF-8
// in /proc/cpuinfo reach label values, and Prometheus refuses a whole scrape for one of them.
// The real daemon serves a sysroot whose CPU model name and vendor carry such bytes.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/utf8.hpp"
#include "support/daemon.hpp"
#include "support/paths.hpp"
#include "support/temp_tree.hpp"

using namespace hostprobe::testing;
using nlohmann::json;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// Replaces every `from` in the sysroot's /proc/cpuinfo with `to`.
void replace_in_cpuinfo(const TempTree& sysroot, const std::string& from, const std::string& to) {
    const std::string path = sysroot.root() + "/proc/cpuinfo";
    std::string cpuinfo = hostprobe::testing::file_text(path);
    for (size_t at = cpuinfo.find(from); at != std::string::npos; at = cpuinfo.find(from, at)) {
        cpuinfo.replace(at, from.size(), to);
        at += to.size();
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << cpuinfo;
}

}  // namespace

TEST_CASE("a CPU model name that is not UTF-8: /metrics still passes promtool") {
    TempTree sysroot;
    // A Windows-1252 dash, a lone lead byte, a surrogate and bytes never valid in UTF-8.
    std::filesystem::copy(fixtures_dir() + "/sysroots/fargate-e5-2676v3", sysroot.root(),
                          std::filesystem::copy_options::recursive);
    replace_in_cpuinfo(sysroot, "E5-2676 v3",
                       "E5\x96"
                       "2676 \xC3 v3 \xED\xA0\x80 \xFF\xFE");
    replace_in_cpuinfo(sysroot, "GenuineIntel", "Genuine\xC0\xAFIntel");
    REQUIRE(hostprobe::testing::file_text(sysroot.root() + "/proc/cpuinfo").find("\xFF\xFE") !=
            std::string::npos);

    Daemon daemon({"--sysroot", sysroot.root()});
    auto client = daemon.client();
    auto metrics = client.Get("/metrics");
    REQUIRE(metrics);
    REQUIRE(metrics->status == 200);
    CHECK(hostprobe::is_valid_utf8(metrics->body));
    CHECK(promtool_accepts(metrics->body));

    // The label reads as the JSON does: each bad sequence one U+FFFD.
    const std::string model = "Intel(R) Xeon(R) CPU E5" + kFffd + "2676 " + kFffd + " v3 " + kFffd +
                              kFffd + kFffd + " " + kFffd + kFffd + " @ 2.40GHz";
    CHECK(metrics->body.find("model_name=\"" + model + "\"") != std::string::npos);
    CHECK(metrics->body.find("vendor_id=\"Genuine" + kFffd + kFffd + "Intel\"") !=
          std::string::npos);
    auto host = client.Get("/v1/host");
    REQUIRE(host);
    CHECK(host->body.find("\"" + model + "\"") != std::string::npos);
}
