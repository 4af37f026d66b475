#include "probes/system/work_directory.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "probes/storage/test_files.hpp"

namespace hostprobe::probes {

Result<WorkDirectory> WorkDirectory::create(const std::string& parent, const std::string& run_id) {
    const std::string name = test_file_name(run_id, "system");
    if (!parent.empty()) {
        std::string path = parent + "/" + name;
        if (::mkdir(path.c_str(), 0700) != 0) {
            return make_error(ErrorCode::unavailable,
                              "cannot create " + path + ": " + std::strerror(errno));
        }
        return WorkDirectory(std::move(path));
    }
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/" + name + "-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) {
        return make_error(ErrorCode::unavailable,
                          "cannot create a private directory like " + pattern + ": " +
                              std::strerror(errno) +
                              "; give the system probe a directory inside --disk-dir");
    }
    return WorkDirectory(std::string(buffer.data()));
}

WorkDirectory::~WorkDirectory() {
    if (path_.empty()) return;
    std::error_code ignored;  // remove_all removes symlinks, never what they point to
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace hostprobe::probes
