#include "core/shared_json.hpp"

#include "core/json_text.hpp"

namespace hostprobe::core {

SharedJson::SharedJson(const nlohmann::json& value) : pretty_text_(json_text(value, 2)) {}

nlohmann::json SharedJson::get() const {
    return pretty_text_.empty() ? nlohmann::json() : nlohmann::json::parse(pretty_text_.text());
}

std::string SharedJson::pretty_text() const {
    return pretty_text_.empty() ? std::string("null") : pretty_text_.text();
}

size_t SharedJson::pretty_size() const {
    return pretty_text_.empty() ? 4 : pretty_text_.size();
}

}  // namespace hostprobe::core
