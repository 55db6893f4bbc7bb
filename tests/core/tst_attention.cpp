// SPDX-License-Identifier: MIT
// The attention-score engine: softmax, masks, content, RoPE's offset property, limits, decay, errors.
#include "core/attention.h"
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"

#include "core/random.h"

#include <QTest>

#include <cmath>

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

QTEST_APPLESS_MAIN(TestAttention)
#include "tst_attention.moc"
