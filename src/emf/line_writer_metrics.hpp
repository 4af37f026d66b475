// hostprobe_emf_lines_written_total and hostprobe_emf_lines_dropped_total, read from the line
// writer at scrape time.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

#include "emf/line_writer.hpp"

namespace hostprobe::emf {

class LineWriterCollector final : public prometheus::Collectable {
  public:
    explicit LineWriterCollector(const LineWriter& writer) : writer_(writer) {}
    std::vector<prometheus::MetricFamily> Collect() const override;

  private:
    const LineWriter& writer_;
};

}  // namespace hostprobe::emf
