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

// Any file's whole content, byte for byte; "" when it cannot be read.
inline std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// A replayable machine under tests/fixtures/sysroots/.
inline std::string sysroot(const std::string& name) {
    return fixtures_dir() + "/sysroots/" + name;
}

// A fixture file's whole text; a missing one fails the test that asked for it.
inline std::string fixture_text(const std::string& relative) {
    std::ifstream in(fixtures_dir() + "/" + relative);
    REQUIRE_MESSAGE(in.good(), "missing fixture " << relative);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// A file under tests/fixtures/cgroup/ (cgroup v1 and v2 trees, usage and pressure files).
inline std::string cgroup_fixture(const std::string& relative) {
    return fixture_text("cgroup/" + relative);
}

}  // namespace hostprobe::testing
