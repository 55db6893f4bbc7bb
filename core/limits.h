// SPDX-License-Identifier: MIT
#pragma once
/// @file limits.h
/// The memory cap that every large request is checked against before anything is allocated.

#include <cstddef>
#include <string>

namespace poslab::core {

/// Work is counted in elementary operations: a multiply-add is 1; a random normal draw or a transcendental
/// (cos, pow, exp) costs this many (on this kind of machine one draw takes about 20 multiply-adds' time).
inline constexpr double drawOps = 20.0;

/// Memory cap for one result, and the most work one computation may do; requests above either are refused
/// before anything is allocated or computed.
struct Limits {
    std::size_t maxBytes = std::size_t(2) << 30; ///< 2 GiB
    /// 4e10 operations: a few seconds to half a minute; a 8 x 4096 x 4096 score request with d = 128 is 1.7e10.
    double maxWork = 4e10;
};

/// Formats a byte count for messages ("3.0 GiB", "512.0 MiB").
std::string formatBytes(double bytes);

/// Throws RefusedError when @c bytes exceed the cap; @c what describes the request ("a 65536 x 512
/// float32 table").
void checkSize(double bytes, const Limits& limits, const std::string& what);

/// Throws RefusedError when @c operations exceed the work limit; @c what describes the request.
void checkWork(double operations, const Limits& limits, const std::string& what);

} // namespace poslab::core
