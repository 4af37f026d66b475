// What every probe is given when it is made: everything the agent offers probes, in one place.
// A probe that needs something from the agent takes `const ProbeSetup&` in its constructor and
// reads what it needs; a new input is one field here, and neither the registry's signature nor
// its callers change (see docs/ADDING_A_PROBE.md). What a probe is given for one run is a
// `runs::ProbeContext`.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "core/owned_children.hpp"
#include "probes/storage/storage_policy.hpp"

namespace hostprobe::probes {

struct ProbeSetup {
    // Where the disk, files and system probes may write.
    StoragePolicy storage;
    // The system probe's shell tests run this shell; empty: they are skipped.
    std::string shell = "/bin/sh";
    // This binary, for helper processes started with `__system-copy`.
    std::string self_exe = "/proc/self/exe";
    // The system probe's small C helper (execl, spawn, shell); empty: beside self_exe.
    std::string process_loops;
    // Set when a PID-1 reaper runs, so that it leaves the probes' children to them.
    core::OwnedChildren* owned_children = nullptr;
};

// The one way a probe is made, for the registry's lines and tests alike: with the setup when
// its constructor takes one, else with none.
template <typename ProbeType>
std::unique_ptr<ProbeType> make_probe(const ProbeSetup& setup) {
    if constexpr (std::is_constructible_v<ProbeType, const ProbeSetup&>) {
        return std::make_unique<ProbeType>(setup);
    } else {
        return std::make_unique<ProbeType>();
    }
}

}  // namespace hostprobe::probes
