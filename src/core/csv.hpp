// A small RFC 4180 reader for the data tables compiled into the binary.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hostprobe {

using CsvRow = std::vector<std::string>;

// Rows of the text, header included; quoted fields may hold commas and doubled quotes.
std::vector<CsvRow> parse_csv(std::string_view text);

}  // namespace hostprobe
