// What a process keeps resident, from /proc: for the tests of what the agent gives back.
#pragma once

#include <string>

namespace hostprobe::testing {

// Resident KiB of the executable file mappings of process `pid` ("self" for this one) whose
// path contains `library` (every file when empty), from its smaps; -1 when there is no such
// mapping or smaps cannot be read. Read with fgets and sscanf, little code of its own: a
// release test counts what the reading itself faults back in (a std::regex reader brought
// 1.8 MiB back before it counted).
long resident_code_kib(const std::string& pid = "self", const std::string& library = "");

// The same for the read-only data mappings (r--p: symbol tables, constants, and data relocated
// at load and then made read-only).
long resident_read_only_kib(const std::string& pid = "self", const std::string& library = "");

// RssAnon of process `pid` in KiB; -1 when unreadable.
long anonymous_kib(const std::string& pid = "self");

}  // namespace hostprobe::testing
