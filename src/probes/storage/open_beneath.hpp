// Opens a directory below another one's descriptor without following any symlink on the way,
// so that whoever can write below the root cannot redirect the open out of it: the kernel's
// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where it has one, otherwise a walk that opens
// one component at a time with O_NOFOLLOW relative to the previous one.
#pragma once

#include <string>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::probes {

enum class BeneathMethod {
    automatic,  // openat2, or the walk when the kernel (or a seccomp filter) lacks it
    openat2,    // openat2 only: unavailable (503) without it
    walk,       // one openat(O_NOFOLLOW | O_DIRECTORY) per component
};

enum class BeneathIntent {
    pass_through,  // O_PATH: enough to open below it, needs no read permission on it
    work_in,       // O_RDONLY: to create, list and statvfs in it
};

// Opens root/components[0]/.../components[n-1] (root itself when empty) and returns an owned
// descriptor. Components are single names: "", ".", ".." and names with '/' are refused.
// Errors name the component at root_path/...: forbidden (a symlink, no permission), invalid
// argument (not a directory), not found, or io_error.
Result<int> open_beneath(int root, const std::string& root_path,
                         const std::vector<std::string>& components, BeneathIntent intent,
                         BeneathMethod method);

}  // namespace hostprobe::probes
