#include "cli/options.hpp"

#include <cctype>
#include <cstdlib>

#include "core/strings.hpp"

namespace hostprobe::cli {

std::string OptionSpec::env_name() const {
    if (!env.empty()) return env;
    std::string derived = "HOSTPROBE_";
    for (char c : name) {
        derived += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return derived;
}

EnvironmentLookup process_environment() {
    return [](const std::string& key) -> std::optional<std::string> {
        const char* value = std::getenv(key.c_str());
        if (value == nullptr) {
            return std::nullopt;
        }
        return std::string(value);
    };
}

const std::string& ParsedOptions::get(const std::string& name) const {
    static const std::string kEmpty;
    auto it = values_.find(name);
    return it == values_.end() ? kEmpty : it->second.first;
}

bool ParsedOptions::has(const std::string& name) const {
    return values_.count(name) > 0;
}

bool ParsedOptions::is_on(const std::string& name) const {
    auto value = parse_switch_value(get(name));
    return value.ok() && *value;
}

std::string ParsedOptions::source(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? "unset" : it->second.second;
}

void ParsedOptions::set(const std::string& name, std::string value, std::string source) {
    values_[name] = {std::move(value), std::move(source)};
}

Result<bool> parse_switch_value(const std::string& text) {
    const std::string value = to_lower(trim(text));
    if (value == "1" || value == "true" || value == "yes" || value == "on") return true;
    if (value == "0" || value == "false" || value == "no" || value == "off" || value.empty()) {
        return false;
    }
    return make_error(ErrorCode::invalid_argument,
                      "expected a boolean (true/false, 1/0, yes/no), got '" + text + "'");
}

Result<std::string> parse_bearer_token(std::string_view text, const std::string& where) {
    const std::string_view token = trim(text);
    if (token.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          where +
                              " is empty or only whitespace: that would turn authentication "
                              "off; give the token, or leave " +
                              where + " out");
    }
    for (const char c : token) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7F) {
            return make_error(ErrorCode::invalid_argument,
                              where +
                                  " holds a control character (a line break, a tab, a NUL) "
                                  "inside the token; no client could send it");
        }
    }
    return std::string(token);
}

OptionParser::OptionParser(std::string command, std::string summary, std::vector<OptionSpec> specs)
    : command_(std::move(command)), summary_(std::move(summary)), specs_(std::move(specs)) {}

const OptionSpec* OptionParser::find(const std::string& name) const {
    for (const auto& spec : specs_) {
        if (spec.name == name) return &spec;
    }
    return nullptr;
}

Result<ParsedOptions> OptionParser::parse(const std::vector<std::string>& args,
                                          const EnvironmentLookup& environment) const {
    ParsedOptions parsed;
    for (const auto& spec : specs_) {
        if (!spec.default_value.empty()) {
            parsed.set(spec.name, spec.default_value, "default");
        }
        // An empty variable is unset, as in most tools: `HOSTPROBE_PARAMS_FILE=` in a task
        // definition must not mean "read the file named ''". Unless empty means "none".
        if (auto env_value = environment(spec.env_name());
            env_value && (!env_value->empty() || spec.empty_means_none)) {
            if (spec.is_switch()) {
                auto on = parse_switch_value(*env_value);
                if (!on) {
                    return make_error(ErrorCode::invalid_argument,
                                      spec.env_name() + ": " + on.error().message);
                }
                parsed.set(spec.name, *on ? "true" : "false", "env " + spec.env_name());
            } else {
                parsed.set(spec.name, *env_value, "env " + spec.env_name());
            }
        }
    }
    bool options_ended = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (options_ended || arg == "-" || arg.empty() || arg[0] != '-') {
            parsed.add_positional(arg);
            continue;
        }
        if (arg == "--") {
            options_ended = true;
            continue;
        }
        if (arg.rfind("--", 0) != 0) {
            return make_error(ErrorCode::invalid_argument, "unknown option '" + arg + "'");
        }
        std::string name = arg.substr(2);
        std::optional<std::string> inline_value;
        if (size_t eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        const OptionSpec* spec = find(name);
        if (spec == nullptr) {
            return make_error(ErrorCode::invalid_argument, "unknown option '--" + name + "'");
        }
        if (spec->is_switch()) {
            bool on = true;
            if (inline_value) {
                auto value = parse_switch_value(*inline_value);
                if (!value) {
                    return make_error(ErrorCode::invalid_argument,
                                      "--" + name + ": " + value.error().message);
                }
                on = *value;
            }
            parsed.set(name, on ? "true" : "false", "flag");
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= args.size()) {
                return make_error(
                    ErrorCode::invalid_argument,
                    "option '--" + name + "' needs a value (" + spec->value_name + ")");
            }
            inline_value = args[++i];
        }
        if (spec->repeatable && parsed.source(name) == "flag") {
            parsed.set(name, parsed.get(name) + "," + *inline_value, "flag");
        } else {
            parsed.set(name, *inline_value, "flag");
        }
    }
    return parsed;
}

std::string OptionParser::usage() const {
    std::string text = "Usage: hostprobe " + command_ + " [options]\n\n" + summary_ + "\n";
    if (specs_.empty()) {
        return text;
    }
    text += "\nOptions (each also read from its environment variable):\n";
    for (const auto& spec : specs_) {
        std::string flag = "  --" + spec.name + (spec.is_switch() ? "" : " " + spec.value_name);
        if (flag.size() < 30) flag.resize(30, ' ');
        text += flag + " " + spec.help;
        if (!spec.default_value.empty()) text += " (default " + spec.default_value + ")";
        text += "\n" + std::string(31, ' ') + "env " + spec.env_name() + "\n";
    }
    return text;
}

}  // namespace hostprobe::cli
