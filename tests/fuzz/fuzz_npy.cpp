// SPDX-License-Identifier: MIT
// Fuzz target: the .npy reader (core/io/npy.h) on a buffer. Any bytes give a table whose size matches its
// header, or an InputError/RefusedError; the memory cap is lowered so a large claimed shape is refused
// before allocation rather than read.
#include "core/errors.h"
#include "core/io/npy.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto source = poslab::core::memorySource(bytes, "fuzz.npy");
    poslab::core::Limits limits;
    limits.maxBytes = std::uint64_t(64) << 20;
    try {
        (void)poslab::core::readNpyHeader(*source);
    } catch (const poslab::core::InputError&) { }
    try {
        const auto table = poslab::core::readNpyTable(*source, limits);
        if (table.values.size() == 0 || std::uint64_t(table.values.size()) * 2 > size)
            std::abort(); // a table is never empty and always comes from bytes in the file
        for (Eigen::Index i = 0; i < table.values.size(); ++i)
            if (!std::isfinite(table.values.data()[i]))
                std::abort(); // non-finite values are refused
    } catch (const poslab::core::InputError&) {
    } catch (const poslab::core::RefusedError&) { }
    return 0;
}
