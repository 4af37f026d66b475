// The reason OpenSSL gives for its last error, worded: libcrypto's error strings are loaded
// here, on the first error, and not at start (src/app/openssl_string_deferral.cpp says why).
#pragma once

#include <string>

namespace hostprobe::probes {

// "<what>: error:1C800064:Provider routines::bad decrypt"; takes the error off the queue.
std::string openssl_error(const char* what);

}  // namespace hostprobe::probes
