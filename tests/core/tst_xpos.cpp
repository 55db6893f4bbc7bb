// SPDX-License-Identifier: MIT
// xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", section 3.2) against
// microsoft/torchscale torchscale/component/xpos_relative_position.py (XPOS.forward, fixed_pos_embedding,
// rotate_every_two, duplicate_interleave), reimplemented literally below.
#include "core/encodingregistry.h"
#include "core/encodings/xpos.h"
#include "core/errors.h"
#include "core/rotary.h"

#include <QTest>

#include <numbers>

#include <cmath>

using namespace poslab::core;

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

RotarySpec spec(const Overrides& overrides, int dim, std::optional<Position> seqLen,
                PositionList positions = PositionList::range(0, 1))
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = std::move(positions);
    ctx.seqLen = seqLen;
    const ParamSet p = resolveParams(schemeOrThrow("xpos"), overrides, ctx);
    return xposSpec(p, ctx);
}

std::vector<double> testVector(int d, int seed)
{
    std::vector<double> v(static_cast<std::size_t>(d));
    for (int i = 0; i < d; ++i)
        v[std::size_t(i)] = std::cos(0.9 * (i + 2) * (seed + 1)) + 0.3;
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

// torchscale XPOS.forward(x, offset = 0, downscale) for one vector per row j in [0, L), in long double:
// min_pos = -L // 2 (Python floor division), scale_j = zeta^((j + min_pos) / scale_base),
// sin/cos from fixed_pos_embedding at position j with inv_freq = 1 / 10000^(arange(0, d/2) / (d/2)),
// out = x * dup(cos * s) + rotate_every_two(x) * dup(sin * s), s = 1/scale_j when downscale.
std::vector<long double> torchscaleRow(const std::vector<double>& x, int L, int j, double scaleBase, bool downscale)
{
    const int d = int(x.size());
    const int half = d / 2;
    const long double minPos = std::floor(-(long double)L / 2);
    std::vector<long double> out(static_cast<std::size_t>(d));
    for (int i = 0; i < half; ++i) {
        const long double zeta = (2.0L * i + 0.4L * d) / (1.4L * d);
        long double sc = std::pow(zeta, (j + minPos) / scaleBase);
        if (downscale)
            sc = 1 / sc;
        const long double invFreq = 1.0L / std::pow(10000.0L, (long double)i / half);
        const long double c = std::cos(j * invFreq) * sc;
        const long double s = std::sin(j * invFreq) * sc;
        const long double x0 = x[std::size_t(2 * i)];
        const long double x1 = x[std::size_t(2 * i + 1)];
        out[std::size_t(2 * i)] = x0 * c + (-x1) * s;
        out[std::size_t(2 * i + 1)] = x1 * c + x0 * s;
    }
    return out;
}

} // namespace

class TestXpos : public QObject {
    Q_OBJECT
private slots:
    void rotarySpecsScaleQueryUpKeyDown();
    void rotationPlanesSplitTheScoreByPair();
    void zetaValues();
    void frequenciesAreRopes();
    void centreMatchesTorchscale();
    void matchesTorchscaleForward();
    void scoreDependsOnlyOnOffset();
    void decayPerPair();
    void centringIsAParameter();
};

void TestXpos::zetaValues()
{
    // torchscale: scale = (arange(0, d, 2) + 0.4 d) / (1.4 d). For d = 8: (2i + 3.2) / 11.2.
    const RotarySpec s = spec({}, 8, 16);
    QCOMPARE(s.xposZeta.size(), std::size_t(4));
    QVERIFY(std::fabs(s.xposZeta[0] - 0.28571428571428575) < 1e-15); // 2/7
    QVERIFY(std::fabs(s.xposZeta[1] - 0.46428571428571436) < 1e-15);
    QVERIFY(std::fabs(s.xposZeta[2] - 0.6428571428571429) < 1e-15);
    QVERIFY(std::fabs(s.xposZeta[3] - 0.8214285714285714) < 1e-15);
    // Every zeta in (0, 1), increasing towards 1 for slow pairs: (d - 2 + 0.4 d) / (1.4 d) < 1.
    const RotarySpec w = spec({}, 128, 16);
    for (std::size_t i = 1; i < w.xposZeta.size(); ++i)
        QVERIFY(w.xposZeta[i] > w.xposZeta[i - 1] && w.xposZeta[i] < 1.0);
    QCOMPARE(w.xposScaleBase, 512.0);
}

void TestXpos::frequenciesAreRopes()
{
    // fixed_pos_embedding on a (L, d/2) tensor: inv_freq_i = 10000^(-i/(d/2)) = 10000^(-2i/d).
    const RotarySpec s = spec({}, 16, 4);
    for (int i = 0; i < 8; ++i)
        QVERIFY(std::fabs(s.invFreq[std::size_t(i)] - std::pow(10000.0, -i / 8.0)) < 1e-15);
    QCOMPARE(s.layout, PairLayout::Interleaved);
    QCOMPARE(s.attentionFactor, 1.0);
}

