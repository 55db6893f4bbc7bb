// SPDX-License-Identifier: MIT
#pragma once
/// @file irope.h
/// iRoPE (Meta, Llama 4, 2025): RoPE layers interleaved with NoPE layers, and attention temperature tuning
/// on the NoPE layers (Hugging Face transformers/models/llama4: configuration_llama4.py no_rope_layers,
/// modeling_llama4.py Llama4TextAttention).
///   layer l uses RoPE  iff  (l + 1) % nope_layer_interval != 0      (0-based l; every 4th layer is NoPE)
///   NoPE layers with attn_temperature_tuning scale the query at position p by
///     s(p) = ln(floor((p + 1) / floor_scale) + 1) * attn_scale + 1
///   (mind the +1 inside the floor: with floor_scale 8192, p = 8190 gives s = 1 and p = 8191 gives
///   1 + 0.1 ln 2). RoPE layers rotate interleaved pairs (Llama 4's complex freqs_cis) with rope_theta.
/// Not modelled: Llama 4's L2 norm of q and k, chunked attention and its llama3-type frequency scaling.

#include "core/scheme.h"

namespace poslab::core {

/// True when layer @c layer (0-based) applies RoPE.
bool iropeUsesRope(int layer, int nopeLayerInterval);

/// Llama 4's attention temperature for the query at position @c p.
double llama4AttnScale(Position p, double floorScale, double attnScale);

SchemeDescriptor iropeScheme();

} // namespace poslab::core
