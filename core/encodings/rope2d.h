// SPDX-License-Identifier: MIT
#pragma once
/// @file rope2d.h
/// 2-D rotary embedding for image patches as naver-ai/rope-vit defines it (Heo et al. 2024, "Rotary Position
/// Embedding for Vision Transformer", ECCV; models/vit_rope.py compute_axial_cis, init_random_2d_freqs,
/// compute_mixed_cis, init_t_xy). Patch (i, j) of an H x W grid is token i*W + j with x = j (t % end_x) and
/// y = i (t // end_x). Pairs are interleaved (view_as_complex of (2p, 2p+1)); d is the head dimension, a
/// multiple of 4, and m_k = 1 / theta^(4k/d), k = 0 .. d/4 - 1.
///   axial (rope_theta 100, the RoPE-Axial models): pair p < d/4 turns by x m_p, pair d/4 + p by y m_p.
///   mixed (rope_theta 10, the RoPE-Mixed models): pair p turns by x fx_p + y fy_p with, for a head's angle a,
///     fx_p = m_p cos(a), fy_p = m_p sin(a) for p < d/4 and fx_p = m_p' cos(a + pi/2), fy_p = m_p' sin(a + pi/2)
///     for p = d/4 + p'. The paper learns fx and fy per head and layer; this is their initialisation, with
///     a = 2 pi u and u the (head+1)-th draw of SeededRandom(seed).uniform() (init_random_2d_freqs draws
///     torch.rand(1) per head), or a = 0 when rotate is false, which gives the axial layout at this theta.
/// rope-vit does not rotate the class token (q[:, :, 1:] only); this table covers the patches.

#include "core/spatial.h"

namespace poslab::core {

/// The angles of every patch. Throws InputError when d is not a multiple of 4.
SpatialRotary rope2dRotary(const ParamSet& params, const SpatialContext& ctx);

SpatialSchemeDescriptor rope2dScheme();

} // namespace poslab::core