void TestXpos::centreMatchesTorchscale()
{
    // min_pos = -(length + offset) // 2 in Python (floor): centre ceil(L/2). L = 7 -> 4, L = 8 -> 4, L = 1 -> 1.
    QCOMPARE(spec({}, 8, 7).xposCentre, 4.0);
    QCOMPARE(spec({}, 8, 8).xposCentre, 4.0);
    QCOMPARE(spec({}, 8, 1).xposCentre, 1.0);
    // Without seq_len, the length is max position + 1.
    QCOMPARE(spec({}, 8, std::nullopt, PositionList::range(0, 9)).xposCentre, 5.0);
    QCOMPARE(spec({{"side", "key"}}, 8, 8).xposDownscale, true);
    QCOMPARE(spec({}, 8, 8).xposDownscale, false);
}

void TestXpos::matchesTorchscaleForward()
{
    const int d = 8;
    const std::vector<double> x = testVector(d, 1);
    for (int L : {9, 10, 600}) {
        for (const char* side : {"query", "key"}) {
            const bool down = std::string(side) == "key";
            for (const char* sb : {"512", "32"}) {
                const RotarySpec s = spec({{"side", side}, {"scale_base", sb}}, d, L);
                const MatrixD out = rotateVector(s, PositionList::range(0, L), x);
                for (int j = 0; j < L; j += (L > 20 ? 37 : 1)) {
                    const std::vector<long double> ref = torchscaleRow(x, L, j, std::stod(sb), down);
                    for (int c = 0; c < d; ++c)
                        QVERIFY2(std::fabs(out(j, c) - ref[std::size_t(c)])
                                     < 1e-10L * (1 + std::fabs(ref[std::size_t(c)])),
                                 qPrintable(QString("L %1 %2 row %3 col %4").arg(L).arg(side).arg(j).arg(c)));
                }
                // The cos table carries the same scale (torchscale multiplies sin and cos by it).
                const MatrixF cosT = rotaryCos(s, PositionList::range(0, L));
                const long double ref0
                    = torchscaleRow(std::vector<double>{1, 0, 0, 0, 0, 0, 0, 0}, L, 3, std::stod(sb), down)[0];
                QVERIFY(std::fabs(cosT(3, 0) - ref0) < 1e-6L * (1 + std::fabs(ref0)));
            }
        }
    }
}

void TestXpos::scoreDependsOnlyOnOffset()
{
    // Sun et al. 2022 eq. 9-10: q at m scaled by zeta^(m/gamma), k at n by zeta^(-n/gamma): the score
    // q_m . k_n depends on m - n only (the centre cancels).
    const int d = 32;
    const Position L = 4096;
    const RotarySpec qs = spec({{"side", "query"}}, d, L);
    const RotarySpec ks = spec({{"side", "key"}}, d, L);
    const std::vector<double> q = testVector(d, 2);
    const std::vector<double> k = testVector(d, 3);
    std::vector<double> byOffset;
    for (Position offset : {Position(0), Position(1), Position(5), Position(300)}) {
        const double ref = dot(rotated(qs, offset, q), rotated(ks, 0, k));
        for (Position n : {Position(1), Position(100), Position(2047), Position(3000)}) {
            const double sc = dot(rotated(qs, n + offset, q), rotated(ks, n, k));
            QVERIFY2(std::fabs(sc - ref) < 1e-10 * (1 + std::fabs(ref)),
                     qPrintable(QString("offset %1 n %2: %3 vs %4").arg(offset).arg(n).arg(sc).arg(ref)));
        }
        byOffset.push_back(ref);
    }
    for (std::size_t i = 1; i < byOffset.size(); ++i)
        QVERIFY(std::fabs(byOffset[i] - byOffset[0]) > 1e-6);
    // Using side=query for both breaks it: the scales then multiply instead of cancelling.
    const double a = dot(rotated(qs, 10, q), rotated(qs, 0, k));
    const double b = dot(rotated(qs, 1010, q), rotated(qs, 1000, k));
    QVERIFY(std::fabs(a - b) > 1e-3 * std::fabs(a));
}

