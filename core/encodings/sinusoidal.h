// SPDX-License-Identifier: MIT
#pragma once
/// @file sinusoidal.h
/// Fixed sinusoidal absolute encoding (Vaswani et al. 2017, section 3.5):
///   PE(p, 2i) = sin(p * w_i), PE(p, 2i+1) = cos(p * w_i), w_i = base^(-2i/d).
/// Periods 2*pi / w_i run from 2*pi (i = 0) to 2*pi*base^((d-2)/d) for the last pair i = d/2 - 1 (54,410
/// tokens at base 10000, d = 128), not 2*pi*base; only the tensor2tensor spacing reaches 2*pi*base.
/// Layout "interleaved" is the paper's; "half_split" concatenates all sines then all cosines
/// (tensor2tensor get_timing_signal_1d, fairseq SinusoidalPositionalEmbedding). Spacing
/// "tensor2tensor" uses their exponent w_i = base^(-i/max(d/2 - 1, 1)) instead of the paper's (get_timing_signal_1d
/// with min_timescale 1 and max_timescale = base; fairseq get_embedding divides by d/2 - 1 without the max, so
/// it has no d = 2 table). The paper's table with layout interleaved is the one in Vaswani et al.; tensor2tensor
/// and fairseq are spacing tensor2tensor with layout half_split. fairseq shifts positions by padding_idx + 1
/// and zeroes the padding row; PosLab's rows are the raw positions.

#include "core/scheme.h"

#include <vector>

namespace poslab::core {

/// w_i for i in [0, d/2): angular frequencies in rad/token.
std::vector<double> sinusoidalFrequencies(const ParamSet& params, const TableContext& ctx);

/// positions x d table, float32, with every value within 1e-6 of float64.
MatrixF sinusoidalEncoding(const ParamSet& params, const TableContext& ctx);

SchemeDescriptor sinusoidalScheme();

} // namespace poslab::core
