// SPDX-License-Identifier: MIT
#pragma once
/// @file xpos.h
/// xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", section 3.2), in torchscale's convention
/// (microsoft/torchscale torchscale/component/xpos_relative_position.py): RoPE with interleaved pairs and
/// theta_i = rope_theta^(-2i/d), and pair i of the query at position p scaled by
///   zeta_i^((p - c)/scale_base),   zeta_i = (2i + 0.4 d) / (1.4 d),
/// the key by the inverse, so q_m . k_n carries zeta_i^((m - n)/scale_base): a decay with distance.
/// torchscale centres the exponent with c = ceil(L/2) for sequence length L = the largest position + 1
/// (min_pos = -(L // 2) in floor division), so the scale at one position depends on the other positions asked
/// for; this centre cancels in every score. Parameter "centring": "torchscale" (default) or "absolute" (c = 0,
/// the paper's zeta^(n/gamma)). The centre is reported as the scalar "xpos_centre".

#include "core/scheme.h"

namespace poslab::core {

RotarySpec xposSpec(const ParamSet& params, const TableContext& ctx);

SchemeDescriptor xposScheme();

} // namespace poslab::core
