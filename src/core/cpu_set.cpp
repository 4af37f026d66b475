#include "core/cpu_set.hpp"

#include <algorithm>

#include "core/strings.hpp"

namespace hostprobe {

namespace {

constexpr size_t kMaxCpus = CpuSet::kMaxCpus;

Result<size_t> parse_cpu_number(std::string_view text) {
    auto number = parse_uint64(text);
    if (!number) {
        return number.error();
    }
    if (*number >= kMaxCpus) {
        return make_error(ErrorCode::parse_error, "CPU number too large: " + std::string(text));
    }
    return static_cast<size_t>(*number);
}

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

Result<CpuSet> CpuSet::parse_list(std::string_view text) {
    CpuSet set;
    std::string_view body = trim(text);
    if (body.empty()) {
        return set;  // the kernel writes an empty line for an empty set
    }
    for (std::string_view item : split(body, ',')) {
        item = trim(item);
        // "a-b:stride" is accepted because lscpu and the kernel both use it.
        size_t stride = 1;
        if (size_t colon = item.find(':'); colon != std::string_view::npos) {
            auto parsed = parse_cpu_number(item.substr(colon + 1));
            if (!parsed || *parsed == 0) {
                return make_error(ErrorCode::parse_error,
                                  "bad stride in CPU list: '" + std::string(text) + "'");
            }
            stride = *parsed;
            item = item.substr(0, colon);
        }
        size_t dash = item.find('-');
        auto first = parse_cpu_number(item.substr(0, dash));
        if (!first) {
            return make_error(ErrorCode::parse_error, "bad CPU list: '" + std::string(text) + "'");
        }
        size_t last = *first;
        if (dash != std::string_view::npos) {
            auto parsed_last = parse_cpu_number(item.substr(dash + 1));
            if (!parsed_last || *parsed_last < *first) {
                return make_error(ErrorCode::parse_error,
                                  "bad CPU range in list: '" + std::string(text) + "'");
            }
            last = *parsed_last;
        }
        for (size_t cpu = *first; cpu <= last; cpu += stride) {
            set.insert(cpu);
        }
    }
    return set;
}

Result<CpuSet> CpuSet::parse_mask(std::string_view text) {
    CpuSet set;
    std::string digits;
    for (char c : trim(text)) {
        if (c == ',') continue;
        if (hex_digit_value(c) < 0) {
            return make_error(ErrorCode::parse_error, "bad CPU mask: '" + std::string(text) + "'");
        }
        digits.push_back(c);
    }
    if (digits.empty()) {
        return make_error(ErrorCode::parse_error, "empty CPU mask");
    }
    if (digits.size() * 4 > kMaxCpus) {
        return make_error(ErrorCode::parse_error, "CPU mask too long");
    }
    // The rightmost digit holds CPUs 0-3.
    for (size_t i = 0; i < digits.size(); ++i) {
        int value = hex_digit_value(digits[digits.size() - 1 - i]);
        for (int bit = 0; bit < 4; ++bit) {
            if (value & (1 << bit)) {
                set.insert(i * 4 + static_cast<size_t>(bit));
            }
        }
    }
    return set;
}

void CpuSet::insert(size_t cpu) {
    if (cpu >= kMaxCpus) return;
    if (cpu >= bits_.size()) {
        bits_.resize(cpu + 1, false);
    }
    bits_[cpu] = true;
}

size_t CpuSet::count() const {
    return static_cast<size_t>(std::count(bits_.begin(), bits_.end(), true));
}

std::vector<size_t> CpuSet::members() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < bits_.size(); ++i) {
        if (bits_[i]) out.push_back(i);
    }
    return out;
}

std::string CpuSet::to_list() const {
    const std::vector<size_t> members = this->members();
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < members.size()) {
        const size_t first = members[i];
        if (i + 1 >= members.size()) {
            parts.push_back(std::to_string(first));
            break;
        }
        const size_t stride = members[i + 1] - first;
        size_t j = i + 1;
        while (j + 1 < members.size() && members[j + 1] - members[j] == stride)
            ++j;
        const size_t last = members[j];
        if (j == i + 1) {
            parts.push_back(std::to_string(first));  // a pair: print one, restart at the second
            i = i + 1;
        } else if (stride == 1) {
            parts.push_back(std::to_string(first) + "-" + std::to_string(last));
            i = j + 1;
        } else {
            parts.push_back(std::to_string(first) + "-" + std::to_string(last) + ":" +
                            std::to_string(stride));
            i = j + 1;
        }
    }
    return join(parts, ",");
}

bool CpuSet::operator==(const CpuSet& other) const {
    return bits_ == other.bits_;
}

bool CpuSet::operator<(const CpuSet& other) const {
    return members() < other.members();
}

}  // namespace hostprobe
