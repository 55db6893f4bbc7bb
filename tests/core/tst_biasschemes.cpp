// SPDX-License-Identifier: MIT
// Reference values of the score-bias schemes: T5 buckets, ALiBi slopes, Kerple, FIRE, Sandwich.
#include "core/attention.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/encodings/alibi.h"
#include "core/encodings/fire.h"
#include "core/encodings/kerple.h"
#include "core/encodings/t5.h"
#include "core/errors.h"

#include <QTest>

#include <cmath>
#include <map>

using namespace poslab::core;

class TestBiasSchemes : public QObject {
    Q_OBJECT
private slots:
    void t5BucketsMatchReferenceEverywhere();
    void t5BucketBoundaries();
    void t5SignIsKeyMinusQuery();
    void t5TextsStateLastBucketAndExactRange();
    void logitScaleIsEachSchemesOwn();
    void alibiSlopesByHeads_data();
    void alibiSlopesByHeads();
    void alibiBiasAndSoftmaxShift();
    void alibiFormulaTextIsTheRuleComputed();
    void kerpleBothForms();
    void kerplePowerExponentChecked();
    void fireNormalisedDistance();
    void sandwichZeroAtDistanceZero();
    void sandwichFollowsNemoAndOffersVaswani();
};

// Hugging Face T5Attention._relative_position_bucket, step by step in float32 as torch runs it
// (transformers/models/t5/modeling_t5.py): log of a float32 ratio, divided by math.log(max_distance /
// max_exact) (a Python float, applied in float32), times (num_buckets - max_exact), truncated by .to(long).
static int t5Reference(long long rel, bool bidirectional, int numBuckets, int maxDistance)
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

void TestBiasSchemes::t5BucketsMatchReferenceEverywhere()
{
    for (bool bi : {true, false})
        for (long long rel = -200; rel <= 200; ++rel)
            QVERIFY2(t5Bucket(rel, bi, 32, 128) == t5Reference(rel, bi, 32, 128),
                     (std::to_string(rel) + (bi ? " bidirectional" : " causal")).c_str());
}

void TestBiasSchemes::t5BucketBoundaries()
{
    // 32 buckets, max distance 128 (T5 defaults, modeling_t5.py). Bidirectional: 16 per direction, 8 exact,
    // then 8 + floor(ln(r/8) / ln(16) * 8): r = 16, 32, 64 give exactly 2, 4, 6 -> buckets 10, 12, 14.
    QCOMPARE(t5Bucket(0, true, 32, 128), 0);
    QCOMPARE(t5Bucket(-7, true, 32, 128), 7);
    QCOMPARE(t5Bucket(-8, true, 32, 128), 8);
    QCOMPARE(t5Bucket(-15, true, 32, 128), 9);
    QCOMPARE(t5Bucket(-16, true, 32, 128), 10);
    QCOMPARE(t5Bucket(-31, true, 32, 128), 11);
    QCOMPARE(t5Bucket(-32, true, 32, 128), 12);
    QCOMPARE(t5Bucket(-63, true, 32, 128), 13);
    QCOMPARE(t5Bucket(-64, true, 32, 128), 14);
    QCOMPARE(t5Bucket(-127, true, 32, 128), 15);
    QCOMPARE(t5Bucket(-128, true, 32, 128), 15);
    QCOMPARE(t5Bucket(-200, true, 32, 128), 15);
    QCOMPARE(t5Bucket(1, true, 32, 128), 17);
    QCOMPARE(t5Bucket(16, true, 32, 128), 26);
    QCOMPARE(t5Bucket(32, true, 32, 128), 28);
    QCOMPARE(t5Bucket(64, true, 32, 128), 30);
    QCOMPARE(t5Bucket(200, true, 32, 128), 31);
    // Decoder: keys after the query share bucket 0; 16 exact, then 16 + floor(ln(r/16) / ln(8) * 16).
    QCOMPARE(t5Bucket(5, false, 32, 128), 0);
    QCOMPARE(t5Bucket(-15, false, 32, 128), 15);
    QCOMPARE(t5Bucket(-16, false, 32, 128), 16);
    QCOMPARE(t5Bucket(-32, false, 32, 128), 21);
    QCOMPARE(t5Bucket(-64, false, 32, 128), 26);
    QCOMPARE(t5Bucket(-128, false, 32, 128), 31);
    QCOMPARE(t5Bucket(-200, false, 32, 128), 31);
}

