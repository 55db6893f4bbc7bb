// SPDX-License-Identifier: MIT
// Sinusoidal absolute encoding against the paper (Vaswani et al. 2017, section 3.5), tensor2tensor's
// get_timing_signal_1d and fairseq's SinusoidalPositionalEmbedding.get_embedding.
#include "core/encodingregistry.h"
#include "core/encodings/sinusoidal.h"
#include "core/errors.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab::core;

namespace {

ParamSet params(const std::vector<std::pair<std::string, std::string>>& overrides, const TableContext& ctx)
{
    return resolveParams(schemeOrThrow("sinusoidal"), overrides, ctx);
}

TableContext context(int dim, PositionList positions)
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = std::move(positions);
    return ctx;
}

// The paper's w_i = base^(-2i/d), in long double, written independently of the code under test.
long double paperOmega(long double base, int i, int d)
{
    return std::pow(base, -2.0L * i / d);
}

} // namespace

class TestSinusoidal : public QObject {
    Q_OBJECT
private slots:
    void positionZeroIsSinZeroCosOne();
    void knownValuesAtPositionOne();
    void paperFrequencies();
    void slowestPeriodInTextMatchesFormula();
    void tensor2tensorSpacing();
    void fairseqTableRow();
    void layoutsArePermutations();
    void accurateToLongDoubleUpTo2Pow20();
    void oddDimensionRejected();
};

void TestSinusoidal::positionZeroIsSinZeroCosOne()
{
    // Vaswani et al. 2017, section 3.5: PE(0, 2i) = sin 0 = 0, PE(0, 2i+1) = cos 0 = 1.
    const TableContext ctx = context(16, PositionList::range(0, 1));
    const MatrixF m = sinusoidalEncoding(params({}, ctx), ctx);
    for (int c = 0; c < 16; ++c)
        QCOMPARE(m(0, c), c % 2 == 0 ? 0.0f : 1.0f);
    // half_split (tensor2tensor / fairseq concat([sin, cos])): eight zeros then eight ones.
    const MatrixF h = sinusoidalEncoding(params({{"layout", "half_split"}}, ctx), ctx);
    for (int c = 0; c < 16; ++c)
        QCOMPARE(h(0, c), c < 8 ? 0.0f : 1.0f);
}

void TestSinusoidal::knownValuesAtPositionOne()
{
    // Vaswani et al. section 3.5 with d = 4, base 10000: w_0 = 1, w_1 = 10000^(-2/4) = 0.01, so
    // PE(1) = [sin 1, cos 1, sin 0.01, cos 0.01] (values by hand / any calculator).
    const TableContext ctx = context(4, PositionList::range(0, 3));
    const MatrixF m = sinusoidalEncoding(params({}, ctx), ctx);
    QVERIFY(std::fabs(m(1, 0) - 0.8414709848078965) < 1e-7);
    QVERIFY(std::fabs(m(1, 1) - 0.5403023058681398) < 1e-7);
    QVERIFY(std::fabs(m(1, 2) - 0.009999833334166664) < 1e-9);
    QVERIFY(std::fabs(m(1, 3) - 0.9999500004166653) < 1e-7);
    // p = 2: sin 2 = 0.9092974268256817, cos 2 = -0.4161468365471424.
    QVERIFY(std::fabs(m(2, 0) - 0.9092974268256817) < 1e-7);
    QVERIFY(std::fabs(m(2, 1) + 0.4161468365471424) < 1e-7);
}

