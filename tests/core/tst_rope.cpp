// SPDX-License-Identifier: MIT
// RoPE (Su et al. 2021, RoFormer) and the shared rotary machinery (core/rotary.h): frequencies, both pair
// layouts against the reference rotations (Hugging Face modeling_llama.py rotate_half /
// apply_rotary_pos_emb; GPT-J / torchscale rotate_every_two), relative-position property, norms, partial
// rotary, and float32 accuracy of the angle / cos / sin tables.
#include "core/encodingregistry.h"
#include "core/encodings/rope.h"
#include "core/errors.h"
#include "core/rotary.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab::core;

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

RotarySpec spec(const Overrides& overrides, int dim, std::optional<Position> seqLen = std::nullopt)
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = PositionList::range(0, 1);
    ctx.seqLen = seqLen;
    const ParamSet p = resolveParams(schemeOrThrow("rope"), overrides, ctx);
    return ropeSpec(p, ctx);
}

std::vector<double> testVector(int d, int seed)
{
    std::vector<double> v(static_cast<std::size_t>(d));
    for (int i = 0; i < d; ++i)
        v[std::size_t(i)] = std::sin(1.7 * (i + 1) * (seed + 1)) + 0.25 * std::cos(0.3 * i * i + seed);
    return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b)
{
    long double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        s += (long double)a[i] * b[i];
    return double(s);
}

std::vector<double> rotated(const RotarySpec& s, Position p, std::vector<double> v)
{
    rotateInPlace(s, p, v);
    return v;
}

constexpr long double twoPiL = 2.0L * std::numbers::pi_v<long double>;

// Sampled positions up to 2^20 for the accuracy checks.
std::vector<Position> sampledPositions()
{
    std::vector<Position> pos = {0, 1, 2, 255, 4096, 65535, 500000, (1 << 20) - 1, 1 << 20};
    for (Position p = 5; p < (1 << 20); p = p * 5 / 2 + 3)
        pos.push_back(p);
    for (Position p = 777; p < (1 << 20); p += 65537)
        pos.push_back(p);
    return pos;
}

} // namespace

class TestRope : public QObject {
    Q_OBJECT
private slots:
    void defaultFrequencies();
    void halfSplitIsHuggingFaceRotateHalf();
    void interleavedIsGptJRotateEveryTwo();
    void layoutsEquivalentUnderPermutation();
    void scoreDependsOnlyOnOffset_data();
    void scoreDependsOnlyOnOffset();
    void normsPreserved();
    void partialRotary();
    void oddRotaryDimRejected();
    void tablesAccurateUpTo2Pow20_data();
    void tablesAccurateUpTo2Pow20();
    void rotateVectorChecksLength();
    void anglesExactByDefault();
};

void TestRope::defaultFrequencies()
{
    // Su et al. 2021 eq. 15 / Hugging Face _compute_default_rope_parameters:
    // inv_freq = 1 / base^(arange(0, r, 2) / r). For r = 128, base 1e4: theta_1 = 1e4^(-2/128).
    const RotarySpec s = spec({}, 128);
    QCOMPARE(s.invFreq.size(), std::size_t(64));
    QCOMPARE(s.rotaryDim, 128);
    QCOMPARE(s.attentionFactor, 1.0);
    QCOMPARE(s.invFreq[0], 1.0);
    QVERIFY(std::fabs(s.invFreq[1] - 0.8659643233600653) < 1e-16);
    QVERIFY(std::fabs(s.invFreq[63] - 0.00011547819846894582) < 1e-19);
    for (int i = 0; i < 64; ++i) {
        const long double ref = std::pow(10000.0L, -2.0L * i / 128.0L);
        QVERIFY(std::fabs((s.invFreq[std::size_t(i)] - ref) / ref) < 1e-14L);
    }
    // Llama 3 base 500000 (config.json rope_theta).
    const RotarySpec l = spec({{"rope_theta", "500000"}}, 128);
    QVERIFY(std::fabs(l.invFreq[1] - std::pow(500000.0, -1.0 / 64.0)) < 1e-16);
}

