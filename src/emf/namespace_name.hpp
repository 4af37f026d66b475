// The CloudWatch namespace of the metrics (--emf-namespace): 1 to 255 ASCII characters among
// letters, digits, '.', '-', '_', '/', '#', ':' and space, at least one of them not a space, and
// not starting with "AWS/" (reserved for AWS services), as PutMetricData requires.
#pragma once

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace hostprobe::emf {

inline constexpr std::string_view kDefaultNamespace = "hostprobe";
inline constexpr size_t kMaxNamespaceLength = 255;

// The namespace itself, or invalid_argument saying which rule it breaks.
Result<std::string> parse_namespace(std::string_view text);

}  // namespace hostprobe::emf
