// An immutable JSON value whose copies share one allocation. A finished run's result is copied
// out of the runner for every listing and every scrape; deep copies of it under the runner's
// lock made GET /v1/runs slow and grew the heap under load.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

namespace hostprobe::core {

class SharedJson {
  public:
    SharedJson() = default;  // null
    // Implicit: a result is assigned from the json a probe built.
    SharedJson(nlohmann::json value)  // NOLINT(google-explicit-constructor)
        : value_(std::make_shared<const nlohmann::json>(std::move(value))) {}

    const nlohmann::json& get() const { return value_ ? *value_ : null_value(); }
    operator const nlohmann::json&() const { return get(); }  // NOLINT(google-explicit-constructor)
    template <typename Key>
    const nlohmann::json& operator[](const Key& key) const {
        return get().at(key);
    }
    bool operator==(const SharedJson& other) const { return get() == other.get(); }

  private:
    static const nlohmann::json& null_value() {
        static const nlohmann::json null;
        return null;
    }
    std::shared_ptr<const nlohmann::json> value_;
};

}  // namespace hostprobe::core
