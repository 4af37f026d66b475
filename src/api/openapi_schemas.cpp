#include "api/openapi_schemas.hpp"

#include <cstdint>
#include <limits>

#include "api/host_api.hpp"
#include "core/json_shape.hpp"
#include "ecs/task_stats_examples.hpp"
#include "report/task_json.hpp"
#include "runs/param_schema.hpp"
#include "task/task_examples.hpp"

namespace hostprobe::api {

namespace {

using nlohmann::json;

json schema_link(const std::string& name) {
    return {{"$ref", schema_ref(name)}};
}

// A size_t the agent writes, from `minimum` on.
json count_schema(int64_t minimum) {
    return {{"type", "integer"},
            {"format", "int64"},
            {"minimum", minimum},
            {"maximum", std::numeric_limits<int64_t>::max()}};
}

json nullable_type(json type) {
    return json::array({std::move(type), "null"});
}

json error_schema() {
    return {{"type", "object"},
            {"description", "every error answer: what went wrong, and the HTTP status again"},
            {"required", {"error", "status"}},
            {"properties",
             {{"error", {{"type", "string"}, {"minLength", 1}}},
              {"status",
               {{"type", "integer"}, {"format", "int32"}, {"minimum", 400}, {"maximum", 599}}}}},
            {"additionalProperties", false}};
}

json health_schema() {
    return {{"type", "object"},
            {"required", {"status", "version", "uptime_seconds"}},
            {"properties",
             {{"status", {{"const", "ok"}}},
              {"version", {{"type", "string"}}},
              {"uptime_seconds", {{"type", "number"}, {"minimum", 0}}}}}};
}

// GET /v1/host: the answer read off examples of it (core/json_shape): empty facts with no
// reading yet; facts, throttling, reading and rates of an x86 and an ARM task with every member
// set; and an ARM task with every optional member unset.
json host_schema() {
    using host::ExampleArchitecture;
    using host::ExampleFill;
    const auto full_task = ecs::example_full_task_stats();
    const auto sparse_task = ecs::example_sparse_task_stats();
    std::vector<json> examples = {
        host_answer_json(task::TaskFacts{}, std::nullopt, host::LiveReading{}, std::nullopt)};
    for (const auto architecture : {ExampleArchitecture::x86, ExampleArchitecture::arm}) {
        examples.push_back(
            host_answer_json(task::example_task_facts(architecture), host::example_throttling(),
                             host::example_live_reading(ExampleFill::full),
                             host::example_live_rates(ExampleFill::full), &full_task));
    }
    examples.push_back(host_answer_json(task::example_sparse_task_facts(), std::nullopt,
                                        host::example_live_reading(ExampleFill::sparse),
                                        host::example_live_rates(ExampleFill::sparse),
                                        &sparse_task));
    return schema_of_examples(examples, ShapeHints{.maps = {"live.memory.events_total"}});
}

// GET /v1/task (and /v1/host's live.task): read off a full and a sparse snapshot.
json task_schema() {
    return schema_of_examples(
        {report::task_json(ecs::example_full_task_stats(), host::example_throttling()),
         report::task_json(ecs::example_sparse_task_stats(), std::nullopt)});
}

json index_schema() {
    const json endpoint = {{"type", "object"},
                           {"required", {"method", "path", "description"}},
                           {"properties",
                            {{"method", {{"type", "string"}}},
                             {"path", {{"type", "string"}}},
                             {"description", {{"type", "string"}}}}}};
    return {{"type", "object"},
            {"required", {"name", "version", "endpoints"}},
            {"properties",
             {{"name", {{"type", "string"}}},
              {"version", {{"type", "string"}}},
              {"endpoints", {{"type", "array"}, {"items", endpoint}}}}}};
}

// One entry of ParamTable::describe().
json param_description_schema() {
    const auto largest = static_cast<int64_t>(runs::kLargestParamInteger);
    const json param_integer = {
        {"type", "integer"}, {"format", "int64"}, {"minimum", -largest}, {"maximum", largest}};
    json types = json::array();
    for (int type = 0; type <= static_cast<int>(runs::ParamType::byte_size); ++type)
        types.push_back(runs::to_string(static_cast<runs::ParamType>(type)));
    return {{"type", "object"},
            {"required", {"name", "type", "default", "description"}},
            {"properties",
             {{"name", {{"type", "string"}}},
              {"type", {{"enum", types}}},
              {"default",
               {{"anyOf",
                 {param_integer,
                  {{"type", "number"}},
                  {{"type", "string"}},
                  {{"type", "boolean"}},
                  {{"type", "array"},
                   {"items", {{"anyOf", {param_integer, {{"type", "string"}}}}}}}}}}},
              {"description", {{"type", "string"}}},
              {"min", {{"type", "number"}}},
              {"max", {{"type", "number"}}},
              {"choices", {{"type", "array"}, {"items", {{"type", "string"}}}}},
              {"max_items", count_schema(1)},
              {"max_length", count_schema(0)},
              {"unit", {{"type", "string"}}},
              {"examples", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
}

json probe_list_schema(const runs::ProbeRegistry& registry) {
    const json probe = {
        {"type", "object"},
        {"required", {"name", "description", "exclusive", "params"}},
        {"properties",
         {{"name", {{"enum", registry.names()}}},
          {"description", {{"type", "string"}}},
          {"exclusive", {{"type", "boolean"}}},
          {"params", {{"type", "array"}, {"items", schema_link("ParamDescription")}}}}}};
    return {{"type", "object"},
            {"required", {"probes"}},
            {"properties", {{"probes", {{"type", "array"}, {"items", probe}}}}}};
}

json run_request_schema(const runs::Probe& probe) {
    return {{"type", "object"},
            {"required", {"probe"}},
            {"properties",
             {{"probe", {{"const", probe.name()}}},
              {"params", schema_link(probe_schema_name("Params", probe.name()))}}},
            {"additionalProperties", false}};
}

// A run as runs::to_json writes it; `result` is null until the run has one.
json run_schema(const runs::Probe& probe) {
    const json time = {{"type", "string"}, {"format", "date-time"}};
    json optional_time = time;
    optional_time["type"] = nullable_type("string");
    return {{"type", "object"},
            {"required",
             {"id", "probe", "params", "trigger", "state", "progress", "created_at", "started_at",
              "finished_at", "error", "result"}},
            {"properties",
             {{"id", {{"type", "string"}, {"pattern", "^[0-9a-f]+$"}}},
              {"probe", {{"const", probe.name()}}},
              {"params", schema_link(probe_schema_name("RunParams", probe.name()))},
              {"trigger", {{"enum", {"api", "schedule", "start", "cli"}}}},
              {"state", {{"enum", run_state_names()}}},
              {"progress", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
              {"created_at", time},
              {"started_at", optional_time},
              {"finished_at", optional_time},
              {"error", {{"type", nullable_type("string")}}},
              {"result",
               {{"oneOf",
                 {{{"type", "null"}}, schema_link(probe_schema_name("Result", probe.name()))}}}}}}};
}

// oneOf the probes' own schemas of `kind`, told apart by "probe".
json by_probe(const std::string& kind, const runs::ProbeRegistry& registry) {
    json choices = json::array();
    json mapping = json::object();
    for (const auto& probe : registry.probes()) {
        const std::string name = probe_schema_name(kind, probe->name());
        choices.push_back(schema_link(name));
        mapping[probe->name()] = schema_ref(name);
    }
    return {{"oneOf", choices},
            {"discriminator", {{"propertyName", "probe"}, {"mapping", mapping}}}};
}

void add_probe_schemas(json& schemas, const runs::Probe& probe) {
    json params = runs::params_schema(probe.params());
    params["description"] = "the parameters of " + probe.name() + "; defaults fill in the rest";
    json result = probe.result_schema();
    result["description"] = "the result of a " + probe.name() + " run";
    json run_params = runs::normalized_params_schema(probe.params());
    run_params["description"] =
        "the parameters of a " + probe.name() + " run: every one, defaults filled in";
    schemas[probe_schema_name("Params", probe.name())] = std::move(params);
    schemas[probe_schema_name("RunParams", probe.name())] = std::move(run_params);
    schemas[probe_schema_name("Result", probe.name())] = std::move(result);
    schemas[probe_schema_name("RunRequest", probe.name())] = run_request_schema(probe);
    schemas[probe_schema_name("Run", probe.name())] = run_schema(probe);
}

}  // namespace

std::string schema_ref(const std::string& name) {
    return "#/components/schemas/" + name;
}

std::string probe_schema_name(const std::string& kind, const std::string& probe) {
    return kind + "." + probe;
}

json run_state_names() {
    json names = json::array();
    for (int state = 0; state <= static_cast<int>(runs::RunState::cancelled); ++state)
        names.push_back(runs::to_string(static_cast<runs::RunState>(state)));
    return names;
}

json component_schemas(const runs::ProbeRegistry& registry) {
    json schemas = {
        {"Error", error_schema()},
        {"Health", health_schema()},
        {"Host", host_schema()},
        {"Task", task_schema()},
        {"Index", index_schema()},
        {"ParamDescription", param_description_schema()},
        {"ProbeList", probe_list_schema(registry)},
        {"RunRequest", by_probe("RunRequest", registry)},
        {"Run", by_probe("Run", registry)},
        {"RunList",
         {{"type", "object"},
          {"required", {"runs"}},
          {"properties", {{"runs", {{"type", "array"}, {"items", schema_link("Run")}}}}}}},
        {"OpenApiDocument",
         {{"type", "object"},
          {"required", {"openapi", "info", "paths", "components"}},
          {"description",
           "this document: its members are OpenAPI 3.1's own (spec.openapis.org/oas/v3.1.0)"},
          {"properties", {{"openapi", {{"type", "string"}, {"pattern", "^3\\.1\\."}}}}},
          {"additionalProperties", true}}}};
    for (const auto& probe : registry.probes())
        add_probe_schemas(schemas, *probe);
    return schemas;
}

}  // namespace hostprobe::api
