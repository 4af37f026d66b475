// What a route says about itself for the OpenAPI document (GET /openapi.json), declared where the
// route is registered so that the document follows the routes. Schemas are named, not spelled
// out: they live in the document's components (api/openapi_schemas.cpp). The errors any request
// may meet on its way in (access, framing, limits) are added by the document, not declared here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hostprobe::http {

// A query parameter the handler reads, with a JSON Schema for its value.
struct QueryParamDoc {
    std::string name;
    std::string description;
    nlohmann::json schema;
};

// One media type of an answer: a schema of components/schemas by name; empty: a text body.
struct BodyDoc {
    std::string media_type = "application/json";
    std::string schema;
};

struct ResponseDoc {
    int status = 200;
    std::string description;
    std::vector<BodyDoc> bodies;
    std::vector<std::string> headers;  // names in components/headers: "Location", "Retry-After"
};

struct RouteDoc {
    // The group the operation is listed under: one of the tags api/openapi.cpp describes.
    std::string tag;
    std::string summary;
    std::vector<QueryParamDoc> query;
    std::string request_body;  // a name in components/schemas; empty: the route reads no body
    std::string request_body_description;  // the bounds the handler puts on it
    std::vector<ResponseDoc> responses;
};

// {"error": "...", "status": N} with the given status.
inline ResponseDoc error_doc(int status, std::string description) {
    return {status, std::move(description), {{"application/json", "Error"}}, {}};
}

// ?format=json|text: JSON by default, or the text `text_is` describes.
inline QueryParamDoc format_query_doc(const std::string& text_is) {
    return {"format",
            "json (the default) or text: " + text_is,
            {{"type", "string"}, {"enum", {"json", "text"}}, {"default", "json"}}};
}

// 200 with the schema's JSON, or text/plain under ?format=text.
inline ResponseDoc json_or_text_doc(std::string schema, std::string description) {
    return {200,
            std::move(description),
            {{"application/json", std::move(schema)}, {"text/plain", ""}},
            {}};
}

}  // namespace hostprobe::http
