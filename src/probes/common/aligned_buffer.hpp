// Buffers aligned for O_DIRECT and for vector units, freed with free().
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace hostprobe::probes {

struct FreeDeleter {
    void operator()(unsigned char* memory) const { std::free(memory); }
};
using AlignedBuffer = std::unique_ptr<unsigned char, FreeDeleter>;

// `bytes` rounded up to `alignment`, filled with 0x5a; empty on failure.
AlignedBuffer aligned_buffer(size_t bytes, size_t alignment = 4096);

}  // namespace hostprobe::probes
