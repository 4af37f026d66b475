#include "probes/system/system_tests.hpp"

#include <unistd.h>

namespace hostprobe::probes {

const std::vector<SystemTestSpec>& system_test_specs() {
    // UnixBench 6.0.0 pgms/index.base (unchanged since 5.1): the baseline system scores 10.0 on
    // each.
    static const std::vector<SystemTestSpec> specs = {
        {"dhrystone", "dhrystone", "Dhrystone 2 using register variables", "lps", 116700.0},
        {"whetstone", "whetstone", "Double-Precision Whetstone", "MWIPS", 55.0},
        {"execl", "execl", "Execl Throughput", "lps", 43.0},
        {"file_copy_1024", "file_copy", "File Copy 1024 bufsize 2000 maxblocks", "KBps", 3960.0},
        {"file_copy_256", "file_copy", "File Copy 256 bufsize 500 maxblocks", "KBps", 1655.0},
        {"file_copy_4096", "file_copy", "File Copy 4096 bufsize 8000 maxblocks", "KBps", 5800.0},
        {"pipe", "pipe", "Pipe Throughput", "lps", 12440.0},
        {"context_switch", "context_switch", "Pipe-based Context Switching", "lps", 4000.0},
        {"spawn", "spawn", "Process Creation", "lps", 126.0},
        {"shell_1", "shell", "Shell Scripts (1 concurrent)", "lpm", 42.4},
        {"shell_8", "shell", "Shell Scripts (8 concurrent)", "lpm", 6.0},
        {"syscall", "syscall", "System Call Overhead", "lps", 15000.0},
    };
    return specs;
}

const SystemTestSpec* find_system_test(std::string_view name) {
    for (const auto& spec : system_test_specs()) {
        if (spec.name == name) return &spec;
    }
    return nullptr;
}

std::vector<std::string> system_test_selectors() {
    std::vector<std::string> selectors;
    for (const auto& spec : system_test_specs()) {
        if (selectors.empty() || selectors.back() != spec.selector)
            selectors.emplace_back(spec.selector);
    }
    return selectors;
}

bool keep_going(const CopyEnvironment& environment) {
    return !environment.stop.stop_requested() &&
           std::chrono::steady_clock::now() < environment.deadline;
}

std::optional<std::string> shell_unavailable(const std::string& shell) {
    if (shell.empty()) return "the shell tests are switched off (no shell configured)";
    if (shell.front() != '/') return "the shell must be named by an absolute path, not " + shell;
    if (::access(shell.c_str(), X_OK) != 0)
        return "there is no shell at " + shell + " (a distroless image has none)";
    return std::nullopt;
}

namespace {

// The tests without set-up: the loop is the whole copy.
class LoopCopy final : public PreparedCopy {
  public:
    explicit LoopCopy(std::function<Result<CopyCount>(const CopyEnvironment&)> loop)
        : loop_(std::move(loop)) {}
    Result<CopyCount> run(const CopyEnvironment& environment) override {
        return loop_(environment);
    }

  private:
    std::function<Result<CopyCount>(const CopyEnvironment&)> loop_;
};

Result<std::unique_ptr<PreparedCopy>> loop(
    std::function<Result<CopyCount>(const CopyEnvironment&)> function) {
    return std::unique_ptr<PreparedCopy>(std::make_unique<LoopCopy>(std::move(function)));
}

}  // namespace

Result<std::unique_ptr<PreparedCopy>> prepare_test_copy(const SystemTestSpec& test,
                                                        const CopyEnvironment& environment) {
    const std::string_view name = test.name;
    if (name == "dhrystone")
        return loop(
            [](const CopyEnvironment& e) -> Result<CopyCount> { return dhrystone_copy(e); });
    if (name == "whetstone")
        return loop(
            [](const CopyEnvironment& e) -> Result<CopyCount> { return whetstone_copy(e); });
    if (name == "execl") return loop(execl_copy);
    if (name == "file_copy_1024") return prepare_file_copy(environment, 1024, 2000);
    if (name == "file_copy_256") return prepare_file_copy(environment, 256, 500);
    if (name == "file_copy_4096") return prepare_file_copy(environment, 4096, 8000);
    if (name == "pipe") return loop(pipe_copy);
    if (name == "context_switch") return loop(context_switch_copy);
    if (name == "spawn") return loop(spawn_copy);
    if (name == "shell_1") return loop([](const CopyEnvironment& e) { return shell_copy(e, 1); });
    if (name == "shell_8") return loop([](const CopyEnvironment& e) { return shell_copy(e, 8); });
    if (name == "syscall") return loop(syscall_copy);
    return make_error(ErrorCode::invalid_argument,
                      "unknown system test '" + std::string(name) + "'");
}

}  // namespace hostprobe::probes
