// SPDX-License-Identifier: MIT
#pragma once
/// @file limits.h
/// The memory cap that every large request is checked against before anything is allocated.

#include <cstddef>
#include <string>

namespace poslab::core {

/// Work is counted in elementary operations: a multiply-add is 1; a random normal draw or a transcendental
/// (cos, pow, exp) costs this many. Measured on the 2-core development machine: a draw or a cos of a pow
/// about 25 ns, a multiply-add inside Eigen's matrix product about 0.1 ns.
inline constexpr double drawOps = 100.0;

/// The fastest rate the work estimates were measured at (1e11 operations in about 10 s): what a time limit
/// (train --seconds) can do at most.
inline constexpr double opsPerSecond = 1e10;

/// Memory cap for one result, and the most work one computation may do; requests above either are refused
/// before anything is allocated or computed.
struct Limits {
    std::size_t maxBytes = std::size_t(2) << 30; ///< 2 GiB
    /// 1e11 operations: about 10 to 25 seconds on that machine (Shaw with 16 heads, d = 8192, k = 4096 is 1.1e11
    /// and took 27 s; Sandwich 512 x 512 with d' = 4096 is 1.1e11 and took 15 s); the benchmark's 8 heads x
    /// 4096 x 4096 with d = 128 is 1.8e10.
    double maxWork = 1e11;
};

/// Formats a byte count for messages ("3.0 GiB", "512.0 MiB").
std::string formatBytes(double bytes);

/// Throws RefusedError when @c bytes exceed the cap; @c what describes the request ("a 65536 x 512
/// float32 table"). @c advice ends the message; empty: the compute command's (fewer positions or dimensions, or
/// --max-memory).
void checkSize(double bytes, const Limits& limits, const std::string& what, const std::string& advice = {});

/// Throws RefusedError when @c operations exceed the work limit; @c what describes the request, @c advice ends the
/// message (empty: fewer positions, heads or dimensions, or smaller scheme parameters).
void checkWork(double operations, const Limits& limits, const std::string& what, const std::string& advice = {});

} // namespace poslab::core
