// The exit statuses of every hostprobe command: 0 done, 1 failed, 2 misused (bad options),
// 3 a survey probe failed or was cancelled, 130 interrupted by a signal.
#pragma once

namespace hostprobe::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
// `hostprobe survey`: every line was written, but at least one run did not succeed.
constexpr int kExitProbeFailed = 3;
// `hostprobe run` and `survey`: SIGTERM, SIGINT or the like cancelled the work; what there was
// has been written.
constexpr int kExitInterrupted = 130;

}  // namespace hostprobe::cli
