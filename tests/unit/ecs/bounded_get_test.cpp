// GET of an ECS metadata document, bounded in size and in time as a whole: an endpoint that
// trickles, closes mid-answer, redirects or sends more than the limit gives an error, quickly.
#include "ecs/bounded_get.hpp"

#include <doctest/doctest.h>

#include "support/fake_ecs_endpoint.hpp"

using namespace hostprobe;
using namespace hostprobe::ecs;
using hostprobe::testing::FakeEcsEndpoint;
using Mode = FakeEcsEndpoint::Mode;

namespace {

struct Got {
    Result<nlohmann::json> document;
    std::chrono::steady_clock::duration took;
};

Got get_task(const FakeEcsEndpoint& endpoint, const GetLimits& limits) {
    auto url = http::parse_http_url(endpoint.uri());
    REQUIRE(url.ok());
    const auto started = std::chrono::steady_clock::now();
    auto document = get_bounded_json(with_path_suffix(*url, "/task"), limits);
    return {std::move(document), std::chrono::steady_clock::now() - started};
}

std::string message_of(const Got& got) {
    REQUIRE_FALSE(got.document.ok());
    return got.document.error().message;
}

}  // namespace

TEST_CASE("a whole document within the limits is read") {
    FakeEcsEndpoint endpoint(R"({"Containers": []})", "{}");
    auto got = get_task(endpoint, {});
    REQUIRE(got.document.ok());
    CHECK(got.document->contains("Containers"));
}

TEST_CASE("a body trickled a byte at a time ends at the deadline, not a read timeout later") {
    FakeEcsEndpoint endpoint("{}", "{}", Mode::trickle);
    auto got = get_task(endpoint, {.deadline = std::chrono::milliseconds(600)});
    CHECK(message_of(got).find("no whole answer within 600 ms") != std::string::npos);
    CHECK(got.took < std::chrono::seconds(3));
}

TEST_CASE("an endpoint that never answers ends at the deadline") {
    FakeEcsEndpoint endpoint("{}", "{}", Mode::silent);
    auto got = get_task(endpoint, {.deadline = std::chrono::milliseconds(500)});
    CHECK_FALSE(got.document.ok());
    CHECK(got.took < std::chrono::seconds(3));
}

TEST_CASE("closed mid-answer, redirected, too large: each an error that says so") {
    {
        FakeEcsEndpoint endpoint(std::string(5000, ' ') + "{}", "{}", Mode::close_mid_answer);
        CHECK_FALSE(get_task(endpoint, {}).document.ok());
    }
    {
        FakeEcsEndpoint endpoint("{}", "{}", Mode::redirect);
        CHECK(message_of(get_task(endpoint, {})).find("HTTP 302") != std::string::npos);
    }
    {
        FakeEcsEndpoint endpoint("{}", "{}", Mode::huge);
        CHECK(message_of(get_task(endpoint, {})).find("larger than 1048576 bytes") !=
              std::string::npos);
    }
    {
        FakeEcsEndpoint endpoint("{}", "{}", Mode::malformed);
        CHECK(message_of(get_task(endpoint, {})).find("malformed JSON") != std::string::npos);
    }
}

TEST_CASE("more values than allowed is an error, not a big tree") {
    std::string many = "[";
    for (int i = 0; i < 2000; ++i)
        many += "0,";
    many += "0]";
    FakeEcsEndpoint endpoint(many, "{}");
    CHECK_FALSE(get_task(endpoint, {.max_values = 1000}).document.ok());
}

TEST_CASE("paths are joined as the endpoint's base path plus the suffix") {
    auto url = http::parse_http_url("http://169.254.170.2/v4/abc");
    REQUIRE(url.ok());
    CHECK(with_path_suffix(*url, "/task/stats").path == "/v4/abc/task/stats");
    auto root = http::parse_http_url("http://169.254.170.2/");
    REQUIRE(root.ok());
    CHECK(with_path_suffix(*root, "/task").path == "/task");
}
