// GET /openapi.json against the router it describes: every registered route is in it, probe
// parameter tables become request-body schemas, every $ref resolves, and security follows the
// access policy.
#include "api/openapi.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include <algorithm>
#include <functional>

#include "api/host_api.hpp"
#include "api/openapi_schemas.hpp"
#include "api/runs_api.hpp"
#include "core/json_shape.hpp"
#include "core/strings.hpp"
#include "probes/registry.hpp"
#include "support/fake_probe.hpp"
#include "support/paths.hpp"

using namespace hostprobe;
using hostprobe::testing::FakeProbe;
using nlohmann::json;

namespace {

// The real routes of serve, with a fake probe "measure" for the builtin ones.
struct DescribedApi {
    DescribedApi() {
        registry.add(std::make_unique<FakeProbe>("measure", false));
        api::add_host_routes(router, host_context);
        api::add_runs_routes(router, runs_context);
        api::add_openapi_route(router, registry);
        api::add_index_route(router);
    }
    json document() const {
        httplib::Request request;
        request.method = "GET";
        request.path = "/openapi.json";
        const http::Reply reply = router.dispatch(request);
        REQUIRE(reply.status == 200);
        return json::parse(reply.body);
    }

    SysRoot root{testing::fixtures_dir() + "/sysroots/graviton2-8cpu"};
    task::TaskState host_state{host::collect_host_facts(root)};
    metrics::Exposition exposition;
    host::LiveHistory live;
    api::HostApiContext host_context{root, host_state, exposition, std::chrono::steady_clock::now(),
                                     live};
    runs::ProbeRegistry registry;
    runs::Runner runner{runs::RunnerOptions{1, 10, 1}, registry,
                        runs::ProbeContextSource{root, host_state}};
    api::RateLimiter unlimited{0};
    api::WaitSlots waiters{1};
    api::RunsApiContext runs_context{runner, registry, unlimited, waiters};
    http::Router router;
};

// Every {"$ref": "#/..."} anywhere in `value`.
void each_openapi_ref(const json& value, const std::function<void(const std::string&)>& visit) {
    if (value.is_object()) {
        for (const auto& [key, member] : value.items()) {
            if (key == "$ref" && member.is_string()) visit(member.get<std::string>());
            each_openapi_ref(member, visit);
        }
    } else if (value.is_array()) {
        for (const auto& item : value)
            each_openapi_ref(item, visit);
    }
}

}  // namespace

TEST_CASE("every route registered in the router is an operation of /openapi.json") {
    DescribedApi api;
    const json document = api.document();
    CHECK(document["openapi"] == "3.1.0");
    const auto routes = api.router.routes();
    CHECK(routes.size() >= 10);
    for (const auto& route : routes) {
        INFO(route.method << " " << route.pattern);
        const std::string method = route.method == "GET"      ? "get"
                                   : route.method == "POST"   ? "post"
                                   : route.method == "DELETE" ? "delete"
                                                              : route.method;
        REQUIRE(document["paths"].contains(route.pattern));
        REQUIRE(document["paths"][route.pattern].contains(method));
        const json& operation = document["paths"][route.pattern][method];
        CHECK(operation["summary"] == route.description);
        CHECK(operation["responses"].contains("200"));
        CHECK(operation["responses"].contains("500"));
    }
    const json& get_run = document["paths"]["/v1/runs/{id}"]["get"];
    REQUIRE(get_run["parameters"].size() == 2);
    CHECK(get_run["parameters"][0]["name"] == "id");
    CHECK(get_run["parameters"][0]["in"] == "path");
    CHECK(get_run["parameters"][0]["schema"]["maxLength"] == CPPHTTPLIB_REQUEST_URI_MAX_LENGTH);
    CHECK(get_run["parameters"][1]["schema"]["enum"] == json{"json", "text"});
    CHECK(get_run["responses"]["200"]["content"].contains("text/plain"));
    CHECK(document["paths"]["/v1/runs"]["get"]["parameters"][0]["schema"]["enum"] ==
          json{"measure"});
}

TEST_CASE("a probe's parameter table is its request-body schema in /openapi.json") {
    DescribedApi api;
    const json schemas = api.document()["components"]["schemas"];
    CHECK(schemas["RunRequest"]["oneOf"] ==
          json{{{"$ref", "#/components/schemas/RunRequest.measure"}}});
    CHECK(schemas["RunRequest"]["discriminator"]["mapping"]["measure"] ==
          "#/components/schemas/RunRequest.measure");
    CHECK(schemas["RunRequest.measure"]["properties"]["probe"] == json{{"const", "measure"}});
    const json& params = schemas["Params.measure"];
    CHECK(params["additionalProperties"] == false);
    CHECK(params["properties"].size() == 4);
    CHECK(params["properties"]["value"] == json{{"type", "integer"},
                                                {"format", "int64"},
                                                {"minimum", 0},
                                                {"maximum", 100},
                                                {"default", 1},
                                                {"description", "echoed"}});
    CHECK(params["properties"]["block"]["type"] == "boolean");
    CHECK(schemas["Run.measure"]["properties"]["params"]["$ref"] ==
          "#/components/schemas/RunParams.measure");
    // The answer's params: every one, defaults filled in.
    CHECK(schemas["RunParams.measure"]["required"].size() == 4);
    CHECK_FALSE(params.contains("required"));
    CHECK(schemas["Run.measure"]["properties"]["state"]["enum"] ==
          json{"queued", "running", "succeeded", "failed", "cancelled"});
    // Not a TypedProbe: any object.
    CHECK(schemas["Result.measure"]["type"] == "object");
}

