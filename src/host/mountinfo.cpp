#include "host/mountinfo.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace hostprobe::host {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo octal.
std::string unescape_octal(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size()) {
            const std::string_view digits = text.substr(i + 1, 3);
            if (std::all_of(digits.begin(), digits.end(),
                            [](char c) { return c >= '0' && c <= '7'; })) {
                out.push_back(static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 +
                                                (digits[2] - '0')));
                i += 3;
                continue;
            }
        }
        out.push_back(text[i]);
    }
    return out;
}

}  // namespace

bool MountInfoEntry::has_super_option(std::string_view option) const {
    return std::find(super_options.begin(), super_options.end(), option) != super_options.end();
}

MountInfo parse_mountinfo(std::string_view text) {
    MountInfo info;
    size_t line_number = 0;
    for (std::string_view line : split_lines(text)) {
        ++line_number;
        if (trim(line).empty()) continue;
        // id parent major:minor root mount-point options [optional...] - fstype source
        // super-options
        const std::vector<std::string_view> fields = split_whitespace(line);
        auto separator = std::find(fields.begin(), fields.end(), "-");
        const auto before = static_cast<size_t>(separator - fields.begin());
        if (separator == fields.end() || before < 6 || fields.end() - separator < 4) {
            info.warnings.push_back("mountinfo line " + std::to_string(line_number) +
                                    " is malformed: '" + std::string(line) + "'");
            continue;
        }
        MountInfoEntry entry;
        entry.root = unescape_octal(fields[3]);
        entry.mount_point = unescape_octal(fields[4]);
        entry.fs_type = std::string(*(separator + 1));
        for (std::string_view option : split(*(separator + 3), ',')) {
            entry.super_options.emplace_back(option);
        }
        info.entries.push_back(std::move(entry));
    }
    return info;
}

}  // namespace hostprobe::host
