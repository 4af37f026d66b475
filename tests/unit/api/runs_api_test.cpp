// The runs API through the router, in process, with probes the test controls.
#include "api/runs_api.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include "core/json_text.hpp"
#include "support/fake_probe.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using namespace hostprobe::runs;
using hostprobe::testing::FakeProbe;
using nlohmann::json;

namespace {

ProbeRegistry registry_with(FakeProbe*& fake) {
    auto probe = std::make_unique<FakeProbe>("measure", true);
    fake = probe.get();
    ProbeRegistry registry;
    registry.add(std::move(probe));
    return registry;
}

struct Api {
    Api() {
        runner->start();
        api::add_runs_routes(router, context);
    }
    ~Api() {
        fake->release();
        runner->shutdown();
    }
    http::Reply send(const std::string& method, const std::string& target,
                     const std::string& body = "", const std::string& type = "application/json") {
        httplib::Request request;
        request.method = method;
        const size_t question = target.find('?');
        request.path = target.substr(0, question);
        if (question != std::string::npos)
            httplib::detail::parse_query_text(target.substr(question + 1), request.params);
        request.body = body;
        if (!type.empty()) request.headers.emplace("Content-Type", type);
        return router.dispatch(request);
    }

    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    host::HostFacts facts{host::collect_host_facts(root)};
    task::TaskState host_state{facts};
    FakeProbe* fake = nullptr;
    ProbeRegistry registry = registry_with(fake);
    std::unique_ptr<Runner> runner = std::make_unique<Runner>(RunnerOptions{1, 100, 1}, registry,
                                                              ProbeContextSource{root, host_state});
    api::RateLimiter unlimited{0};
    api::WaitSlots waiters{1};
    api::RunsApiContext context{*runner, registry, unlimited, waiters};
    http::Router router;
};

std::string header(const http::Reply& reply, const std::string& name) {
    for (const auto& [key, value] : reply.headers) {
        if (key == name) return value;
    }
    return "";
}

}  // namespace

TEST_CASE("POST /v1/runs queues (202 + Location) or waits (200)") {
    Api api;
    const http::Reply queued =
        api.send("POST", "/v1/runs", R"({"probe": "measure", "params": {"value": 3}})");
    CHECK(queued.status == 202);
    const json run = json::parse(queued.body);
    CHECK(header(queued, "Location") == "/v1/runs/" + run["id"].get<std::string>());
    CHECK(run["params"]["value"] == 3);
    CHECK(run["state"] == "queued");
    REQUIRE(api.runner->wait(run["id"], std::chrono::seconds(10))->state ==
            RunState::succeeded);  // frees the one slot

    const http::Reply waited = api.send("POST", "/v1/runs?wait=10", R"({"probe": "measure"})");
    CHECK(waited.status == 200);
    CHECK(json::parse(waited.body)["state"] == "succeeded");
    CHECK(json::parse(waited.body)["result"]["value"] == 1);

    const http::Reply fetched =
        api.send("GET", "/v1/runs/" + json::parse(waited.body)["id"].get<std::string>());
    CHECK(fetched.status == 200);
    const http::Reply text = api.send(
        "GET", "/v1/runs/" + json::parse(waited.body)["id"].get<std::string>() + "?format=text");
    CHECK(text.body == "value 1\n");
}

TEST_CASE("?wait beyond the waiting bound is refused before its run starts") {
    Api api;
    std::optional<api::WaitSlots::Slot> held = api.waiters.try_take();  // the only slot
    REQUIRE(held.has_value());
    const http::Reply refused = api.send("POST", "/v1/runs?wait=10", R"({"probe": "measure"})");
    CHECK(refused.status == 429);
    CHECK(header(refused, "Retry-After") == "1");
    CHECK(json::parse(refused.body)["error"].get<std::string>().find("without ?wait") !=
          std::string::npos);
    CHECK(api.runner->list(runs::RunFilter{})
              .empty());  // nothing was started for the refused request
    // Without ?wait the same request needs no slot.
    const http::Reply queued = api.send("POST", "/v1/runs", R"({"probe": "measure"})");
    CHECK(queued.status == 202);
    REQUIRE(api.runner->wait(json::parse(queued.body)["id"], std::chrono::seconds(10))->state ==
            RunState::succeeded);  // frees the runner's one slot
    held.reset();
    CHECK(api.send("POST", "/v1/runs?wait=10", R"({"probe": "measure"})").status == 200);
}

