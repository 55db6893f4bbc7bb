// SPDX-License-Identifier: MIT
#pragma once
/// @file limits.h
/// The memory cap that every large request is checked against before anything is allocated.

#include <cstddef>
#include <string>

namespace poslab::core {

/// Memory cap for one result; requests above it are refused before anything is allocated.
struct Limits {
    std::size_t maxBytes = std::size_t(2) << 30; ///< 2 GiB
};

/// Formats a byte count for messages ("3.0 GiB", "512.0 MiB").
std::string formatBytes(double bytes);

/// Throws RefusedError when @c bytes exceed the cap; @c what describes the request ("a 65536 x 512
/// float32 table").
void checkSize(double bytes, const Limits& limits, const std::string& what);

} // namespace poslab::core
