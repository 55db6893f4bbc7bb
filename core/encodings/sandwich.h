// SPDX-License-Identifier: MIT
#pragma once
/// @file sandwich.h
/// Sandwich (Chi, Fan, Rudnicky, Ramadge 2023, "Dissecting Transformer Length Extrapolation via the Lens of
/// Receptive Field Analysis", ACL 2023): the dot product of two sinusoidal position vectors of dimension d'
/// used as a score bias, shifted so that distance 0 gives 0 and compressed per head like ALiBi. The paper's
/// own equation could not be read for this release, so PosLab follows the cited code, NVIDIA NeMo's
/// SandwichRelativePositionEmbedding (nemo/collections/nlp/modules/common/megatron/position_embedding/
/// sandwich_relative_position_embedding.py), exactly:
///   b_h(i, j) = ( sum_{t=1}^{d'/2} cos((j - i) w_t) - d'/2 ) / (8 (h + 1) / H),   w_t = base^(-2t/d')
/// (NeMo: inv_freq = 1 / 10000^(2 * arange(1, d'/2 + 1) / d'), then .cos() and a sum; bias_scales =
/// arange(1, H + 1) * 8 / H). frequency_index = vaswani instead sums t = 0 .. d'/2 - 1, the dot product of
/// Vaswani et al.'s PE vectors. An early NeMo helper, sandwich_pos_bias, summed arange(1, d'/2) angles
/// without the cosine; the class above replaced it and is what PosLab cites.

#include "core/scheme.h"

namespace poslab::core {

/// sum_t cos(delta * base^(-2t/d')) over t = first .. first + d'/2 - 1 (first = 1: NeMo; 0: Vaswani).
double sandwichCosineSum(double delta, int sandwichDim, double base, int first);

SchemeDescriptor sandwichScheme();

} // namespace poslab::core
