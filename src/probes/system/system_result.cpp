#include "probes/system/system_result.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "core/json_reads.hpp"
#include "core/result_reads.hpp"
#include "host/host_examples.hpp"
#include "probes/system/system_index.hpp"

namespace hostprobe::probes {

namespace {

using nlohmann::json;

// The member, which must be an array.
const json& array_member(const json& in, const char* key) {
    const json& member = in.at(key);
    if (!member.is_array()) throw std::out_of_range(std::string(key) + " is not an array");
    return member;
}

// A copy count written as an object key: "2", exactly as std::to_string writes it.
size_t copies_key_or_throw(const std::string& key) {
    size_t copies = 0;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), copies);
    if (error != std::errc() || end != key.data() + key.size() || std::to_string(copies) != key)
        throw std::out_of_range("not a copy count: \"" + key + "\"");
    return copies;
}

json test_json(const SystemTestResult& test) {
    json out = {{"name", test.name},   {"title", test.title},     {"copies", test.copies},
                {"value", test.value}, {"unit", test.unit},       {"baseline", test.baseline},
                {"index", test.index}, {"seconds", test.seconds}, {"valid", test.valid}};
    if (test.dmips) out["dmips"] = *test.dmips;
    return out;
}

SystemTestResult test_from_json(const json& in) {
    SystemTestResult test;
    test.name = in.at("name").get<std::string>();
    test.title = in.at("title").get<std::string>();
    test.unit = in.at("unit").get<std::string>();
    test.copies = integer_or_throw<size_t>(in.at("copies"));
    test.value = number_or_throw(in.at("value"));
    test.baseline = number_or_throw(in.at("baseline"));
    test.index = number_or_throw(in.at("index"));
    test.seconds = number_or_throw(in.at("seconds"));
    if (const json* valid = find_member(in, "valid")) test.valid = valid->get<bool>();
    if (const json* dmips = find_member(in, "dmips")) test.dmips = number_or_throw(*dmips);
    return test;
}

json skipped_json(const SystemSkippedTest& skipped) {
    return {{"name", skipped.name},
            {"title", skipped.title},
            {"copies", skipped.copies},
            {"reason", skipped.reason}};
}

SystemSkippedTest skipped_from_json(const json& in) {
    return {in.at("name").get<std::string>(), in.at("title").get<std::string>(),
            integer_or_throw<size_t>(in.at("copies")), in.at("reason").get<std::string>()};
}

// "index" and "index_tests": one object each, keyed by the copy count.
std::vector<SystemPassIndex> index_from_json(const json& scores, const json& counts) {
    if (!scores.is_object()) throw std::out_of_range("index is not an object");
    std::vector<SystemPassIndex> index;
    for (const auto& [key, score] : scores.items()) {
        SystemPassIndex pass;
        pass.copies = copies_key_or_throw(key);
        if (!score.is_null()) pass.score = number_or_throw(score);
        pass.tests = integer_or_throw<size_t>(counts.at(key));
        index.push_back(pass);
    }
    return index;
}

}  // namespace

void to_json(json& out, const SystemResult& result) {
    json tests = json::array();
    for (const auto& test : result.tests)
        tests.push_back(test_json(test));
    json skipped = json::array();
    for (const auto& test : result.skipped)
        skipped.push_back(skipped_json(test));
    json scores = json::object();
    json counts = json::object();
    for (const auto& pass : result.index) {
        const std::string key = std::to_string(pass.copies);
        scores[key] = pass.score ? json(*pass.score) : json(nullptr);
        counts[key] = pass.tests;
    }
    out = {{"note", result.note},
           {"tests", std::move(tests)},
           {"skipped", std::move(skipped)},
           {"copies", result.copies},
           {"seconds_per_test", result.seconds_per_test},
           {"cpu_budget", result.cpu_budget},
           {"directory", result.directory ? json(*result.directory) : json()},
           {"index", std::move(scores)},
           {"index_tests", std::move(counts)},
           {"index_partial", result.index_partial},
           {"partial", result.partial}};
    if (!result.series.empty()) out["series"] = series_json(result.series, "work");
    if (result.unixbench_version) out["unixbench_version"] = *result.unixbench_version;
    if (result.cpu_mitigations_costing_syscalls) {
        json mitigations = json::array();
        for (const auto& m : *result.cpu_mitigations_costing_syscalls)
            mitigations.push_back(
                {{"name", m.name}, {"mitigation", m.mitigation}, {"cost", m.cost}});
        out["cpu_mitigations_costing_syscalls"] = std::move(mitigations);
    }
}

