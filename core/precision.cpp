// SPDX-License-Identifier: MIT
#include "core/precision.h"

#include "core/errors.h"
#include "core/types.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace poslab::core {

std::string_view floatFormatName(FloatFormat f)
{
    switch (f) {
    case FloatFormat::Float32: return "float32";
    case FloatFormat::Float16: return "float16";
    case FloatFormat::BFloat16: return "bfloat16";
    }
    return "?";
}

FloatFormat parseFloatFormat(std::string_view name)
{
    for (FloatFormat f : {FloatFormat::Float32, FloatFormat::Float16, FloatFormat::BFloat16})
        if (floatFormatName(f) == name)
            return f;
    throw InputError("unknown dtype '" + std::string(name) + "'; known: float32, float16, bfloat16");
}

int significandBits(FloatFormat f)
{
    switch (f) {
    case FloatFormat::Float32: return 24;
    case FloatFormat::Float16: return 11;
    case FloatFormat::BFloat16: return 8;
    }
    return 53;
}

int minExponent(FloatFormat f)
{
    return f == FloatFormat::Float16 ? -14 : -126;
}

int maxExponent(FloatFormat f)
{
    return f == FloatFormat::Float16 ? 15 : 127;
}

double maxFinite(FloatFormat f)
{
    return std::ldexp(2.0 - std::ldexp(1.0, 1 - significandBits(f)), maxExponent(f));
}

double roundTo(double x, FloatFormat f)
{
    if (!std::isfinite(x) || x == 0.0)
        return x;
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const bool negative = (bits >> 63) != 0;
    const int biased = int((bits >> 52) & 0x7FF);
    if (biased == 0) // a double subnormal (below 2^-1022) is far below every format's smallest subnormal
        return negative ? -0.0 : 0.0;
    // x = m * 2^(e - 52) with the 53-bit significand m.
    const std::uint64_t m = (bits & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1) << 52);
    const int e = biased - 1023;
    const int p = significandBits(f);
    // The format's quantum at this magnitude: 2^(max(e, emin) - p + 1); drop s low bits of m to reach it.
    const int q = std::max(e, minExponent(f)) - p + 1;
    const int s = q - (e - 52);
    std::uint64_t n = 0;
    if (s < 54) {
        n = m >> s;
        const std::uint64_t rest = m & ((std::uint64_t(1) << s) - 1);
        const std::uint64_t half = std::uint64_t(1) << (s - 1);
        if (rest > half || (rest == half && (n & 1) != 0)) // roundTiesToEven, IEEE 754-2008 section 4.3.1
            ++n;
    }                                    // else m * 2^(e - 52) < 2^53 * 2^(q - 54) = half a quantum: rounds to zero
    double r = std::ldexp(double(n), q); // exact: n has at most p + 1 bits
    if (r > maxFinite(f))
        r = std::numeric_limits<double>::infinity();
    return negative ? -r : r;
}

std::uint16_t float16Bits(double x)
{
    if (std::isnan(x))
        return 0x7E00;
    const double r = roundTo(x, FloatFormat::Float16);
    const std::uint16_t sign = std::signbit(r) ? 0x8000 : 0;
    const double a = std::fabs(r);
    if (std::isinf(a))
        return sign | 0x7C00;
    if (a < std::ldexp(1.0, -14)) // subnormal: a / 2^-24 is the fraction field
        return sign | std::uint16_t(std::ldexp(a, 24));
    const int e = std::ilogb(a);
    const auto fraction = std::uint16_t(std::ldexp(a, 10 - e) - 1024.0);
    return sign | std::uint16_t((e + 15) << 10) | fraction;
}

double float16Value(std::uint16_t bits)
{
    const double sign = (bits & 0x8000) ? -1.0 : 1.0;
    const int exponent = (bits >> 10) & 0x1F;
    const int fraction = bits & 0x3FF;
    if (exponent == 0x1F)
        return fraction ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
    if (exponent == 0)
        return sign * std::ldexp(double(fraction), -24);
    return sign * std::ldexp(double(1024 + fraction), exponent - 25);
}

std::uint16_t bfloat16Bits(double x)
{
    if (std::isnan(x))
        return 0x7FC0;
    // The rounded value is a binary32 number with 7 fraction bits: its upper half is the pattern.
    const auto f = float(roundTo(x, FloatFormat::BFloat16));
    return std::uint16_t(std::bit_cast<std::uint32_t>(f) >> 16);
}

double bfloat16Value(std::uint16_t bits)
{
    return double(std::bit_cast<float>(std::uint32_t(bits) << 16));
}

double ulp(double x, FloatFormat f)
{
    if (!std::isfinite(x))
        return std::numeric_limits<double>::quiet_NaN();
    const int e = x == 0.0 ? minExponent(f) : std::max(std::ilogb(x), minExponent(f));
    return std::ldexp(1.0, e - significandBits(f) + 1);
}

std::string_view anglePipelineName(AnglePipeline p)
{
    return p == AnglePipeline::RoundAngle ? "round_angle" : "low_precision";
}