TEST_CASE("bad requests get the right status and a message that helps") {
    Api api;
    auto status_and_error = [&](const http::Reply& reply) {
        return std::pair<int, std::string>{reply.status,
                                           json::parse(reply.body)["error"].get<std::string>()};
    };
    auto [unknown_status, unknown] =
        status_and_error(api.send("POST", "/v1/runs", R"({"probe": "nope"})"));
    CHECK(unknown_status == 404);
    CHECK(unknown == "unknown probe 'nope'; probes: measure");
    auto [param_status, param] = status_and_error(
        api.send("POST", "/v1/runs", R"({"probe": "measure", "params": {"speed": 1}})"));
    CHECK(param_status == 400);
    CHECK(param.find("unknown parameter 'speed'") != std::string::npos);
    auto [range_status, range] = status_and_error(
        api.send("POST", "/v1/runs", R"({"probe": "measure", "params": {"value": 101}})"));
    CHECK(range_status == 400);
    CHECK(range == "'value' is 101; it must be from 0 to 100");
    auto [json_status, malformed] = status_and_error(api.send("POST", "/v1/runs", R"({"probe": )"));
    CHECK(json_status == 400);
    CHECK(malformed.rfind("malformed JSON at byte 11", 0) == 0);
    CHECK(
        api.send("POST", "/v1/runs", "probe=measure", "application/x-www-form-urlencoded").status ==
        415);
    CHECK(api.send("POST", "/v1/runs", R"({"probe": "measure"})", "").status == 415);
    CHECK(api.send("POST", "/v1/runs", R"({"probe": "measure"})", "application/json; charset=utf-8")
              .status == 202);
    CHECK(api.send("POST", "/v1/runs", R"({"probe": "measure", "extra": 1})").status == 400);
    CHECK(api.send("POST", "/v1/runs", R"([1, 2])").status == 400);
    CHECK(api.send("POST", "/v1/runs?wait=601", R"({"probe": "measure"})").status == 400);
    CHECK(api.send("GET", "/v1/runs/nope").status == 404);
    CHECK(api.send("DELETE", "/v1/runs/nope").status == 404);
    CHECK(api.send("GET", "/v1/runs?state=sleeping").status == 400);
    CHECK(api.send("GET", "/v1/runs?limit=0").status == 400);
    CHECK(api.send("GET", "/v1/runs?probe=nope").status == 400);
}

TEST_CASE("a full queue answers 429 with Retry-After") {
    Api api;
    CHECK(
        api.send("POST", "/v1/runs", R"({"probe": "measure", "params": {"block": true}})").status ==
        202);
    REQUIRE(api.fake->wait_started(1));
    CHECK(api.send("POST", "/v1/runs", R"({"probe": "measure"})").status ==
          202);  // fills the one slot
    const http::Reply refused = api.send("POST", "/v1/runs", R"({"probe": "measure"})");
    CHECK(refused.status == 429);
    CHECK(std::stoi(header(refused, "Retry-After")) >= 1);
}

TEST_CASE("DELETE cancels; listing filters; a throwing probe fails its run only") {
    Api api;
    const json running = json::parse(
        api.send("POST", "/v1/runs", R"({"probe": "measure", "params": {"block": true}})").body);
    REQUIRE(api.fake->wait_started(1));
    const http::Reply cancelling =
        api.send("DELETE", "/v1/runs/" + running["id"].get<std::string>());
    CHECK((cancelling.status == 202 || cancelling.status == 200));
    const auto done = api.runner->wait(running["id"], std::chrono::seconds(10));
    CHECK(done->state == RunState::cancelled);
    CHECK(api.send("DELETE", "/v1/runs/" + running["id"].get<std::string>()).status == 409);

    const json thrown = json::parse(
        api.send("POST", "/v1/runs?wait=10", R"({"probe": "measure", "params": {"throw": true}})")
            .body);
    CHECK(thrown["state"] == "failed");
    CHECK(thrown["error"] == "the probe failed: boom");

    const json listed = json::parse(api.send("GET", "/v1/runs?state=cancelled").body);
    REQUIRE(listed["runs"].size() == 1);
    CHECK(listed["runs"][0]["id"] == running["id"]);
    CHECK(json::parse(api.send("GET", "/v1/runs?limit=1").body)["runs"][0]["id"] == thrown["id"]);
}

