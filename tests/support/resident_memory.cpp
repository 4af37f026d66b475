#include "support/resident_memory.hpp"

#include <cstdio>
#include <cstring>

namespace hostprobe::testing {

namespace {

// Resident KiB of the file mappings of `pid` whose path contains `library` and whose
// permissions ("r-xp") are `wanted`.
long resident_file_kib(const std::string& pid, const std::string& library, const char* wanted) {
    const std::string path = "/proc/" + pid + "/smaps";
    FILE* smaps = std::fopen(path.c_str(), "r");
    if (smaps == nullptr) return -1;
    long total = -1;
    bool counted = false;
    char line[512];
    while (std::fgets(line, sizeof line, smaps) != nullptr) {
        unsigned long begin = 0;
        unsigned long end = 0;
        char permissions[5] = {};
        char file[256] = {};
        long kib = 0;
        const int fields =
            std::sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &begin, &end, permissions, file);
        if (fields >= 3) {
            counted = fields == 4 && std::strcmp(permissions, wanted) == 0 && file[0] == '/' &&
                      std::strstr(file, library.c_str()) != nullptr;
            if (counted && total < 0) total = 0;
        } else if (counted && std::sscanf(line, "Rss: %ld", &kib) == 1) {
            total += kib;
        }
    }
    std::fclose(smaps);
    return total;
}

}  // namespace

long resident_code_kib(const std::string& pid, const std::string& library) {
    return resident_file_kib(pid, library, "r-xp");
}

long resident_read_only_kib(const std::string& pid, const std::string& library) {
    return resident_file_kib(pid, library, "r--p");
}

long anonymous_kib(const std::string& pid) {
    const std::string path = "/proc/" + pid + "/status";
    FILE* status = std::fopen(path.c_str(), "r");
    if (status == nullptr) return -1;
    long kib = -1;
    char line[256];
    while (std::fgets(line, sizeof line, status) != nullptr) {
        if (std::sscanf(line, "RssAnon: %ld", &kib) == 1) break;
    }
    std::fclose(status);
    return kib;
}

}  // namespace hostprobe::testing
