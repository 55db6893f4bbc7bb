// SPDX-License-Identifier: MIT
#pragma once
/// @file vitlearned.h
/// The learned position table of a Vision Transformer (Dosovitskiy et al. 2021, "An Image is Worth 16x16
/// Words", section 3.2 and appendix D.4; google-research/vision_transformer vit_jax/models_vit.py
/// AddPositionEmbs, init normal(stddev=0.02)): one trainable vector per token of the flattened patch grid, the
/// class token first. Trained at a grid of table_rows x table_cols (ViT-B/16 at 224 px: 14 x 14, 1 + 196
/// rows), it is used at another grid H x W by resizing its grid part as a 2-D image and keeping the class row
/// (timm timm/layers/pos_embed.py resample_abs_pos_embed: reshape to 1 x D x h x w, F.interpolate(size,
/// mode='bicubic', antialias=True, align_corners=False), flatten, cat with the prefix tokens). The
/// interpolation (bicubic or bilinear, antialias on or off) is core/interpolate.h.
///
/// Rows come from a seeded N(0, init_std^2) draw (learnedBaseTable; row 0 is the class token when
/// class_token), or from a trained table in table_file (.npy or .safetensors, 2-D: rows x D, e.g. timm's
/// pos_embed[0]); its rows must be (class_token ? 1 : 0) + table_rows * table_cols.

#include "core/spatial.h"

namespace poslab::core {

/// (H*W [+1]) x D: the table at the requested grid, row i*W + j for patch (i, j), with the class row first
/// when ctx.cls. Throws InputError for a --cls without a class token and for a file whose shape does not fit.
MatrixF vitLearnedEncoding(const ParamSet& params, const SpatialContext& ctx);

SpatialSchemeDescriptor vitLearnedScheme();

} // namespace poslab::core
