// SPDX-License-Identifier: MIT
#pragma once
/// @file cope.h
/// CoPE, contextual position encoding (Golovneva, Wang, Weston, Sukhbaatar 2024, "Contextual Position
/// Encoding: Learning to Count What's Important", section 3 and the code listing in its appendix;
/// facebookresearch/RAM projects/cope). For one head, with the masked logits a_ij = q_i.k_j / sqrt(d):
///   g_ij = sigmoid(a_ij) for visible keys, 0 for masked ones         (gates)
///   p_ij = sum_{t >= j} g_it  over the key columns, clamped to npos_max - 1   (reverse cumulative sum)
///   z_i[n] = q_i . e[n]  for integer positions n = 0..npos_max-1   (q unscaled, as in the listing)
///   bias_ij = (p_ij - floor p_ij) z_i[ceil p_ij] + (1 - p_ij + floor p_ij) z_i[floor p_ij]
///   logits_ij = a_ij + bias_ij                        (position_logits = unscaled: the paper's listing)
///   logits_ij = a_ij + bias_ij / sqrt(d)               (position_logits = scaled: facebookresearch/RAM
///     projects/cope/src/cope/context_position.py ContextPosSelfAttn's default, (q.k + z) / sqrt(d); its
///     --cope-nodiv flag gives the paper's order). The gates use a_ij in both.
/// With a causal mask p_ij counts the gates from key j up to the query. The position embeddings e (d x
/// npos_max) are seeded N(0, 1): random, not trained (the reference initialises them to zero and trains).

#include "core/scheme.h"

namespace poslab::core {

/// The CoPE bias of one head from its masked logits and z (Lq x npos_max); fills gates and positions
/// (Lq x Lk) too. Logits of masked entries are ignored (their gates are 0).
MatrixF copeBias(const MatrixF& logits, const MaskMatrix& mask, const MatrixF& z, int nposMax, MatrixF* gates,
                 MatrixF* positions);

SchemeDescriptor copeScheme();

} // namespace poslab::core
