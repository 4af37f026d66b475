// Made-up ECS task documents for the tests of the task stats: a task of `count` containers
// ("c0", "c1", ... with DockerIds "id0", "id1", ...) and its /task/stats, each container's
// stats made by `stats_of(i)`.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace hostprobe::testing {

struct TaskDocuments {
    nlohmann::json task;   // GET /task
    nlohmann::json stats;  // GET /task/stats
};

inline TaskDocuments task_of_containers(int count,
                                        const std::function<nlohmann::json(int)>& stats_of) {
    TaskDocuments documents{{{"Containers", nlohmann::json::array()}}, nlohmann::json::object()};
    for (int i = 0; i < count; ++i) {
        const std::string id = "id" + std::to_string(i);
        documents.task["Containers"].push_back(
            {{"Name", "c" + std::to_string(i)}, {"DockerId", id}});
        documents.stats[id] = stats_of(i);
    }
    return documents;
}

}  // namespace hostprobe::testing
