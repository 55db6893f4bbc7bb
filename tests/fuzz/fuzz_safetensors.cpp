// SPDX-License-Identifier: MIT
// Fuzz target: the .safetensors reader (core/io/safetensors.h) on a buffer: the header alone, then the table
// picked automatically and the first tensor by name. Any bytes give a table or an InputError/RefusedError.
#include "core/errors.h"
#include "core/io/safetensors.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {
void readTable(const poslab::core::ByteSource& source, const std::string& name, std::size_t size)
{
    poslab::core::Limits limits;
    limits.maxBytes = std::size_t(64) << 20;
    try {
        const auto table = poslab::core::readSafetensorsTable(source, name, limits);
        if (table.values.size() == 0 || std::uint64_t(table.values.size()) * 2 > size)
            std::abort(); // a table is never empty and always comes from bytes in the file
        for (Eigen::Index i = 0; i < table.values.size(); ++i)
            if (!std::isfinite(table.values.data()[i]))
                std::abort();
    } catch (const poslab::core::InputError&) {
    } catch (const poslab::core::RefusedError&) { }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto source = poslab::core::memorySource(bytes, "fuzz.safetensors");
    std::string first;
    try {
        const auto header = poslab::core::readSafetensorsHeader(*source);
        for (const auto& t : header.tensors)
            if (t.begin > t.end || header.dataStart + t.end > size)
                std::abort(); // a checked header only lists tensors inside the file
        if (!header.tensors.empty())
            first = header.tensors.front().name;
    } catch (const poslab::core::InputError&) { }
    readTable(*source, {}, size);
    if (!first.empty())
        readTable(*source, first, size);
    return 0;
}