void TestXpos::decayPerPair()
{
    // For q = k = e_(2i) (pair i alone): q_m . k_n = zeta_i^((m - n)/gamma) cos((m - n) theta_i).
    const int d = 8;
    const RotarySpec qs = spec({{"side", "query"}}, d, 64);
    const RotarySpec ks = spec({{"side", "key"}}, d, 64);
    for (int i = 0; i < 4; ++i) {
        std::vector<double> e(std::size_t(d), 0.0);
        e[std::size_t(2 * i)] = 1.0;
        for (Position t : {Position(0), Position(3), Position(40)}) {
            const double sc = dot(rotated(qs, 20 + t, e), rotated(ks, 20, e));
            const long double zeta = (2.0L * i + 3.2L) / 11.2L;
            const long double theta = std::pow(10000.0L, -2.0L * i / d);
            const long double expected = std::pow(zeta, t / 512.0L) * std::cos(t * theta);
            QVERIFY(std::fabs(sc - expected) < 1e-12L);
        }
    }
}

void TestXpos::centringIsAParameter()
{
    // torchscale centres the exponent on ceil(L/2) with L = the largest position + 1, so the vector at
    // position 5 depends on the other positions asked for; centring=absolute is the paper's zeta^(n/gamma)
    // (section 3.2), which does not. Both against torchscaleRow / the paper's formula written here.
    const int d = 8;
    const std::vector<double> x = testVector(d, 4);
    const PositionList alone = PositionList::list({5});
    const PositionList withFar = PositionList::list({5, 1000});
    const RotarySpec a = spec({}, d, std::nullopt, alone);
    const RotarySpec b = spec({}, d, std::nullopt, withFar);
    QCOMPARE(a.xposCentre, 3.0);   // L = 6: ceil(6/2)
    QCOMPARE(b.xposCentre, 501.0); // L = 1001: ceil(1001/2)
    QCOMPARE(a.seqLen, Position(6));
    QCOMPARE(b.seqLen, Position(1001));
    const MatrixD ra = rotateVector(a, alone, x);
    const MatrixD rb = rotateVector(b, withFar, x);
    const std::vector<long double> refA = torchscaleRow(x, 6, 5, 512.0, false);
    const std::vector<long double> refB = torchscaleRow(x, 1001, 5, 512.0, false);
    double normA = 0, normB = 0;
    for (int c = 0; c < d; ++c) {
        QVERIFY(std::fabs(ra(0, c) - refA[std::size_t(c)]) < 1e-12L * (1 + std::fabs(refA[std::size_t(c)])));
        QVERIFY(std::fabs(rb(0, c) - refB[std::size_t(c)]) < 1e-12L * (1 + std::fabs(refB[std::size_t(c)])));
        normA += ra(0, c) * ra(0, c);
        normB += rb(0, c) * rb(0, c);
    }
    QVERIFY(std::fabs(normB - normA) > 0.5 * normA); // the far position changed position 5's vector

    // Absolute: centre 0 whatever else is asked for; pair i scaled by zeta_i^(5/512), rotated by 5 theta_i.
    for (const PositionList& list : {alone, withFar}) {
        const RotarySpec s = spec({{"centring", "absolute"}}, d, std::nullopt, list);
        QCOMPARE(s.xposCentre, 0.0);
        QCOMPARE(s.seqLen, Position(0));
        const MatrixD r = rotateVector(s, list, x);
        for (int i = 0; i < d / 2; ++i) {
            const long double zeta = (2.0L * i + 0.4L * d) / (1.4L * d);
            const long double sc = std::pow(zeta, 5.0L / 512.0L);
            const long double ang = 5.0L * std::pow(10000.0L, -2.0L * i / d);
            const long double x0 = x[std::size_t(2 * i)], x1 = x[std::size_t(2 * i + 1)];
            QVERIFY(std::fabs(r(0, 2 * i) - sc * (x0 * std::cos(ang) - x1 * std::sin(ang))) < 1e-12L);
            QVERIFY(std::fabs(r(0, 2 * i + 1) - sc * (x1 * std::cos(ang) + x0 * std::sin(ang))) < 1e-12L);
        }
    }
    // --seq-len sets L for the centre too.
    QCOMPARE(spec({}, d, 100, alone).xposCentre, 50.0);
    // Scores do not see the centre: q at 7 and k at 3 give the same product under both centrings.
    const std::vector<double> q = testVector(d, 5), k = testVector(d, 6);
    const RotarySpec tq = spec({}, d, std::nullopt, withFar), tk = spec({{"side", "key"}}, d, std::nullopt, withFar);
    const RotarySpec aq = spec({{"centring", "absolute"}}, d, std::nullopt, withFar);
    const RotarySpec ak = spec({{"centring", "absolute"}, {"side", "key"}}, d, std::nullopt, withFar);
    const double st = dot(rotated(tq, 7, q), rotated(tk, 3, k));
    const double sa = dot(rotated(aq, 7, q), rotated(ak, 3, k));
    QVERIFY(std::fabs(st - sa) < 1e-10 * (1 + std::fabs(sa)));
}

