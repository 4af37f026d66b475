// Text kept deflated (zlib's default level) and shared by every copy. What the history keeps
// for the agent's whole life (each finished run's result) is read now and then, by a listing
// or a journal record: a cpu run's result is 10.2 KB of pretty JSON and 3 KB deflated.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace hostprobe::core {

class CompressedText {
  public:
    CompressedText() = default;  // ""
    // Implicit, like the std::string it replaces in a Run (Run::text_report).
    CompressedText(std::string_view text);  // NOLINT(google-explicit-constructor)
    CompressedText(const std::string& text) : CompressedText(std::string_view(text)) {}
    CompressedText(const char* text) : CompressedText(std::string_view(text)) {}

    std::string text() const;
    operator std::string() const { return text(); }  // NOLINT(google-explicit-constructor)
    bool operator==(std::string_view other) const {
        return size_ == other.size() && text() == other;
    }
    bool operator==(const char* other) const { return *this == std::string_view(other); }
    bool operator==(const CompressedText& other) const {
        return *this == std::string_view(other.text());
    }
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }  // of the text
    size_t kept_size() const { return deflated_ ? deflated_->size() : 0; }
    // Whether a copy keeps no bytes of its own (copies are made for every listing).
    bool shares_with(const CompressedText& other) const { return deflated_ == other.deflated_; }

  private:
    std::shared_ptr<const std::string> deflated_;  // null for ""
    size_t size_ = 0;
};

}  // namespace hostprobe::core
