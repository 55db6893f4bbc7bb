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

#include <algorithm>
#include <cmath>

namespace poslab::core {

/// The CoPE sweep of one head, for any Eigen matrices (the views' float matrices, the length lab's float and
/// double ones, core/train/ops.h): for each query i, keys j from the last to the first,
///   g_ij = sigmoid(logits_ij) if visible(i, j) else 0;  cum += g_ij;  p_ij = min(cum, npos_max - 1);
///   bias_ij = (p - floor p) z(i, ceil p) + (1 - p + floor p) z(i, floor p).
/// Arithmetic in double, stored in the output's scalar. z needs columns 0..min(npos_max - 1, ceil(max cum));
/// with Lk keys that is at most min(npos_max, Lk + 1) columns. @p gates and @p positions may be null.
template <typename Logits, typename Visible, typename Z, typename Out>
void copeSweep(const Logits& logits, const Visible& visible, const Z& z, int nposMax, Out& bias, Out* gates,
               Out* positions)
{
    using S = typename Out::Scalar;
    const Eigen::Index lq = logits.rows();
    const Eigen::Index lk = logits.cols();
    bias.resize(lq, lk);
    if (gates)
        gates->resize(lq, lk);
    if (positions)
        positions->resize(lq, lk);
    for (Eigen::Index i = 0; i < lq; ++i) {
        double cum = 0.0;
        for (Eigen::Index j = lk - 1; j >= 0; --j) {
            const double g = visible(i, j) ? 1.0 / (1.0 + std::exp(-double(logits(i, j)))) : 0.0;
            cum += g;
            const double p = std::min(cum, double(nposMax - 1));
            const double lo = std::floor(p);
            const double hi = std::ceil(p);
            const double w = p - lo;
            bias(i, j) = S(w * double(z(i, Eigen::Index(hi))) + (1.0 - w) * double(z(i, Eigen::Index(lo))));
            if (gates)
                (*gates)(i, j) = S(g);
            if (positions)
                (*positions)(i, j) = S(p);
        }
    }
}

/// The CoPE bias of one head from its masked logits and z (Lq x npos_max); fills gates and positions
/// (Lq x Lk) too. Logits of masked entries are ignored (their gates are 0). copeSweep with the mask.
MatrixF copeBias(const MatrixF& logits, const MaskMatrix& mask, const MatrixF& z, int nposMax, MatrixF* gates,
                 MatrixF* positions);

SchemeDescriptor copeScheme();

} // namespace poslab::core
