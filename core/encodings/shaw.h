// SPDX-License-Identifier: MIT
#pragma once
/// @file shaw.h
/// Relative position representations (Shaw, Uszkoreit, Vaswani 2018, NAACL, section 3; tensor2tensor
/// tensor2tensor/layers/common_attention.py _generate_relative_positions_matrix,
/// dot_product_attention_relative). With k = max_relative_position:
///   index(i, j) = clip(pos_j - pos_i, -k, k) + k     (key minus query; 2k + 1 table rows)
///   e_ij = q_i . (k_j + a^K[index(i, j)]) / sqrt(d)   (eq. 4), and the values get a^V[index] (eq. 3).
/// When tensor2tensor is given fewer queries than keys, the queries are the last positions of the keys.
/// The tables a^K and a^V are seeded N(0, 1): random, not trained.

#include "core/scheme.h"

namespace poslab::core {

/// tensor2tensor's index matrix for lengths only: lengthQ x lengthK; with lengthQ < lengthK the queries are
/// positions lengthK - lengthQ .. lengthK - 1 and the keys 0 .. lengthK - 1.
MatrixD shawIndexMatrix(int lengthQ, int lengthK, int maxRelativePosition);

/// The key table a^K ((2k + 1) x d) and the value table a^V (same shape), seeded.
MatrixD shawKeyTable(int maxRelativePosition, int dim, unsigned long long seed);
MatrixD shawValueTable(int maxRelativePosition, int dim, unsigned long long seed);

SchemeDescriptor shawScheme();

} // namespace poslab::core
