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
///   1 + 0.1 ln 2). RoPE layers rotate interleaved pairs (Llama 4's complex freqs_cis) with rope_theta and
///   rope_type llama3 (Llama 4 Scout's rope_scaling: factor 16, low_freq_factor 1, high_freq_factor 1,
///   original_max_position_embeddings 8192; the defaults), computed by the rope scheme (ropeSpec), so
///   Hugging Face _compute_llama3_parameters applies; rope_type default turns the scaling off.
/// Not modelled: the RoPE layers' chunked local attention (attention_chunk_size 8192) and their L2 norm of
/// q and k (use_qk_norm).

#include "core/scheme.h"

namespace poslab::core {

/// True when layer @c layer (0-based) applies RoPE.
bool iropeUsesRope(int layer, int nopeLayerInterval);

/// Llama 4's attention temperature for the query at position @c p.
double llama4AttnScale(Position p, double floorScale, double attnScale);
/// The first position whose temperature is above 1 (for attnScale > 0): floor((p + 1)/floorScale) >= 1, i.e.
/// p = ceil(floorScale) - 1 (at least 0).
Position llama4FirstTemperedPosition(double floorScale);

SchemeDescriptor iropeScheme();

} // namespace poslab::core
