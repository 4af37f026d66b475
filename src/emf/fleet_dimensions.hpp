// The dimensions that make a fleet comparable: what the CPU is (model, microarchitecture) and
// where the task runs (launch type, availability zone, task family, from ECS task metadata).
// Each is always present, "none" when unknown (outside ECS, or before its metadata answered),
// so every task reports under the same dimension sets. No task ARN or host name: one metric
// per task would multiply CloudWatch's custom metrics by the fleet's size.
#pragma once

#include <string>
#include <vector>

#include "emf/metric_group.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::emf {

// CpuModel, Microarchitecture, LaunchType, AvailabilityZone, TaskFamily.
std::vector<Dimension> fleet_dimensions(const task::TaskFacts& facts);

// Two sets, each followed by the probe's own dimension names:
//   [CpuModel, Microarchitecture, ...]: one model against another, across the fleet;
//   [TaskFamily, LaunchType, AvailabilityZone, CpuModel, Microarchitecture, ...]: the same
//   within one deployment and zone.
std::vector<std::vector<std::string>> dimension_sets(const std::vector<std::string>& own);

}  // namespace hostprobe::emf
