// Which EC2 instance families use a given processor: always a set and always a guess, since
// several families share one CPU and a CPU model string names no instance type.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hostprobe::host {

// The part of a processor name that identifies the chip on both sides of the match: cpuinfo
// ("Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz") and AWS's price list ("Intel Xeon E5-2686 v4
// (Broadwell)") both give "E5-2686 v4"; "Platinum 8259CL" and "Platinum 8259 (Cascade Lake)"
// give "8259"; "AMD EPYC 7R13 Processor" gives "EPYC 7R13"; "AWS Graviton2 Processor" gives
// "Graviton2".
std::optional<std::string> processor_key(std::string_view processor_name);

class Ec2FamilyTable {
  public:
    static const Ec2FamilyTable& builtin();

    // Sorted, unique family names whose processor has the same key.
    std::vector<std::string> families_for_key(const std::string& key) const;

  private:
    struct Row {
        std::string family;
        std::string key;
    };
    std::vector<Row> rows_;
};

}  // namespace hostprobe::host
