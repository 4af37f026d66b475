// A child cgroup with a CPU quota (cgroup v1 cpu controller or v2 cpu.max), as a Fargate task
// has, for tests that run the agent under one. Needs root and a writable cgroup tree; `reason`
// says why not otherwise. Removed when the object goes (after the processes in it have ended).
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hostprobe::testing {

class QuotaCgroup {
  public:
    QuotaCgroup(const std::string& name, double cores) {
        namespace fs = std::filesystem;
        std::error_code error;
        if (fs::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) {
            path_ = "/sys/fs/cgroup/cpu/" + name;
            version_ = 1;
        } else if (fs::exists("/sys/fs/cgroup/cgroup.controllers")) {
            path_ = "/sys/fs/cgroup/" + name;
            version_ = 2;
        } else {
            reason_ = "no cgroup cpu controller is mounted";
            return;
        }
        if (!fs::create_directory(path_, error) || error) {
            reason_ = "cannot create " + path_ + ": " + error.message();
            path_.clear();
            return;
        }
        if (version_ == 1) write("cpu.cfs_period_us", std::to_string(kPeriodUs));
        if (!set_cores(cores)) reason_ = "cannot set a CPU quota in " + path_;
    }
    ~QuotaCgroup() {
        if (!path_.empty()) ::rmdir(path_.c_str());
    }
    QuotaCgroup(const QuotaCgroup&) = delete;
    QuotaCgroup& operator=(const QuotaCgroup&) = delete;

    bool usable() const { return reason_.empty(); }
    const std::string& reason() const { return reason_; }

    // Changes the quota, also while processes run in the cgroup.
    bool set_cores(double cores) {
        const long quota = std::lround(cores * kPeriodUs);
        return version_ == 1
                   ? write("cpu.cfs_quota_us", std::to_string(quota))
                   : write("cpu.max", std::to_string(quota) + " " + std::to_string(kPeriodUs));
    }

    // CFS periods in which the cgroup had work to run (cpu.stat nr_periods): how long it has
    // been busy, in tenths of a second.
    uint64_t busy_periods() const {
        std::ifstream in(path_ + "/cpu.stat");
        std::string key;
        uint64_t value = 0;
        while (in >> key >> value) {
            if (key == "nr_periods") return value;
        }
        return 0;
    }

    // `command` started inside the cgroup: a shell moves itself in, then execs the command.
    std::vector<std::string> wrap(const std::vector<std::string>& command) const {
        std::vector<std::string> args = {"-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"",
                                         path_};
        args.insert(args.end(), command.begin(), command.end());
        return args;
    }

  private:
    static constexpr long kPeriodUs = 100000;

    bool write(const std::string& file, const std::string& value) const {
        std::ofstream out(path_ + "/" + file);
        out << value;
        out.flush();
        return out.good();
    }

    std::string path_;
    int version_ = 0;
    std::string reason_;
};

}  // namespace hostprobe::testing
