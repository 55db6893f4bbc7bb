// SPDX-License-Identifier: MIT
// The bucket profiles of T5 and DeBERTa (core/buckets.h): runs of equal buckets in both directions and the labelled
// edges. References written here from the reference code:
//   T5: Hugging Face transformers/models/t5/modeling_t5.py T5Attention._relative_position_bucket, in float32 as torch
//       runs it (log of a float32 ratio, divided by math.log(max_distance / max_exact), times (n - max_exact),
//       truncated by .to(long)); relative position = memory_position - context_position = key - query.
//   DeBERTa: transformers/models/deberta_v2/modeling_deberta_v2.py make_log_bucket_position (sign(rel) * (mid +
//       ceil(log(|rel|/mid) / log((max_position - 1)/mid) * (mid - 1))) for |rel| > mid) in float32, and
//       disentangled_attention_bias's clamp(rel + att_span, 0, 2 att_span - 1); relative position = query - key.
#include "core/buckets.h"
#include "core/encodingregistry.h"
#include "core/errors.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace poslab::core;

namespace {

int t5Reference(long long rel, bool bidirectional, int numBuckets, int maxDistance)
{
    int bucket = 0;
    int n = numBuckets;
    long long r;
    if (bidirectional) {
        n /= 2;
        bucket += rel > 0 ? n : 0;
        r = std::llabs(rel);
    } else {
        r = -std::min(rel, 0ll);
    }
    const int maxExact = n / 2;
    if (r < maxExact)
        return bucket + int(r);
    const float ratio = float(r) / float(maxExact);
    const float large = std::log(ratio) / float(std::log(double(maxDistance) / maxExact)) * float(n - maxExact);
    return bucket + std::min(maxExact + int(large), n - 1);
}

long long debertaReference(long long rel, int b, int m)
{
    const long long mid = b / 2;
    const long long a = std::llabs(rel);
    if (a <= mid)
        return rel;
    const float x = std::log(float(a) / float(mid)) / std::log(float(double(m - 1) / double(mid))) * float(mid - 1);
    const long long bucket = (long long)std::ceil(x) + mid;
    return rel < 0 ? -bucket : bucket;
}

ParamSet params(const std::string& scheme, const Overrides& o)
{
    TableContext ctx;
    ctx.dim = 16;
    ctx.positions = PositionList::range(0, 1);
    return resolveParams(schemeOrThrow(scheme), o, ctx);
}

/// The runs' buckets, distance by distance.
std::vector<long long> expand(const BucketSide& side)
{
    std::vector<long long> v;
    for (const BucketRun& r : side.runs)
        for (Position d = r.first; d <= r.last; ++d)
            v.push_back(r.bucket);
    return v;
}

} // namespace

class TestBuckets : public QObject {
    Q_OBJECT
private slots:
    void t5Bidirectional();
    void t5Causal();
    void t5OtherSizes();
    void deberta();
    void others();
};

void TestBuckets::t5Bidirectional()
{
    const BucketProfile p = bucketProfile("t5", params("t5", {}), 300);
    QCOMPARE(p.relation, std::string("key - query"));
    QCOMPARE(p.bucketAtZero, 0ll);
    for (const BucketSide* side : {&p.negative, &p.positive}) {
        const std::vector<long long> got = expand(*side);
        QCOMPARE(got.size(), std::size_t(300));
        for (Position r = 1; r <= 300; ++r)
            QCOMPARE(got[std::size_t(r - 1)], (long long)t5Reference(side->sign * r, true, 32, 128));
        // n' = 16 per side, exact below m = 8; the last bucket starts at ceil(8 * 16^(7/8)) = 91 (8 * 16^(7/8) =
        // 90.51), the first r with ln(r/8)/ln(16) * 8 >= 7.
        QCOMPARE(side->logStart, std::optional<Position>(8));
        QCOMPARE(side->lastStart, std::optional<Position>(Position(std::ceil(8 * std::pow(16.0, 7.0 / 8.0)))));
        QCOMPARE(side->lastStart, std::optional<Position>(91));
        QCOMPARE(side->lastBucket, side->sign < 0 ? 15ll : 31ll);
        QVERIFY(t5Reference(side->sign * 90, true, 32, 128) != t5Reference(side->sign * 91, true, 32, 128));
        QCOMPARE(t5Reference(side->sign * 100000, true, 32, 128), int(side->lastBucket));
    }
    // Each of the first eight distances has a bucket of its own; from 8 on the runs hold several.
    QCOMPARE(p.negative.runs[6].first, Position(7));
    QCOMPARE(p.negative.runs[6].last, Position(7));
    QCOMPARE(p.negative.runs[7].first, Position(8));
    QVERIFY(p.negative.runs[7].last > 8);
}

