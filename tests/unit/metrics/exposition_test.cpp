#include "metrics/exposition.hpp"

#include <doctest/doctest.h>
#include <prometheus/collectable.h>

#include "core/utf8.hpp"
#include "metrics/family_builder.hpp"

using namespace hostprobe;

namespace {

const std::string kReplacementCharacter = "\xEF\xBF\xBD";

// A collector whose label value and help text come from a host that reports odd bytes.
class OddHost final : public prometheus::Collectable {
  public:
    std::vector<prometheus::MetricFamily> Collect() const override {
        std::vector<prometheus::MetricFamily> out;
        metrics::append(out, metrics::gauge("test_cpu_info", "Model \xC3 of the CPU.")
                                 .add(1, {{"model_name", "Xeon \x96 v4 \xF0\x9F\x98\x80"}}));
        return out;
    }
};

class OddText final : public metrics::TextSource {
  public:
    void render(std::string& out, std::vector<metrics::CollectorOutcome>&) const override {
        out +=
            "# HELP test_disk_iops IOPS.\n# TYPE test_disk_iops gauge\n"
            "test_disk_iops{directory=\"/mnt/\xFF\xFE\"} 3\n";
    }
};

}  // namespace

TEST_CASE("/metrics is valid UTF-8 whatever the collectors and text sources hold") {
    metrics::Exposition exposition;
    exposition.add(std::make_shared<OddHost>());
    exposition.add(std::make_shared<const OddText>());
    const std::string text = exposition.render();
    CHECK(is_valid_utf8(text));
    // Each bad byte became U+FFFD; valid characters, quotes and the syntax are untouched.
    CHECK(text.find("model_name=\"Xeon " + kReplacementCharacter + " v4 \xF0\x9F\x98\x80\"") !=
          std::string::npos);
    CHECK(text.find("# HELP test_cpu_info Model " + kReplacementCharacter + " of the CPU.\n") !=
          std::string::npos);
    CHECK(text.find("test_disk_iops{directory=\"/mnt/" + kReplacementCharacter +
                    kReplacementCharacter + "\"} 3\n") != std::string::npos);
}

TEST_CASE("a valid page is rendered as the serializer wrote it") {
    class Plain final : public metrics::TextSource {
      public:
        void render(std::string& out, std::vector<metrics::CollectorOutcome>&) const override {
            out += "# TYPE a gauge\na{b=\"\xC3\xA9\"} 1\n";
        }
    };
    metrics::Exposition plain;
    plain.add(std::make_shared<const Plain>());
    CHECK(plain.render() == "# TYPE a gauge\na{b=\"\xC3\xA9\"} 1\n");
}
