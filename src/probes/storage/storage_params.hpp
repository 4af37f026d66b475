// Parameters every storage probe shares.
#pragma once

#include "runs/param_table.hpp"

namespace hostprobe::probes {

inline runs::ParamSpec directory_param() {
    return runs::ParamSpec{
        .name = "directory",
        .type = runs::ParamType::string,
        .default_value = "",
        .description = "where the test files go; must be inside an allowed directory (--disk-dir)"};
}

}  // namespace hostprobe::probes
