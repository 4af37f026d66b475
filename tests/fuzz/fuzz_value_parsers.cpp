// The small value parsers behind options, params and sysfs files, all on the same text:
// sizes ("16k"), durations and schedules ("cipher=1h"), CPU lists and masks ("0-3,8",
// "ff,00000003"), listen addresses, URLs, CIDR lists, RFC 3339 times, cache sizes and ids.
// Where a value has a printed form, printing and parsing again must give it back.
#include <cmath>

#include "core/cpu_set.hpp"
#include "core/strings.hpp"
#include "core/time_format.hpp"
#include "fuzz_support.hpp"
#include "host/caches.hpp"
#include "host/openssl_cpu.hpp"
#include "http/cidr.hpp"
#include "http/listen_address.hpp"
#include "http/url.hpp"
#include "runs/scheduler.hpp"

using namespace hostprobe;

namespace {

void check_byte_size(std::string_view text) {
    auto bytes = parse_byte_size(text);
    if (!bytes) return;
    const std::string printed = format_byte_size(*bytes);
    auto again = parse_byte_size(printed);
    FUZZ_CHECK(again && *again == *bytes, std::string(text) + " -> " + printed);
}

void check_cpu_set(const Result<CpuSet>& set, std::string_view text) {
    if (!set) return;
    const std::string printed = set->to_list();
    auto again = CpuSet::parse_list(printed);
    FUZZ_CHECK(again && *again == *set, std::string(text) + " -> " + printed);
    FUZZ_CHECK(set->count() == set->members().size(), printed);
}

void check_schedule(std::string_view text) {
    if (auto interval = runs::parse_duration(text)) {
        FUZZ_CHECK(interval->count() > 0, std::string(text));
    }
    if (auto entries = runs::parse_schedule(text)) {
        for (const auto& entry : *entries) {
            FUZZ_CHECK(!entry.probe.empty() && entry.interval.count() >= 10, std::string(text));
        }
    }
    for (const auto& probe : runs::parse_probe_list(text)) {
        FUZZ_CHECK(!probe.empty(), std::string(text));
    }
}

void check_addresses(std::string_view text) {
    const std::string owned(text);
    if (auto address = http::parse_listen_address(text)) {
        FUZZ_CHECK(address->port >= 0 && address->port <= 65535, owned);
        (void)address->to_string();
    }
    if (auto url = http::parse_http_url(owned)) {
        FUZZ_CHECK(url->port > 0 && url->port <= 65535 && !url->host.empty(), owned);
        (void)url->origin();
    }
    if (auto ranges = http::parse_cidr_list(text)) {
        for (const auto& range : *ranges) {
            const std::string printed = range.to_string();
            // A range holds its own address.
            FUZZ_CHECK(range.contains(printed.substr(0, printed.find('/'))),
                       owned + " -> " + printed);
            (void)range.contains(owned);
        }
    }
}

// OpenSSL's CPU settings: what parses renders as valid JSON and reads back the same.
void check_openssl_cpu(std::string_view text) {
    auto cpu = host::parse_openssl_cpu_settings(text);
    if (!cpu) return;
    const nlohmann::json written = *cpu;
    (void)written.dump();  // throws on invalid UTF-8
    const auto back = written.get<host::OpensslCpu>();
    FUZZ_CHECK(back.words == cpu->words && back.features.size() == cpu->features.size(),
               std::string(text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const std::string owned(text);

    check_byte_size(text);
    check_openssl_cpu(text);
    check_cpu_set(CpuSet::parse_list(text), text);
    check_cpu_set(CpuSet::parse_mask(text), text);
    check_schedule(text);
    check_addresses(text);

    (void)parse_int64(text);
    (void)parse_uint64(text);
    (void)parse_uint64_auto_base(text);
    (void)parse_double(text);
    for (IdBase base : {IdBase::decimal, IdBase::any, IdBase::prefixed_hex})
        (void)parse_id(owned, base);
    (void)host::human_size(host::parse_cache_size(owned));
    if (auto seconds = parse_rfc3339(owned)) (void)std::isfinite(*seconds);
    return 0;
}
