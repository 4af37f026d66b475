// Command-line options with HOSTPROBE_* environment twins: ECS task definitions configure
// containers through the environment, people at a shell through flags. A flag on the command line
// wins over its environment twin, which wins over the default.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace hostprobe::cli {

struct OptionSpec {
    std::string name;           // without dashes: "listen"
    std::string value_name;     // shown in help ("HOST:PORT"); empty for a boolean switch
    std::string default_value;  // as text; "" means unset
    std::string help;
    std::string env = "";  // the environment twin when the default name would be ambiguous
    bool repeatable =
        false;  // given several times, the values join with commas (like the env twin)
    // An empty value means "none" (no shell, no trusted peer), so an empty environment
    // variable sets it; for other options an empty variable is unset.
    bool empty_means_none = false;
    bool is_switch() const { return value_name.empty(); }
    std::string env_name() const;  // env, else "HOSTPROBE_" + upper-case name with '-' as '_'
};

using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvironmentLookup process_environment();

class ParsedOptions {
  public:
    // The value after applying precedence; "" when unset and without default.
    const std::string& get(const std::string& name) const;
    bool has(const std::string& name) const;            // set by flag, environment or default
    bool is_on(const std::string& name) const;          // for switches
    std::string source(const std::string& name) const;  // "flag", "env HOSTPROBE_X", "default"
    const std::vector<std::string>& positionals() const { return positionals_; }

    void set(const std::string& name, std::string value, std::string source);
    void add_positional(std::string value) { positionals_.push_back(std::move(value)); }

  private:
    std::map<std::string, std::pair<std::string, std::string>> values_;  // name -> (value, source)
    std::vector<std::string> positionals_;
};

class OptionParser {
  public:
    OptionParser(std::string command, std::string summary, std::vector<OptionSpec> specs);

    // Errors are usage errors (exit status 2 at the edge).
    Result<ParsedOptions> parse(const std::vector<std::string>& args,
                                const EnvironmentLookup& environment) const;
    std::string usage() const;
    const std::vector<OptionSpec>& specs() const { return specs_; }

  private:
    const OptionSpec* find(const std::string& name) const;

    std::string command_;
    std::string summary_;
    std::vector<OptionSpec> specs_;
};

// Switch values from the environment: 1/true/yes/on and 0/false/no/off.
Result<bool> parse_switch_value(const std::string& text);

// The bearer token from HOSTPROBE_TOKEN or from a --token-file's content; `where` names the
// source in errors. Whitespace around it (a file's newline) is dropped. A token that is only
// whitespace is refused, wherever it comes from: taken as "no token" it would turn
// authentication off without a word. So is one with a control character (a second line, a
// NUL), which no client could send in a header.
Result<std::string> parse_bearer_token(std::string_view text, const std::string& where);

}  // namespace hostprobe::cli
