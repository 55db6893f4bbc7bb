// SPDX-License-Identifier: MIT
#pragma once
/// @file pixtralrope.h
/// Pixtral's 2-D rotary embedding of its vision encoder (Mistral AI 2024, "Pixtral 12B", arXiv 2410.07073, RoPE-2D;
/// huggingface/transformers src/transformers/models/pixtral/modeling_pixtral.py PixtralRotaryEmbedding,
/// position_ids_in_meshgrid). With the head dimension d and the 1-D frequencies f_k = 1 / rope_theta^(2k/d),
/// k = 0 .. d/2 - 1, the rows take the even-indexed ones and the columns the odd-indexed ones:
///   pair p < ceil(d/4):       angle = i * f_{2p}              (row i: freqs[::2])
///   pair ceil(d/4) + p':      angle = j * f_{2p'+1}           (column j: freqs[1::2])
/// Hugging Face lays the pairs out half-split (inv_freq = cat(freqs_2d, freqs_2d), rotate_half). Its table
/// covers max_patches_per_side = image_size / patch_size (1024 / 16 = 64) per side: a larger grid has no row
/// there and is refused. Patch (i, j) of an H x W grid is token i*W + j (HF's position id is i * 64 + j).

#include "core/spatial.h"

namespace poslab::core {

/// The angles of every patch. Throws InputError for an odd d or a grid side above max_patches_per_side.
SpatialRotary pixtralRotary(const ParamSet& params, const SpatialContext& ctx);

SpatialSchemeDescriptor pixtralRopeScheme();

} // namespace poslab::core
