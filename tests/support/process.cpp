#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace hostprobe::testing {

namespace {

std::string read_whole(const std::string& path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

}  // namespace

Process::Process(const std::string& binary, const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& extra_environment) {
    files_.write("stdout", "").write("stderr", "");
    std::vector<std::string> argv_storage = {binary};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_storage)
        argv.push_back(arg.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_storage;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string item = *entry;
        const std::string key = item.substr(0, item.find('='));
        // Tests decide every HOSTPROBE_ setting themselves.
        if (key.rfind("HOSTPROBE_", 0) == 0 || extra_environment.count(key)) continue;
        env_storage.push_back(item);
    }
    for (const auto& [key, value] : extra_environment)
        env_storage.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (auto& item : env_storage)
        envp.push_back(item.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, (files_.root() + "/stdout").c_str(),
                                     O_WRONLY | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, (files_.root() + "/stderr").c_str(),
                                     O_WRONLY | O_TRUNC, 0644);
    const int status =
        posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (status != 0)
        throw std::runtime_error("posix_spawn " + binary + ": " + std::strerror(status));
}

Process::~Process() {
    if (!reaped_ && pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
}

std::string Process::output() const {
    return read_whole(files_.root() + "/stdout");
}
std::string Process::errors() const {
    return read_whole(files_.root() + "/stderr");
}

void Process::signal(int number) const {
    ::kill(pid_, number);
}

ExitStatus Process::wait(std::chrono::milliseconds deadline) {
    const auto start = std::chrono::steady_clock::now();
    ExitStatus result;
    while (true) {
        int status = 0;
        const pid_t done = ::waitpid(pid_, &status, WNOHANG);
        result.waited = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - start);
        if (done == pid_) {
            reaped_ = true;
            result.exited = WIFEXITED(status);
            result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
            return result;
        }
        if (result.waited >= deadline) return result;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

std::optional<int> Process::wait_for_port(std::chrono::milliseconds deadline) const {
    static const std::regex listening(R"(msg=listening address=\S*:(\d+))");
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < deadline) {
        std::smatch match;
        const std::string log = errors();
        if (std::regex_search(log, match, listening)) return std::stoi(match[1].str());
        siginfo_t info{};
        // WNOWAIT: notice an early death without reaping, so wait() still sees the status.
        if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid_) {
            return std::nullopt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
}

Completed run_to_end(const std::string& binary, const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& extra_environment,
                     std::chrono::milliseconds deadline) {
    Process process(binary, args, extra_environment);
    Completed completed;
    completed.status = process.wait(deadline);
    completed.output = process.output();
    completed.errors = process.errors();
    return completed;
}

}  // namespace hostprobe::testing
