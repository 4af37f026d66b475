// parse_untrusted_json, the parser every outside JSON goes through, and the readers behind it:
// the input is parsed with the default limits and with tight ones (depth 3, 40 values).
// Invariants: no exception ever escapes; an accepted tree is within the limits, prints and
// parses back to itself and is what nlohmann's own parser builds; text refused as malformed or
// out of range is text nlohmann refuses too. Accepted trees then go through the readers of
// outside JSON (POST /v1/runs, a journal record, ECS task metadata), which must not throw.
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "api/runs_api.hpp"
#include "core/json_reads.hpp"
#include "core/json_text.hpp"
#include "core/untrusted_json.hpp"
#include "ecs/task_metadata.hpp"
#include "fuzz_support.hpp"
#include "runs/run_journal.hpp"

using namespace hostprobe;
using nlohmann::json;

namespace {

// Depth (`[]` is 1) and value count (keys included), without recursion.
std::pair<size_t, size_t> shape_of(const json& root) {
    size_t deepest = 0;
    size_t values = 0;
    std::vector<std::pair<const json*, size_t>> pending = {{&root, 0}};
    while (!pending.empty()) {
        const auto [value, depth] = pending.back();
        pending.pop_back();
        ++values;
        if (!value->is_structured()) continue;
        deepest = std::max(deepest, depth + 1);
        if (value->is_object()) values += value->size();
        for (const auto& child : *value)
            pending.emplace_back(&child, depth + 1);
    }
    return {deepest, values};
}

bool starts_with(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

void check(std::string_view text, const JsonLimits& limits) {
    const std::string input(text);
    auto parsed = parse_untrusted_json(text, limits);
    if (!parsed) {
        const std::string& message = parsed.error().message;
        FUZZ_CHECK(!message.empty(), input);
        // Malformed or out of range for us is malformed for nlohmann (its acceptor is
        // iterative, so deep input is safe to give it).
        if (starts_with(message, "malformed JSON") || starts_with(message, "number out of range"))
            FUZZ_CHECK(!json::accept(text), message + "\n" + input);
        return;
    }
    const auto [depth, values] = shape_of(*parsed);
    FUZZ_CHECK(depth <= limits.max_depth, std::to_string(depth) + "\n" + input);
    FUZZ_CHECK(values <= limits.max_values, std::to_string(values) + "\n" + input);
    FUZZ_CHECK(json::accept(text), input);
    FUZZ_CHECK(*parsed == json::parse(text), input);
    const std::string printed = json_text(*parsed);
    auto again = parse_untrusted_json(printed, {.max_bytes = printed.size(),
                                                .max_depth = limits.max_depth,
                                                .max_values = limits.max_values});
    FUZZ_CHECK(again && *again == *parsed, printed);

    // The readers that receive such trees.
    (void)api::parse_run_request("application/json", input);
    if (auto run = runs::run_from_json(*parsed)) {
        FUZZ_CHECK(!run->id.empty() && run->id.size() <= runs::kMaxRestoredNameBytes, run->id);
        FUZZ_CHECK(run->result.pretty_text().size() <= runs::kMaxRestoredResultBytes, input);
        (void)runs::to_json_text(*run);
    }
    if (const json* inside = find_member(*parsed, "run")) (void)runs::run_from_json(*inside);
    if (auto metadata = ecs::parse_task_metadata(*parsed, *parsed)) {
        if (metadata->cpu_limit_cores)
            FUZZ_CHECK(*metadata->cpu_limit_cores <= ecs::kMaxCpuLimitCores, input);
        (void)json_text(ecs::to_json(*metadata));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    check(text, JsonLimits{});
    check(text, JsonLimits{.max_bytes = 1 << 20, .max_depth = 3, .max_values = 40});
    return 0;
}
