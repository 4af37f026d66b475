#include "report/live_json.hpp"

namespace hostprobe::report {

namespace {

using nlohmann::json;

void put_if(json& object, const char* key, const std::optional<double>& value) {
    if (value) object[key] = *value;
}

json pressure_totals_json(const host::PressureReadings& readings) {
    json scope = json::object();
    for (size_t i = 0; i < readings.size(); ++i) {
        if (!readings[i]) continue;
        json totals = {{"some_seconds_total", readings[i]->some_seconds}};
        put_if(totals, "full_seconds_total", readings[i]->full_seconds);
        scope[host::to_string(host::kPressureResources[i])] = std::move(totals);
    }
    return scope;
}

json pressure_rates_json(const host::PressureRateReadings& readings) {
    json scope = json::object();
    for (size_t i = 0; i < readings.size(); ++i) {
        if (!readings[i]) continue;
        json rates = {{"some_ratio", readings[i]->some_ratio}};
        put_if(rates, "full_ratio", readings[i]->full_ratio);
        scope[host::to_string(host::kPressureResources[i])] = std::move(rates);
    }
    return scope;
}

// {"host": {...}, "cgroup": {...}} with empty scopes left out; null when both are.
json scoped(json host_scope, json cgroup_scope) {
    json pressure = json::object();
    if (!host_scope.empty()) pressure["host"] = std::move(host_scope);
    if (!cgroup_scope.empty()) pressure["cgroup"] = std::move(cgroup_scope);
    return pressure;
}

json rates_json(const host::LiveRates& rates) {
    json out = {{"interval_seconds", rates.interval_seconds}};
    put_if(out, "cpu_cores_used", rates.cpu_cores_used);
    put_if(out, "budget_used_ratio", rates.budget_used_ratio);
    put_if(out, "steal_cores", rates.steal_cores);
    put_if(out, "steal_ratio_per_cpu", rates.steal_ratio_per_cpu);
    put_if(out, "throttled_periods_ratio", rates.throttled_periods_ratio);
    put_if(out, "throttled_cores", rates.throttled_cores);
    json pressure = scoped(pressure_rates_json(rates.host_pressure),
                           pressure_rates_json(rates.cgroup_pressure));
    if (!pressure.empty()) out["pressure"] = std::move(pressure);
    return out;
}

}  // namespace

json live_json(const host::LiveReading& now, const std::optional<host::LiveRates>& rates) {
    json out = json::object();
    if (now.cgroup_cpu) {
        json cpu = {{"usage_seconds_total", now.cgroup_cpu->total_seconds}};
        put_if(cpu, "user_seconds_total", now.cgroup_cpu->user_seconds);
        put_if(cpu, "system_seconds_total", now.cgroup_cpu->system_seconds);
        out["cgroup_cpu"] = std::move(cpu);
    }
    out["budget_cores"] = now.budget_cores;
    if (now.steal_seconds) {
        out["steal"] = {{"seconds_total", *now.steal_seconds}, {"cpus", now.steal_cpus}};
    }
    if (now.throttling) {
        out["throttling"] = {{"periods_total", now.throttling->periods},
                             {"throttled_periods_total", now.throttling->throttled_periods},
                             {"throttled_seconds_total", now.throttling->throttled_seconds}};
    }
    json pressure =
        scoped(pressure_totals_json(now.host_pressure), pressure_totals_json(now.cgroup_pressure));
    if (!pressure.empty()) out["pressure"] = std::move(pressure);
    if (now.memory_usage_bytes || now.memory_events) {
        json memory = json::object();
        if (now.memory_usage_bytes) memory["usage_bytes"] = *now.memory_usage_bytes;
        if (now.memory_events) {
            json events = json::object();
            for (const auto& [event, count] : *now.memory_events)
                events[event] = count;
            memory["events_total"] = std::move(events);
        }
        out["memory"] = std::move(memory);
    }
    out["rates"] = rates ? rates_json(*rates) : json(nullptr);
    return out;
}

}  // namespace hostprobe::report
