// SPDX-License-Identifier: MIT
// The attention-score engine: softmax, masks, content, RoPE's offset property, limits, decay, errors.
#include "core/attention.h"
#include "core/attentionkernel.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"

#include "core/random.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

using namespace poslab::core;

class TestAttention : public QObject {
    Q_OBJECT
private slots:
    void decayOfLearnedTablesAndDebertaRows();
    void seededNormalsAreSplitMixBoxMuller();
    void softmaxRowsSumToOne_data();
    void softmaxRowsSumToOne();
    void causalMaskHolds();
    void causalTriangleEqualsMaskedSquare_data();
    void causalTriangleEqualsMaskedSquare();
    void fusedScoresMatchUnfusedReference_data();
    void fusedScoresMatchUnfusedReference();
    void fusedKernelVariantsMatchReference_data();
    void fusedKernelVariantsMatchReference();
    void runItemsRunsEachItemOnce();
    void softmaxIgnoresRowShift();
    void ropeScoresDependOnlyOnOffset();
    void sentenceRepeatedWordsShareVector();
    void shuffleWithoutPositionPermutes();
    void randomContentIsPerPosition();
    void errorsNameTheProblem();
    void capRefusesBeforeAllocating();
    void decayCurves();
    void decayContentModelAndNormalisation();
    void onlyHeadAndSkippedOutputs();
};

void TestAttention::softmaxRowsSumToOne_data()
{
    // clang-format off
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<bool>("causal");
    for (const auto& s : schemes())
        for (bool c : {true, false})
            QTest::newRow((s.id + (c ? "/causal" : "/bidirectional")).c_str()) << QString::fromStdString(s.id) << c;
    // clang-format on
}

void TestAttention::softmaxRowsSumToOne()
{
    QFETCH(QString, scheme);
    QFETCH(bool, causal);
    AttentionRequest r;
    r.scheme = scheme.toStdString();
    r.heads = 3;
    r.headDim = 16;
    r.queries = PositionList::range(0, 20);
    r.keys = PositionList::range(0, 20);
    r.mask = causal ? MaskKind::Causal : MaskKind::Bidirectional;
    const AttentionResult a = attentionScores(r);
    QCOMPARE(a.heads.size(), std::size_t(3));
    for (const auto& h : a.heads)
        for (int i = 0; i < 20; ++i) {
            double sum = 0;
            for (int j = 0; j < 20; ++j)
                if (a.mask(i, j))
                    sum += h.probabilities(i, j);
            QVERIFY2(std::fabs(sum - 1.0) < 1e-5, std::to_string(sum).c_str());
        }
}

void TestAttention::causalMaskHolds()
{
    AttentionRequest r;
    r.scheme = "rope";
    r.queries = PositionList::list({3, 7, 1});
    r.keys = PositionList::range(0, 9);
    const AttentionResult a = attentionScores(r);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 9; ++j) {
            const bool visible = r.keys[std::size_t(j)] <= r.queries[std::size_t(i)];
            QCOMPARE(a.mask(i, j) != 0, visible);
            QCOMPARE(std::isnan(a.heads[0].logits(i, j)), !visible);
            QCOMPARE(std::isnan(a.heads[0].probabilities(i, j)), !visible);
        }
}

void TestAttention::softmaxIgnoresRowShift()
{
    MatrixF l = MatrixF::Random(5, 7);
    MaskMatrix m = MaskMatrix::Ones(5, 7);
    m(2, 3) = 0;
    MatrixF shifted = l;
    for (int i = 0; i < 5; ++i)
        shifted.row(i).array() += 8.0f * float(i) - 3.0f; // exact in float for |l| <= 1
    maskedSoftmax(l, m);
    maskedSoftmax(shifted, m);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j)
            if (m(i, j))
                QVERIFY(std::fabs(l(i, j) - shifted(i, j)) < 1e-5f);
    QVERIFY(std::isnan(l(2, 3)));
}

void TestAttention::ropeScoresDependOnlyOnOffset()
{
    // Su et al. 2021, eq. 16: (R_m q).(R_n k) = q . R_{n-m} k. With the same content at every position the
    // logits depend on n - m only, and shifting every position by 1000 leaves them unchanged.
    AttentionRequest r;
    r.scheme = "rope";
    r.headDim = 32;
    r.content.kind = ContentKind::Constant;
    r.mask = MaskKind::Bidirectional;
    r.queries = PositionList::range(0, 16);
    r.keys = PositionList::range(0, 16);
    const AttentionResult a = attentionScores(r);
    r.queries = PositionList::range(1000, 1016);
    r.keys = PositionList::range(1000, 1016);
    const AttentionResult b = attentionScores(r);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            QVERIFY(std::fabs(a.heads[0].logits(i, j) - b.heads[0].logits(i, j)) < 1e-4f);
            if (i > 0 && j > 0)
                QVERIFY(std::fabs(a.heads[0].logits(i, j) - a.heads[0].logits(i - 1, j - 1)) < 1e-4f);
        }
    // And the logits do change with the offset.
    QVERIFY(std::fabs(a.heads[0].logits(0, 0) - a.heads[0].logits(0, 5)) > 1e-3f);
}

