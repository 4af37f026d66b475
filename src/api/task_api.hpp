// GET /v1/task: every container of the ECS task this agent is a sidecar in, from the last
// /task/stats reading (report::task_json); 404 outside ECS and before the first reading.
#pragma once

#include "api/host_api.hpp"
#include "http/router.hpp"

namespace hostprobe::api {

// The context must outlive the router.
void add_task_routes(http::Router& router, const HostApiContext& context);

}  // namespace hostprobe::api
