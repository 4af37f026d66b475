// Each probe's typed result as EMF metric groups: one group per combination of the probe's own
// dimensions, with CloudWatch units. Pure functions of the result.
#pragma once

#include <vector>

#include "emf/metric_group.hpp"
#include "probes/cipher/cipher_result.hpp"
#include "probes/disk/disk_result.hpp"
#include "probes/files/files_result.hpp"
#include "probes/system/system_result.hpp"
#include "task/task_facts.hpp"

namespace hostprobe::emf {

// Per cell: Cipher, BlockBytes, Threads -> CipherBytesPerSecond, CipherCpuBytesPerSecond
// (Bytes/Second), CipherOpsPerSecond (Count/Second).
std::vector<MetricGroup> cipher_groups(const probes::CipherResult& result);
// The run as a whole: CipherWallToCpuRatio (None), CipherThrottled (Count, 0 or 1),
// CipherStealSeconds and CipherThrottledSeconds (Seconds) when they were read.
void add_cipher_run_metrics(const probes::CipherResult& result, MetricGroup& run);

// Per direction that did I/O: Rw, BlockSize, Direction -> DiskIops (Count/Second),
// DiskBytesPerSecond (Bytes/Second), DiskLatencyMean, DiskLatencyP50, DiskLatencyP99,
// DiskLatencyP999 (Microseconds, completion latency).
std::vector<MetricGroup> disk_groups(const probes::DiskResult& result);

// Per operation: FilesOp -> FilesOpsPerSecond (Count/Second), FilesLatencyMean,
// FilesLatencyP50, FilesLatencyP99, FilesLatencyP999 (Microseconds).
std::vector<MetricGroup> files_groups(const probes::FilesResult& result);

// Per test and copy count: SystemTest, Copies -> SystemTestValue (None: the test's own unit,
// lps, MWIPS...), SystemTestIndex (None); per pass with a score: SystemTest "index", Copies ->
// SystemIndexScore (None).
std::vector<MetricGroup> system_groups(const probes::SystemResult& result);

// The host's size and cost: VisibleCpus (Count), CpuBudgetCores, CpuQuotaCores, EcsCpuLimitCores
// (None, in cores) and TaskCostPerHour (None, in dollars), each when known.
void add_host_metrics(const task::TaskFacts& facts, MetricGroup& group);

}  // namespace hostprobe::emf
