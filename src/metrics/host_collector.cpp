#include "metrics/host_collector.hpp"

#include <openssl/crypto.h>

#include <algorithm>

#include "core/build_info.hpp"
#include "metrics/family_builder.hpp"
#include "metrics/usage_metrics.hpp"

namespace hostprobe::metrics {

namespace {

std::string text_or_empty(const std::optional<std::string>& value) {
    return value.value_or("");
}

void add_identity(std::vector<prometheus::MetricFamily>& out, const host::HostFacts& facts) {
    const host::CpuType* cpu = facts.default_type();
    if (cpu == nullptr) return;
    append(out, gauge("hostprobe_cpu_info", "CPU identity of the default CPU type; always 1.")
                    .add(1, {{"vendor_id", text_or_empty(cpu->vendor_id)},
                             {"model_name", text_or_empty(cpu->model_name)},
                             {"family", text_or_empty(cpu->family)},
                             {"model", text_or_empty(cpu->model)},
                             {"stepping", text_or_empty(cpu->stepping)},
                             {"microarchitecture", text_or_empty(facts.guess.microarchitecture)},
                             {"hypervisor", text_or_empty(facts.hypervisor.vendor)}}));
    FamilyBuilder flags =
        gauge("hostprobe_cpu_flag_info",
              "CPU flags that matter for crypto and vector throughput; 1 when present.");
    for (const std::string& flag : HostCollector::reported_flags()) {
        if (std::find(cpu->flags.begin(), cpu->flags.end(), flag) != cpu->flags.end()) {
            flags.add(1, {{"flag", flag}});
        }
    }
    append(out, std::move(flags));
    FamilyBuilder candidates =
        gauge("hostprobe_ec2_family_candidate_info",
              "EC2 instance families known to use this processor (a guess); always 1.");
    for (const auto& family : facts.guess.ec2_families)
        candidates.add(1, {{"family", family}});
    append(out, std::move(candidates));
}

// Bounded labels: the sysfs file names (at most 64 of [a-z0-9_]) and four statuses.
void add_vulnerabilities(std::vector<prometheus::MetricFamily>& out, const host::HostFacts& facts) {
    FamilyBuilder vulnerabilities =
        gauge("hostprobe_cpu_vulnerability_info",
              "The kernel's status of each CPU vulnerability in "
              "/sys/devices/system/cpu/vulnerabilities (not_affected, mitigation, vulnerable, "
              "unknown); always 1.");
    for (const auto& vulnerability : facts.cpu_vulnerabilities) {
        vulnerabilities.add(1, {{"name", vulnerability.name},
                                {"status", host::vulnerability_status_name(vulnerability.status)}});
    }
    append(out, std::move(vulnerabilities));
}

// What this process's OpenSSL runs its ciphers with (live only: a replayed dump has none).
void add_openssl_cpu(std::vector<prometheus::MetricFamily>& out, const host::HostFacts& facts) {
    const auto& openssl = facts.openssl_cpu;
    if (!openssl) return;
    append(out, gauge("hostprobe_openssl_cpu_info",
                      "OpenSSL's CPU settings (OPENSSL_info CPU_SETTINGS) and whether AES runs on "
                      "the CPU's AES instructions (used, masked, unused, absent, unknown); always "
                      "1.")
                    .add(1, {{"settings", openssl->settings},
                             {"aes_hardware", host::aes_hardware_name(openssl->aes_hardware)}}));
    FamilyBuilder features =
        gauge("hostprobe_openssl_cpu_feature_used",
              "1 when OpenSSL's capability vector lets it use the CPU feature, 0 when not.");
    for (const auto& feature : openssl->features)
        features.add(feature.used ? 1 : 0, {{"feature", feature.name}});
    append(out, std::move(features));
}

void add_capacity(std::vector<prometheus::MetricFamily>& out, const host::HostFacts& facts) {
    append(out,
           gauge("hostprobe_cpus_online", "CPUs the kernel has online.").add(facts.online_cpus()));
    append(out, gauge("hostprobe_cpus_visible", "CPUs this process may be scheduled on.")
                    .add(facts.cpu_budget.visible_cpus));
    append(out, gauge("hostprobe_cpu_budget_cores",
                      "CPU time this task may use, in cores (quota/period, or visible CPUs).")
                    .add(facts.cpu_budget.cores));
    append(out, gauge("hostprobe_cpu_workers",
                      "Worker threads probes use: max(1, min(ceil(budget), visible CPUs)).")
                    .add(facts.cpu_budget.workers));
    const auto& cgroup = facts.cgroup;
    FamilyBuilder quota = gauge("hostprobe_cgroup_cpu_quota_cores",
                                "cgroup CPU quota in cores; absent when unlimited.");
    if (cgroup.cpu_quota) quota.add(cgroup.cpu_quota->cores());
    append(out, std::move(quota));
    FamilyBuilder memory =
        gauge("hostprobe_cgroup_memory_limit_bytes", "cgroup memory limit; absent when unlimited.");
    if (cgroup.memory_limit_bytes) memory.add(static_cast<double>(*cgroup.memory_limit_bytes));
    append(out, std::move(memory));
}

void add_ecs(std::vector<prometheus::MetricFamily>& out, const task::TaskFacts& facts) {
    if (facts.cost) {
        append(out, gauge("hostprobe_task_cost_dollars_per_hour",
                          "What the task costs per hour from its CPU and memory limits and the "
                          "configured prices.")
                        .add(facts.cost->dollars_per_hour, {{"source", facts.cost->source}}));
    }
    if (!facts.ecs) return;
    const ecs::TaskMetadata& task = *facts.ecs;
    append(out, gauge("hostprobe_ecs_task_info", "The ECS task this agent runs in; always 1.")
                    .add(1, {{"cluster", task.cluster},
                             {"task_arn", task.task_arn},
                             {"family", task.family},
                             {"revision", task.revision},
                             {"availability_zone", task.availability_zone},
                             {"launch_type", task.launch_type}}));
    FamilyBuilder cpu =
        gauge("hostprobe_ecs_task_cpu_limit_cores",
              "The task's CPU limit in cores (Fargate vCPUs, or EC2 container CPU units / 1024).");
    if (task.cpu_limit_cores) cpu.add(*task.cpu_limit_cores, {{"source", task.cpu_limit_source}});
    append(out, std::move(cpu));
    FamilyBuilder memory =
        gauge("hostprobe_ecs_task_memory_limit_bytes", "The task's memory limit.");
    if (task.memory_limit_bytes) memory.add(static_cast<double>(*task.memory_limit_bytes));
    append(out, std::move(memory));
    FamilyBuilder pull =
        gauge("hostprobe_ecs_image_pull_seconds", "PullStartedAt to PullStoppedAt of the task.");
    if (task.image_pull_seconds) pull.add(*task.image_pull_seconds);
    append(out, std::move(pull));
    FamilyBuilder start =
        gauge("hostprobe_ecs_container_start_seconds", "This container's CreatedAt to StartedAt.");
    if (task.container_start_seconds) start.add(*task.container_start_seconds);
    append(out, std::move(start));
}

void add_throttling(std::vector<prometheus::MetricFamily>& out, FamilyBuilder& success,
                    const SysRoot& root, const host::HostFacts& facts) {
    const auto& source = facts.cgroup.throttling_source;
    bool ok = false;
    if (source) {
        if (auto counters = host::read_throttling(root, *source)) {
            ok = true;
            append(out, counter("hostprobe_cgroup_cpu_periods_total",
                                "CFS enforcement periods elapsed (cpu.stat nr_periods).")
                            .add(static_cast<double>(counters->periods)));
            append(out,
                   counter("hostprobe_cgroup_cpu_throttled_periods_total",
                           "CFS periods in which the cgroup was throttled (cpu.stat nr_throttled).")
                       .add(static_cast<double>(counters->throttled_periods)));
            append(
                out,
                counter("hostprobe_cgroup_cpu_throttled_seconds_total",
                        "Time the cgroup spent throttled (cpu.stat throttled_time/throttled_usec).")
                    .add(counters->throttled_seconds));
        }
    }
    success.add(ok ? 1 : 0, {{"collector", "cgroup_cpu_stat"}});
}

// The families that describe the task's facts (no file is read).
std::vector<prometheus::MetricFamily> fact_families(const task::TaskFacts& facts) {
    std::vector<prometheus::MetricFamily> out;
    add_identity(out, facts.host);
    add_vulnerabilities(out, facts.host);
    add_openssl_cpu(out, facts.host);
    add_capacity(out, facts.host);
    add_ecs(out, facts);
    return out;
}

// The families read from files at scrape time, and their collectors' outcomes in `success`.
std::vector<prometheus::MetricFamily> read_families(FamilyBuilder& success, const SysRoot& root,
                                                    const host::HostFacts& facts) {
    std::vector<prometheus::MetricFamily> out;
    add_throttling(out, success, root, facts);
    add_usage_metrics(out, success, root, facts);
    return out;
}

}  // namespace

HostCollector::HostCollector(const SysRoot& root, const task::TaskState& facts)
    : root_(root), facts_(facts) {}

const std::vector<std::string>& HostCollector::reported_flags() {
    static const std::vector<std::string> flags = {"aes",     "pclmulqdq", "avx",        "avx2",
                                                   "avx512f", "vaes",      "vpclmulqdq", "sha_ni",
                                                   "pmull",   "sha2",      "asimd",      "sve"};
    return flags;
}

std::vector<prometheus::MetricFamily> HostCollector::families() const {
    const auto facts = facts_.snapshot();
    auto out = fact_families(*facts);
    FamilyBuilder success = collector_success_family();
    auto read = read_families(success, root_, facts->host);
    out.insert(out.end(), std::make_move_iterator(read.begin()),
               std::make_move_iterator(read.end()));
    append(out, std::move(success));
    return out;
}

void HostCollector::render(std::string& out, std::vector<CollectorOutcome>& outcomes) const {
    const auto facts = facts_.snapshot();
    out += *facts_text(facts);
    const Reading now = reading(facts->host);
    out += *now.text;
    outcomes.insert(outcomes.end(), now.outcomes.begin(), now.outcomes.end());
}

std::shared_ptr<const std::string> HostCollector::facts_text(
    const std::shared_ptr<const task::TaskFacts>& facts) const {
    std::lock_guard lock(cache_mutex_);
    if (!facts_text_ || facts_text_->facts != facts)
        facts_text_ =
            FactsText{facts, std::make_shared<const std::string>(to_text(fact_families(*facts)))};
    return facts_text_->text;
}

HostCollector::Reading HostCollector::reading(const host::HostFacts& facts) const {
    std::lock_guard lock(cache_mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (!reading_ || now - reading_->at >= kReadingMaxAge) {
        FamilyBuilder success = collector_success_family();
        const auto families = read_families(success, root_, facts);
        reading_ = Reading{now, std::make_shared<const std::string>(to_text(families)),
                           outcomes_of(std::move(success).build())};
    }
    return *reading_;
}

std::vector<prometheus::MetricFamily> BuildInfoCollector::Collect() const {
    std::vector<prometheus::MetricFamily> out;
    append(out, gauge("hostprobe_build_info", "hostprobe build; always 1.")
                    .add(1, {{"version", kVersion},
                             {"revision", kRevision},
                             {"openssl_version", OpenSSL_version(OPENSSL_VERSION_STRING)}}));
    return out;
}

}  // namespace hostprobe::metrics
