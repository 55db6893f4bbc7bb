// SPDX-License-Identifier: MIT
#pragma once
/// @file random.h
/// A seeded generator whose sequence is the same on every platform and compiler (std::normal_distribution
/// is implementation-defined, so it is not used): SplitMix64 for bits, Box-Muller for normals.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace poslab::core {

class SeededRandom {
public:
    explicit SeededRandom(std::uint64_t seed)
        : m_state(seed)
    { }
    /// Next 64 random bits (SplitMix64, Steele et al. 2014).
    std::uint64_t nextBits();
    /// Uniform in [0, 1) with 53 random bits.
    double uniform();
    /// Standard normal N(0, 1) by the Box-Muller transform.
    double normal();

private:
    std::uint64_t m_state;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

/// @p count standard normal values N(0, 1) from SeededRandom(@p seed), in draw order: the same numbers on every
/// platform and standard library (what a figure's "seeded random q and k" need).
std::vector<double> seededNormals(std::uint64_t seed, std::size_t count);

} // namespace poslab::core