void from_json(const json& in, SystemResult& result) {
    SystemResult read;
    read.note = in.at("note").get<std::string>();
    const json* version = find_member(in, "unixbench_version");
    read.unixbench_version =
        version ? std::optional<std::string>(version->get<std::string>()) : std::nullopt;
    if (find_member(in, "cpu_mitigations_costing_syscalls") != nullptr) {
        read.cpu_mitigations_costing_syscalls.emplace();
        for (const auto& m : array_member(in, "cpu_mitigations_costing_syscalls")) {
            read.cpu_mitigations_costing_syscalls->push_back({m.at("name").get<std::string>(),
                                                              m.at("mitigation").get<std::string>(),
                                                              m.at("cost").get<std::string>()});
        }
    }
    for (const auto& test : array_member(in, "tests"))
        read.tests.push_back(test_from_json(test));
    for (const auto& skipped : array_member(in, "skipped"))
        read.skipped.push_back(skipped_from_json(skipped));
    for (const auto& copies : array_member(in, "copies"))
        read.copies.push_back(integer_or_throw<size_t>(copies));
    read.seconds_per_test = number_or_throw(in.at("seconds_per_test"));
    read.cpu_budget = in.at("cpu_budget").get<host::CpuBudget>();
    if (const json* directory = find_member(in, "directory"); directory && !directory->is_null())
        read.directory = directory->get<std::string>();
    read.index = index_from_json(in.at("index"), in.at("index_tests"));
    // The report shows every pass's score.
    for (size_t copies : read.copies) {
        if (find_pass_index(read, copies) == nullptr)
            throw std::out_of_range("no index for " + std::to_string(copies) + " copies");
    }
    if (const json* index_partial = find_member(in, "index_partial")) {
        read.index_partial = index_partial->get<bool>();
    } else {
        read.index_partial = index_is_partial(read.index);
    }
    read.partial = in.at("partial").get<bool>();
    if (const json* series = find_member(in, "series"))
        read.series = series_from_json(*series, "work");
    result = std::move(read);
}

const SystemPassIndex* find_pass_index(const SystemResult& result, size_t copies) {
    const auto found = std::find_if(result.index.begin(), result.index.end(),
                                    [copies](const auto& pass) { return pass.copies == copies; });
    return found == result.index.end() ? nullptr : &*found;
}

std::vector<SystemResult> system_result_examples() {
    const SystemTestResult test{
        "dhrystone", "Dhrystone 2 using register variables", "lps", 1, 1e7, 116700, 856.9, 10, true,
        5691.5};
    SystemResult full{
        .note = "a note",
        .tests = {test},
        .skipped = {SystemSkippedTest{"shell8", "Shell Scripts (8 concurrent)", 1, "no /bin/sh"}},
        .copies = {1, 2},
        .seconds_per_test = 10,
        .cpu_budget = host::example_cpu_budget(),
        .cpu_mitigations_costing_syscalls =
            std::vector<host::SyscallCostingMitigation>{
                {"meltdown", "PTI", "every kernel entry and exit switches page tables"}},
        .directory = "/tmp",
        .index = {SystemPassIndex{1, 856.9, 1}, SystemPassIndex{2, std::nullopt, 0}},
        .index_partial = true,
        .partial = true,
        .series = {example_series_slice()}};
    SystemResult sparse = full;  // no DMIPS, no optional member of a series slice
    sparse.tests[0].dmips.reset();
    sparse.unixbench_version.reset();
    sparse.cpu_mitigations_costing_syscalls.reset();
    sparse.series = {example_sparse_series_slice()};
    return {SystemResult{}, full, sparse};
}

}  // namespace hostprobe::probes
