// SPDX-License-Identifier: MIT
#pragma once
/// @file transformer_xl.h
/// Transformer-XL relative attention (Dai et al. 2019, ACL, section 3.3, eq. for A^rel; kimiyoung/
/// transformer-xl pytorch/mem_transformer.py RelPartialLearnableMultiHeadAttn). With the distance
/// delta = i - j (query minus key) and R_delta its sinusoid ([sin | cos] halves, base 10000):
///   A_ij = (a) q_i.k_j  +  (b) q_i.W_R R_{i-j}  +  (c) u.k_j  +  (d) v.W_R R_{i-j},   all / sqrt(d)
/// (a) content-content, (b) content-position, (c) global content bias, (d) global position bias.
/// W_R (d x d, N(0, 1/d)), u and v (N(0, 1)) are seeded: random, not trained.

#include "core/scheme.h"

namespace poslab::core {

SchemeDescriptor transformerXlScheme();

} // namespace poslab::core
