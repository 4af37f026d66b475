#include "runs/run.hpp"

#include <doctest/doctest.h>

#include "core/json_text.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using nlohmann::json;

namespace {

Run finished_run() {
    Run run;
    run.id = "0123abcd";
    run.probe = "cpu";
    // A params key named like the envelope's keys, nested: the splice must not be fooled.
    run.params = {{"nested", {{"result", nullptr}, {"list", {1, 2}}}}, {"text", "a\nb"}};
    run.trigger = "api";
    run.state = RunState::succeeded;
    run.progress = 1;
    run.created_at = WallClock::time_point(std::chrono::milliseconds(1'700'000'000'123));
    run.started_at = run.created_at;
    run.finished_at = run.created_at + std::chrono::seconds(2);
    run.result = json{{"flags", {"aes", "avx2"}},
                      {"cache", {{"l1d", {{"size", 32768}}}}},
                      {"empty", json::object()},
                      {"note", "line 1\nline 2 \"quoted\""}};
    return run;
}

}  // namespace

TEST_CASE("to_json_text prints what json_text(to_json(run), 2) prints") {
    Run run = finished_run();
    CHECK(to_json_text(run) == json_text(to_json(run), 2));
    CHECK(json::parse(to_json_text(run))["result"]["cache"]["l1d"]["size"] == 32768);

    SUBCASE("without a result, failed") {
        run.result = core::SharedJson();
        run.state = RunState::failed;
        run.error = "the probe failed: boom";
        run.finished_at.reset();
        CHECK(to_json_text(run) == json_text(to_json(run), 2));
    }
    SUBCASE("with a scalar or empty result") {
        run.result = json(42);
        CHECK(to_json_text(run) == json_text(to_json(run), 2));
        run.result = json::array();
        CHECK(to_json_text(run) == json_text(to_json(run), 2));
    }
}

TEST_CASE("to_json_text indents for nesting: a listing is printed as json_text prints it") {
    const Run run = finished_run();
    const std::string expected = json_text(json{{"runs", {to_json(run)}}}, 2);
    CHECK(expected == "{\n  \"runs\": [\n    " + to_json_text(run, 4) + "\n  ]\n}");
}
