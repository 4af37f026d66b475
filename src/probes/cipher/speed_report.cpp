#include "probes/cipher/speed_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "core/strings.hpp"
#include "probes/cipher/sweep_report.hpp"

namespace hostprobe::probes {

namespace {

std::string shortest(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

std::string column(double value) {
    char buffer[64];
    if (value > 10000) {
        std::snprintf(buffer, sizeof buffer, " %11.2fk", value / 1e3);
    } else {
        std::snprintf(buffer, sizeof buffer, " %11.2f ", value);
    }
    return buffer;
}

// openssl speed: "%-13s" names, " %11.2fk" for figures over 10000 (in 1000s of bytes).
std::string table(const std::vector<CipherCell>& measurements, double CipherCell::*rate) {
    std::vector<size_t> sizes;
    std::vector<std::string> ciphers;
    std::map<std::pair<std::string, size_t>, double> figures;
    for (const auto& cell : measurements) {
        if (std::find(sizes.begin(), sizes.end(), cell.block_bytes) == sizes.end())
            sizes.push_back(cell.block_bytes);
        if (std::find(ciphers.begin(), ciphers.end(), cell.cipher) == ciphers.end())
            ciphers.push_back(cell.cipher);
        figures[{cell.cipher, cell.block_bytes}] = cell.*rate;
    }
    std::string out = "The 'numbers' are in 1000s of bytes per second processed.\ntype        ";
    for (size_t size : sizes) {
        char header[32];
        std::snprintf(header, sizeof header, "%7zu bytes", size);
        out += header;
    }
    out += "\n";
    for (const auto& cipher : ciphers) {
        char name[64];
        std::snprintf(name, sizeof name, "%-13s", cipher.c_str());
        out += name;
        for (size_t size : sizes) {
            auto it = figures.find({cipher, size});
            out += it == figures.end() ? "          n/a " : column(it->second);
        }
        out += "\n";
    }
    return out;
}

// The thread counts a run measured: "2 thread(s)", or a sweep's "threads 1, 2, 4".
std::string threads_measured(const CipherResult& result) {
    if (!result.thread_sweep) return std::to_string(result.threads) + " thread(s)";
    std::vector<std::string> counts;
    for (size_t count : result.thread_sweep->thread_counts)
        counts.push_back(std::to_string(count));
    return "threads " + join(counts, ", ");
}

// A sweep's figures side by side by thread count; otherwise openssl speed's two tables.
std::string speed_tables(const CipherResult& result) {
    if (result.thread_sweep) return "\n" + sweep_report(*result.thread_sweep);
    return "\nWall clock (what `openssl speed -elapsed` prints):\n" +
           table(result.measurements, &CipherCell::bytes_per_second) +
           "\nCPU time (what `openssl speed` prints without -elapsed):\n" +
           table(result.measurements, &CipherCell::cpu_bytes_per_second);
}

}  // namespace

std::string speed_report(const CipherResult& result) {
    std::string out = "hostprobe cipher: " + threads_measured(result) + ", " +
                      shortest(result.seconds_per_measurement) + " s per measurement, mode " +
                      cipher_mode_name(result.mode) + ", " +
                      (result.decrypt ? "decrypt" : "encrypt") + ", " + result.openssl_version +
                      "\n";
    if (result.openssl_cpu)
        out += "OpenSSL CPU: " + host::openssl_cpu_summary(*result.openssl_cpu) + "\n";
    if (result.partial) out += "(partial: the run was cancelled)\n";
    out += speed_tables(result) + "\n";
    if (const auto& throttling = result.throttling) {
        out += "CFS throttling during the run: " + std::to_string(throttling->throttled_periods) +
               " of " + std::to_string(throttling->periods) + " periods, " +
               format_fixed(throttling->throttled_seconds, 2) + " s throttled\n";
    }
    if (result.steal_seconds) {
        out +=
            "CPU time stolen by the hypervisor: " + format_fixed(*result.steal_seconds, 2) + " s\n";
    }
    if (const auto& sustained = result.sustained) {
        out += "Sustained: " + format_fixed(sustained->first_bytes_per_second / 1e6, 1) +
               " MB/s in the first " + shortest(sustained->window_seconds) + " s, " +
               format_fixed(sustained->last_bytes_per_second / 1e6, 1) + " MB/s in the last\n";
    }
    if (!result.series.empty()) out += series_summary_line(result.series) + "\n";
    out += std::string("Throttled: ") + (result.throttled ? "yes" : "no") + ". " +
           result.explanation + "\n";
    return out;
}

}  // namespace hostprobe::probes
