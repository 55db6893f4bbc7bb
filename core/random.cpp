// SPDX-License-Identifier: MIT
#include "core/random.h"

#include <cmath>
#include <numbers>

namespace poslab::core {

std::uint64_t SeededRandom::nextBits()
{
    // SplitMix64 (Steele, Lea, Flood 2014; constants as in Vigna's reference splitmix64.c).
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double SeededRandom::uniform()
{
    return double(nextBits() >> 11) * 0x1.0p-53;
}

double SeededRandom::normal()
{
    if (m_hasSpare) {
        m_hasSpare = false;
        return m_spare;
    }
    // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * std::numbers::pi * u2;
    m_spare = r * std::sin(a);
    m_hasSpare = true;
    return r * std::cos(a);
}

std::vector<double> seededNormals(std::uint64_t seed, std::size_t count)
{
    SeededRandom rng(seed);
    std::vector<double> out(count);
    for (double& x : out)
        x = rng.normal();
    return out;
}

} // namespace poslab::core
