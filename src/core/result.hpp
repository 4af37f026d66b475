// Errors carried as values: every fallible operation returns Result<T>; the HTTP and CLI edges
// turn an Error into a status code or an exit code.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace hostprobe {

enum class ErrorCode {
    not_found,         // a file, route or object that does not exist
    invalid_argument,  // the caller gave something we cannot accept
    parse_error,       // data we read is malformed
    io_error,          // the operating system refused a read or write
    unavailable,       // the facility does not exist here (no cgroup, no CPUID...)
    conflict,          // the request cannot be served in the current state
    busy,              // try again later (a full queue)
    too_large,         // a request body over the limit
    unsupported_type,  // a request body in a format we do not take
    forbidden,         // not allowed (a directory outside the allowlist)
    internal,          // a bug or an unexpected exception
};

struct Error {
    ErrorCode code = ErrorCode::internal;
    std::string message;
};

inline Error make_error(ErrorCode code, std::string message) {
    return Error{code, std::move(message)};
}

const char* to_string(ErrorCode code);

template <typename T>
class [[nodiscard]] Result {
  public:
    Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<T>(state_); }
    T& value() & { return std::get<T>(state_); }
    T&& value() && { return std::get<T>(std::move(state_)); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

    const Error& error() const { return std::get<Error>(state_); }

    T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

  private:
    std::variant<T, Error> state_;
};

// Result<void>: success carries nothing.
struct Ok {};
using Status = Result<Ok>;

}  // namespace hostprobe
