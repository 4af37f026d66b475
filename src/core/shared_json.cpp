#include "core/shared_json.hpp"

#include "core/json_text.hpp"

namespace hostprobe::core {

SharedJson::SharedJson(const nlohmann::json& value)
    : pretty_text_(std::make_shared<const std::string>(json_text(value, 2))) {}

nlohmann::json SharedJson::get() const {
    return pretty_text_ ? nlohmann::json::parse(*pretty_text_) : nlohmann::json();
}

const std::string& SharedJson::pretty_text() const {
    static const std::string null_text = "null";
    return pretty_text_ ? *pretty_text_ : null_text;
}

}  // namespace hostprobe::core
