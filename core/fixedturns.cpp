// SPDX-License-Identifier: MIT
#include "core/fixedturns.h"

#include <cmath>
#include <numbers>

namespace poslab::core {

std::uint64_t fixedTurns(double omega)
{
    const long double t = (long double)omega / (2.0L * std::numbers::pi_v<long double>);
    long double f = t - std::floor(t);
    // Round 2^64 * f to the nearest integer; a fraction that rounds up to a whole turn is 0.
    const long double scaled = std::ldexp(f, 64) + 0.5L;
    if (scaled >= std::ldexp(1.0L, 64))
        return 0;
    return (std::uint64_t)scaled;
}

double fixedTurnsAngle(std::uint32_t p, std::uint64_t turns)
{
    // The shader's arithmetic: p * T mod 2^64 from 32-bit halves, then the top word as a signed fraction.
    const std::uint32_t tLo = std::uint32_t(turns);
    const std::uint32_t tHi = std::uint32_t(turns >> 32);
    const std::uint64_t lowProduct = std::uint64_t(p) * tLo;                           // umulExtended(p, tLo)
    const std::uint32_t hi = std::uint32_t(p * tHi + std::uint32_t(lowProduct >> 32)); // mod 2^32
    const std::uint32_t lo = std::uint32_t(lowProduct);
    const double turnsFraction = double(std::int32_t(hi)) * 0x1.0p-32 + double(lo) * 0x1.0p-64; // in [-0.5, 0.5)
    return turnsFraction * 2.0 * std::numbers::pi;
}

} // namespace poslab::core
