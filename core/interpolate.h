// SPDX-License-Identifier: MIT
#pragma once
/// @file interpolate.h
/// Resizing a grid of vectors as PyTorch's torch.nn.functional.interpolate does with align_corners=False
/// (aten/src/ATen/native/cpu/UpSampleKernel.cpp, aten/src/ATen/native/UpSample.h): what timm's
/// resample_abs_pos_embed (timm/layers/pos_embed.py) applies to a ViT's learned position table when the
/// image size changes. Each axis is resampled with its own 1-D weights; output (y, x) is
/// sum_a sum_b wy[a] wx[b] in(iy[a], ix[b]).
///
/// Without antialias (upsample_bicubic2d / upsample_bilinear2d), with scale = in / out:
///   bicubic:  s = scale (o + 0.5) - 0.5, i0 = floor(s), t = s - i0; taps i0-1 .. i0+2, each index clamped to
///             [0, in-1]; weights Keys' cubic convolution with A = -0.75 at distances 1+t, t, 1-t, 2-t:
///             W(x) = (A+2)|x|^3 - (A+3)|x|^2 + 1 for |x| <= 1, A|x|^3 - 5A|x|^2 + 8A|x| - 4A for 1 < |x| < 2.
///   bilinear: s = max(scale (o + 0.5) - 0.5, 0), i0 = floor(s), i1 = min(i0 + 1, in - 1), weights 1-l, l.
/// With antialias (the separable "aa" kernel, Pillow's Resample.c): centre c = scale (o + 0.5), support
/// S = 2 (bicubic) or 1 (bilinear), times scale when downsampling (scale >= 1); taps j from
/// xmin = max(int(c - S + 0.5), 0) to min(int(c + S + 0.5), in) - 1, weight f((j - c + 0.5) / max(scale, 1))
/// with f Keys' cubic at A = -0.5 (bicubic) or the triangle 1 - |x| (bilinear), the weights divided by
/// their sum. So antialias changes upsampling too: another A and no clamped taps.
///
/// PyTorch computes in float32; these functions compute in double (the float32 result is within float
/// rounding of them).

#include "core/types.h"

#include <string_view>
#include <vector>

namespace poslab::core {

enum class Interpolation { Bicubic, Bilinear };
std::string_view interpolationName(Interpolation mode); ///< "bicubic" or "bilinear"
/// "bicubic" or "bilinear"; throws InputError otherwise.
Interpolation parseInterpolation(std::string_view name);

/// The taps of one output sample along one axis.
struct AxisWeights {
    std::vector<int> index;     ///< input indices (may repeat when clamped)
    std::vector<double> weight; ///< one weight per index
};

/// The weights of every output index 0 .. @p outSize - 1 along an axis of @p inSize samples (both >= 1).
std::vector<AxisWeights> axisWeights(int inSize, int outSize, Interpolation mode, bool antialias);

/// (outH * outW) x C: @p src, (inH * inW) x C with row r = grid cell (r / inW, r % inW), resized to outH x outW
/// cells, each of the C channels on its own. Equal sizes give @p src unchanged.
MatrixD resizeGrid(const MatrixD& src, int inH, int inW, int outH, int outW, Interpolation mode, bool antialias);

} // namespace poslab::core
