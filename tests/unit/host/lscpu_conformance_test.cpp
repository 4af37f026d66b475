// Conformance with util-linux: replay every lscpu test dump (tests/fixtures/lscpu, copied from
// util-linux tests/ts/lscpu) and compare hostprobe's lscpu-style lines with lscpu's expected
// output for the same dump.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "core/strings.hpp"
#include "host/host_facts.hpp"
#include "report/host_text.hpp"
#include "support/paths.hpp"

namespace {

using namespace hostprobe;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// The summary block of an lscpu output (or ours): "Key:   value" lines up to the first blank line.
Pairs summary_pairs(const std::string& text) {
    Pairs pairs;
    for (std::string_view line : split_lines(text)) {
        if (trim(line).empty()) break;
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        pairs.emplace_back(std::string(line.substr(0, colon + 1)),
                           std::string(trim(line.substr(colon + 1))));
    }
    return pairs;
}

std::vector<std::string> values_of(const Pairs& pairs, const std::string& key) {
    std::vector<std::string> values;
    for (const auto& [name, value] : pairs) {
        if (name == key) values.push_back(value);
    }
    return values;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

std::vector<std::string> dump_names() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(HOSTPROBE_LSCPU_DUMPS_DIR)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

host::HostFacts replay_lscpu_dump(const std::string& name) {
    const SysRoot root(std::string(HOSTPROBE_LSCPU_DUMPS_DIR) + "/" + name);
    return host::collect_host_facts(root, host::NoCpuid(), std::nullopt);
}

// lscpu's "Vulnerability <name>:" rows, key and value, in their order.
Pairs vulnerability_rows(const Pairs& pairs) {
    Pairs rows;
    for (const auto& row : pairs) {
        if (row.first.rfind("Vulnerability ", 0) == 0) rows.push_back(row);
    }
    return rows;
}

// The key of the row the vulnerability rows follow ("" when there are none): lscpu puts them
// after the NUMA rows.
std::string key_before_vulnerabilities(const Pairs& pairs) {
    for (size_t i = 1; i < pairs.size(); ++i) {
        if (pairs[i].first.rfind("Vulnerability ", 0) == 0) return pairs[i - 1].first;
    }
    return "";
}

bool is_x86_or_arm(const std::string& name) {
    return name.rfind("x86_64", 0) == 0 || name.rfind("arm", 0) == 0 || name == "vbox-win" ||
           name == "vmware_fpe";
}

const std::vector<std::string> kComparedKeys = {
    "Vendor ID:",
    "Model name:",
    "CPU family:",
    "Model:",
    "Stepping:",
    "CPU(s):",
    "On-line CPU(s) list:",
    "Thread(s) per core:",
    "Core(s) per socket:",
    "Socket(s):",
    "Flags:",
    "L1d cache:",
    "L1i cache:",
    "L2 cache:",
    "L2d cache:",
    "L3 cache:",
    "Hypervisor vendor:",
    "Virtualization type:",
    "NUMA node(s):",
};

}  // namespace

TEST_CASE("all 22 util-linux lscpu dumps are present") {
    CHECK(dump_names().size() == 22);
}

TEST_CASE("x86_64 and ARM dumps agree with lscpu's expected output") {
    int compared = 0;
    for (const std::string& name : dump_names()) {
        if (!is_x86_or_arm(name)) continue;
        ++compared;
        const Pairs expected =
            summary_pairs(read_text(testing::fixtures_dir() + "/lscpu/expected/lscpu-" + name));
        const Pairs actual = summary_pairs(report::host_text(replay_lscpu_dump(name)));
        REQUIRE_FALSE(values_of(expected, "Model name:").empty());
        for (const std::string& key : kComparedKeys) {
            INFO("dump " << name << ", key " << key);
            CHECK(values_of(actual, key) == values_of(expected, key));
        }
    }
    CHECK(compared == 8);
}

TEST_CASE("every other architecture's dump parses into a partial result") {
    for (const std::string& name : dump_names()) {
        if (is_x86_or_arm(name)) continue;
        INFO("dump " << name);
        const host::HostFacts facts = replay_lscpu_dump(name);
        const Pairs expected =
            summary_pairs(read_text(testing::fixtures_dir() + "/lscpu/expected/lscpu-" + name));
        const Pairs actual = summary_pairs(report::host_text(facts));
        // CPU counts and lists come from sysfs alone, so they agree on every architecture.
        CHECK(values_of(actual, "CPU(s):") == values_of(expected, "CPU(s):"));
        CHECK(values_of(actual, "On-line CPU(s) list:") ==
              values_of(expected, "On-line CPU(s) list:"));
        CHECK(facts.cpu_budget.workers >= 1);
    }
}

TEST_CASE("every dump's Vulnerability rows are lscpu's, in its order and place") {
    int with_vulnerabilities = 0;
    for (const std::string& name : dump_names()) {
        INFO("dump " << name);
        const Pairs expected =
            summary_pairs(read_text(testing::fixtures_dir() + "/lscpu/expected/lscpu-" + name));
        const Pairs actual = summary_pairs(report::host_text(replay_lscpu_dump(name)));
        CHECK(vulnerability_rows(actual) == vulnerability_rows(expected));
        if (vulnerability_rows(expected).empty()) continue;
        ++with_vulnerabilities;
        CHECK(key_before_vulnerabilities(actual) == key_before_vulnerabilities(expected));
    }
    // arm-A510-A710-A715-X3, loongarch-kvm_on_loongson_3c6000, s390-nested-virt, vmware_fpe,
    // x86_64-64cpu-linux6.2 and x86_64-epyc_7451 have the folder.
    CHECK(with_vulnerabilities == 6);
}
