// A probe's parameters: names, types, defaults and limits. The same table validates POST
// bodies, parses `hostprobe run --<param> value`, and describes itself at GET /v1/probes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::runs {

// No integer parameter may be beyond ±2^53, whatever its spec says: a double holds it exactly.
inline constexpr double kLargestParamInteger = 9007199254740992.0;

enum class ParamType {
    integer,
    number,
    boolean,
    string,
    choice,                // one of `choices`
    integer_list,          // each within [min, max]
    choice_list,           // each one of `choices`
    auto_or_integer,       // "auto" or an integer within [min, max]
    auto_or_integer_list,  // "auto" or an integer_list
    auto_sweep_or_counts,  // "auto", "sweep", an integer within [min, max] or an integer_list
    byte_size,             // an integer of bytes or fio-style text ("16k"), within [min, max] bytes
};

struct ParamSpec {
    std::string name;
    ParamType type = ParamType::integer;
    nlohmann::json default_value;
    std::string description;
    std::optional<double> min;
    std::optional<double> max;
    std::vector<std::string> choices;
    size_t max_items = 64;  // for lists
    std::string unit;       // for the description: "s", "bytes"
    // Values a client may offer (a form's suggestions), not a limit: the allowed directories.
    std::vector<std::string> examples;
    // The longest text in bytes a string (or a size written as text) may be.
    size_t max_length = 256;
};

class ParamTable {
  public:
    ParamTable() = default;
    explicit ParamTable(std::vector<ParamSpec> specs) : specs_(std::move(specs)) {}

    // Checks a JSON object of parameters and fills in defaults. Errors name the parameter and
    // the limit or the valid values.
    Result<nlohmann::json> normalize(const nlohmann::json& input) const;
    // The same from command-line text ("--block-sizes 16,8192"): values are converted by type.
    Result<nlohmann::json> normalize_text(
        const std::vector<std::pair<std::string, std::string>>& input) const;
    nlohmann::json describe() const;
    const std::vector<ParamSpec>& specs() const { return specs_; }
    const ParamSpec* find(const std::string& name) const;

  private:
    std::vector<ParamSpec> specs_;
};

const char* to_string(ParamType type);

}  // namespace hostprobe::runs