double roundedAngle(double p, double omega, FloatFormat f, AnglePipeline pipeline)
{
    if (pipeline == AnglePipeline::RoundAngle)
        return roundTo(p * omega, f);
    // Both factors have at most 24 significand bits: their double product is exact, so one rounding is the
    // format's own multiplication.
    return roundTo(roundTo(p, f) * roundTo(omega, f), f);
}

namespace {

/// The first p >= 1 with ulp(fl(p * w)) > w, or nullopt beyond maxPosition.
std::optional<Position> resolutionOf(double w, FloatFormat f)
{
    if (!(w > 0.0) || !std::isfinite(w))
        return std::nullopt;
    if (ulp(w, f) > w) // w below the format's spacing already at p = 1 (a subnormal step)
        return Position(1);
    // ulp(x) > w exactly from x = 2^k on, k = floor(log2 w) + p (and k > emin, since ulp(w) <= w).
    const int k = std::ilogb(w) + significandBits(f);
    const double threshold = std::ldexp(1.0, k);
    const double guess = std::ceil(threshold / w);
    if (!(guess <= double(maxPosition) + 2.0))
        return std::nullopt;
    auto p = Position(guess);
    // fl(p * w) may round across 2^k: step to the first p whose double product reaches it.
    while (p > 1 && double(p - 1) * w >= threshold)
        --p;
    while (double(p) * w < threshold)
        ++p;
    if (p > maxPosition)
        return std::nullopt;
    return p;
}

/// A key that tells two rounded values apart exactly (the double's bits; every NaN and both zeros as one).
std::uint64_t keyOf(double v)
{
    if (std::isnan(v))
        return 0x7FF8000000000000ull;
    if (v == 0.0)
        return 0;
    return std::bit_cast<std::uint64_t>(v);
}

} // namespace

double precisionWork(std::size_t pairs, std::size_t positions, int pipelines)
{
    return double(positions) * std::max(1.0, double(pairs)) * double(pipelines) * precisionCellOps;
}

double precisionBytes(std::size_t positions)
{
    return double(positions) * 41.0;
}

void checkPrecision(std::size_t pairs, std::size_t positions, int pipelines, const Limits& limits)
{
    const std::string what
        = "the precision analysis of " + std::to_string(positions) + " positions x " + std::to_string(pairs) + " pairs";
    checkSize(precisionBytes(positions), limits, what);
    checkWork(precisionWork(pairs, positions, pipelines), limits, what, "ask for fewer positions or dimensions");
}

PrecisionAnalysis analysePrecision(const std::vector<double>& omegas, const PositionList& positions, FloatFormat f,
                                   AnglePipeline pipeline, const Limits& limits)
{
    const std::size_t n = positions.size();
    if (n == 0)
        throw InputError("the precision analysis needs at least one position");
    checkPrecision(omegas.size(), n, 1, limits);
    PrecisionAnalysis a;
    a.format = f;
    a.pipeline = pipeline;
    // Per entry: whether its rotated vector equals the previous entry's in every pair so far.
    std::vector<char> sameAsPrevious(n, omegas.empty() ? 0 : 1);
    sameAsPrevious[0] = 0;
    std::vector<std::uint64_t> angles(n);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> cosSin(n);
    std::optional<Position> nonFinite;
    const auto count = [](auto values) {
        std::sort(values.begin(), values.end());
        return std::int64_t(std::unique(values.begin(), values.end()) - values.begin());
    };
    for (double w : omegas) {
        PairPrecision pp;
        pp.omega = w;
        pp.omegaUsed = pipeline == AnglePipeline::RoundAngle ? w : roundTo(w, f);
        pp.resolutionPosition = resolutionOf(pp.omegaUsed, f);
        for (std::size_t i = 0; i < n; ++i) {
            const Position p = positions[i];
            const double angle = roundedAngle(double(p), w, f, pipeline);
            if (!std::isfinite(angle) && (!nonFinite || p < *nonFinite))
                nonFinite = p;
            angles[i] = keyOf(angle);
            // cos and sin of the rounded angle in double, rounded once to the format.
            cosSin[i] = {keyOf(roundTo(std::cos(angle), f)), keyOf(roundTo(std::sin(angle), f))};
            if (i == 0)
                continue;
            if (angles[i] == angles[i - 1] && !pp.firstAngleCollapse)
                pp.firstAngleCollapse = positions[i - 1];
            if (cosSin[i] == cosSin[i - 1]) {
                if (!pp.firstCosSinCollapse)
                    pp.firstCosSinCollapse = positions[i - 1];
            } else {
                sameAsPrevious[i] = 0;
            }
        }
        pp.distinctAngles = count(angles);
        pp.distinctCosSin = count(cosSin);
        a.pairs.push_back(pp);
    }
    for (std::size_t i = 1; i < n; ++i)
        if (sameAsPrevious[i]) {
            ++a.vectorCollapses;
            if (!a.firstVectorCollapse)
                a.firstVectorCollapse = positions[i - 1];
        }
    std::vector<std::uint64_t> held(n);
    for (std::size_t i = 0; i < n; ++i)
        held[i]
            = keyOf(pipeline == AnglePipeline::LowPrecision ? roundTo(double(positions[i]), f) : double(positions[i]));
    a.distinctPositions = count(held);
    a.firstNonFinite = nonFinite;
    return a;
}

} // namespace poslab::core
