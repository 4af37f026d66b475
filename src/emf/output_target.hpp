// Where EMF lines go, opened so that writing can never block: stdout reopened non-blocking when
// it is a pipe or a terminal (a new open file description, so the flag does not change the
// descriptor other processes share), a socket written with MSG_DONTWAIT, a regular file as it
// is. A closed stdout is remembered as closed, so a file later opened as descriptor 1 never
// receives a line.
#pragma once

#include <string>

#include "core/unique_fd.hpp"

namespace hostprobe::emf {

enum class TargetKind {
    closed,  // nothing to write to: every line is dropped
    pipe,    // a line is written only when the pipe has room for all of it
    stream,  // terminal, socket, file: written as far as it goes before the deadline
};

struct OutputTarget {
    core::UniqueFd fd;
    TargetKind kind = TargetKind::closed;
    bool socket = false;  // send(MSG_DONTWAIT | MSG_NOSIGNAL) instead of write
};

// `fd` (1 for stdout) as a target; the original descriptor is left as it is.
OutputTarget open_output_target(int fd);

}  // namespace hostprobe::emf
