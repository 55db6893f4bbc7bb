// SPDX-License-Identifier: MIT
#pragma once
/// @file trigtable.h
/// The hot path: filling large sin/cos tables (positions x pairs) in float32 with every angle accurate to
/// 1e-5 or better up to position 2^31. Angles p * omega are formed and reduced in double precision.

#include "core/positions.h"
#include "core/types.h"

#include <cstddef>
#include <span>

namespace poslab::core {

/// Where sin and cos of (row r, pair i) are written:
///   sin -> sin[r * rowStride + i * pairStride], cos -> cos[r * rowStride + i * pairStride].
/// Either pointer may be null (not written). Interleaved sinusoidal rows use sin = base, cos = base + 1,
/// pairStride 2; half-split rows use sin = base, cos = base + pairs, pairStride 1.
struct TrigLayout {
    float* sin = nullptr;
    float* cos = nullptr;
    std::ptrdiff_t rowStride = 0;
    std::ptrdiff_t pairStride = 1;
    double scale = 1.0; ///< multiplies every written value (e.g. the attention factor)
};

/// Default number of rows between exact re-anchors of the angle-addition recurrence.
inline constexpr int trigAnchorInterval = 256;
/// Output size (bytes) from which fillTrigTable writes with non-temporal stores by default.
inline constexpr std::size_t trigStreamBytes = std::size_t(16) << 20;

/// Tuning knobs of fillTrigTable; the defaults pick everything. Tests use them to force thread splits and
/// short anchor intervals on small tables.
struct TrigFillOptions {
    int threads = 0;             ///< worker count; 0 = automatic (one thread for small tables, else all cores)
    int anchorInterval = 0;      ///< rows between exact re-anchors of the recurrence; 0 = default (trigAnchorInterval)
    bool portableKernel = false; ///< use the baseline x86-64/portable kernel even where AVX2+FMA is available
    /// How rows reach memory. Auto streams (builds each row in an L1 buffer, then writes it with
    /// non-temporal stores, skipping the read-for-ownership) when the output is at least trigStreamBytes;
    /// smaller tables are written directly so that they stay in cache for whoever reads them next.
    enum class Stores { Auto, Cached, Streaming } stores = Stores::Auto;
};

/// Fills sin(p * freq[i]) * scale and cos(p * freq[i]) * scale for every position p of @c positions
/// (rows) and every frequency (pairs). Uses both cores and SIMD (AVX2+FMA when the CPU has it, chosen at
/// run time); arithmetic progressions use the angle-addition recurrence in double, re-anchored exactly
/// (double-precision range reduction + polynomial sin/cos) at the first row of each chunk of rows a thread
/// takes and every trigAnchorInterval rows within it; explicit lists evaluate every element directly. Rows of @c out must not overlap.
/// Max abs error vs float64 <= 1e-6 * |scale| (float32 rounding dominates) for every position <= maxPosition.
void fillTrigTable(std::span<const double> freq, const PositionList& positions, const TrigLayout& out);
void fillTrigTable(std::span<const double> freq, const PositionList& positions, const TrigLayout& out,
                   const TrigFillOptions& options);

/// Threads fillTrigTable uses for a table of @c rows x @c pairs with automatic options.
int trigTableThreads(std::size_t rows, std::size_t pairs);

/// Reference: the same with one std::sin/std::cos in double per element, single thread.
void fillTrigTableReference(std::span<const double> freq, const PositionList& positions, const TrigLayout& out);

/// Angle p * freq[i] reduced to [0, 2*pi) in double precision: positions x pairs, float32 (a value that
/// would round up to float(2*pi) is stored as the largest float below 2*pi). Threaded and vectorised.
MatrixF wrappedAngles(std::span<const double> freq, const PositionList& positions);

/// p * omega reduced to [0, 2*pi), computed in double: the product is kept exactly (double-double) and
/// reduced by a two-part 2*pi, so the result is within a few 1e-16 rad of (p * omega mod 2*pi).
double wrapAngle(Position p, double omega);

/// One clock hand (pair i of frequency omega) at a time @p t that may fall between tokens (an animation): the
/// angle t * omega reduced to [0, 2 pi) (wrapAngle() when t is a whole position, else fmod), the encoding's
/// values sin and cos of that angle (Vaswani et al. 2017, section 3.5: PE(p, 2i) = sin(p omega_i), PE(p, 2i+1) =
/// cos(p omega_i)), and the period 2 pi / omega in tokens (infinity when omega is 0: the hand never turns).
struct HandReading {
    double angle = 0.0;  ///< radians, [0, 2 pi)
    double sine = 0.0;   ///< sin(angle)
    double cosine = 1.0; ///< cos(angle)
    double period = 0.0; ///< tokens per turn, 2 pi / omega
};
HandReading handAt(double t, double omega);

/// The wavelength 2 pi / omega in tokens of a pair turning @p omega rad/token; infinity for omega = 0.
double wavelength(double omega);

} // namespace poslab::core
