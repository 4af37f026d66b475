#include "host/ec2_families.hpp"

#include <algorithm>
#include <regex>

#include "core/csv.hpp"
#include "data/ec2_processors.hpp"
#include "data/ec2_processors_extra.hpp"

namespace hostprobe::host {

std::optional<std::string> processor_key(std::string_view processor_name) {
    // Compiled once; std::regex objects are safe to share for matching.
    static const std::regex xeon_e(R"(\b(E[357]-\d{4}[A-Z]?L?)(?:\s+(v\d))?)");
    static const std::regex scalable(
        R"(\b(?:Platinum|Gold|Silver|Bronze|Xeon)(?:\(R\))?\s+(\d{4})[A-Z]{0,2}\b)");
    static const std::regex epyc(R"(\bEPYC\s+([0-9A-Z]{4,5})\b)");
    static const std::regex graviton(R"(\bGraviton(\d*)\b)");
    const std::string name(processor_name);
    std::smatch match;
    if (std::regex_search(name, match, xeon_e)) {
        return match[2].matched ? match[1].str() + " " + match[2].str() : match[1].str();
    }
    if (std::regex_search(name, match, scalable)) return match[1].str();
    if (std::regex_search(name, match, epyc)) return "EPYC " + match[1].str();
    if (std::regex_search(name, match, graviton)) return "Graviton" + match[1].str();
    return std::nullopt;
}

const Ec2FamilyTable& Ec2FamilyTable::builtin() {
    static const Ec2FamilyTable table = [] {
        Ec2FamilyTable loaded;
        for (std::string_view csv : {kEc2ProcessorsCsv, kEc2ProcessorsExtraCsv}) {
            const auto rows = parse_csv(csv);
            for (size_t i = 1; i < rows.size(); ++i) {
                if (rows[i].size() < 2) continue;
                if (auto key = processor_key(rows[i][1])) {
                    loaded.rows_.push_back(Row{rows[i][0], *key});
                }
            }
        }
        return loaded;
    }();
    return table;
}

std::vector<std::string> Ec2FamilyTable::families_for_key(const std::string& key) const {
    std::vector<std::string> families;
    for (const auto& row : rows_) {
        if (row.key == key) families.push_back(row.family);
    }
    std::sort(families.begin(), families.end());
    families.erase(std::unique(families.begin(), families.end()), families.end());
    return families;
}

}  // namespace hostprobe::host