void TestXpos::rotarySpecsScaleQueryUpKeyDown()
{
    // Sun et al. 2022, eq. 11 (torchscale XPOS.forward: queries scaled by zeta^(n/gamma), keys with
    // downscale=True by its inverse): the score's two sides, whatever the "side" the table shows.
    TableContext ctx;
    ctx.dim = 8;
    ctx.positions = PositionList::range(0, 100);
    const SchemeDescriptor& s = schemeOrThrow("xpos");
    const ParamSet keySide = resolveParams(s, {{"side", "key"}, {"centring", "absolute"}}, ctx);
    const RotarySides sides = rotarySpecs(s, keySide, ctx);
    for (int i = 0; i < 4; ++i) {
        const long double zeta = (2.0L * i + 0.4L * 8) / (1.4L * 8);
        const long double up = std::pow(zeta, 30.0L / 512.0L);
        QVERIFY(std::fabs(xposScale(sides.query, i, 30) - up) < 1e-14L);
        QVERIFY(std::fabs(xposScale(sides.key, i, 30) - 1.0L / up) < 1e-14L);
    }
    // Plain RoPE: the same rotation on both sides, no scale.
    const SchemeDescriptor& rope = schemeOrThrow("rope");
    const RotarySides plain = rotarySpecs(rope, defaultParams(rope), ctx);
    QCOMPARE(plain.query.invFreq, plain.key.invFreq);
    QVERIFY(plain.query.xposZeta.empty() && plain.key.xposZeta.empty());
    QVERIFY_THROWS_EXCEPTION(InputError, rotarySpecs(schemeOrThrow("alibi"), ParamSet(), ctx));
}

void TestXpos::rotationPlanesSplitTheScoreByPair()
{
    // RoFormer (Su et al. 2021) eq. 13-14 with GPT-NeoX's half-split pairs (i, i + d/2), HF rotate_half:
    // q'_a = q_a cos(m theta_i) - q_b sin(m theta_i), q'_b = q_b cos(m theta_i) + q_a sin(m theta_i),
    // theta_i = 10000^(-2i/d); xPos multiplies pair i of the query by zeta_i^(m/gamma), of the key by zeta_i^(-n/gamma).
    const int d = 8;
    for (const char* id : {"rope", "xpos"}) {
        TableContext ctx;
        ctx.dim = d;
        ctx.positions = PositionList::range(0, 64);
        const SchemeDescriptor& s = schemeOrThrow(id);
        Overrides sets{{"layout", "half_split"}};
        if (std::string(id) == "xpos")
            sets.emplace_back("centring", "absolute");
        const ParamSet p = resolveParams(s, sets, ctx);
        const RotarySides sides = rotarySpecs(s, p, ctx);
        const std::vector<double> q = testVector(d, 1), k = testVector(d, 2);
        const Position m = 37, n = 30;
        const RotationPlanes pl = rotationPlanes(sides, q, k, m, n);
        long double total = 0;
        for (int i = 0; i < d / 2; ++i) {
            const long double theta = std::pow(10000.0L, -2.0L * i / d);
            const long double zeta = (2.0L * i + 0.4L * d) / (1.4L * d);
            const long double sq = std::string(id) == "xpos" ? std::pow(zeta, m / 512.0L) : 1.0L;
            const long double sk = std::string(id) == "xpos" ? std::pow(zeta, -n / 512.0L) : 1.0L;
            const int a = i, b = i + d / 2;
            const long double qa = sq * (q[a] * std::cos(m * theta) - q[b] * std::sin(m * theta));
            const long double qb = sq * (q[b] * std::cos(m * theta) + q[a] * std::sin(m * theta));
            const long double ka = sk * (k[a] * std::cos(n * theta) - k[b] * std::sin(n * theta));
            const long double kb = sk * (k[b] * std::cos(n * theta) + k[a] * std::sin(n * theta));
            QVERIFY(std::fabs(pl.query[a] - qa) < 1e-12L && std::fabs(pl.key[b] - kb) < 1e-12L);
            QVERIFY(std::fabs(pl.pairScore[std::size_t(i)] - (qa * ka + qb * kb)) < 1e-12L);
            total += qa * ka + qb * kb;
            const long double gap = std::fmod((m - n) * theta, 2.0L * std::numbers::pi_v<long double>);
            QVERIFY(std::fabs(pl.gapAngle[std::size_t(i)] - gap) < 1e-12L);
            QVERIFY(
                std::fabs(pl.queryAngle[std::size_t(i)] - std::fmod(m * theta, 2.0L * std::numbers::pi_v<long double>))
                < 1e-12L);
        }
        QVERIFY(std::fabs(pl.score - total) < 1e-12L);
        QCOMPARE(pl.queryBefore, q);
        QCOMPARE(pl.keyBefore, k);
    }
}

QTEST_APPLESS_MAIN(TestXpos)
#include "tst_xpos.moc"