void TestRope::halfSplitIsHuggingFaceRotateHalf()
{
    // Hugging Face modeling_llama.py: emb = cat(freqs, freqs); cos = emb.cos(); sin = emb.sin();
    // rotate_half(x) = cat(-x[r/2:], x[:r/2]); q_embed = q * cos + rotate_half(q) * sin.
    // Reimplemented here literally, in long double.
    const int d = 12;
    const RotarySpec s = spec({}, d);
    const std::vector<double> q = testVector(d, 1);
    const std::vector<Position> pos = {0, 1, 5, 1000, 123456};
    const MatrixD out = rotateVector(s, PositionList::list(pos), q);
    for (std::size_t r = 0; r < pos.size(); ++r) {
        for (int c = 0; c < d; ++c) {
            const int pair = c % (d / 2);
            const long double theta = std::pow(10000.0L, -2.0L * pair / d);
            const long double a = (long double)pos[r] * theta;
            const long double half = c < d / 2 ? -(long double)q[std::size_t(c + d / 2)] : q[std::size_t(c - d / 2)];
            const long double expected = q[std::size_t(c)] * std::cos(a) + half * std::sin(a);
            QVERIFY2(std::fabs(out(Eigen::Index(r), c) - expected) < 1e-9L,
                     qPrintable(QString("p %1 c %2: %3 vs %4")
                                    .arg(pos[r])
                                    .arg(c)
                                    .arg(out(Eigen::Index(r), c))
                                    .arg(double(expected))));
        }
    }
}

void TestRope::interleavedIsGptJRotateEveryTwo()
{
    // GPT-J / torchscale rotate_every_two: x1 = x[::2], x2 = x[1::2], stack((-x2, x1)).flatten(); sin and cos
    // are duplicate_interleave'd; out = x * cos + rotate_every_two(x) * sin. Meta's Llama code multiplies
    // (x_2i + i x_2i+1) by e^(i m theta_i): the same numbers.
    const int d = 10;
    const RotarySpec s = spec({{"layout", "interleaved"}}, d);
    const std::vector<double> q = testVector(d, 2);
    const std::vector<Position> pos = {0, 3, 77, 99999};
    const MatrixD out = rotateVector(s, PositionList::list(pos), q);
    for (std::size_t r = 0; r < pos.size(); ++r)
        for (int c = 0; c < d; ++c) {
            const int pair = c / 2;
            const long double a = (long double)pos[r] * std::pow(10000.0L, -2.0L * pair / d);
            const long double every2 = c % 2 == 0 ? -(long double)q[std::size_t(c + 1)] : q[std::size_t(c - 1)];
            const long double expected = q[std::size_t(c)] * std::cos(a) + every2 * std::sin(a);
            QVERIFY(std::fabs(out(Eigen::Index(r), c) - expected) < 1e-9L);
        }
}

void TestRope::layoutsEquivalentUnderPermutation()
{
    // Interleaved dimension 2i <-> half-split dimension i, 2i+1 <-> i + r/2 (the permutation Hugging Face's
    // convert_llama_weights_to_hf applies to q/k projections). Dimensions >= r are untouched by both.
    for (const char* prf : {"1", "0.5"}) {
        const int d = 16;
        const RotarySpec inter = spec({{"layout", "interleaved"}, {"partial_rotary_factor", prf}}, d);
        const RotarySpec half = spec({{"partial_rotary_factor", prf}}, d);
        const int r = inter.rotaryDim;
        const std::vector<double> v = testVector(d, 3);
        std::vector<double> w = v;
        for (int i = 0; i < r / 2; ++i) {
            w[std::size_t(i)] = v[std::size_t(2 * i)];
            w[std::size_t(i + r / 2)] = v[std::size_t(2 * i + 1)];
        }
        for (Position p : {Position(0), Position(1), Position(42), Position(1) << 20}) {
            const std::vector<double> a = rotated(inter, p, v);
            const std::vector<double> b = rotated(half, p, w);
            for (int i = 0; i < r / 2; ++i) {
                QCOMPARE(b[std::size_t(i)], a[std::size_t(2 * i)]);
                QCOMPARE(b[std::size_t(i + r / 2)], a[std::size_t(2 * i + 1)]);
            }
            for (int c = r; c < d; ++c)
                QCOMPARE(a[std::size_t(c)], v[std::size_t(c)]);
        }
    }
}

void TestRope::scoreDependsOnlyOnOffset_data()
{
    // clang-format off
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("type");
    QTest::newRow("half_split/default") << "half_split" << "default";
    QTest::newRow("interleaved/default") << "interleaved" << "default";
    QTest::newRow("half_split/yarn") << "half_split" << "yarn";
    QTest::newRow("interleaved/llama3") << "interleaved" << "llama3";
    // clang-format on
}

