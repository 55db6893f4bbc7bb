// SPDX-License-Identifier: MIT
#pragma once
/// @file deberta.h
/// DeBERTa's disentangled attention (He, Liu, Gao, Chen 2021, ICLR, section 3.1, eq. 4; Hugging Face
/// transformers/models/deberta_v2/modeling_deberta_v2.py make_log_bucket_position, build_relative_position,
/// DisentangledSelfAttention.disentangled_attention_bias).
/// Sign convention: relative position = query position - key position (the opposite of T5).
/// Log buckets (v2/v3), with b = position_buckets, mid = b/2, M = max_relative_positions:
///   |rel| <= mid: delta = rel;  else delta = sign(rel) * (mid + ceil(ln(|rel|/mid) / ln((M-1)/mid) * (mid-1))).
/// Where that ceil's argument is within float rounding of an integer, the arithmetic decides the bucket:
/// Hugging Face computes it in float32 (torch default dtype; parameter bucket_precision = float32, the
/// default), the original microsoft/DeBERTa DeBERTa/deberta/da_utils.py in float64 (numpy; bucket_precision =
/// float64). At DeBERTa-v3's b = 256, M = 512 they agree for every |rel| <= 2048; they differ e.g. at b = 128,
/// M = 513, rel = 128 (exactly ln 2 / ln 8 * 63 = 21: float32 gives 21, float64 21.000000000000004 -> 22).
/// With span s = b (or M when b = 0), row index c = clamp(delta + s, 0, 2s - 1) and scale sqrt(3d):
///   c2c = q_i.k_j / sqrt(3d),  c2p = q_i.K^r[c] / sqrt(3d),  p2c = k_j.Q^r[c] / sqrt(3d)
/// with c from delta(i, j), as the reference does: p2c gathers with -r_pos on the key rows and transposes,
/// which lands on the same index as c2p. The paper's eq. 4 writes p2c with delta(j, i), eq. 3's
/// delta(i, j) = clamp(i - j + k, 0, 2k - 1) with its arguments swapped: row k + (j - i) instead of k + (i - j),
/// i.e. the Q^r table read mirrored. The two agree only at i = j (where the distance clamps, they clamp to
/// opposite ends). PosLab follows the reference code.
/// K^r and Q^r ((2s) x d) are seeded N(0, 1): random, not trained.

#include "core/scheme.h"

namespace poslab::core {

/// The arithmetic of make_log_bucket_position's ceil argument.
enum class BucketPrecision {
    Float32, ///< Hugging Face modeling_deberta_v2.py (torch float32: a/mid, log, ratio, times mid-1)
    Float64, ///< microsoft/DeBERTa DeBERTa/deberta/da_utils.py (numpy float64)
};

/// The signed log bucket of a relative position rel = query - key (make_log_bucket_position). With
/// bucketSize <= 0 or maxPosition <= 0 the position is returned unchanged.
long long debertaBucket(long long rel, int bucketSize, int maxPosition,
                        BucketPrecision precision = BucketPrecision::Float32);

/// The row of the relative-position tables K^r, Q^r that a query reads for a key @p rel = query - key tokens
/// before it, centred: clamp(debertaBucket(rel), -s, s - 1) with s = position_buckets (or
/// max_relative_positions when position_buckets is 0), so that the index c above is this + s (HF
/// DisentangledSelfAttention.disentangled_attention_bias: torch.clamp(relative_pos + att_span, 0, att_span * 2 - 1)).
/// @p params are complete DeBERTa parameters.
long long debertaTableRow(const ParamSet& params, long long rel);

SchemeDescriptor debertaScheme();

} // namespace poslab::core