void TestAttention::sentenceRepeatedWordsShareVector()
{
    AttentionRequest r;
    r.scheme = "nope";
    r.content = parseContent("the cat saw the dog", 7);
    r.mask = MaskKind::Bidirectional;
    r.queries = PositionList::range(0, 5);
    r.keys = PositionList::range(0, 5);
    const AttentionResult a = attentionScores(r);
    QCOMPARE(a.queryTokens[3], std::string("the"));
    for (int j = 0; j < 5; ++j)
        QCOMPARE(a.heads[0].logits(0, j), a.heads[0].logits(3, j));
    // With a position signal the two "the" rows differ.
    r.scheme = "sinusoidal";
    const AttentionResult b = attentionScores(r);
    QVERIFY(std::fabs(b.heads[0].logits(0, 1) - b.heads[0].logits(3, 1)) > 1e-6f);
}

void TestAttention::shuffleWithoutPositionPermutes()
{
    // No position signal and no mask: attention is permutation-equivariant, so shuffling the words permutes
    // rows and columns of the probabilities and changes nothing else.
    AttentionRequest r;
    r.scheme = "nope";
    r.content = parseContent("a b c d e f", 3);
    r.mask = MaskKind::Bidirectional;
    r.queries = PositionList::range(0, 6);
    r.keys = PositionList::range(0, 6);
    const AttentionResult plain = attentionScores(r);
    r.content.shuffle = true;
    const AttentionResult shuffled = attentionScores(r);
    const std::vector<std::string> words = sentenceWords(r.content);
    QVERIFY(words != sentenceWords(parseContent("a b c d e f", 3)));
    auto where = [&](const std::string& w) { return int(std::find(words.begin(), words.end(), w) - words.begin()); };
    const char* orig[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            QVERIFY(std::fabs(plain.heads[0].probabilities(i, j)
                              - shuffled.heads[0].probabilities(where(orig[i]), where(orig[j])))
                    < 1e-6f);
}

void TestAttention::randomContentIsPerPosition()
{
    AttentionRequest r;
    r.scheme = "nope";
    r.mask = MaskKind::Bidirectional;
    r.queries = PositionList::range(0, 10);
    r.keys = PositionList::range(0, 10);
    const AttentionResult a = attentionScores(r);
    r.queries = PositionList::list({4, 9});
    r.keys = PositionList::list({2, 7});
    const AttentionResult b = attentionScores(r);
    QCOMPARE(b.heads[0].logits(0, 1), a.heads[0].logits(4, 7));
    QCOMPARE(b.heads[0].logits(1, 0), a.heads[0].logits(9, 2));
}

void TestAttention::errorsNameTheProblem()
{
    AttentionRequest r;
    r.queries = PositionList::range(0, 4);
    r.keys = PositionList::range(0, 4);
    r.heads = 0;
    try {
        attentionScores(r);
        QFAIL("heads 0 accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("--heads 0") != std::string::npos, e.what());
    }
    r.heads = 1;
    r.content = parseContent("one two three", 0);
    r.queries = PositionList::range(0, 3);
    r.keys = PositionList::range(0, 5);
    try {
        attentionScores(r);
        QFAIL("keys past the sentence accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("keys outside range") != std::string::npos, e.what());
    }
    std::string longText;
    for (int i = 0; i <= maxSentenceWords; ++i)
        longText += "w ";
    try {
        parseContent(longText, 0);
        QFAIL("too long sentence accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("too long") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, parseContent("   ", 0));
    QVERIFY_THROWS_EXCEPTION(InputError, parseMask("sideways"));
}

void TestAttention::capRefusesBeforeAllocating()
{
    AttentionRequest r;
    r.scheme = "alibi";
    r.heads = 1024;
    r.queries = PositionList::range(0, 1 << 20);
    r.keys = PositionList::range(0, 1 << 20);
    try {
        attentionScores(r);
        QFAIL("a 1024 x 2^20 x 2^20 request was not refused");
    } catch (const RefusedError& e) {
        QVERIFY2(std::string(e.what()).find("PiB") != std::string::npos, e.what());
    }
    QVERIFY(attentionBytes(r) > 1e15);
}

void TestAttention::decayCurves()
{
    DecayRequest d;
    d.scheme = "rope";
    d.headDim = 8;
    d.content.kind = ContentKind::Constant;
    d.distances = {0, 1, 5};
    const auto rope = poslab::core::decayCurves(d);
    QCOMPARE(rope.size(), std::size_t(2));
    // Constant content q = k = 1: sum_i 2 cos(delta theta_i), theta_i = 10000^(-2i/8) (RoFormer figure 2 setup).
    for (std::size_t t = 0; t < 3; ++t) {
        double want = 0;
        for (int i = 0; i < 4; ++i)
            want += 2.0 * std::cos(double(d.distances[t]) * std::pow(10000.0, -2.0 * i / 8.0));
        QVERIFY(std::fabs(rope[0].values[t] - want) < 1e-5);
    }
    QVERIFY(std::fabs(rope[1].values[0] - 2.5) < 1e-12); // delta 0: (1/4)(1 + 2 + 3 + 4)
    d.scheme = "sinusoidal";
    const auto sin = poslab::core::decayCurves(d);
    QCOMPARE(sin[0].key, std::string("dot"));
    QVERIFY(std::fabs(sin[0].values[0] - 4.0) < 1e-12);
    d.scheme = "alibi";
    d.heads = 8;
    d.distances = {0, 3, -3};
    const auto al = poslab::core::decayCurves(d);
    QCOMPARE(al.size(), std::size_t(8));
    QCOMPARE(al[0].values[1], -0.5 * 3);
    QCOMPARE(al[0].values[2], -0.5 * 3);
    d.scheme = "nope";
    QVERIFY_THROWS_EXCEPTION(InputError, poslab::core::decayCurves(d));
}

void TestAttention::decayContentModelAndNormalisation()
{
    // The default content model is ones (q = k = (1, ..., 1)), as the decay view draws it: the RoPE score is
    // sum_i 2 cos(delta theta_i), 2 * (d/2) = d = 128 at delta 0 (RoFormer section 3.4.3 setup).
    DecayRequest d;
    d.scheme = "rope";
    d.headDim = 128;
    d.distances = {0, 1, 10, 100};
    const auto ones = poslab::core::decayCurves(d);
    QCOMPARE(ones[0].key, std::string("score"));
    QCOMPARE(ones[0].values[0], 128.0);
    for (std::size_t t = 0; t < d.distances.size(); ++t) {
        long double want = 0;
        for (int i = 0; i < 64; ++i)
            want += 2.0L * std::cos((long double)d.distances[t] * std::pow(10000.0L, -2.0L * i / 128));
        QVERIFY(std::fabs(ones[0].values[t] - want) < 1e-10L);
    }
    QVERIFY2(ones[0].label.find("q = k = (1, ..., 1)") != std::string::npos, ones[0].label.c_str());
    // Random content: the mean over the samples of sum_i |x_i|^2 cos(delta theta_i) (expected value: the ones
    // curve); at delta 0 it is the mean squared norm, not exactly 128.
    d.content.kind = ContentKind::Random;
    d.samples = 64;
    const auto random = poslab::core::decayCurves(d);
    QVERIFY(random[0].values[0] != 128.0 && std::fabs(random[0].values[0] - 128.0) < 128.0 * 0.1);
    QVERIFY2(random[0].label.find("mean over 64 random") != std::string::npos, random[0].label.c_str());
    d.samples = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, poslab::core::decayCurves(d));
    // Normalised at distance 0: the same curve divided by its first value; the bound by (r/2 + 1)/2.
    d.content.kind = ContentKind::Constant;
    d.samples = 16;
    d.normalisation = DecayNormalisation::AtZero;
    const auto norm = poslab::core::decayCurves(d);
    for (std::size_t t = 0; t < d.distances.size(); ++t) {
        QVERIFY(std::fabs(norm[0].values[t] - ones[0].values[t] / 128.0) < 1e-15);
        QVERIFY(std::fabs(norm[1].values[t] - ones[1].values[t] / 32.5) < 1e-15);
    }
    QCOMPARE(norm[0].values[0], 1.0);
    QVERIFY(norm[0].label.find("divided by its value at delta = 0") != std::string::npos);
    // Bias curves are in nats and 0 at distance 0: no normalisation.
    d.scheme = "alibi";
    QVERIFY_THROWS_EXCEPTION(InputError, poslab::core::decayCurves(d));
    QCOMPARE(parseDecayNormalisation("at_zero"), DecayNormalisation::AtZero);
    QVERIFY_THROWS_EXCEPTION(InputError, parseDecayNormalisation("max"));
    // xPos: pair i also carries zeta_i^(delta/scale_base) (Sun et al. 2022 eq. 10, query delta after the key).
    d.scheme = "xpos";
    d.headDim = 8;
    d.normalisation = DecayNormalisation::None;
    const auto xpos = poslab::core::decayCurves(d);
    for (std::size_t t = 0; t < d.distances.size(); ++t) {
        long double want = 0;
        for (int i = 0; i < 4; ++i) {
            const long double zeta = (2.0L * i + 3.2L) / 11.2L;
            want += 2.0L * std::pow(zeta, d.distances[t] / 512.0L)
                * std::cos((long double)d.distances[t] * std::pow(10000.0L, -2.0L * i / 8));
        }
        QVERIFY(std::fabs(xpos[0].values[t] - want) < 1e-12L);
    }
}

void TestAttention::onlyHeadAndSkippedOutputs()
{
    AttentionRequest r;
    r.scheme = "alibi";
    r.heads = 8;
    r.onlyHead = 5;
    r.wantProbabilities = false;
    r.queries = PositionList::range(0, 4);
    r.keys = PositionList::range(0, 4);
    const AttentionResult a = attentionScores(r);
    QCOMPARE(a.heads.size(), std::size_t(1));
    QCOMPARE(a.heads[0].index, 5);
    QCOMPARE(a.heads[0].probabilities.size(), Eigen::Index(0));
    QCOMPARE(a.heads[0].scalars[0].second, std::exp2(-6.0));
}

void TestAttention::decayOfLearnedTablesAndDebertaRows()
{
    // Learned tables have no closed form: the curve is E(p) . E(p + delta) from the table's own rows (computed here
    // in long double from the scheme's encoding, one row at a time).
    DecayRequest d;
    d.scheme = "learned";
    d.headDim = 8;
    d.origin = 3;
    d.distances = {0, 1, 5};
    const auto learned = poslab::core::decayCurves(d);
    QCOMPARE(learned.size(), std::size_t(1));
    QCOMPARE(learned[0].key, std::string("dot"));
    const SchemeDescriptor& s = schemeOrThrow("learned");
    auto row = [&](Position p) {
        TableContext ctx;
        ctx.dim = 8;
        ctx.positions = PositionList::list({p});
        return s.encoding(defaultParams(s), ctx);
    };
    for (std::size_t t = 0; t < 3; ++t) {
        const MatrixF a = row(3), b = row(3 + d.distances[t]);
        long double want = 0;
        for (int c = 0; c < 8; ++c)
            want += (long double)a(0, c) * b(0, c);
        QVERIFY(std::fabs(learned[0].values[t] - want) < 1e-15L);
    }
    d.distances = {-4};
    QVERIFY_THROWS_EXCEPTION(InputError, poslab::core::decayCurves(d)); // before position 0
    // DeBERTa: the row of the relative-position table read at distance delta, clamp(bucket(delta), -256, 255) at
    // position_buckets 256 (HF disentangled_attention_bias: torch.clamp(relative_pos + att_span, 0, 2 att_span - 1)).
    // Buckets from make_log_bucket_position: 200 -> 169, 511 -> 255, 1000 -> 317 (clamped to 255), -1000 -> -317.
    d.scheme = "deberta";
    d.origin = 0;
    d.distances = {0, 200, 511, 1000, -1000};
    const auto rows = poslab::core::decayCurves(d);
    QCOMPARE(rows.size(), std::size_t(1));
    QCOMPARE(rows[0].key, std::string("bucket_row"));
    QCOMPARE(rows[0].values, (std::vector<double>{0, 169, 255, 255, -256}));
    d.normalisation = DecayNormalisation::AtZero;
    QVERIFY_THROWS_EXCEPTION(InputError, poslab::core::decayCurves(d)); // 0 at distance 0
}

void TestAttention::seededNormalsAreSplitMixBoxMuller()
{
    // SplitMix64 (Steele, Lea, Flood 2014; Vigna's splitmix64.c) for bits, 53-bit uniforms, Box-Muller pairs
    // (cos first, then sin): the same numbers on every standard library, unlike std::normal_distribution.
    std::uint64_t state = 20210420;
    auto bits = [&] {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    std::vector<double> want;
    while (want.size() < 6) {
        const double u1 = 1.0 - double(bits() >> 11) * 0x1.0p-53, u2 = double(bits() >> 11) * 0x1.0p-53;
        const double r = std::sqrt(-2.0 * std::log(u1));
        want.push_back(r * std::cos(2.0 * M_PI * u2));
        want.push_back(r * std::sin(2.0 * M_PI * u2));
    }
    const std::vector<double> got = seededNormals(20210420, 6);
    for (std::size_t i = 0; i < 6; ++i)
        QVERIFY(std::fabs(got[i] - want[i]) < 1e-15);
}

void TestAttention::causalTriangleEqualsMaskedSquare_data()
{
    // clang-format off
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("queries");
    QTest::addColumn<QString>("keys");
    // 300 rows: more than one block of the triangle product; keys ascending (the triangle), out of order
    // (the general mask), queries descending (a binary search per row).
    QTest::newRow("rope") << "rope" << "0:300" << "0:300";
    QTest::newRow("alibi (bias added)") << "alibi" << "0:300" << "0:300";
    QTest::newRow("keys offset") << "rope" << "100:400" << "0:500";
    QTest::newRow("keys unsorted") << "rope" << "5,3,9,1,7" << "9,0,4,8,2,6";
    QTest::newRow("queries descending") << "sinusoidal" << "299,150,7,0" << "0:300";
    // clang-format on
}

void TestAttention::causalTriangleEqualsMaskedSquare()
{
    // The causal product skips what no row can see; every visible logit must equal the one of
    // the full square, and every masked one is NaN (key position > query position).
    QFETCH(QString, scheme);
    QFETCH(QString, queries);
    QFETCH(QString, keys);
    AttentionRequest r;
    r.scheme = scheme.toStdString();
    r.headDim = 32;
    r.heads = 2;
    r.queries = PositionList::parse(queries.toStdString());
    r.keys = PositionList::parse(keys.toStdString());
    r.wantProbabilities = true;
    r.mask = MaskKind::Bidirectional;
    const AttentionResult square = attentionScores(r);
    r.mask = MaskKind::Causal;
    const AttentionResult causal = attentionScores(r);
    for (std::size_t h = 0; h < causal.heads.size(); ++h) {
        const MatrixF& a = causal.heads[h].logits;
        const MatrixF& b = square.heads[h].logits;
        for (Eigen::Index i = 0; i < a.rows(); ++i)
            for (Eigen::Index j = 0; j < a.cols(); ++j) {
                const bool visible = r.keys[std::size_t(j)] <= r.queries[std::size_t(i)];
                if (!visible) {
                    QVERIFY2(std::isnan(a(i, j)), qPrintable(QString("head %1 (%2, %3)").arg(h).arg(i).arg(j)));
                    QVERIFY(std::isnan(causal.heads[h].probabilities(i, j)));
                } else {
                    QVERIFY2(std::abs(a(i, j) - b(i, j)) <= 1e-5f * std::max(1.0f, std::abs(b(i, j))),
                             qPrintable(
                                 QString("head %1 (%2, %3): %4 vs %5").arg(h).arg(i).arg(j).arg(a(i, j)).arg(b(i, j))));
                }
            }
        // Each visible row of probabilities sums to one.
        for (Eigen::Index i = 0; i < a.rows(); ++i) {
            double sum = 0;
            bool any = false;
            for (Eigen::Index j = 0; j < a.cols(); ++j)
                if (!std::isnan(causal.heads[h].probabilities(i, j))) {
                    sum += causal.heads[h].probabilities(i, j);
                    any = true;
                }
            if (any)
                QVERIFY(std::abs(sum - 1.0) < 1e-5);
        }
    }
}

namespace {

/// Standard error bound of a float32 dot product accumulated in n steps, then scaled once (Higham, "Accuracy and
/// Stability of Numerical Algorithms", 2nd ed. 2002, section 3.1, eq. 3.5: |fl(x.y) - x.y| <= gamma_n |x|.|y|,
/// gamma_n = n u / (1 - n u), u = 2^-24), for n = d + 1 roundings; @p absDot is sum |x_p y_p| times |scale|.
double dotBound(int d, double absDot)
{
    const double u = 0x1.0p-24;
    const double n = double(d) + 1.0;
    return n * u / (1.0 - n * u) * absDot + 1e-30;
}

} // namespace

void TestAttention::fusedScoresMatchUnfusedReference_data()
{
    // clang-format off
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("sets");
    QTest::addColumn<int>("dim");
    QTest::addColumn<QString>("queries");
    QTest::addColumn<QString>("keys");
    QTest::addColumn<bool>("causal");
    // Sizes that are not multiples of the kernel's panels (12 x 32, 6 x 16, 6 x 8) nor of its tiles (240 x 256).
    QTest::newRow("half-split, bidirectional, 301 x 333") << "rope" << "" << 64 << "0:301" << "0:333" << false;
    QTest::newRow("half-split, causal, 301 x 333") << "rope" << "" << 64 << "0:301" << "0:333" << true;
    QTest::newRow("interleaved, bidirectional") << "rope" << "layout=interleaved" << 64 << "0:257" << "0:263" << false;
    QTest::newRow("interleaved, causal") << "rope" << "layout=interleaved" << 64 << "0:257" << "0:263" << true;
    QTest::newRow("partial 0.5, half-split") << "rope" << "partial_rotary_factor=0.5" << 40 << "0:99" << "0:131" << false;
    QTest::newRow("partial 0.25, interleaved, causal") << "rope" << "partial_rotary_factor=0.25,layout=interleaved" << 72 << "0:270" << "0:270" << true;
    QTest::newRow("d 18, far offset positions, causal") << "rope" << "" << 18 << "70000:70245" << "69900:70300" << true;
    QTest::newRow("keys unsorted, causal") << "rope" << "" << 32 << "5,3,9,1,7,300,41" << "9,0,4,8,2,6,299,40" << true;
    QTest::newRow("xPos (query and key tables differ)") << "xpos" << "" << 32 << "0:250" << "0:250" << true;
    QTest::newRow("YaRN attention factor") << "rope" << "rope_type=yarn,factor=4" << 64 << "0:300" << "0:300" << false;
    QTest::newRow("nope (no rotation)") << "nope" << "" << 24 << "0:77" << "0:300" << true;
    // clang-format on
}

void TestAttention::fusedScoresMatchUnfusedReference()
{
    // The fused kernel rotates q and k while packing them; the trace records the same head's q and k rotated by
    // the unfused rotation (rotateRows) and its product. Every fused logit must match the product of those rotated
    // vectors within the float32 dot-product bound, and masked entries are NaN.
    QFETCH(QString, scheme);
    QFETCH(QString, sets);
    QFETCH(int, dim);
    QFETCH(QString, queries);
    QFETCH(QString, keys);
    QFETCH(bool, causal);
    AttentionRequest r;
    r.scheme = scheme.toStdString();
    Overrides o;
    for (const QString& kv : sets.split(QLatin1Char(','), Qt::SkipEmptyParts))
        o.emplace_back(kv.section(QLatin1Char('='), 0, 0).toStdString(), kv.section(QLatin1Char('='), 1).toStdString());
    r.queries = PositionList::parse(queries.toStdString());
    r.keys = PositionList::parse(keys.toStdString());
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = r.keys.maxValue() >= r.queries.maxValue() ? r.keys : r.queries;
    r.params = resolveParams(schemeOrThrow(r.scheme), o, ctx);
    r.headDim = dim;
    r.heads = 2;
    r.mask = causal ? MaskKind::Causal : MaskKind::Bidirectional;
    r.wantProbabilities = false;
    AttentionTrace trace;
    r.onlyHead = 1;
    const AttentionResult traced = attentionScores(r, {}, &trace);
    const AttentionResult fused = attentionScores(r);
    const MatrixF& qr = trace.qRotated.size() ? trace.qRotated : trace.q;
    const MatrixF& kr = trace.kRotated.size() ? trace.kRotated : trace.k;
    QCOMPARE(qr.rows(), Eigen::Index(r.queries.size()));
    QCOMPARE(kr.rows(), Eigen::Index(r.keys.size()));
    QVERIFY(scheme == "nope" || trace.qRotated.size() > 0);
    const double scale = 1.0 / std::sqrt(double(dim));
    const MatrixF& a = fused.heads[0].logits;
    const MatrixF& t = traced.heads[0].logits; // the whole product (a traced head skips no block)
    double worst = 0.0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
            double dot = 0.0, absDot = 0.0;
            for (Eigen::Index p = 0; p < dim; ++p) {
                dot += double(qr(i, p)) * double(kr(j, p));
                absDot += std::fabs(double(qr(i, p)) * double(kr(j, p)));
            }
            const double ref = dot * scale;
            const double bound = dotBound(dim, absDot * scale);
            if (!fused.mask(i, j)) {
                QVERIFY2(std::isnan(a(i, j)), qPrintable(QString("(%1, %2) masked but %3").arg(i).arg(j).arg(a(i, j))));
                continue;
            }
            QVERIFY2(std::fabs(double(a(i, j)) - ref) <= bound,
                     qPrintable(QString("(%1, %2): fused %3, reference %4, bound %5")
                                    .arg(i)
                                    .arg(j)
                                    .arg(a(i, j))
                                    .arg(ref)
                                    .arg(bound)));
            // The traced product runs through the same kernel over the whole square: the same bits where visible.
            QCOMPARE(a(i, j), t(i, j));
            worst = std::max(worst, std::fabs(double(a(i, j)) - ref) / bound);
        }
    qInfo("kernel %s: largest error %.3f of the bound", kernel::isaName(), worst);
}

void TestAttention::fusedKernelVariantsMatchReference_data()
{
    // clang-format off
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("pairs");
    QTest::addColumn<bool>("halfSplit");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("ldcPad");
    QTest::addColumn<int>("cShift");
    QTest::newRow("half-split 37 x 53 x 16") << 37 << 53 << 16 << 8 << true << false << 0 << 0;
    QTest::newRow("interleaved 37 x 53 x 16, causal") << 37 << 53 << 16 << 8 << false << true << 0 << 0;
    QTest::newRow("partial: 3 of 7 pairs, d 14, padded rows") << 250 << 261 << 14 << 3 << true << true << 5 << 1;
    QTest::newRow("no rotation, d 1") << 13 << 40 << 1 << 0 << true << false << 0 << 0;
    QTest::newRow("d 0") << 5 << 7 << 0 << 0 << true << true << 0 << 0;
    // 2048 x 2064 floats is over the streaming threshold (16 MiB): aligned streaming stores, the panels shifted by
    // the output's misalignment (cShift floats).
    QTest::newRow("streaming 2048 x 2064 x 64, causal, shifted") << 2048 << 2064 << 64 << 32 << true << true << 16 << 3;
    QTest::newRow("streaming 2050 x 2048 x 32, interleaved") << 2050 << 2048 << 32 << 16 << false << false << 0 << 0;
    // clang-format on
}

void TestAttention::fusedKernelVariantsMatchReference()
{
    // kernel::scoresNT for every instruction set this build and CPU can run (generic, AVX2, AVX-512), against the
    // product in double of the rotated vectors (the unfused rotation's float expression), within the float32
    // dot-product bound; masked entries NaN; the same bits for 1 and 3 threads and with or without the mask.
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, d);
    QFETCH(int, pairs);
    QFETCH(bool, halfSplit);
    QFETCH(bool, causal);
    QFETCH(int, ldcPad);
    QFETCH(int, cShift);
    std::vector<float> q(std::size_t(m) * d), k(std::size_t(n) * d);
    SeededRandom rng(7);
    for (float& x : q)
        x = float(rng.normal());
    for (float& x : k)
        x = float(rng.normal());
    // Angles p * w_i at positions 3 + row, cos and sin in float (any table will do: the kernel only reads them).
    auto table = [&](int rows, bool wantSin) {
        std::vector<float> t(std::size_t(rows) * std::max(pairs, 1));
        for (int r = 0; r < rows; ++r)
            for (int i = 0; i < pairs; ++i) {
                const double a = double(r + 3) * std::pow(10000.0, -2.0 * i / std::max(2 * pairs, 1));
                t[std::size_t(r) * pairs + i] = float(wantSin ? std::sin(a) : std::cos(a));
            }
        return t;
    };
    const std::vector<float> cq = table(m, false), sq = table(m, true), ck = table(n, false), sk = table(n, true);
    auto rotated
        = [&](const std::vector<float>& x, const std::vector<float>& c, const std::vector<float>& s, int rows) {
              std::vector<float> y = x;
              for (int r = 0; r < rows; ++r)
                  for (int i = 0; i < pairs; ++i) {
                      const int a = halfSplit ? i : 2 * i, b = halfSplit ? i + pairs : 2 * i + 1;
                      const float x0 = x[std::size_t(r) * d + a], x1 = x[std::size_t(r) * d + b];
                      const float cv = c[std::size_t(r) * pairs + i], sv = s[std::size_t(r) * pairs + i];
                      y[std::size_t(r) * d + a] = x0 * cv - x1 * sv;
                      y[std::size_t(r) * d + b] = x1 * cv + x0 * sv;
                  }
              return y;
          };
    const std::vector<float> qr = rotated(q, cq, sq, m), kr = rotated(k, ck, sk, n);
    std::vector<int> ends(static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i)
        ends[std::size_t(i)] = std::min(n, (i * 7) % (n + 3)); // ragged, some rows empty, some full
    const float alpha = 0.3f;
    const int ldc = n + ldcPad;
    kernel::ScoreJob job;
    job.q = {q.data(), pairs ? cq.data() : nullptr, pairs ? sq.data() : nullptr, pairs, halfSplit, pairs};
    job.k = {k.data(), pairs ? ck.data() : nullptr, pairs ? sk.data() : nullptr, pairs, halfSplit, pairs};
    job.m = m;
    job.n = n;
    job.d = d;
    job.alpha = alpha;
    job.ldc = ldc;
    job.rowEnds = causal ? ends.data() : nullptr;
    constexpr float sentinel = -12345.0f;
    QVERIFY(kernel::isaCount() >= 1);
    QCOMPARE(QString(kernel::isaNameAt(0)), QString("generic"));
    for (int v = 0; v < kernel::isaCount(); ++v) {
        const QString isa = kernel::isaNameAt(v);
        std::vector<float> store(std::size_t(m) * ldc + 64, sentinel);
        float* c = store.data() + cShift;
        job.c = c;
        kernel::scoresNTWith(v, job, 1);
        // On the large outputs the reference (in double) is checked on every 37th row and the edges; NaN, padding
        // and bits below are checked everywhere.
        const bool large = double(m) * n > 1e6;
        for (int i = 0; i < m; ++i) {
            const bool checkRow = !large || i % 37 == 0 || i < 2 || i >= m - 2;
            for (int j = 0; j < n; ++j) {
                const float got = c[std::size_t(i) * ldc + j];
                if (!checkRow) {
                    QVERIFY(causal || !std::isnan(got));
                    continue;
                }
                if (causal && j >= ends[std::size_t(i)]) {
                    QVERIFY2(std::isnan(got),
                             qPrintable(isa + QString(": (%1, %2) = %3, not NaN").arg(i).arg(j).arg(got)));
                    continue;
                }
                double dot = 0.0, absDot = 0.0;
                for (int p = 0; p < d; ++p) {
                    const double t = double(qr[std::size_t(i) * d + p]) * double(kr[std::size_t(j) * d + p]);
                    dot += t;
                    absDot += std::fabs(t);
                }
                const double ref = dot * alpha;
                QVERIFY2(std::fabs(double(got) - ref) <= dotBound(d, absDot * alpha),
                         qPrintable(isa + QString(": (%1, %2) = %3, reference %4").arg(i).arg(j).arg(got).arg(ref)));
            }
            for (int j = n; j < ldc; ++j) // the row padding is never written
                QCOMPARE(c[std::size_t(i) * ldc + j], sentinel);
        }
        for (int i = 0; i < cShift; ++i) // nor is anything before the output
            QCOMPARE(store[std::size_t(i)], sentinel);
        // Three threads, and the product without the mask: the same bits wherever a row sees its key.
        std::vector<float> other(store.size(), sentinel);
        job.c = other.data() + cShift;
        kernel::scoresNTWith(v, job, 3);
        QVERIFY2(std::equal(store.begin(), store.end(), other.begin(),
                            [](float x, float y) { return (std::isnan(x) && std::isnan(y)) || x == y; }),
                 qPrintable(isa + ": 3 threads differ from 1"));
        if (causal) {
            std::fill(other.begin(), other.end(), sentinel);
            kernel::ScoreJob square = job;
            square.rowEnds = nullptr;
            kernel::scoresNTWith(v, square, 2);
            for (int i = 0; i < m; ++i)
                for (int j = 0; j < ends[std::size_t(i)]; ++j)
                    QCOMPARE(other[std::size_t(cShift) + std::size_t(i) * ldc + j], c[std::size_t(i) * ldc + j]);
        }
        job.c = nullptr;
    }
}

void TestAttention::runItemsRunsEachItemOnce()
{
    // The scores' and the content's thread team: every item exactly once, whatever the thread count, and all of them
    // finished when it returns (helpers that start late find nothing left).
    for (const auto& [items, threads] :
         std::vector<std::pair<int, int>>{{0, 2}, {1, 4}, {3, 8}, {1000, 2}, {4096, 3}}) {
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(std::max(items, 1)));
        for (int repeat = 0; repeat < 20; ++repeat) {
            kernel::runItems(items, threads, [&](int i) { runs[std::size_t(i)].fetch_add(1); });
            for (int i = 0; i < items; ++i)
                QCOMPARE(runs[std::size_t(i)].load(), repeat + 1);
        }
    }
}

QTEST_APPLESS_MAIN(TestAttention)
#include "tst_attention.moc"
