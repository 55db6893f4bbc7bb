// SPDX-License-Identifier: MIT
#pragma once
/// @file deberta.h
/// DeBERTa's disentangled attention (He, Liu, Gao, Chen 2021, ICLR, section 3.1, eq. 4; Hugging Face
/// transformers/models/deberta_v2/modeling_deberta_v2.py make_log_bucket_position, build_relative_position,
/// DisentangledSelfAttention.disentangled_attention_bias).
/// Sign convention: relative position = query position - key position (the opposite of T5).
/// Log buckets (v2/v3), with b = position_buckets, mid = b/2, M = max_relative_positions:
///   |rel| <= mid: delta = rel;  else delta = sign(rel) * (mid + ceil(ln(|rel|/mid) / ln((M-1)/mid) * (mid-1))).
/// With span s = b (or M when b = 0), row index c = clamp(delta + s, 0, 2s - 1) and scale sqrt(3d):
///   c2c = q_i.k_j / sqrt(3d),  c2p = q_i.K^r[c] / sqrt(3d),  p2c = k_j.Q^r[c] / sqrt(3d)
/// (p2c gathers with -r_pos on the key rows and transposes in the reference, which lands on the same index c).
/// K^r and Q^r ((2s) x d) are seeded N(0, 1): random, not trained.

#include "core/scheme.h"

namespace poslab::core {

/// The signed log bucket of a relative position rel = query - key (make_log_bucket_position). With
/// bucketSize <= 0 or maxPosition <= 0 the position is returned unchanged.
long long debertaBucket(long long rel, int bucketSize, int maxPosition);

SchemeDescriptor debertaScheme();

} // namespace poslab::core
