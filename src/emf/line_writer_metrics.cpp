#include "emf/line_writer_metrics.hpp"

#include "metrics/family_builder.hpp"

namespace hostprobe::emf {

std::vector<prometheus::MetricFamily> LineWriterCollector::Collect() const {
    auto written = metrics::counter("hostprobe_emf_lines_written_total",
                                    "CloudWatch EMF lines written whole to stdout (--emf).");
    written.add(static_cast<double>(writer_.lines_written()));
    auto dropped = metrics::counter(
        "hostprobe_emf_lines_dropped_total",
        "CloudWatch EMF lines dropped: stdout closed, its reader gone, the queue full, or no room "
        "for the whole line within a second (--emf).");
    dropped.add(static_cast<double>(writer_.lines_dropped()));
    std::vector<prometheus::MetricFamily> families;
    families.push_back(std::move(written).build());
    families.push_back(std::move(dropped).build());
    return families;
}

}  // namespace hostprobe::emf
