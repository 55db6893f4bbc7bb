// SPDX-License-Identifier: MIT
// Fuzz target: core's strict JSON reader (core/io/json.h). Any bytes either parse or throw ParseError naming
// a byte inside the text; nothing else may happen (no other exception, no crash, no unbounded growth).
#include "core/io/json.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {
std::size_t walk(const poslab::core::json::Value& v, int depth)
{
    if (depth > 64)
        std::abort(); // deeper than the limit the parser promises
    std::size_t n = 1;
    (void)v.integer();
    for (const auto& e : v.array())
        n += walk(e, depth + 1);
    for (const auto& m : v.members()) {
        if (v.find(m.first) == nullptr)
            std::abort(); // every member can be found by its key
        n += walk(m.second, depth + 1);
    }
    return n;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    poslab::core::json::ParseLimits limits;
    limits.maxValues = 100000;
    try {
        const auto value = poslab::core::json::parse(text, limits);
        if (walk(value, 0) > limits.maxValues)
            std::abort();
    } catch (const poslab::core::json::ParseError& e) {
        if (e.offset() > size)
            std::abort(); // the message names a byte of the text
    }
    return 0;
}
