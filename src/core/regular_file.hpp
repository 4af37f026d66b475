// The one way the agent reads a file it is given (the journal, the token file, the params file,
// every /proc and /sys file through SysRoot): only a regular file is opened, and never more than
// a bound is read. A directory, a FIFO nobody writes, an endless device (/dev/zero, /dev/urandom),
// a socket or a dangling symbolic link ends as an Error naming the file and what it is, never
// as a hang, an exception or unbounded memory. /proc and /sys files are regular files (of size 0,
// read to their end), so they pass.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "core/unique_fd.hpp"

namespace hostprobe::core {

struct RegularFile {
    UniqueFd fd;
    uint64_t size = 0;  // as fstat says at opening; 0 for kernel files
};

// Opens `path` (symbolic links followed) for reading if it is a regular file. It is checked
// with stat before it is opened (so no device is opened, no FIFO waited on) and with fstat
// after (so a file swapped in between is caught). Errors name the file as `shown_as` (the path
// when empty): not_found when nothing is there, io_error for anything else.
Result<RegularFile> open_regular_file(const std::string& path, std::string_view shown_as = {});

// Up to `size` bytes from `fd` into `buffer` (0 at the end), retried on EINTR.
Result<size_t> read_some(int fd, char* buffer, size_t size, std::string_view shown_as);

// The whole of a regular file of at most `max_bytes`: a longer one is an Error (too_large), found
// by its size or while reading, before more than `max_bytes` are held.
Result<std::string> read_regular_file(const std::string& path, size_t max_bytes,
                                      std::string_view shown_as = {});

// What a file of this st_mode is, for messages: "a directory", "a FIFO", "a character device"...
std::string_view file_kind(mode_t mode);

}  // namespace hostprobe::core
