// SPDX-License-Identifier: MIT
#include "core/encodings/relativecommon.h"

#include "core/random.h"

#include <cmath>

namespace poslab::core {

namespace {
std::uint64_t finalise(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
} // namespace

std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d)
{
    std::uint64_t h = finalise(a + 0x9E3779B97F4A7C15ull);
    h = finalise(h ^ (b + 0xD1B54A32D192ED03ull));
    h = finalise(h ^ (c + 0x8CB92BA72F3D8DD7ull));
    return finalise(h ^ (d + 0xABC98388FB8FAC03ull));
}

MatrixD seededNormal(long long rows, int cols, double stddev, std::uint64_t seed, std::uint64_t stream)
{
    MatrixD m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (long long r = 0; r < rows; ++r) {
        SeededRandom rng(mixSeed(seed, stream, std::uint64_t(r)));
        for (int c = 0; c < cols; ++c)
            m(Eigen::Index(r), c) = stddev * rng.normal();
    }
    return m;
}

std::vector<double> relativeSinusoid(double x, int dim, double base)
{
    const int half = dim / 2;
    std::vector<double> v(std::size_t(2 * half));
    for (int i = 0; i < half; ++i) {
        const double w = std::exp(-2.0 * double(i) / double(dim) * std::log(base));
        v[std::size_t(i)] = std::sin(x * w);
        v[std::size_t(half + i)] = std::cos(x * w);
    }
    return v;
}

} // namespace poslab::core
