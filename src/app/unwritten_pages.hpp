// Gives back the pages of code and read-only data that nothing runs any more. The kernel keeps
// a file's pages mapped once touched, so what start-up or a finished run executed (libcrypto's
// ciphers, a probe's code, the dynamic linker's symbol tables) stays in the agent's RSS for
// good. Pages of a loaded object that no write can have touched are the file's own: dropping
// them from our page tables (MADV_DONTNEED) loses nothing, they stay in the page cache, and
// what runs again faults them back in (a minor fault per 64 KiB). Pages that were written
// (relocated data made read-only after load, RELRO) are private copies and are never dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hostprobe::app {

struct AddressRange {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;  // past the last byte
    bool operator==(const AddressRange&) const = default;
};

// One PT_LOAD segment of a loaded object, at its address in this process.
struct LoadedSegment {
    AddressRange range;
    bool writable = false;
    bool executable = false;
};

// The whole pages of the segments that are not writable, less every page that a writable
// segment or `written` (the RELRO ranges) shares: rounded inward, sorted, adjacent ones merged.
std::vector<AddressRange> unwritten_pages(const std::vector<LoadedSegment>& segments,
                                          const std::vector<AddressRange>& written,
                                          std::uintptr_t page_size);

// The unwritten pages of the read-only segments that come before an object's first code: where
// the linker puts the tables only the dynamic linker reads (headers, symbol hash, symbols,
// their names and versions, relocations). None for an object without code, nor where the
// tables share the code's segment (linked without -z separate-code, as on arm64).
std::vector<AddressRange> linker_table_pages(const std::vector<LoadedSegment>& segments,
                                             const std::vector<AddressRange>& written,
                                             std::uintptr_t page_size);

// Those pages of every object loaded in this process (dl_iterate_phdr). Left alone: the vDSO,
// and objects with text relocations (their code was written at load).
std::vector<AddressRange> unwritten_pages_of_loaded_objects();

// Drops them from this process's page tables, each object's while the dynamic linker cannot
// unload it; returns the bytes advised. (A debugger's breakpoints in them would be lost: only
// `serve`'s trimmer calls this.)
std::size_t release_unwritten_pages();

// The linker tables of every loaded object (linker_table_pages), as above. Nothing but the
// dynamic linker reads them (and dl_iterate_phdr's callers, such as the C++ unwinder, the
// program headers in their first page), and it only to bind a function at its first call
// (libstdc++, prometheus-cpp and libc are bound lazily): each such call searches every object's
// tables in turn, so a burst of requests that ran new code after the start-up drop faulted them
// back in (about 1 MiB). Dropped again after each burst; a later request faults back only what
// it reads of them.
std::size_t release_linker_tables();

// The pages release_linker_tables would drop (for tests).
std::vector<AddressRange> linker_table_pages_of_loaded_objects();

}  // namespace hostprobe::app
