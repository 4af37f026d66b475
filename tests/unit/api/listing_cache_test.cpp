#include "api/listing_cache.hpp"

#include <doctest/doctest.h>

using hostprobe::api::ListingCache;

namespace {

std::shared_ptr<const std::string> text(const std::string& content) {
    return std::make_shared<const std::string>(content);
}

}  // namespace

TEST_CASE("a listing is found for its filter at its version only") {
    ListingCache cache;
    CHECK(cache.find("all", "v1") == nullptr);
    cache.store("all", "v1", text("one"));
    REQUIRE(cache.find("all", "v1") != nullptr);
    CHECK(*cache.find("all", "v1") == "one");
    CHECK(cache.find("all", "v2") == nullptr);
    CHECK(cache.find("cipher", "v1") == nullptr);
    // A newer version replaces the filter's text: the older is never asked for again.
    cache.store("all", "v2", text("two"));
    CHECK(cache.find("all", "v1") == nullptr);
    CHECK(*cache.find("all", "v2") == "two");
    CHECK(cache.size() == 1);
}

TEST_CASE("at most kMaxEntries filters: the least recently used goes") {
    ListingCache cache;
    for (size_t i = 0; i < ListingCache::kMaxEntries; ++i)
        cache.store("filter" + std::to_string(i), "v", text(std::to_string(i)));
    CHECK(cache.find("filter0", "v") != nullptr);  // used last now; filter1 is the oldest
    cache.store("new", "v", text("new"));
    CHECK(cache.size() == ListingCache::kMaxEntries);
    CHECK(cache.find("filter1", "v") == nullptr);
    CHECK(cache.find("filter0", "v") != nullptr);
    CHECK(cache.find("new", "v") != nullptr);
}

TEST_CASE("a text too large is never kept") {
    ListingCache cache;
    cache.store("all", "v", text(std::string(ListingCache::kMaxTextBytes + 1, 'x')));
    CHECK(cache.find("all", "v") == nullptr);
    CHECK(cache.size() == 0);
}

TEST_CASE("drop_unused keeps what was found since the last sweep and drops the rest") {
    ListingCache cache;
    cache.store("polled", "v", text("p"));
    cache.store("once", "v", text("o"));
    CHECK_FALSE(cache.drop_unused());  // both new since the last sweep
    CHECK(cache.find("polled", "v") != nullptr);
    CHECK(cache.drop_unused());  // "once" was not asked for again
    CHECK(cache.size() == 1);
    CHECK(cache.find("once", "v") == nullptr);
    CHECK(cache.find("polled", "v") != nullptr);
    CHECK_FALSE(cache.drop_unused());
    CHECK(cache.drop_unused());  // nobody asks any more: nothing is kept
    CHECK(cache.size() == 0);
    // A reply still being sent keeps its own text.
    cache.store("all", "v", text("sent"));
    const auto held = cache.find("all", "v");
    cache.drop_unused();
    cache.drop_unused();
    CHECK(cache.size() == 0);
    CHECK(*held == "sent");
}
