// PID 1 duties inside a container: the kernel hands every orphaned process of the container to
// PID 1, and their zombies stay until PID 1 waits for them. hostprobe runs as PID 1 (the image
// has no init), so it reaps any child that it did not start itself.
#pragma once

#include <sys/types.h>

#include <vector>

#include "core/owned_children.hpp"

namespace hostprobe::app {

using core::OwnedChildren;

// The direct children of this process (every thread's), from /proc/self/task/*/children.
std::vector<pid_t> current_children();
// The same from every process's parent in /proc/<pid>/stat, for kernels without
// CONFIG_PROC_CHILDREN.
std::vector<pid_t> children_from_stat();

// Waits, without blocking, for every child that has ended and is not owned. Returns how many it
// reaped.
int reap_orphans(const OwnedChildren& owned);

}  // namespace hostprobe::app
