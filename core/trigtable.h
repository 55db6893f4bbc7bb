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

/// Fills sin(p * freq[i]) * scale and cos(p * freq[i]) * scale for every position p of @c positions
/// (rows) and every frequency (pairs). Uses both cores and SIMD; arithmetic progressions use the
/// angle-addition recurrence in double with exact re-anchoring. Max abs error vs float64 <= 1e-6 * scale.
void fillTrigTable(std::span<const double> freq, const PositionList& positions, const TrigLayout& out);

/// Reference: the same with one std::sin/std::cos in double per element, single thread.
void fillTrigTableReference(std::span<const double> freq, const PositionList& positions, const TrigLayout& out);

/// Angle p * freq[i] reduced to [0, 2*pi) in double precision: positions x pairs, float32.
MatrixF wrappedAngles(std::span<const double> freq, const PositionList& positions);

/// p * omega reduced to [0, 2*pi), computed in double.
double wrapAngle(Position p, double omega);

} // namespace poslab::core
