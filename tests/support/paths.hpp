// Where the tests find their fixtures (set by tests/CMakeLists.txt).
#pragma once

#include <string>

namespace hostprobe::testing {

inline std::string fixtures_dir() {
    return HOSTPROBE_FIXTURES_DIR;
}

}  // namespace hostprobe::testing
