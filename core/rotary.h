// SPDX-License-Identifier: MIT
#pragma once
/// @file rotary.h
/// Scheme-independent rotary machinery: given a RotarySpec (per-pair frequencies after any scaling),
/// produce angles, cos, sin and rotated vectors. Every rope_type and xPos reuse these.

#include "core/scheme.h"
#include "core/types.h"

#include <span>

namespace poslab::core {

/// Index of the two dimensions of pair i in a vector of rotary dimension r.
/// Interleaved: (2i, 2i+1). Half-split: (i, i + r/2).
std::pair<int, int> pairDims(PairLayout layout, int rotaryDim, int pair);

/// positions x (r/2): angle p * invFreq[i] wrapped to [0, 2*pi).
MatrixF rotaryAngles(const RotarySpec& spec, const PositionList& positions);

/// positions x (r/2): attentionFactor * cos(p * invFreq[i]) (times the xPos scale when present).
MatrixF rotaryCos(const RotarySpec& spec, const PositionList& positions);
/// positions x (r/2): attentionFactor * sin(p * invFreq[i]) (times the xPos scale when present).
MatrixF rotarySin(const RotarySpec& spec, const PositionList& positions);

/// xPos scale of pair i at position p: zeta_i^((p - centre)/scaleBase), inverted when downscaling;
/// 1 for schemes without xPos.
double xposScale(const RotarySpec& spec, int pair, Position p);

/// positions x d: the vector @c v (length d) rotated at each position, as Hugging Face's
/// apply_rotary_pos_emb does: x*cos + rotate(x)*sin with cos and sin including the attention factor.
/// Dimensions r..d-1 are copied unchanged. Throws InputError when v.size() != d.
MatrixD rotateVector(const RotarySpec& spec, const PositionList& positions, std::span<const double> v);

/// Rotates one vector at one position in double precision (used by scores and tests).
void rotateInPlace(const RotarySpec& spec, Position p, std::span<double> v);

} // namespace poslab::core