void TestRope::scoreDependsOnlyOnOffset()
{
    // Su et al. 2021 eq. 16: <R_m q, R_n k> = q^T R_(n-m) k, a function of m - n only.
    QFETCH(QString, layout);
    QFETCH(QString, type);
    const int d = 64;
    const RotarySpec s = spec({{"layout", layout.toStdString()}, {"rope_type", type.toStdString()}}, d);
    const std::vector<double> q = testVector(d, 4);
    const std::vector<double> k = testVector(d, 5);
    const double scale = std::sqrt(dot(q, q) * dot(k, k));
    std::vector<double> byOffset;
    for (Position offset : {Position(0), Position(1), Position(2), Position(17), Position(1000)}) {
        const double ref = dot(rotated(s, offset, q), rotated(s, 0, k));
        for (Position n :
             {Position(1), Position(5), Position(123), Position(65536), Position(777777), Position(1) << 20}) {
            const double sc = dot(rotated(s, n + offset, q), rotated(s, n, k));
            QVERIFY2(std::fabs(sc - ref) < 1e-9 * scale,
                     qPrintable(QString("offset %1 n %2: %3 vs %4").arg(offset).arg(n).arg(sc).arg(ref)));
        }
        byOffset.push_back(ref);
    }
    // ... and it does depend on the offset.
    for (std::size_t i = 1; i < byOffset.size(); ++i)
        QVERIFY(std::fabs(byOffset[i] - byOffset[0]) > 1e-6 * scale);
    // Offset 0 is the plain dot product times attention_factor^2 (cos^2 + sin^2 = 1).
    QVERIFY(std::fabs(byOffset[0] - dot(q, k) * s.attentionFactor * s.attentionFactor) < 1e-12 * scale);
}

void TestRope::normsPreserved()
{
    // A rotation keeps the norm (default type, attention factor 1) ...
    const int d = 32;
    const std::vector<double> v = testVector(d, 6);
    const double n0 = std::sqrt(dot(v, v));
    for (const char* layout : {"half_split", "interleaved"}) {
        const RotarySpec s = spec({{"layout", layout}}, d);
        for (Position p : {Position(0), Position(1), Position(999), Position(1) << 20, maxPosition}) {
            const std::vector<double> w = rotated(s, p, v);
            QVERIFY(std::fabs(std::sqrt(dot(w, w)) - n0) < 1e-12 * n0);
        }
    }
    // ... and a YaRN attention factor (factor 4: 0.1 ln 4 + 1) multiplies it, as Hugging Face scales cos and sin.
    const RotarySpec y = spec({{"rope_type", "yarn"}}, d);
    const std::vector<double> w = rotated(y, 12345, v);
    QVERIFY(std::fabs(std::sqrt(dot(w, w)) - n0 * (0.1 * std::log(4.0) + 1.0)) < 1e-12 * n0);
}

void TestRope::partialRotary()
{
    // Hugging Face: dim = int(head_dim * partial_rotary_factor); inv_freq uses dim (r), not head_dim;
    // GPT-NeoX / Phi rotate x[..., :r] and pass x[..., r:] through.
    const int d = 64;
    const RotarySpec s = spec({{"partial_rotary_factor", "0.25"}}, d);
    QCOMPARE(s.rotaryDim, 16);
    QCOMPARE(s.headDim, 64);
    QCOMPARE(s.invFreq.size(), std::size_t(8));
    QVERIFY(std::fabs(s.invFreq[1] - 0.31622776601683794) < 1e-16); // 1e4^(-2/16), not 1e4^(-2/64) = 0.749
    for (int i = 0; i < 8; ++i)
        QVERIFY(std::fabs(s.invFreq[std::size_t(i)] - std::pow(10000.0, -2.0 * i / 16.0)) < 1e-15);
    const std::vector<double> v = testVector(d, 7);
    const std::vector<Position> pos = {0, 3, 4096, 1 << 20};
    const MatrixD out = rotateVector(s, PositionList::list(pos), v);
    for (Eigen::Index r = 0; r < out.rows(); ++r)
        for (int c = 16; c < d; ++c)
            QCOMPARE(out(r, c), v[std::size_t(c)]);
    // Pairs are (i, i + r/2) = (0, 8), not (0, 32): e_8 at position p turns into (-sin p, ..., cos p).
    std::vector<double> e8(std::size_t(d), 0.0);
    e8[8] = 1.0;
    const std::vector<double> t = rotated(s, 3, e8);
    QVERIFY(std::fabs(t[0] + std::sin(3.0)) < 1e-15);
    QVERIFY(std::fabs(t[8] - std::cos(3.0)) < 1e-15);
    QCOMPARE(t[32], 0.0);
    // Phi-2 style: head 80 * 0.4 = 32.
    QCOMPARE(spec({{"partial_rotary_factor", "0.4"}}, 80).rotaryDim, 32);
}

