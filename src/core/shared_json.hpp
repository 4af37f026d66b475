// An immutable JSON value kept as its pretty-printed text, deflated, shared by every copy. A
// finished run's result is copied out of the runner for every listing and scrape, and each run
// in the history keeps one: as text it is about a quarter of the heap a parsed tree takes, and
// deflated a third of that again (issue 29: the history must not grow the agent's RSS);
// listings splice it in without printing it again, and the few callers that need the tree (the
// journal, result metrics once per run) parse it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/compressed_text.hpp"

namespace hostprobe::core {

class SharedJson {
  public:
    SharedJson() = default;  // null
    // Implicit: a result is assigned from the json a probe built.
    SharedJson(const nlohmann::json& value);  // NOLINT(google-explicit-constructor)

    // Parsed afresh on every call.
    nlohmann::json get() const;
    operator nlohmann::json() const { return get(); }  // NOLINT(google-explicit-constructor)
    template <typename Key>
    nlohmann::json operator[](const Key& key) const {
        return get().at(key);
    }
    bool operator==(const SharedJson& other) const { return pretty_text() == other.pretty_text(); }

    bool is_null() const { return pretty_text_.empty(); }
    // The value as json_text(value, 2) prints it, starting at column 0; "null" when unset.
    std::string pretty_text() const;
    size_t pretty_size() const;
    bool shares_text_with(const SharedJson& other) const {
        return pretty_text_.shares_with(other.pretty_text_);
    }

  private:
    CompressedText pretty_text_;  // empty when unset: json_text never prints nothing
};

}  // namespace hostprobe::core
