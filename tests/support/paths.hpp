// Where the tests find their fixtures (set by tests/CMakeLists.txt).
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace hostprobe::testing {

inline std::string fixtures_dir() {
    return HOSTPROBE_FIXTURES_DIR;
}

// A fixture file's whole text; a missing one fails the test that asked for it.
inline std::string fixture_text(const std::string& relative) {
    std::ifstream in(fixtures_dir() + "/" + relative);
    REQUIRE_MESSAGE(in.good(), "missing fixture " << relative);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

}  // namespace hostprobe::testing
