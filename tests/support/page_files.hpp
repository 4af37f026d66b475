// The page's files as the tree holds them (src/ui, recursively, names starting with "." left
// out as cmake/embed.cmake leaves them out): what the binary must embed and serve, byte for byte.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "support/paths.hpp"

namespace hostprobe::testing {

inline std::string ui_dir() {
    return HOSTPROBE_UI_DIR;
}

// Path relative to src/ui -> content.
inline std::map<std::string, std::string> page_source_files() {
    std::map<std::string, std::string> files;
    const std::filesystem::path root = ui_dir();
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file()) continue;
        const std::string relative = entry.path().lexically_relative(root).generic_string();
        if (relative.front() == '.' || relative.find("/.") != std::string::npos) continue;
        files[relative] = file_text(entry.path().string());
    }
    return files;
}

}  // namespace hostprobe::testing
