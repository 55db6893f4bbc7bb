// SPDX-License-Identifier: MIT
#pragma once
/// @file sincos2d.h
/// MAE's fixed 2-D sin-cos table (He et al. 2022, "Masked Autoencoders Are Scalable Vision Learners";
/// facebookresearch/mae util/pos_embed.py get_2d_sincos_pos_embed, get_2d_sincos_pos_embed_from_grid,
/// get_1d_sincos_pos_embed_from_grid). For a grid of H x W patches and dimension D (a multiple of 4),
/// q = D/4 and omega_k = 1 / base^(k/q), k = 0 .. q-1 (base 10000), patch (i, j) at row i, column j gets
///   E[c]        = sin(j omega_c),   E[q + c]  = cos(j omega_c)      (first half: the column j)
///   E[2q + c]   = sin(i omega_c),   E[3q + c] = cos(i omega_c)      (second half: the row i)
/// The first half encodes the column, not the row, despite the reference's name emb_h: np.meshgrid(grid_w,
/// grid_h) ("here w goes first") puts the column index in grid[0], which feeds the first half. With the class
/// token (cls_token=True) a row of zeros comes first. MAE builds square grids; H != W follows the same code.

#include "core/spatial.h"

namespace poslab::core {

/// (H*W [+1]) x D: the table, row i*W + j for patch (i, j) (+1 with the class-token row of zeros first).
/// Throws InputError when D is not a multiple of 4.
MatrixF sincos2dEncoding(const ParamSet& params, const SpatialContext& ctx);

SpatialSchemeDescriptor sincos2dScheme();

} // namespace poslab::core