void TestSinusoidal::paperFrequencies()
{
    const TableContext ctx = context(512, PositionList::range(0, 1));
    const std::vector<double> w = sinusoidalFrequencies(params({}, ctx), ctx);
    QCOMPARE(w.size(), std::size_t(256));
    for (int i = 0; i < 256; ++i) {
        const long double ref = paperOmega(10000.0L, i, 512);
        QVERIFY2(std::fabs((w[std::size_t(i)] - ref) / ref) < 1e-14L, qPrintable(QString::number(i)));
    }
    // Last pair: wavelength 2*pi*10000^(510/512), just under 2*pi*10000 (section 3.5: "from 2*pi to 10000*2*pi").
    QVERIFY(2 * std::numbers::pi / w.back() < 2 * std::numbers::pi * 10000.0);
    QVERIFY(2 * std::numbers::pi / w.back() > 2 * std::numbers::pi * 9000.0);
    // Another base: d = 4, base 100 -> w_1 = 100^(-1/2) = 0.1.
    const std::vector<double> w2
        = sinusoidalFrequencies(params({{"base", "100"}}, context(4, ctx.positions)), context(4, ctx.positions));
    QVERIFY(std::fabs(w2[1] - 0.1) < 1e-16);
}

void TestSinusoidal::slowestPeriodInTextMatchesFormula()
{
    // Vaswani et al. section 3.5 with w_i = base^(-2i/d): the last pair i = d/2 - 1 has period
    // 2*pi*base^((d-2)/d), computed here in long double; the summary quotes it for d = 128 and d = 16.
    const SchemeDescriptor& s = schemeOrThrow("sinusoidal");
    for (const auto& [d, shown] : {std::pair{128, "54,410"}, std::pair{16, "19,869"}}) {
        const long double ref = 2.0L * std::numbers::pi_v<long double> * std::pow(10000.0L, (d - 2.0L) / d);
        QCOMPARE(QString::number(double(std::round(ref))), QString(shown).remove(','));
        QVERIFY2(s.summary.find(shown) != std::string::npos, shown);
        const TableContext ctx = context(d, PositionList::range(0, 1));
        const std::vector<double> w = sinusoidalFrequencies(params({}, ctx), ctx);
        QVERIFY(std::fabs((2 * std::numbers::pi / w.back() - ref) / ref) < 1e-14L);
    }
    // 2*pi*base itself (62,832) is quoted as never reached; tensor2tensor's spacing does reach it.
    QCOMPARE(QString::number(double(std::round(2.0L * std::numbers::pi_v<long double> * 10000.0L))), QString("62832"));
    QVERIFY(s.summary.find("62,832") != std::string::npos);
    const TableContext ctx = context(128, PositionList::range(0, 1));
    const std::vector<double> t = sinusoidalFrequencies(params({{"timescale_spacing", "tensor2tensor"}}, ctx), ctx);
    QVERIFY(std::fabs(2 * std::numbers::pi / t.back() - 2 * std::numbers::pi * 10000.0) < 1e-9);
}

void TestSinusoidal::tensor2tensorSpacing()
{
    // tensor2tensor common_attention.py get_timing_signal_1d: log_timescale_increment =
    // ln(max_timescale / min_timescale) / max(num_timescales - 1, 1), inv_timescales = exp(-i * increment),
    // min_timescale 1, max_timescale 1e4. For channels 8: [1, 1e4^(-1/3), 1e4^(-2/3), 1e-4].
    const TableContext ctx = context(8, PositionList::range(0, 1));
    const std::vector<double> w = sinusoidalFrequencies(params({{"timescale_spacing", "tensor2tensor"}}, ctx), ctx);
    QCOMPARE(w.size(), std::size_t(4));
    QVERIFY(std::fabs(w[0] - 1.0) < 1e-16);
    QVERIFY(std::fabs(w[1] - 0.046415888336127795) < 1e-16);
    QVERIFY(std::fabs(w[2] - 0.0021544346900318843) < 1e-17);
    QVERIFY(std::fabs(w[3] - 1e-4) < 1e-19);
    // It differs from the paper's spacing (which would give 1e4^(-1/4) = 0.1 for pair 1).
    const std::vector<double> paper = sinusoidalFrequencies(params({}, ctx), ctx);
    QVERIFY(std::fabs(paper[1] - 0.1) < 1e-16);
    // d = 2: the max(., 1) guard keeps a single frequency 1 (fairseq would divide by zero here).
    const TableContext two = context(2, ctx.positions);
    const std::vector<double> w2 = sinusoidalFrequencies(params({{"timescale_spacing", "tensor2tensor"}}, two), two);
    QCOMPARE(w2.size(), std::size_t(1));
    QCOMPARE(w2[0], 1.0);
}