TEST_CASE("every $ref of /openapi.json resolves within the document") {
    DescribedApi api;
    const json document = api.document();
    int refs = 0;
    each_openapi_ref(document, [&](const std::string& ref) {
        INFO(ref);
        REQUIRE(ref.rfind("#/", 0) == 0);
        CHECK(document.contains(json::json_pointer(ref.substr(1))));
        ++refs;
    });
    CHECK(refs > 50);
}

TEST_CASE("/openapi.json's security follows the access policy") {
    DescribedApi api;
    const json paths = api.document()["paths"];
    const json bearer = {{"bearerToken", json::array()}};
    CHECK(paths["/v1/runs"]["post"]["security"] == json{bearer});
    CHECK(paths["/v1/runs/{id}"]["delete"]["security"] == json{bearer});
    CHECK(paths["/v1/runs"]["get"]["security"] == json{bearer, json::object()});
    CHECK(paths["/metrics"]["get"]["security"] == json{bearer, json::object()});
    CHECK(paths["/healthz"]["get"]["security"] == json::array());
    CHECK(paths["/v1/runs"]["post"]["responses"].contains("401"));
    CHECK_FALSE(paths["/healthz"]["get"]["responses"].contains("401"));
    CHECK(paths["/v1/runs"]["post"]["responses"]["429"]["headers"].contains("Retry-After"));
}

TEST_CASE("every operation of /openapi.json has a tag the document lists, and a description") {
    DescribedApi api;
    const json document = api.document();
    std::vector<std::string> listed;
    for (const auto& tag : document["tags"])
        listed.push_back(tag["name"]);
    int operations = 0;
    for (const auto& [path, item] : document["paths"].items()) {
        for (const auto& [method, operation] : item.items()) {
            INFO(method << " " << path);
            REQUIRE(operation.contains("tags"));
            CHECK(std::find(listed.begin(), listed.end(), operation["tags"][0]) != listed.end());
            CHECK(operation["description"].get<std::string>().size() >
                  operation["summary"].get<std::string>().size());
            ++operations;
        }
    }
    CHECK(operations >= 9);
    CHECK(document["servers"][0]["url"] == "/");
}

TEST_CASE("the built-in probes' results and the host are typed to the last member") {
    probes::ProbeSetup setup;
    const runs::ProbeRegistry registry = probes::builtin_probes(setup);
    const json schemas = api::component_schemas(registry);
    for (const auto& probe : registry.probes()) {
        INFO(probe->name());
        const json& result = schemas["Result." + probe->name()];
        CHECK(join(schema_gaps(result), "; ") == "");
        CHECK(result["properties"].size() > 3);
    }
    CHECK(join(schema_gaps(schemas["Host"]), "; ") == "");
    CHECK(schemas["Host"]["properties"]["ecs"]["type"] == json{"object", "null"});
    // `hostprobe cpu` knows the host only: never a task.
    CHECK(schemas["Result.cpu"]["properties"]["ecs"] == json{{"type", "null"}});
    // Lists are described by their items, nested objects by their members.
    const json& cipher = schemas["Result.cipher"]["properties"];
    CHECK(cipher["measurements"]["items"]["properties"]["bytes_per_second"]["type"] == "number");
    CHECK(cipher["cpu_budget"]["properties"]["cores"]["type"] == "number");
    CHECK(cipher["steal_seconds"]["type"] == json{"number", "null"});
    CHECK(cipher["openssl_cpu"]["properties"].contains("aes"));    // x86's features
    CHECK(cipher["openssl_cpu"]["properties"].contains("pmull"));  // ARM's
    const json& required = schemas["Result.cipher"]["required"];
    CHECK(std::find(required.begin(), required.end(), "measurements") != required.end());
    CHECK(std::find(required.begin(), required.end(), "series") == required.end());
    const json& host = schemas["Host"]["properties"];
    CHECK(host["caches"]["items"]["properties"]["size_bytes"]["format"] == "int64");
    CHECK(host["live"]["properties"]["memory"]["properties"]["events_total"]["additionalProperties"]
              ["type"] == "integer");
    CHECK(host["cpu"]["properties"]["family"]["type"] == json{"string", "integer", "null"});
}

TEST_CASE("/openapi.json states the request body limit the server was started with") {
    DescribedApi described;
    described.runs_context.max_body_bytes = 12345;
    http::Router router;
    api::add_runs_routes(router, described.runs_context);
    api::add_openapi_route(router, described.registry);
    httplib::Request request;
    request.method = "GET";
    request.path = "/openapi.json";
    const http::Reply reply = router.dispatch(request);
    REQUIRE(reply.status == 200);
    const json body = json::parse(reply.body)["paths"]["/v1/runs"]["post"]["requestBody"];
    CHECK(body["description"].get<std::string>().find("at most 12345 bytes") != std::string::npos);
}
