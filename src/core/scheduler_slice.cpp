#include "core/scheduler_slice.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace hostprobe {

namespace {

// glibc 2.36 has no wrapper; the layout is the kernel's SCHED_ATTR_SIZE_VER1.
struct KernelSchedAttr {
    uint32_t size = sizeof(KernelSchedAttr);
    uint32_t sched_policy = 0;
    uint64_t sched_flags = 0;
    int32_t sched_nice = 0;
    uint32_t sched_priority = 0;
    uint64_t sched_runtime = 0;
    uint64_t sched_deadline = 0;
    uint64_t sched_period = 0;
    uint32_t sched_util_min = 0;
    uint32_t sched_util_max = 0;
};

constexpr uint32_t kSchedOther = 0;

// Only a SCHED_OTHER thread's slice is changed, with its niceness as it is (sched_setattr sets
// both, and lowering niceness needs a privilege the agent does not have).
bool set_fair_slice(uint64_t runtime_ns) {
    KernelSchedAttr attr;
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return false;
    if (attr.sched_policy != kSchedOther) return false;
    KernelSchedAttr wanted;
    wanted.sched_policy = kSchedOther;
    wanted.sched_nice = attr.sched_nice;
    wanted.sched_runtime = runtime_ns;
    return syscall(SYS_sched_setattr, 0, &wanted, 0) == 0;
}

}  // namespace

std::chrono::nanoseconds current_scheduler_slice() {
    KernelSchedAttr attr;
    if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return {};
    return std::chrono::nanoseconds(static_cast<int64_t>(attr.sched_runtime));
}

bool request_scheduler_slice(std::chrono::microseconds slice) {
    const auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(slice).count();
    return nanoseconds > 0 && set_fair_slice(static_cast<uint64_t>(nanoseconds));
}

bool restore_default_scheduler_slice() {
    return set_fair_slice(0);
}

}  // namespace hostprobe