void TestBiasSchemes::t5SignIsKeyMinusQuery()
{
    // relative_position = memory_position - context_position (modeling_t5.py compute_bias).
    const SchemeDescriptor& s = schemeOrThrow("t5");
    PairContext pc;
    pc.queries = PositionList::list({20});
    pc.keys = PositionList::list({4, 36});
    const MatrixD b = s.buckets(defaultParams(s), pc);
    QCOMPARE(b(0, 0), double(t5Bucket(-16, true, 32, 128))); // key 16 before the query: 10
    QCOMPARE(b(0, 0), 10.0);
    QCOMPARE(b(0, 1), 26.0); // key 16 after: 16 + 10
}

void TestBiasSchemes::t5TextsStateLastBucketAndExactRange()
{
    // Against t5Reference (Hugging Face _relative_position_bucket in float32): at the defaults
    // (32 buckets, max distance 128) the last bucket starts at 91 bidirectional and 113 causal, and only
    // distances 0-7 (bidirectional) or 0-15 (causal) have a bucket of their own. The texts must say so.
    for (const bool bi : {true, false}) {
        const int last = bi ? 15 : 31;
        long long start = -1;
        std::map<int, int> members;
        for (long long r = 0; r <= 1000; ++r) {
            const int b = t5Reference(-r, bi, 32, 128); // a key r tokens before the query
            ++members[b];
            if (b == last && start < 0)
                start = r;
        }
        QCOMPARE(start, bi ? 91ll : 113ll);
        // The closed form the parameter help gives: ceil(m (D/m)^((n'-m-1)/(n'-m))), m = n'/2.
        const double np = bi ? 16 : 32, m = np / 2;
        QCOMPARE((long long)std::ceil(m * std::pow(128.0 / m, (np - m - 1) / (np - m))), start);
        long long exact = 0;
        while (members[t5Reference(-exact, bi, 32, 128)] == 1)
            ++exact;
        QCOMPARE(exact, bi ? 8ll : 16ll); // distances 0 .. exact - 1
    }
    const SchemeDescriptor& s = schemeOrThrow("t5");
    QVERIFY(s.summary.find("91 bidirectional and 113 causal") != std::string::npos);
    QVERIFY(s.summary.find("0-7 bidirectional, 0-15 causal") != std::string::npos);
    QVERIFY(s.param("relative_attention_max_distance")->doc.find("91 bidirectional, 113 causal") != std::string::npos);
    QVERIFY(s.param("relative_attention_num_buckets")->doc.find("0-7 bidirectional, 0-15 causal") != std::string::npos);
    QVERIFY(s.param("relative_attention_max_distance")->doc.find("Distance where the last bucket starts")
            == std::string::npos);
}

void TestBiasSchemes::alibiSlopesByHeads_data()
{
    // ofirpress/attention_with_linear_biases fairseq/models/transformer.py get_slopes: for a power of two
    // n, start = ratio = 2^(-8/n); otherwise get_slopes(P) + get_slopes(2P)[0::2][:n - P].
    QTest::addColumn<int>("heads");
    QTest::addColumn<QList<double>>("exponents"); // slope = 2^exponent
    QList<double> e8, e16, e12, e24;
    for (int k = 1; k <= 8; ++k)
        e8 << -double(k);
    for (int k = 1; k <= 16; ++k)
        e16 << -0.5 * k;
    e12 = e8;
    e12 << -0.5 << -1.5 << -2.5 << -3.5;
    e24 = e16;
    for (int k = 1; k <= 15; k += 2)
        e24 << -0.25 * k;
    QTest::newRow("8") << 8 << e8;
    QTest::newRow("16") << 16 << e16;
    QTest::newRow("12") << 12 << e12;
    QTest::newRow("24") << 24 << e24;
}

