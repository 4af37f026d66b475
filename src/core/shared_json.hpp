// An immutable JSON value whose copies share one allocation, with its pretty-printed text made
// once. A finished run's result is copied out of the runner for every listing and every scrape;
// deep copies and re-serialization of it made GET /v1/runs slow and grew the heap under load.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace hostprobe::core {

class SharedJson {
  public:
    SharedJson() = default;  // null
    // Implicit: a result is assigned from the json a probe built.
    SharedJson(nlohmann::json value);  // NOLINT(google-explicit-constructor)

    const nlohmann::json& get() const;
    operator const nlohmann::json&() const { return get(); }  // NOLINT(google-explicit-constructor)
    template <typename Key>
    const nlohmann::json& operator[](const Key& key) const {
        return get().at(key);
    }
    bool operator==(const SharedJson& other) const { return get() == other.get(); }

    // The value as json_text(value, 2) prints it, starting at column 0.
    const std::string& pretty_text() const;

  private:
    struct Payload {
        nlohmann::json value;
        std::string pretty_text;
    };
    std::shared_ptr<const Payload> payload_;
};

}  // namespace hostprobe::core
