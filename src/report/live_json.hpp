// GET /v1/host's `live` object: the scrape-time totals of one reading (node_exporter's and
// cAdvisor's counters, *_total in seconds) and `rates` against an earlier reading, or null on
// the first request. An absent source is an absent key. Field names are a contract (README).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "host/live_rates.hpp"
#include "host/live_reading.hpp"

namespace hostprobe::report {

nlohmann::json live_json(const host::LiveReading& now, const std::optional<host::LiveRates>& rates);

}  // namespace hostprobe::report
