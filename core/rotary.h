// SPDX-License-Identifier: MIT
#pragma once
/// @file rotary.h
/// Scheme-independent rotary machinery: given a RotarySpec (per-pair frequencies after any scaling),
/// produce angles, cos, sin and rotated vectors. Every rope_type and xPos reuse these.

#include "core/scheme.h"
#include "core/types.h"

#include <span>
#include <vector>
#include <string_view>

namespace poslab::core {

/// Index of the two dimensions of pair i in a vector of rotary dimension r.
/// Interleaved: (2i, 2i+1). Half-split: (i, i + r/2).
std::pair<int, int> pairDims(PairLayout layout, int rotaryDim, int pair);

/// Which form of the rotation angle a table holds.
enum class AngleForm {
    Exact,   ///< p * omega_i as one double product, unreduced: what torch.outer(t, inv_freq) computes (in float32)
    Reduced, ///< p * omega_i reduced to [0, 2*pi): the hand's direction on a clock face
};
std::string_view angleFormName(AngleForm form); ///< "exact" or "reduced"
/// "exact" or "reduced"; throws InputError otherwise.
AngleForm parseAngleForm(std::string_view name);

/// positions x (r/2): the angle p * invFreq[i] in radians, unreduced, computed in double (one rounding of
/// the exact product). Position 7, pair 0 gives 7.
MatrixD rotaryAngles(const RotarySpec& spec, const PositionList& positions);
/// positions x (r/2): the angle p * invFreq[i] reduced to [0, 2*pi) in double precision (exactly, see
/// wrapAngle()), stored in float32.
MatrixF rotaryAnglesReduced(const RotarySpec& spec, const PositionList& positions);

/// positions x (r/2): attentionFactor * cos(p * invFreq[i]) (times the xPos scale when present).
MatrixF rotaryCos(const RotarySpec& spec, const PositionList& positions);
/// positions x (r/2): attentionFactor * sin(p * invFreq[i]) (times the xPos scale when present).
MatrixF rotarySin(const RotarySpec& spec, const PositionList& positions);

/// xPos scale of pair i at position p: zeta_i^((p - centre)/scaleBase), inverted when downscaling;
/// 1 for schemes without xPos.
double xposScale(const RotarySpec& spec, int pair, Position p);

/// The rotations of the two sides of a score: q'_m = R_query(m) q and k'_n = R_key(n) k.
struct RotarySides {
    RotarySpec query; ///< xPos: scaled up, zeta_i^((m - c)/scale_base)
    RotarySpec key;   ///< xPos: scaled down, zeta_i^(-(n - c)/scale_base); otherwise the same as @c query
};

/// The query and key rotations of a score from the scheme's spec @p spec (as its rotary function returned it): for
/// xPos the query scaled up and the key down, otherwise @p spec twice.
RotarySides rotarySides(RotarySpec spec);

/// The query and key rotations of a rotary scheme (@p scheme.rotary must be set) for @p ctx. For xPos the query
/// is scaled up and the key down whatever the scheme's "side" parameter (which picks the side a table shows):
/// Sun et al. 2022, eq. 11; torchscale xpos_relative_position.py XPOS.forward(downscale=True) for keys. Every
/// other rotary scheme returns the same spec twice. Throws what the scheme's rotary function throws.
RotarySides rotarySpecs(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx);

/// One query and one key rotated at their positions, pair by pair: what the rotation view draws.
struct RotationPlanes {
    std::vector<double> queryBefore, keyBefore; ///< d values each: q and k as given (unrotated)
    std::vector<double> query, key;             ///< d values each: rotated q'_m and k'_n
    std::vector<double> pairScore;              ///< r/2: q'_a k'_a + q'_b k'_b over the pair's dims (a, b)
    std::vector<double> queryAngle, keyAngle;   ///< r/2: m theta_i and n theta_i reduced to [0, 2 pi) (wrapAngle)
    std::vector<double> gapAngle;               ///< r/2: (m - n) theta_i reduced to [0, 2 pi)
    double score = 0.0;                         ///< q'_m . k'_n over all d dimensions (no 1/sqrt(d))
};

/// Rotates @p q at position @p m with @p sides.query and @p k at @p n with @p sides.key (rotateInPlace) and splits
/// the dot product by pair. Throws InputError when q or k does not have sides.query.headDim values.
RotationPlanes rotationPlanes(const RotarySides& sides, std::span<const double> q, std::span<const double> k,
                              Position m, Position n);

/// positions x d: the vector @c v (length d) rotated at each position, as Hugging Face's
/// apply_rotary_pos_emb does: x*cos + rotate(x)*sin with cos and sin including the attention factor.
/// Dimensions r..d-1 are copied unchanged. Throws InputError when v.size() != d.
MatrixD rotateVector(const RotarySpec& spec, const PositionList& positions, std::span<const double> v);

/// Rotates one vector at one position in double precision (used by scores and tests).
void rotateInPlace(const RotarySpec& spec, Position p, std::span<double> v);

} // namespace poslab::core
