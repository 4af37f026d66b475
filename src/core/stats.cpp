#include "core/stats.hpp"

#include <algorithm>
#include <cmath>

namespace hostprobe::core {

namespace {

std::vector<double> sorted(std::span<const double> values) {
    std::vector<double> copy(values.begin(), values.end());
    std::sort(copy.begin(), copy.end());
    return copy;
}

double median_of_sorted(const std::vector<double>& values) {
    const size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

std::optional<double> median(std::span<const double> values) {
    if (values.empty()) return std::nullopt;
    return median_of_sorted(sorted(values));
}

std::optional<Spread> spread(std::span<const double> values) {
    if (values.empty()) return std::nullopt;
    const auto ordered = sorted(values);
    return Spread{ordered.front(), median_of_sorted(ordered), ordered.back()};
}

std::optional<double> percentile(std::span<const double> values, double point) {
    if (values.empty()) return std::nullopt;
    const auto ordered = sorted(values);
    const double clamped = std::clamp(point, 0.0, 100.0);
    const auto rank =
        static_cast<size_t>(std::ceil(clamped / 100.0 * static_cast<double>(ordered.size())));
    return ordered[std::clamp<size_t>(rank, 1, ordered.size()) - 1];
}

}  // namespace hostprobe::core
