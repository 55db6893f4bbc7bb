// SPDX-License-Identifier: MIT
#pragma once
/// @file buckets.h
/// The bucket functions of T5 and DeBERTa along both directions of the relative position, as runs of equal
/// buckets, with the distances a figure labels: where the logarithmic buckets begin and where the last bucket
/// (every longer distance shares it) begins. The buckets are core's own (t5Bucket, debertaBucket), so a figure of
/// these runs shows what `poslab compute buckets` prints.
///   T5 (Raffel et al. 2020 section 2.1; Hugging Face T5Attention._relative_position_bucket): relative position =
///   key - query; per direction n' = n/2 buckets (bidirectional) or n' = n (causal: keys after the query all in
///   bucket 0); distances below m = n'/2 exact; the logarithm decides from m on; the last bucket n' - 1 (plus the
///   offset n' for keys after the query) starts at the first r with ln(r/m)/ln(D/m) >= (n'-m-1)/(n'-m): 91
///   bidirectional, 113 causal at n = 32, D = 128.
///   DeBERTa (He et al. 2021; Hugging Face modeling_deberta_v2.py make_log_bucket_position): relative position =
///   query - key; |rel| <= mid = b/2 exact, the logarithm decides from mid + 1 on; the bucket grows without end,
///   and the attention reads table row clamp(bucket, -s, s - 1) (disentangled_attention_bias), so the last row
///   starts where the bucket reaches s - 1 (rel > 0) or -s (rel < 0): 506 and 512 at b = 256, M = 512.

#include "core/params.h"
#include "core/types.h"

#include <optional>
#include <string>
#include <vector>

namespace poslab::core {

/// Distances first..last (>= 1) of one direction that share one bucket.
struct BucketRun {
    long long bucket = 0;
    Position first = 1;
    Position last = 1;
};

/// One direction of the relative position (sign -1 or +1).
struct BucketSide {
    int sign = 1;
    /// Runs over the distances 1..maxDistance, in order.
    std::vector<BucketRun> runs;
    /// The first distance whose bucket the logarithm decides; nullopt when none does (T5's causal keys after the
    /// query; DeBERTa without buckets).
    std::optional<Position> logStart;
    /// The first distance of the last bucket (T5) or last table row (DeBERTa): every longer distance shares it.
    std::optional<Position> lastStart;
    /// That bucket (T5) or table row (DeBERTa).
    long long lastBucket = 0;
};

/// A bucketed scheme's buckets over distances 0..maxDistance in both directions.
struct BucketProfile {
    std::string scheme;   ///< "t5" or "deberta"
    std::string relation; ///< "key - query" (T5) or "query - key" (DeBERTa)
    long long bucketAtZero = 0;
    BucketSide negative, positive;
    /// DeBERTa: the table's span s (rows -s..s-1 after centring); 0 for T5.
    long long tableSpan = 0;
};

/// True for the schemes bucketProfile() knows: T5 and DeBERTa.
bool hasBucketProfile(const std::string& scheme);
/// The buckets of @p scheme with complete parameters @p params over distances up to @p maxDistance (>= 1).
/// Throws InputError for other schemes.
BucketProfile bucketProfile(const std::string& scheme, const ParamSet& params, Position maxDistance);

} // namespace poslab::core
