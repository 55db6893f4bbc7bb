// SPDX-License-Identifier: MIT
#pragma once
/// @file fixedturns.h
/// Exact angle reduction in integers, the CPU twin of the GPU shaders' method. A frequency omega
/// (rad/token) is stored as T = frac(omega / 2pi) * 2^64, a 64-bit fixed-point fraction of a turn. For an
/// integer position p, frac(p * omega / 2pi) = (p * T mod 2^64) / 2^64 exactly (up to T's own rounding,
/// 2^-64 turn), so the angle is reduced without any floating-point product of large numbers. A GPU does
/// this with 32-bit unsigned multiplies (umulExtended); no fp64 is needed.

#include "core/types.h"

#include <cstdint>

namespace poslab::core {

/// T = round(frac(omega / 2pi) * 2^64), computed in long double.
std::uint64_t fixedTurns(double omega);

/// The angle p * omega reduced to [-pi, pi), from T, exactly as the shader does it (32-bit pieces), in
/// double. The shader then rounds to float.
double fixedTurnsAngle(std::uint32_t p, std::uint64_t turns);

} // namespace poslab::core
