// /proc/self/cgroup ("4:memory:/docker/x", "0::/x"): entries or warnings, never an exception.
#include "fuzz_support.hpp"
#include "host/proc_cgroup.hpp"

using namespace hostprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const host::ProcCgroup cgroups = host::parse_proc_cgroup(fuzz::as_text(data, size));
    for (const auto& entry : cgroups.entries) {
        // cgroup.cpp joins the path to a mount point and walks up it: it must be absolute.
        FUZZ_CHECK(!entry.path.empty() && entry.path.front() == '/', "path '" + entry.path + "'");
        FUZZ_CHECK(!entry.hierarchy_id.empty(), "an entry without a hierarchy id");
        (void)entry.is_unified();
        (void)entry.has_controller("cpu");
    }
    return 0;
}
