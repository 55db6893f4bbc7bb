// SPDX-License-Identifier: MIT
#pragma once
/// @file t5.h
/// T5's bucketed relative position bias (Raffel et al. 2020, section 2.1; Hugging Face
/// transformers/models/t5/modeling_t5.py T5Attention._relative_position_bucket and compute_bias).
/// Sign convention: relative position = key position - query position ("memory_position -
/// context_position" in the reference), so a key before the query has a negative relative position.
/// Buckets, for n = relative_attention_num_buckets and D = relative_attention_max_distance:
///   bidirectional: n <- n/2, bucket offset n for rel > 0, then r = |rel|;
///   causal (decoder): r = max(-rel, 0) (keys after the query all share bucket 0);
///   r < n/2: bucket r (exact); else n/2 + floor(ln(r/(n/2)) / ln(D/(n/2)) * (n - n/2)), at most n - 1.
/// So only distances below n/2 (after the halving) have a bucket of their own: 0-7 bidirectional, 0-15 causal
/// at n = 32. D is the scale of the logarithm, not where the last bucket starts: that is the first r with
/// ln(r/m)/ln(D/m) >= (n-m-1)/(n-m), m = n/2, i.e. r = 91 bidirectional and 113 causal at n = 32, D = 128.
/// Each head adds its own learned scalar per bucket; here those scalars are seeded N(0, 1), not trained.

#include "core/scheme.h"

namespace poslab::core {

/// The bucket of relative position @c rel (= key - query). Exact at the boundaries where the logarithm
/// ratio is an integer (e.g. distances 16, 32, 64 with 32 buckets, max distance 128, bidirectional).
int t5Bucket(long long rel, bool bidirectional, int numBuckets, int maxDistance);

/// The per-head bias table: numBuckets x heads, seeded N(0, 1).
MatrixD t5BiasTable(int numBuckets, int heads, unsigned long long seed);

SchemeDescriptor t5Scheme();

} // namespace poslab::core
