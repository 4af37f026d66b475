#include "probes/common/aligned_buffer.hpp"

#include <cstring>

namespace hostprobe::probes {

AlignedBuffer aligned_buffer(size_t bytes, size_t alignment) {
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    auto* memory = static_cast<unsigned char*>(
        std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded));
    if (memory != nullptr) std::memset(memory, 0x5a, rounded);
    return AlignedBuffer(memory);
}

}  // namespace hostprobe::probes
