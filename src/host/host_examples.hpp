// Populated examples of the host's facts and readings, every optional set and every list with
// an entry: what core/json_shape reads the schemas of GET /openapi.json off (with a default
// instance for what may be absent or null). A member added to one of these structs belongs here
// too, or the document lacks it (the openapi_client test fails on the daemon's answer).
#pragma once

#include <optional>

#include "host/cpu_budget.hpp"
#include "host/host_facts.hpp"
#include "host/live_rates.hpp"
#include "host/live_reading.hpp"
#include "host/openssl_cpu.hpp"

namespace hostprobe::host {

enum class ExampleArchitecture { x86, arm };

CpuBudget example_cpu_budget();
ThrottlingCounters example_throttling();
// OpenSSL's settings decoded, with the features of the architecture.
OpensslCpu example_openssl_cpu(ExampleArchitecture architecture);
// x86 writes family, model and stepping as numbers, ARM as text and adds "arm".
HostFacts example_host_facts(ExampleArchitecture architecture);
// ARM's facts with every optional member unset (null in the JSON), lists keeping an entry.
HostFacts example_sparse_host_facts();
// Every member set (full), or the optional members inside each part unset.
enum class ExampleFill { full, sparse };
LiveReading example_live_reading(ExampleFill fill);
LiveRates example_live_rates(ExampleFill fill);

}  // namespace hostprobe::host