void TestBiasSchemes::alibiSlopesByHeads()
{
    QFETCH(int, heads);
    QFETCH(QList<double>, exponents);
    const std::vector<double> s = alibiSlopes(heads);
    QCOMPARE(int(s.size()), heads);
    for (int h = 0; h < heads; ++h)
        QVERIFY2(std::fabs(s[std::size_t(h)] - std::exp2(exponents[h])) < 1e-15, std::to_string(h).c_str());
    QVERIFY_THROWS_EXCEPTION(InputError, alibiSlopes(0));
}

void TestBiasSchemes::alibiFormulaTextIsTheRuleComputed()
{
    // The formula shown must be fairseq's get_slopes for every H, not only powers of two.
    // The rule as the text writes it, evaluated here: P = 2^floor(log2 H); m_h = 2^(-8(h+1)/P) for h < P,
    // then m_(P+k) = 2^(-4(2k+1)/P) for k < H - P.
    const std::string& f = schemeOrThrow("alibi").formula;
    for (const char* piece :
         {"P = 2^floor(log2 H)", "m_h = 2^(-8(h+1)/P) for h < P", "m_(P+k) = 2^(-4(2k+1)/P) for k < H - P"})
        QVERIFY2(f.find(piece) != std::string::npos, piece);
    for (int heads = 1; heads <= 64; ++heads) {
        int p = 1;
        while (p * 2 <= heads)
            p *= 2;
        const std::vector<double> s = alibiSlopes(heads);
        QCOMPARE(int(s.size()), heads);
        for (int h = 0; h < heads; ++h) {
            const double stated = h < p ? std::exp2(-8.0 * (h + 1) / p) : std::exp2(-4.0 * (2 * (h - p) + 1) / p);
            QVERIFY2(std::fabs(s[std::size_t(h)] - stated) <= 1e-15 * stated,
                     (std::to_string(heads) + " heads, head " + std::to_string(h)).c_str());
        }
    }
}

void TestBiasSchemes::alibiBiasAndSoftmaxShift()
{
    // Bias -m (i - j); BLOOM adds m * j instead (huggingface build_alibi_tensor), which differs by the row
    // constant m * i: the probabilities must be the same.
    AttentionRequest r;
    r.scheme = "alibi";
    r.heads = 4;
    r.headDim = 16;
    r.queries = PositionList::range(0, 12);
    r.keys = PositionList::range(0, 12);
    const AttentionResult a = attentionScores(r);
    const std::vector<double> m = alibiSlopes(4);
    for (int h = 0; h < 4; ++h) {
        const AttentionHead& head = a.heads[std::size_t(h)];
        QCOMPARE(head.bias(5, 2), float(-m[std::size_t(h)] * 3));
        QVERIFY(std::isnan(head.bias(2, 5)));
        MatrixF shifted = head.logits - head.bias;
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j < 12; ++j)
                shifted(i, j) += float(m[std::size_t(h)] * j);
        maskedSoftmax(shifted, a.mask);
        for (int i = 0; i < 12; ++i)
            for (int j = 0; j <= i; ++j)
                QVERIFY(std::fabs(shifted(i, j) - head.probabilities(i, j)) < 1e-6f);
    }
}

void TestBiasSchemes::kerpleBothForms()
{
    // Chi et al. 2022, section 4.2: log -r1 ln(1 + r2 |m-n|), power -r1 |m-n|^r2.
    QCOMPARE(kerpleBias(true, 2.0, 0.5, 4.0), -2.0 * std::log(3.0)); // -2.1972245773362196
    QCOMPARE(kerpleBias(false, 2.0, 1.5, 4.0), -16.0);
    QCOMPARE(kerpleBias(true, 1.0, 1.0, 0.0), 0.0);
    ComputeRequest req;
    req.scheme = "kerple";
    req.quantity = Quantity::Bias;
    req.overrides = {{"variant", "power"}, {"r1", "2"}, {"r2", "1.5"}};
    req.context.positions = PositionList::range(0, 8);
    const ComputeResult res = compute(req);
    QCOMPARE(res.data[7 * 8 + 3], -16.0); // query 7, key 3
}

