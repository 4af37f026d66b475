// Parameters every storage probe shares.
#pragma once

#include "probes/storage/storage_policy.hpp"
#include "runs/param_table.hpp"

namespace hostprobe::probes {

// The allowed directories are offered as examples, so a form can list them (GET /v1/probes).
inline runs::ParamSpec directory_param(const StoragePolicy& policy) {
    return runs::ParamSpec{
        .name = "directory",
        .type = runs::ParamType::string,
        .default_value = "",
        .description = "where the test files go; must be inside an allowed directory (--disk-dir)",
        .examples = policy.allowed_dirs,
        .max_length = kMaxDirectoryPathBytes};
}

}  // namespace hostprobe::probes
