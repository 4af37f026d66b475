// The exit statuses of every hostprobe command: 0 done, 1 failed, 2 misused (bad options).
#pragma once

namespace hostprobe::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

}  // namespace hostprobe::cli
