#include "host/pressure.hpp"

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

Error malformed(const std::string& why) {
    return make_error(ErrorCode::parse_error, "pressure: " + why);
}

// The total= of one "some"/"full" line, in seconds, after checking every field.
Result<double> line_total(const std::vector<std::string_view>& fields) {
    std::optional<double> total;
    for (size_t i = 1; i < fields.size(); ++i) {
        const std::string_view field = fields[i];
        const size_t equals = field.find('=');
        if (equals == std::string_view::npos) {
            return malformed("field '" + std::string(field) + "' is not key=value");
        }
        const std::string_view key = field.substr(0, equals);
        const std::string_view value = field.substr(equals + 1);
        if (key == "total") {
            auto usec = parse_uint64(value);
            if (!usec) return malformed("total: " + usec.error().message);
            total = static_cast<double>(*usec) / 1e6;
        } else if (key == "avg10" || key == "avg60" || key == "avg300") {
            auto percent = parse_double(value);
            if (!percent || !(*percent >= 0 && *percent <= 100)) {
                return malformed(std::string(key) + " is not a percentage: '" + std::string(value) +
                                 "'");
            }
        }
        // Other keys (a later kernel's) are skipped.
    }
    if (!total) return malformed("'" + std::string(fields[0]) + "' line has no total=");
    return *total;
}

Result<std::optional<PressureTotals>> read_pressure_file(const SysRoot& root,
                                                         const std::string& path) {
    auto text = root.read_file(path);
    if (!text) {
        // PSI off (no CONFIG_PSI, psi=0, cgroup v1): the file does not exist. Any other
        // failure to read it is an error.
        if (text.error().code == ErrorCode::not_found) return std::optional<PressureTotals>{};
        return text.error();
    }
    auto totals = parse_pressure(*text);
    if (!totals) return make_error(totals.error().code, path + ": " + totals.error().message);
    return std::optional<PressureTotals>{*totals};
}

}  // namespace

const char* to_string(PressureResource resource) {
    switch (resource) {
        case PressureResource::cpu: return "cpu";
        case PressureResource::memory: return "memory";
        case PressureResource::io: return "io";
    }
    return "cpu";
}

Result<PressureTotals> parse_pressure(std::string_view text) {
    std::optional<double> some;
    std::optional<double> full;
    for (std::string_view line : split_lines(text)) {
        const auto fields = split_whitespace(line);
        if (fields.empty()) continue;
        if (fields[0] != "some" && fields[0] != "full") {
            return malformed("unexpected line '" + std::string(trim(line)) + "'");
        }
        auto total = line_total(fields);
        if (!total) return total.error();
        std::optional<double>& slot = fields[0] == "some" ? some : full;
        if (slot) return malformed("two '" + std::string(fields[0]) + "' lines");
        slot = *total;
    }
    if (!some) return malformed("no 'some' line");
    return PressureTotals{*some, full};
}

Result<std::optional<PressureTotals>> read_host_pressure(const SysRoot& root,
                                                         PressureResource resource) {
    return read_pressure_file(root, std::string("/proc/pressure/") + to_string(resource));
}

Result<std::optional<PressureTotals>> read_cgroup_pressure(const SysRoot& root,
                                                           const std::string& cgroup_dir,
                                                           PressureResource resource) {
    return read_pressure_file(root, cgroup_dir + "/" + to_string(resource) + ".pressure");
}

}  // namespace hostprobe::host
