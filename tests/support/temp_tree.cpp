#include "support/temp_tree.hpp"

#include <fstream>
#include <stdexcept>
#include <vector>

namespace hostprobe::testing {

namespace fs = std::filesystem;

TempTree::TempTree() {
    std::string pattern = (fs::temp_directory_path() / "hostprobe-test-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = buffer.data();
}

TempTree::~TempTree() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
}

TempTree& TempTree::write(const std::string& relative_path, const std::string& content) {
    const fs::path path = fs::path(root_) / relative_path;
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + path.string());
    return *this;
}

TempTree& TempTree::mkdir(const std::string& relative_path) {
    fs::create_directories(fs::path(root_) / relative_path);
    return *this;
}

TempTree& TempTree::copy(const std::string& source, const std::string& relative_path) {
    const fs::path path = fs::path(root_) / relative_path;
    fs::create_directories(path.parent_path());
    fs::copy_file(source, path, fs::copy_options::overwrite_existing);
    return *this;
}

}  // namespace hostprobe::testing