void TestBiasSchemes::kerplePowerExponentChecked()
{
    TableContext ctx;
    ctx.positions = PositionList::range(0, 4);
    QVERIFY_THROWS_EXCEPTION(InputError,
                             resolveParams(schemeOrThrow("kerple"), {{"variant", "power"}, {"r2", "2.5"}}, ctx));
    QCOMPARE(resolveParams(schemeOrThrow("kerple"), {{"r2", "2.5"}}, ctx).real("r2"), 2.5); // fine for log
}

void TestBiasSchemes::fireNormalisedDistance()
{
    // Li et al. 2023, eq. 6: psi(i - j) / psi(max(L, i)), psi(x) = ln(c x + 1) (+ eps 1e-6 in the reference).
    const double c = 0.1, L = 512.0;
    QCOMPARE(poslab::core::fireNormalisedDistance(100, 100, c, L), 0.0);
    QVERIFY(std::fabs(poslab::core::fireNormalisedDistance(100, 0, c, L) - std::log(11.0) / (std::log(52.2) + 1e-6))
            < 1e-12);
    QVERIFY(std::fabs(poslab::core::fireNormalisedDistance(1000, 0, c, L) - std::log(101.0) / (std::log(101.0) + 1e-6))
            < 1e-12);
}

void TestBiasSchemes::sandwichZeroAtDistanceZero()
{
    AttentionRequest r;
    r.scheme = "sandwich";
    r.heads = 2;
    r.headDim = 8;
    r.queries = PositionList::range(0, 6);
    r.keys = PositionList::range(0, 6);
    const AttentionResult a = attentionScores(r);
    QVERIFY(std::fabs(a.heads[0].bias(3, 3)) < 1e-6f);
    // Further keys get a more negative bias; head 1 is compressed twice as much as head 0 (8(h+1)/H).
    QVERIFY(a.heads[0].bias(5, 0) < a.heads[0].bias(5, 4));
    QVERIFY(std::fabs(a.heads[0].bias(5, 0) - 2.0f * a.heads[1].bias(5, 0)) < 1e-5f);
}

void TestBiasSchemes::sandwichFollowsNemoAndOffersVaswani()
{
    // NVIDIA/NeMo position_embedding/sandwich_relative_position_embedding.py SandwichRelativePositionEmbedding:
    // inv_freq = 1 / 10000^(2 * arange(1, d'/2 + 1) / d'); bias = sum(cos(rel * inv_freq)); scaled =
    // (bias - d'/2) / (arange(1, H + 1) * 8 / H). Written here in long double; frequency_index = vaswani sums
    // t = 0 .. d'/2 - 1 instead.
    const int heads = 8, dp = 128;
    auto reference = [&](long long rel, int head, int first) {
        long double sum = 0;
        for (int t = first; t < first + dp / 2; ++t)
            sum += std::cos((long double)rel / std::pow(10000.0L, 2.0L * t / dp));
        return (sum - dp / 2.0L) / ((head + 1) * 8.0L / heads);
    };
    for (const char* index : {"nemo", "vaswani"}) {
        const int first = std::string(index) == "nemo" ? 1 : 0;
        AttentionRequest r;
        r.scheme = "sandwich";
        r.params = resolveParams(schemeOrThrow("sandwich"), {{"frequency_index", index}}, TableContext{});
        r.heads = heads;
        r.headDim = 16;
        r.queries = PositionList::range(0, 40);
        r.keys = PositionList::range(0, 40);
        const AttentionResult a = attentionScores(r);
        for (int h = 0; h < heads; ++h)
            for (int i = 0; i < 40; ++i)
                for (int j = 0; j <= i; ++j) {
                    const long double ref = reference(j - i, h, first);
                    QVERIFY2(std::fabs(a.heads[std::size_t(h)].bias(i, j) - ref) <= 2e-6L * (1 + std::fabs(ref)),
                             (std::string(index) + " head " + std::to_string(h) + " at " + std::to_string(i) + ","
                              + std::to_string(j))
                                 .c_str());
                }
    }
    // The two indexings differ most at short range on the steepest head: at distance 3 the t = 0 term is
    // cos(3) = -0.99 where NeMo's extra last term is cos(3e-4) = 1.
    QVERIFY(std::fabs(reference(3, 0, 1) - reference(3, 0, 0)) > 1.9L);
    QCOMPARE(schemeOrThrow("sandwich").param("frequency_index")->defaultChoice, std::string("nemo"));
}

