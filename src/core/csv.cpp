#include "core/csv.hpp"

namespace hostprobe {

std::vector<CsvRow> parse_csv(std::string_view text) {
    std::vector<CsvRow> rows;
    CsvRow row;
    std::string field;
    bool quoted = false;
    bool row_has_content = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            row_has_content = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            row_has_content = true;
        } else if (c == '\n') {
            if (row_has_content || !field.empty()) {
                row.push_back(std::move(field));
                rows.push_back(std::move(row));
            }
            row.clear();
            field.clear();
            row_has_content = false;
        } else if (c != '\r') {
            field += c;
            row_has_content = true;
        }
    }
    if (row_has_content || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace hostprobe
