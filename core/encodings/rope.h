// SPDX-License-Identifier: MIT
#pragma once
/// @file rope.h
/// Rotary position embedding (Su et al. 2021, RoFormer, eq. 34) and its context-extension variants, as
/// Hugging Face's `rope_type` (transformers/modeling_rope_utils.py). For head dimension d and rotary
/// dimension r = int(d * partial_rotary_factor), pair i in [0, r/2) turns at
///   theta_i = rope_theta^(-2i/r)  (the exponent uses r, not d),
/// and each rope_type rescales these frequencies and may return an attention factor that multiplies both
/// cos and sin.

#include "core/scheme.h"

#include <optional>
#include <vector>

namespace poslab::core {

/// Unscaled frequencies theta_i = base^(-2i/r), i in [0, r/2).
std::vector<double> ropeBaseFrequencies(double base, int rotaryDim);

/// Rotary dimension r = int(d * partial_rotary_factor). Throws InputError when r is odd or < 2.
int ropeRotaryDim(const ParamSet& params, int headDim);

/// YaRN's attention temperature: 0.1 * mscale * ln(scale) + 1 for scale > 1, else 1
/// (jquesnelle/yarn get_mscale; Hugging Face get_mscale).
double yarnGetMscale(double scale, double mscale = 1.0);

/// YaRN's correction dimension for a number of rotations (Peng et al. 2023, eq. 21 solved for d):
///   d * ln(L / (rotations * 2 * pi)) / (2 * ln(base)).
double yarnCorrectionDim(double rotations, int rotaryDim, double base, double originalMax);

/// The frequencies and attention factor for the parameters (rope_type and its keys). @c ctx.seqLen is the
/// current sequence length for dynamic and longrope.
RotarySpec ropeSpec(const ParamSet& params, const TableContext& ctx);

SchemeDescriptor ropeScheme();

} // namespace poslab::core
