#include "core/untrusted_json.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hostprobe {

namespace {

using nlohmann::json;

// "at byte 12", and in text of several lines "at byte 12 (line 2, column 3)"; bytes count
// from 1.
std::string location(std::string_view text, size_t byte) {
    std::string where = "at byte " + std::to_string(byte);
    if (text.find('\n') == std::string_view::npos) return where;
    const std::string_view before = text.substr(0, std::min(byte == 0 ? 0 : byte - 1, text.size()));
    const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
    const size_t newline = before.rfind('\n');
    const size_t column = newline == std::string_view::npos ? byte : byte - newline - 1;
    return where + " (line " + std::to_string(line) + ", column " + std::to_string(column) + ")";
}

// The 1-based byte of the first bracket that opens level max_depth + 1. A lexical pass: it
// tells brackets from string content, which is all the depth needs; malformed text is left for
// the parser to describe.
std::optional<size_t> first_too_deep(std::string_view text, size_t max_depth) {
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth) return i + 1;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

// A number of 60,000 digits, or a megabyte of unterminated string that nlohmann quotes as the
// last token read, is quoted by its start: messages go into answers and logs.
std::string shortened(std::string_view text, size_t shown) {
    return text.size() <= shown ? std::string(text) : std::string(text.substr(0, shown)) + "...";
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix, which our own location replaces.
std::string reason_of(const nlohmann::detail::exception& error) {
    std::string_view text = error.what();
    if (const size_t bracket = text.find("] "); bracket != std::string_view::npos)
        text.remove_prefix(bracket + 2);
    if (text.rfind("parse error", 0) == 0) {
        if (const size_t colon = text.find(": "); colon != std::string_view::npos)
            text.remove_prefix(colon + 2);
    }
    return shortened(text, 200);
}

// nlohmann's SAX events into a tree, counting values; the first parse error is kept as an
// Error with its position. The depth was checked before, and is checked again here so that the
// tree can never be deeper whatever the pre-scan missed.
class BoundedTreeBuilder {
  public:
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    BoundedTreeBuilder(std::string_view text, const JsonLimits& limits,
                       std::span<const std::string_view> dropped_keys = {})
        : text_(text), limits_(limits), dropped_keys_(dropped_keys) {}

    bool null() { return scalar(json(nullptr)); }
    bool boolean(bool value) { return scalar(json(value)); }
    bool number_integer(number_integer_t value) { return scalar(json(value)); }
    bool number_unsigned(number_unsigned_t value) { return scalar(json(value)); }
    bool number_float(number_float_t value, const string_t&) { return scalar(json(value)); }
    bool string(string_t& value) { return scalar(json(std::move(value))); }
    bool binary(binary_t&) { return fail("binary values are not JSON"); }
    bool start_object(std::size_t) { return open_or_drop(json::object()); }
    bool key(string_t& name) {
        if (!count()) return false;
        if (dropping_ > 0) return true;
        drop_next_ =
            std::find(dropped_keys_.begin(), dropped_keys_.end(), name) != dropped_keys_.end();
        key_ = std::move(name);
        return true;
    }
    bool end_object() { return close_or_undrop(); }
    bool start_array(std::size_t) { return open_or_drop(json::array()); }
    bool end_array() { return close_or_undrop(); }

    bool parse_error(std::size_t position, const std::string& last_token,
                     const nlohmann::detail::exception& error) {
        // 406 is the one out_of_range the parser reports: a number beyond a double (1e400).
        // Its position is the number's last byte; the message points at its first.
        if (error.id == 406) {
            const size_t first =
                position >= last_token.size() ? position - last_token.size() + 1 : 1;
            return fail("number out of range " + location(text_, first) + ": " +
                        shortened(last_token, 40));
        }
        return fail("malformed JSON " + location(text_, position) + ": " + reason_of(error));
    }

    Result<json> take() && {
        if (error_) return std::move(*error_);
        return std::move(root_);
    }

  private:
    // A dropped member's value, and everything inside it, is counted and not kept.
    bool scalar(json value) {
        if (dropping_ > 0 || drop_next_) {
            drop_next_ = false;
            return count();
        }
        return add(std::move(value)) != nullptr;
    }
    bool open_or_drop(json container) {
        if (dropping_ > 0 || drop_next_) {
            drop_next_ = false;
            if (open_.size() + ++dropping_ > limits_.max_depth) {
                return fail("JSON nested deeper than " + std::to_string(limits_.max_depth) +
                            " levels");
            }
            return count();
        }
        return open(std::move(container));
    }
    bool close_or_undrop() {
        if (dropping_ > 0) {
            --dropping_;
            return true;
        }
        return close();
    }

    bool count() {
        if (++values_ <= limits_.max_values) return true;
        return fail("JSON with more than " + std::to_string(limits_.max_values) + " values");
    }

    // Where the value went, or null after an error.
    json* add(json value) {
        if (!count()) return nullptr;
        if (open_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        json& parent = *open_.back();
        if (parent.is_array()) {
            parent.get_ref<json::array_t&>().push_back(std::move(value));
            return &parent.get_ref<json::array_t&>().back();
        }
        // A repeated key keeps its last value, as nlohmann's own parser does.
        auto& members = parent.get_ref<json::object_t&>();
        return &members.insert_or_assign(std::move(key_), std::move(value)).first->second;
    }

    // An element pointer stays valid while it is open: its parent grows only after it closes.
    bool open(json container) {
        if (open_.size() >= limits_.max_depth) {
            return fail("JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels");
        }
        json* added = add(std::move(container));
        if (added == nullptr) return false;
        open_.push_back(added);
        return true;
    }

    bool close() {
        if (open_.empty()) return fail("a bracket closes nothing");
        open_.pop_back();
        return true;
    }

    bool fail(std::string message) {
        if (!error_) error_ = make_error(ErrorCode::parse_error, std::move(message));
        return false;
    }

    std::string_view text_;
    const JsonLimits& limits_;
    std::span<const std::string_view> dropped_keys_;
    size_t dropping_ = 0;     // levels inside a dropped value
    bool drop_next_ = false;  // the value after this key is dropped
    json root_;
    std::vector<json*> open_;
    std::string key_;
    size_t values_ = 0;
    std::optional<Error> error_;
};

}  // namespace

Result<json> parse_untrusted_json(std::string_view text, const JsonLimits& limits) {
    return parse_untrusted_json(text, limits, {});
}

Result<json> parse_untrusted_json(std::string_view text, const JsonLimits& limits,
                                  std::span<const std::string_view> dropped_keys) {
    if (text.size() > limits.max_bytes) {
        return make_error(ErrorCode::too_large,
                          "JSON of " + std::to_string(text.size()) + " bytes; at most " +
                              std::to_string(limits.max_bytes) + " are accepted");
    }
    if (auto deep = first_too_deep(text, limits.max_depth)) {
        return make_error(ErrorCode::parse_error, "JSON nested deeper than " +
                                                      std::to_string(limits.max_depth) +
                                                      " levels " + location(text, *deep));
    }
    BoundedTreeBuilder builder(text, limits, dropped_keys);
    const bool parsed = json::sax_parse(text.begin(), text.end(), &builder);
    Result<json> tree = std::move(builder).take();
    if (!parsed && tree.ok()) return make_error(ErrorCode::parse_error, "malformed JSON");
    return tree;
}

}  // namespace hostprobe