QTEST_APPLESS_MAIN(TestBiasSchemes)
void TestBiasSchemes::logitScaleIsEachSchemesOwn()
{
    // The factor on q.k is part of each scheme's definition, as its reference code has it:
    // - T5: none. huggingface/transformers models/t5/modeling_t5.py T5Attention.forward computes
    //   scores = torch.matmul(query_states, key_states.transpose(3, 2)) and adds position_bias, with no
    //   1/sqrt(d) (Mesh TensorFlow folds it into the initialisation of W_q); logit_scale = inv_sqrt_d scales.
    // - DeBERTa: 1/sqrt(3d). He et al. 2021, eq. 4; models/deberta_v2/modeling_deberta_v2.py
    //   DisentangledSelfAttention: scale_factor = 1 + len(pos_att_type) = 3 with c2p and p2c.
    // - the rest: 1/sqrt(d) (Vaswani et al. 2017, eq. 1).
    // With constant content (q = k = 1, d = 16) the content product is 16.
    auto contentLogit = [](const std::string& scheme, const Overrides& o) {
        AttentionRequest r;
        r.scheme = scheme;
        r.params = resolveParams(schemeOrThrow(scheme), o, TableContext{});
        r.headDim = 16;
        r.content.kind = ContentKind::Constant;
        r.mask = MaskKind::Bidirectional;
        r.queries = PositionList::list({5});
        r.keys = PositionList::list({3});
        r.wantTerms = true;
        const AttentionResult a = attentionScores(r);
        const AttentionHead& h = a.heads.front();
        return double(h.logits(0, 0)) - (h.bias.size() ? double(h.bias(0, 0)) : 0.0);
    };
    QCOMPARE(logitScaleOf(schemeOrThrow("t5"), resolveParams(schemeOrThrow("t5"), {}, TableContext{}), 16), 1.0);
    QVERIFY(std::fabs(contentLogit("t5", {}) - 16.0) < 1e-4);                             // unscaled, as T5Attention
    QVERIFY(std::fabs(contentLogit("t5", {{"logit_scale", "inv_sqrt_d"}}) - 4.0) < 1e-5); // 16 / sqrt(16)
    QVERIFY(std::fabs(contentLogit("deberta", {}) - 16.0 / std::sqrt(48.0)) < 1e-5);      // 16 / sqrt(3 * 16)
    QVERIFY(std::fabs(contentLogit("alibi", {}) - 4.0) < 1e-5);
    QVERIFY(std::fabs(contentLogit("nope", {}) - 4.0) < 1e-5);
    // The option is a parameter (JSON, CLI --set, the parameter panel), and the formula names it.
    const SchemeDescriptor& t5 = schemeOrThrow("t5");
    QVERIFY(t5.param("logit_scale"));
    QCOMPARE(t5.param("logit_scale")->choices, (std::vector<std::string>{"none", "inv_sqrt_d"}));
    QVERIFY(t5.formula.find("logit_scale") != std::string::npos);
    QVERIFY(schemeOrThrow("deberta").logitScaleText.find("sqrt(3d)") != std::string::npos);
    QCOMPARE(schemeOrThrow("rope").logitScaleText, std::string("1/sqrt(d)"));
}

#include "tst_biasschemes.moc"
