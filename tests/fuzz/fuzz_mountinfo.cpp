// /proc/self/mountinfo: every line becomes an entry or a warning, never an exception; the
// octal escapes (\040 for a space) are undone.
#include "core/strings.hpp"
#include "fuzz_support.hpp"
#include "host/mountinfo.hpp"

using namespace hostprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const host::MountInfo info = host::parse_mountinfo(text);

    size_t non_blank_lines = 0;
    for (std::string_view line : split_lines(text)) {
        if (!trim(line).empty()) ++non_blank_lines;
    }
    FUZZ_CHECK(info.entries.size() + info.warnings.size() == non_blank_lines,
               std::to_string(info.entries.size()) + " entries + " +
                   std::to_string(info.warnings.size()) + " warnings for " +
                   std::to_string(non_blank_lines) + " lines");
    for (const auto& entry : info.entries) {
        FUZZ_CHECK(!entry.fs_type.empty(), "an entry without a filesystem type");
        // How cgroup.cpp looks mounts up.
        (void)entry.has_super_option("cpu");
        (void)entry.has_super_option("memory");
    }
    return 0;
}