TEST_CASE("GET /v1/probes describes every probe from its parameter table") {
    Api api;
    const json probes = json::parse(api.send("GET", "/v1/probes").body)["probes"];
    REQUIRE(probes.size() == 1);
    CHECK(probes[0]["name"] == "measure");
    CHECK(probes[0]["exclusive"] == true);
    CHECK(probes[0]["params"][3]["max"] == 100);
}

TEST_CASE("GET /v1/runs prints the same JSON, byte for byte, as a pretty dump of it would") {
    Api api;
    const std::string empty = api.send("GET", "/v1/runs").body;
    CHECK(empty == "{\n  \"runs\": []\n}\n");
    api.fake->release();
    for (int value : {3, 4})
        api.send("POST", "/v1/runs?wait=10",
                 R"({"probe": "measure", "params": {"value": )" + std::to_string(value) + "}}");
    const std::string body = api.send("GET", "/v1/runs").body;
    const json listed = json::parse(body);
    REQUIRE(listed["runs"].size() == 2);
    CHECK(listed["runs"][0]["result"]["value"] == 4);
    CHECK(body == json_text(listed, 2) + "\n");
}

TEST_CASE("numbers out of range and deep nesting in a body are 400 with a message, not 500") {
    Api api;
    auto error_of = [&](const std::string& body) {
        const http::Reply reply = api.send("POST", "/v1/runs", body);
        CHECK(reply.status == 400);
        return json::parse(reply.body)["error"].get<std::string>();
    };
    CHECK(error_of(R"({"probe": "measure", "params": {"value": 1e400}})") ==
          "number out of range at byte 42: 1e400");
    CHECK(error_of(R"({"probe": "measure", "extra": -1e400})") ==
          "number out of range at byte 31: -1e400");
    const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
    CHECK(error_of(R"({"probe": "measure", "params": {"value": )" + deep + "}}") ==
          "JSON nested deeper than 32 levels at byte 72");
    CHECK(error_of(deep).rfind("JSON nested deeper than 32 levels", 0) == 0);
    // Values that parse but cannot be the parameter's type are the table's to refuse.
    CHECK(error_of(R"({"probe": "measure", "params": {"value": 1e300}})") ==
          "'value' is 1e+300; it must be from 0 to 100");
    CHECK(error_of(R"({"probe": "measure", "params": {"value": [[[1]]]}})").find("'value'") !=
          std::string::npos);
}

TEST_CASE("parse_run_request never throws, whatever the body") {
    for (const std::string& body :
         {std::string(R"({"probe": 1e400})"), std::string(R"({"probe": "x", "params": 1e400})"),
          std::string(1 << 20, '{'), std::string(R"({"probe": "x", "params": null})"),
          std::string(R"({"probe": ["x"]})"), std::string("\"\\ud800\"")}) {
        CHECK_NOTHROW((void)api::parse_run_request("application/json", body));
        CHECK_FALSE(api::parse_run_request("application/json", body).ok());
    }
}

TEST_CASE("a listing kept for its version is served again; a change to any run lists anew") {
    Api api;
    api::ListingCache listings;
    api.context.listings = &listings;
    api.fake->release();
    api.send("POST", "/v1/runs?wait=10", R"({"probe": "measure", "params": {"value": 3}})");
    const http::Reply first = api.send("GET", "/v1/runs");
    CHECK(listings.size() == 1);
    const http::Reply again = api.send("GET", "/v1/runs");
    CHECK(again.body == first.body);
    CHECK(header(again, "ETag") == header(first, "ETag"));
    // The conditional request still gets its 304.
    httplib::Request conditional;
    conditional.method = "GET";
    conditional.path = "/v1/runs";
    conditional.headers.emplace("If-None-Match", header(first, "ETag"));
    CHECK(api.router.dispatch(conditional).status == 304);

    api.send("POST", "/v1/runs?wait=10", R"({"probe": "measure", "params": {"value": 4}})");
    const http::Reply changed = api.send("GET", "/v1/runs");
    CHECK(header(changed, "ETag") != header(first, "ETag"));
    const json listed = json::parse(changed.body);
    REQUIRE(listed["runs"].size() == 2);
    CHECK(listed["runs"][0]["result"]["value"] == 4);
    CHECK(changed.body == json_text(listed, 2) + "\n");
    // Each filter has its own text.
    const json one = json::parse(api.send("GET", "/v1/runs?limit=1").body);
    CHECK(one["runs"].size() == 1);
    CHECK(listings.size() == 2);
}
