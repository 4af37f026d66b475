// Dhrystone and Whetstone, one copy each: the kernels run in batches until the deadline.
#include "probes/system/dhrystone.hpp"
#include "probes/system/system_tests.hpp"
#include "probes/system/whetstone.hpp"

namespace hostprobe::probes {

CopyCount dhrystone_copy(const CopyEnvironment& environment) {
    const DhrystoneRun run = run_dhrystone([&] { return !keep_going(environment); });
    return {static_cast<double>(run.loops), run.seconds, run.valid};
}

CopyCount whetstone_copy(const CopyEnvironment& environment) {
    const WhetstoneRun run = run_whetstone([&] { return !keep_going(environment); });
    // A pass is ten million Whetstone instructions; whets.c divides by the timed sections only.
    return {10.0 * static_cast<double>(run.passes), run.seconds, run.valid};
}

}  // namespace hostprobe::probes
