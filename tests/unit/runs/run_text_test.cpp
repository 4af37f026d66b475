#include "runs/run_text.hpp"

#include <doctest/doctest.h>

#include "runs/typed_probe.hpp"

using namespace hostprobe;
using nlohmann::json;

namespace run_text_example {

struct Echo {
    int value = 0;
};
void to_json(json& out, const Echo& echo) {
    out = {{"value", echo.value}};
}
void from_json(const json& in, Echo& echo) {
    echo.value = in.at("value").get<int>();
}

// A result without from_json: nothing can render it again.
struct Stamp {
    int value = 0;
};
void to_json(json& out, const Stamp& stamp) {
    out = {{"value", stamp.value}};
}

template <typename ResultType>
class ReportingProbe final : public runs::TypedProbe<ResultType> {
  public:
    explicit ReportingProbe(std::string name) : name_(std::move(name)) {}
    std::string name() const override { return name_; }
    std::string description() const override { return "reports its value"; }
    const runs::ParamTable& params() const override { return params_; }
    bool exclusive() const override { return false; }
    double expected_seconds(const json&) const override { return 0; }

  protected:
    Result<ResultType> measure(const runs::ProbeContext&, const json&) const override {
        return ResultType{7};
    }
    std::string text_report(const ResultType& result) const override {
        return "value " + std::to_string(result.value) + "\n";
    }

  private:
    std::string name_;
    runs::ParamTable params_;
};

}  // namespace run_text_example

using run_text_example::Echo;
using run_text_example::ReportingProbe;
using run_text_example::Stamp;

namespace {

runs::ProbeRegistry registry() {
    runs::ProbeRegistry probes;
    probes.add(std::make_unique<ReportingProbe<Echo>>("echo"));
    probes.add(std::make_unique<ReportingProbe<Stamp>>("stamp"));
    return probes;
}

runs::Run finished(const std::string& probe, const json& result, std::string kept_text) {
    runs::Run run;
    run.probe = probe;
    run.state = runs::RunState::succeeded;
    run.result = result;
    run.text_report = std::move(kept_text);
    return run;
}

}  // namespace

TEST_CASE("a text the probe renders again from the result is not kept, and is given back") {
    const auto probes = registry();
    const runs::Probe& echo = *probes.find("echo");
    CHECK(runs::text_to_keep(echo, json{{"value", 7}}, "value 7\n").empty());
    CHECK(runs::run_text(finished("echo", json{{"value", 7}}, ""), probes) == "value 7\n");
}

TEST_CASE("a text the result does not give back is kept as it was") {
    const auto probes = registry();
    // Rendered from this result the text would differ (a probe that wrote more than it kept).
    CHECK(runs::text_to_keep(*probes.find("echo"), json{{"value", 7}}, "value 8\n") == "value 8\n");
    // A result without from_json cannot be rendered again at all.
    CHECK(runs::text_to_keep(*probes.find("stamp"), json{{"value", 7}}, "value 7\n") ==
          "value 7\n");
    // A result that does not parse (an older journal's) keeps its text.
    CHECK(runs::text_to_keep(*probes.find("echo"), json{{"other", 1}}, "value 7\n") == "value 7\n");
    // A kept text is what the run gives, whatever the result would render.
    CHECK(runs::run_text(finished("echo", json{{"value", 7}}, "as recorded\n"), probes) ==
          "as recorded\n");
}

TEST_CASE("a run with neither a kept text nor a result its probe renders has no text") {
    const auto probes = registry();
    runs::Run failed;
    failed.probe = "echo";
    failed.state = runs::RunState::failed;
    CHECK(runs::run_text(failed, probes).empty());
    CHECK(runs::run_text(finished("gone", json{{"value", 7}}, ""), probes).empty());
    CHECK(runs::run_text(finished("echo", json{{"value", "seven"}}, ""), probes).empty());
}
