// SPDX-License-Identifier: MIT
#include "core/trigtable.h"

#include <cmath>
#include <numbers>

namespace poslab::core {

namespace {
// 2*pi split in two doubles (Cody-Waite): hi has its low bits zero so k*hi is exact for k < 2^27.
constexpr double twoPiHi = 6.28318530717958623200e+00;
constexpr double twoPiLo = 2.44929359829470635445e-16;
} // namespace

double wrapAngle(Position p, double omega)
{
    const double x = double(p) * omega;
    const double k = std::floor(x / (2.0 * std::numbers::pi));
    double r = std::fma(-k, twoPiHi, x);
    r = std::fma(-k, twoPiLo, r);
    if (r < 0.0)
        r += 2.0 * std::numbers::pi;
    if (r >= 2.0 * std::numbers::pi)
        r -= 2.0 * std::numbers::pi;
    return r;
}

void fillTrigTableReference(std::span<const double> freq, const PositionList& positions, const TrigLayout& out)
{
    const std::size_t rows = positions.size();
    for (std::size_t r = 0; r < rows; ++r) {
        const Position p = positions[r];
        for (std::size_t i = 0; i < freq.size(); ++i) {
            const double a = wrapAngle(p, freq[i]);
            const std::ptrdiff_t at = std::ptrdiff_t(r) * out.rowStride + std::ptrdiff_t(i) * out.pairStride;
            if (out.sin)
                out.sin[at] = float(out.scale * std::sin(a));
            if (out.cos)
                out.cos[at] = float(out.scale * std::cos(a));
        }
    }
}

void fillTrigTable(std::span<const double> freq, const PositionList& positions, const TrigLayout& out)
{
    fillTrigTableReference(freq, positions, out);
}

MatrixF wrappedAngles(std::span<const double> freq, const PositionList& positions)
{
    MatrixF m(Eigen::Index(positions.size()), Eigen::Index(freq.size()));
    for (std::size_t r = 0; r < positions.size(); ++r)
        for (std::size_t i = 0; i < freq.size(); ++i)
            m(Eigen::Index(r), Eigen::Index(i)) = float(wrapAngle(positions[r], freq[i]));
    return m;
}

} // namespace poslab::core
