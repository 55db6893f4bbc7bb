// SPDX-License-Identifier: MIT
#include "core/buckets.h"

#include "core/encodings/deberta.h"
#include "core/encodings/t5.h"
#include "core/errors.h"

#include <algorithm>
#include <functional>

namespace poslab::core {

bool hasBucketProfile(const std::string& scheme)
{
    return scheme == "t5" || scheme == "deberta";
}

namespace {

/// Runs of @p bucket over distances 1..maxDistance, and the start of the value every distance from @p constantFrom
/// on shares (found by scanning to it: the functions are monotone in the distance).
void scan(BucketSide& side, const std::function<long long(Position)>& bucket,
          const std::function<long long(Position)>& row, Position maxDistance, Position constantFrom)
{
    for (Position r = 1; r <= maxDistance; ++r) {
        const long long b = bucket(r);
        if (side.runs.empty() || side.runs.back().bucket != b)
            side.runs.push_back({b, r, r});
        else
            side.runs.back().last = r;
    }
    side.lastBucket = row(constantFrom);
    Position start = constantFrom;
    while (start > 1 && row(start - 1) == side.lastBucket)
        --start;
    side.lastStart = start;
}

} // namespace

BucketProfile bucketProfile(const std::string& scheme, const ParamSet& p, Position maxDistance)
{
    if (!hasBucketProfile(scheme))
        throw InputError("scheme " + scheme + " has no bucket function (T5 and DeBERTa have)");
    maxDistance = std::max<Position>(1, maxDistance);
    BucketProfile out;
    out.scheme = scheme;
    out.negative.sign = -1;
    out.positive.sign = 1;
    if (scheme == "t5") {
        out.relation = "key - query";
        const int n = int(p.integer("relative_attention_num_buckets"));
        const int d = int(p.integer("relative_attention_max_distance"));
        const bool bi = p.flag("bidirectional");
        const auto t5 = [&](long long rel) { return (long long)t5Bucket(rel, bi, n, d); };
        out.bucketAtZero = t5(0);
        const int perSide = bi ? n / 2 : n;
        // From distance D on every bucket is the last one (the logarithm reaches n' - m).
        const Position constant = std::max<Position>(d, perSide);
        for (BucketSide* side : {&out.negative, &out.positive}) {
            const auto f = [&, s = side->sign](Position r) { return t5(s * r); };
            scan(*side, f, f, maxDistance, constant);
            if (side->sign < 0 || bi)
                side->logStart = perSide / 2;
        }
        return out;
    }
    out.relation = "query - key";
    const int b = int(p.integer("position_buckets"));
    const int m = int(p.integer("max_relative_positions"));
    const BucketPrecision precision
        = p.choice("bucket_precision") == "float64" ? BucketPrecision::Float64 : BucketPrecision::Float32;
    out.tableSpan = b > 0 ? b : m;
    out.bucketAtZero = debertaBucket(0, b, m, precision);
    for (BucketSide* side : {&out.negative, &out.positive}) {
        const int s = side->sign;
        const auto f = [&](Position r) { return debertaBucket(s * r, b, m, precision); };
        const auto row = [&](Position r) { return debertaTableRow(p, s * r); };
        // Past max_relative_positions the bucket exceeds the table on both sides (the logarithm passes mid - 1).
        scan(*side, f, row, maxDistance, Position(m) + 1);
        if (b > 0)
            side->logStart = b / 2 + 1;
    }
    return out;
}

} // namespace poslab::core