void TestRope::oddRotaryDimRejected()
{
    // int(64 * 0.3) = 19: cannot rotate in pairs.
    QVERIFY_THROWS_EXCEPTION(InputError, spec({{"partial_rotary_factor", "0.3"}}, 64));
    QVERIFY_THROWS_EXCEPTION(InputError, spec({}, 7));
}

void TestRope::tablesAccurateUpTo2Pow20_data()
{
    // clang-format off
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("theta");
    QTest::newRow("default/1e4") << "default" << "10000";
    QTest::newRow("default/5e5") << "default" << "500000";
    QTest::newRow("yarn/1e4") << "yarn" << "10000";
    // clang-format on
}

void TestRope::tablesAccurateUpTo2Pow20()
{
    // Float32 cos/sin/angle tables within 1e-5 of long double, the frequencies recomputed here from the formula
    // (for yarn the spec's own frequencies, whose formula tst_rope_scaling checks).
    QFETCH(QString, type);
    QFETCH(QString, theta);
    const int d = 64;
    const RotarySpec s = spec({{"rope_type", type.toStdString()}, {"rope_theta", theta.toStdString()}}, d);
    const std::vector<Position> pos = sampledPositions();
    const PositionList list = PositionList::list(pos);
    const MatrixF cosT = rotaryCos(s, list);
    const MatrixF sinT = rotarySin(s, list);
    const MatrixF ang = rotaryAnglesReduced(s, list);
    QCOMPARE(cosT.cols(), Eigen::Index(32));
    const long double base = std::strtold(theta.toStdString().c_str(), nullptr);
    double worst = 0;
    for (std::size_t r = 0; r < pos.size(); ++r)
        for (int i = 0; i < 32; ++i) {
            const long double w
                = type == "default" ? std::pow(base, -2.0L * i / d) : (long double)s.invFreq[std::size_t(i)];
            const long double a = (long double)pos[r] * w;
            const long double af = s.attentionFactor;
            worst = std::max(worst, double(std::fabs(cosT(Eigen::Index(r), i) - af * std::cos(a))));
            worst = std::max(worst, double(std::fabs(sinT(Eigen::Index(r), i) - af * std::sin(a))));
            const float g = ang(Eigen::Index(r), i);
            QVERIFY(g >= 0.0f && g < float(twoPiL) + 1e-6f);
            // Angles compared on the circle (an angle just under 2*pi and one just over 0 are neighbours).
            const long double diff = std::remainder((long double)g - a, twoPiL);
            worst = std::max(worst, double(std::fabs(diff)));
        }
    QVERIFY2(worst < 1e-5, qPrintable(QString("max error %1").arg(worst)));
}

void TestRope::rotateVectorChecksLength()
{
    const RotarySpec s = spec({}, 8);
    const std::vector<double> v(7, 1.0);
    QVERIFY_THROWS_EXCEPTION(InputError, rotateVector(s, PositionList::range(0, 2), v));
}

void TestRope::anglesExactByDefault()
{
    // torch.outer(t, inv_freq) (Hugging Face's freqs before cos/sin) is p * omega_i with no reduction:
    // position 7, pair 0 (omega_0 = 1) gives 7, not 7 - 2 pi = 0.7168.
    const RotarySpec s = spec({}, 8);
    const PositionList list = PositionList::list({0, 7, 1000, 123456789});
    const MatrixD exact = rotaryAngles(s, list);
    QCOMPARE(exact(1, 0), 7.0);
    for (Eigen::Index r = 0; r < exact.rows(); ++r)
        for (int i = 0; i < 4; ++i) {
            const long double want = (long double)list[std::size_t(r)] * std::pow(10000.0L, -2.0L * i / 8);
            QVERIFY(std::fabs(exact(r, i) - want) <= 4e-16L * std::fabs(want) + 1e-300L);
        }
    // The reduced form is the same angle mod 2 pi: 7 - 2 pi for position 7, pair 0.
    const MatrixF reduced = rotaryAnglesReduced(s, list);
    QVERIFY(std::fabs(reduced(1, 0) - (7.0L - 2 * std::numbers::pi_v<long double>)) < 1e-6L);
    QCOMPARE(parseAngleForm("reduced"), AngleForm::Reduced);
    QCOMPARE(std::string(angleFormName(AngleForm::Exact)), std::string("exact"));
    QVERIFY_THROWS_EXCEPTION(InputError, parseAngleForm("wrapped"));
}

QTEST_APPLESS_MAIN(TestRope)
#include "tst_rope.moc"
