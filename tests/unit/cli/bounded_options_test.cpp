#include "cli/bounded_options.hpp"

#include <doctest/doctest.h>

using namespace hostprobe::cli;

namespace {

struct Settings {
    double threads = 0;
    double bytes = 0;
    double price = 0;
};

ParsedOptions with(std::initializer_list<std::pair<std::string, std::string>> values) {
    ParsedOptions options;
    for (const auto& [name, value] : values)
        options.set(name, value, "flag");
    return options;
}

const std::vector<BoundedOption<Settings>> kTable = {
    {"threads", ValueKind::count, 1, 256, [](Settings& s, double v) { s.threads = v; }, true},
    {"bytes", ValueKind::size, 1024, 16 << 20, [](Settings& s, double v) { s.bytes = v; }},
    {"price", ValueKind::dollars, 0, 1000, [](Settings& s, double v) { s.price = v; }},
};

}  // namespace

TEST_CASE("bounded options: each value parsed by its kind and applied") {
    Settings settings;
    REQUIRE(apply_bounded(with({{"threads", "8"}, {"bytes", "64k"}, {"price", "0.04048"}}), kTable,
                          settings)
                .ok());
    CHECK(settings.threads == 8);
    CHECK(settings.bytes == 65536);
    CHECK(settings.price == doctest::Approx(0.04048));
}

TEST_CASE("bounded options: an option without a default is applied only when given") {
    Settings settings;
    settings.threads = 3;
    REQUIRE(apply_bounded(with({{"bytes", "2k"}, {"price", "1"}}), kTable, settings).ok());
    CHECK(settings.threads == 3);
}

TEST_CASE("bounded options: out of range, wrong kind or empty names the option and its range") {
    Settings settings;
    const auto error_of = [&](std::initializer_list<std::pair<std::string, std::string>> values) {
        auto applied = apply_bounded(with(values), kTable, settings);
        REQUIRE_FALSE(applied.ok());
        return applied.error().message;
    };
    CHECK(error_of({{"threads", "0"}, {"bytes", "2k"}, {"price", "1"}}) ==
          "--threads must be a number from 1 to 256");
    CHECK(error_of({{"threads", "2.5"}, {"bytes", "2k"}, {"price", "1"}}) ==
          "--threads must be a number from 1 to 256");
    CHECK(error_of({{"bytes", "1g"}, {"price", "1"}}) == "--bytes must be a size from 1k to 16m");
    CHECK(error_of({{"bytes", "2k"}, {"price", "-1"}}) ==
          "--price must be dollars from 0 to 1000, e.g. 0.04048");
    CHECK(error_of({{"bytes", "2k"}, {"price", "nan"}}) ==
          "--price must be dollars from 0 to 1000, e.g. 0.04048");
    CHECK(error_of({{"bytes", ""}, {"price", "1"}}) == "--bytes must be a size from 1k to 16m");
}