void TestBuckets::t5Causal()
{
    const BucketProfile p = bucketProfile("t5", params("t5", {{"bidirectional", "false"}}), 200);
    const std::vector<long long> neg = expand(p.negative), pos = expand(p.positive);
    for (Position r = 1; r <= 200; ++r) {
        QCOMPARE(neg[std::size_t(r - 1)], (long long)t5Reference(-r, false, 32, 128));
        QCOMPARE(pos[std::size_t(r - 1)], 0ll); // keys after the query: bucket 0
    }
    // n' = 32, exact below 16, last bucket 31 from ceil(16 * 8^(15/16)) = 113 (16 * 8^(15/16) = 112.2).
    QCOMPARE(p.negative.logStart, std::optional<Position>(16));
    QCOMPARE(p.negative.lastStart, std::optional<Position>(113));
    QCOMPARE(p.negative.lastBucket, 31ll);
    QVERIFY(!p.positive.logStart);
    QCOMPARE(p.positive.lastStart, std::optional<Position>(1));
    QCOMPARE(p.positive.runs.size(), std::size_t(1));
}

void TestBuckets::t5OtherSizes()
{
    // 64 buckets, max distance 1000 (bidirectional: n' = 32, m = 16): the last bucket from the first r with
    // ln(r/16)/ln(62.5) * 16 >= 15, against the reference at every distance.
    const BucketProfile p = bucketProfile(
        "t5", params("t5", {{"relative_attention_num_buckets", "64"}, {"relative_attention_max_distance", "1000"}}),
        1500);
    Position first = 0;
    for (Position r = 1; r <= 1500 && !first; ++r)
        if (t5Reference(-r, true, 64, 1000) == 31)
            first = r;
    QCOMPARE(p.negative.lastStart, std::optional<Position>(first));
    QCOMPARE(p.negative.logStart, std::optional<Position>(16));
    QCOMPARE(expand(p.negative).back(), 31ll);
}

void TestBuckets::deberta()
{
    // DeBERTa-v3 defaults: b = 256, M = 512, span s = 256.
    const BucketProfile p = bucketProfile("deberta", params("deberta", {}), 700);
    QCOMPARE(p.relation, std::string("query - key"));
    QCOMPARE(p.tableSpan, 256ll);
    for (const BucketSide* side : {&p.negative, &p.positive}) {
        const std::vector<long long> got = expand(*side);
        for (Position r = 1; r <= 700; ++r)
            QCOMPARE(got[std::size_t(r - 1)], debertaReference(side->sign * r, 256, 512));
        QCOMPARE(side->logStart, std::optional<Position>(129)); // |rel| <= 128 exact
        // The table row clamp(bucket, -256, 255): the first distance whose row is the end row.
        Position first = 0;
        const long long end = side->sign > 0 ? 255 : -256;
        for (Position r = 1; r <= 700 && !first; ++r)
            if (std::clamp(debertaReference(side->sign * r, 256, 512), -256ll, 255ll) == end)
                first = r;
        QCOMPARE(side->lastStart, std::optional<Position>(first));
        QCOMPARE(side->lastBucket, end);
    }
    // The negative side's end row -256 needs the log term to pass mid - 1, i.e. |rel| > M - 1.
    QVERIFY(*p.negative.lastStart > 511);
    QCOMPARE(p.positive.lastStart, std::optional<Position>(506)); // 128 * (511/128)^(126/127) = 505.5
    QCOMPARE(p.negative.lastStart, std::optional<Position>(512));
}

void TestBuckets::others()
{
    QVERIFY(!hasBucketProfile("alibi"));
    QVERIFY_THROWS_EXCEPTION(InputError, bucketProfile("rope", params("rope", {}), 10));
}

QTEST_APPLESS_MAIN(TestBuckets)
#include "tst_buckets.moc"
