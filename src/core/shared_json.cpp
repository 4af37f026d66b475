#include "core/shared_json.hpp"

#include "core/json_text.hpp"

namespace hostprobe::core {

namespace {

const nlohmann::json& null_json() {
    static const nlohmann::json null;
    return null;
}

const std::string& null_text() {
    static const std::string text = "null";
    return text;
}

}  // namespace

SharedJson::SharedJson(nlohmann::json value) {
    std::string text = json_text(value, 2);
    payload_ = std::make_shared<const Payload>(Payload{std::move(value), std::move(text)});
}

const nlohmann::json& SharedJson::get() const {
    return payload_ ? payload_->value : null_json();
}

const std::string& SharedJson::pretty_text() const {
    return payload_ ? payload_->pretty_text : null_text();
}

}  // namespace hostprobe::core
