#include "http/router.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

using namespace hostprobe;
using namespace hostprobe::http;

namespace {

httplib::Request request(const std::string& method, const std::string& path) {
    httplib::Request request;
    request.method = method;
    request.path = path;
    return request;
}

Router test_router() {
    Router router;
    router.add("GET", "/v1/things/{id}", "one thing", [](const RouteRequest& r) -> Result<Reply> {
        return Reply::text(r.path_params.at("id"));
    });
    router.add("DELETE", "/v1/things/{id}", "drop", [](const RouteRequest&) -> Result<Reply> {
        return make_error(ErrorCode::not_found, "no such thing");
    });
    router.add("GET", "/boom", "throws",
               [](const RouteRequest&) -> Result<Reply> { throw std::runtime_error("kaput"); });
    return router;
}

}  // namespace

TEST_CASE("routes match whole segments and capture parameters") {
    const Router router = test_router();
    const Reply reply = router.dispatch(request("GET", "/v1/things/42"));
    CHECK(reply.status == 200);
    CHECK(reply.body == "42");
    CHECK(router.dispatch(request("HEAD", "/v1/things/42")).status == 200);
    CHECK(router.routes().size() == 3);
}

TEST_CASE("unknown paths are 404 and wrong methods 405 with Allow, both as JSON errors") {
    const Router router = test_router();
    const Reply missing = router.dispatch(request("GET", "/v1/other"));
    CHECK(missing.status == 404);
    const auto body = nlohmann::json::parse(missing.body);
    CHECK(body["status"] == 404);
    CHECK(body["error"].get<std::string>().find("/v1/other") != std::string::npos);

    const Reply wrong = router.dispatch(request("POST", "/v1/things/1"));
    CHECK(wrong.status == 405);
    REQUIRE(wrong.headers.size() == 1);
    CHECK(wrong.headers[0] == std::pair<std::string, std::string>{"Allow", "GET, DELETE, HEAD"});
}

TEST_CASE("errors become status codes and exceptions become 500s") {
    const Router router = test_router();
    const Reply gone = router.dispatch(request("DELETE", "/v1/things/1"));
    CHECK(gone.status == 404);
    CHECK(nlohmann::json::parse(gone.body)["error"] == "no such thing");
    const Reply boom = router.dispatch(request("GET", "/boom"));
    CHECK(boom.status == 500);
    CHECK(nlohmann::json::parse(boom.body)["error"] == "internal error: kaput");
}

TEST_CASE("a path that is not UTF-8 gets a JSON 404, not a 500") {
    // Found by fuzz_http_api: "/v%CF%CC" decodes to bytes that nlohmann::json cannot print.
    const Reply reply = test_router().dispatch(request("GET", "/v\xCF\xCCruns"));
    CHECK(reply.status == 404);
    CHECK(nlohmann::json::accept(reply.body));
}

TEST_CASE("a trailing {name...} takes one or more segments, joined by '/'") {
    Router router;
    router.add("GET", "/ui/{asset...}", "files", [](const RouteRequest& r) -> Result<Reply> {
        return Reply::text(r.path_params.at("asset"));
    });
    router.add("GET", "/ui", "the folder",
               [](const RouteRequest&) -> Result<Reply> { return Reply::text("folder"); });
    CHECK(router.dispatch(request("GET", "/ui/app.js")).body == "app.js");
    CHECK(router.dispatch(request("GET", "/ui/vendor/uPlot.min.css")).body ==
          "vendor/uPlot.min.css");
    CHECK(router.dispatch(request("GET", "/ui//vendor//x.js")).body == "vendor/x.js");
    CHECK(router.dispatch(request("GET", "/ui/../v1/host")).body == "../v1/host");
    CHECK(router.dispatch(request("GET", "/ui")).body == "folder");
    CHECK(router.dispatch(request("GET", "/ui/")).body == "folder");
    CHECK(router.dispatch(request("GET", "/v1/ui/x")).status == 404);
    CHECK(router.dispatch(request("POST", "/ui/app.js")).status == 405);
}