void TestSinusoidal::fairseqTableRow()
{
    // fairseq sinusoidal_positional_embedding.py get_embedding(num, 8): emb = ln(10000)/(half_dim - 1),
    // row p = concat(sin(p * exp(-i emb)), cos(p * exp(-i emb))). Row 3, computed here in long double.
    const TableContext ctx = context(8, PositionList::list({3, 1000}));
    const MatrixF m
        = sinusoidalEncoding(params({{"timescale_spacing", "tensor2tensor"}, {"layout", "half_split"}}, ctx), ctx);
    for (int row = 0; row < 2; ++row) {
        const long double p = row == 0 ? 3.0L : 1000.0L;
        const long double step = std::log(10000.0L) / 3.0L;
        for (int i = 0; i < 4; ++i) {
            const long double a = p * std::exp(-i * step);
            QVERIFY(std::fabs(m(row, i) - std::sin(a)) < 1e-6L);
            QVERIFY(std::fabs(m(row, 4 + i) - std::cos(a)) < 1e-6L);
        }
    }
}

void TestSinusoidal::layoutsArePermutations()
{
    // The same numbers: interleaved column 2i is half_split column i, 2i+1 is i + d/2.
    const TableContext ctx = context(32, PositionList::list({0, 1, 7, 100, 4095, 123457}));
    for (const char* spacing : {"paper", "tensor2tensor"}) {
        const MatrixF a = sinusoidalEncoding(params({{"timescale_spacing", spacing}}, ctx), ctx);
        const MatrixF b
            = sinusoidalEncoding(params({{"timescale_spacing", spacing}, {"layout", "half_split"}}, ctx), ctx);
        for (Eigen::Index r = 0; r < a.rows(); ++r)
            for (int i = 0; i < 16; ++i) {
                QCOMPARE(a(r, 2 * i), b(r, i));
                QCOMPARE(a(r, 2 * i + 1), b(r, i + 16));
            }
    }
}

void TestSinusoidal::accurateToLongDoubleUpTo2Pow20()
{
    // Float32 outputs within 1e-5 of sin/cos evaluated in long double, positions sampled up to 2^20.
    std::vector<Position> pos = {0, 1, 2, 3, 1023, 1024, 65535, 65536, 999999, (1 << 20) - 1, 1 << 20};
    for (Position p = 7; p < (1 << 20); p = p * 3 + 11)
        pos.push_back(p);
    for (Position p = 12345; p < (1 << 20); p += 104729)
        pos.push_back(p);
    const TableContext ctx = context(64, PositionList::list(pos));
    for (const char* base : {"10000", "500000", "100"}) {
        const MatrixF m = sinusoidalEncoding(params({{"base", base}}, ctx), ctx);
        const long double b = std::strtold(base, nullptr);
        double worst = 0.0;
        for (std::size_t r = 0; r < pos.size(); ++r)
            for (int i = 0; i < 32; ++i) {
                const long double a = (long double)pos[r] * paperOmega(b, i, 64);
                worst = std::max(worst, double(std::fabs(m(Eigen::Index(r), 2 * i) - std::sin(a))));
                worst = std::max(worst, double(std::fabs(m(Eigen::Index(r), 2 * i + 1) - std::cos(a))));
            }
        QVERIFY2(worst < 1e-5, qPrintable(QString("base %1: max error %2").arg(base).arg(worst)));
    }
}

void TestSinusoidal::oddDimensionRejected()
{
    const TableContext ctx = context(7, PositionList::range(0, 4));
    QVERIFY_THROWS_EXCEPTION(InputError, params({}, ctx));
}

QTEST_APPLESS_MAIN(TestSinusoidal)
#include "tst_sinusoidal.moc"
