// The one-line summary of the live readings in the text report ("Live:" row): rates when there
// is an earlier reading ("0.23 of 0.25 cores used (92% of budget), steal 0.1%, throttled 75% of
// periods, PSI cpu some 12%"), else the totals since boot or since the cgroup began.
#pragma once

#include <optional>
#include <string>

#include "host/live_rates.hpp"
#include "host/live_reading.hpp"

namespace hostprobe::report {

std::string live_summary(const host::LiveReading& now, const std::optional<host::LiveRates>& rates);

}  // namespace hostprobe::report
