// SPDX-License-Identifier: MIT
// Low-precision rotary angles (core/precision.h). The formats: IEEE 754-2008 section 3.6 (binary16: 11 significand
// bits, emin -14, emax 15; binary32: 24, -126, 127) and bfloat16 (Google Cloud TPU's bfloat16 format, Intel's
// BF16 white paper 338302-001US: binary32's exponent, 8 significand bits); rounding roundTiesToEven (IEEE 754-2008
// section 4.3.1; PyTorch c10/util/BFloat16.h round_to_nearest_even for float -> bfloat16).
// The reference rounding here enumerates every finite value of the narrow format from its field definition and
// picks the nearest one by search (ties to the even bit pattern), independently of the bit manipulation under test.
#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/precision.h"

#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace poslab::core;

namespace {

struct Value {
    double value;
    std::uint32_t bits;
};

/// Every non-negative finite value of binary16 or bfloat16 with its bit pattern, from the field definitions, plus
/// 2^(emax + 1) standing for infinity (a tie at the largest value goes to it: its pattern is even).
std::vector<Value> enumerate(FloatFormat f)
{
    std::vector<Value> v;
    const bool half = f == FloatFormat::Float16;
    const int fractionBits = half ? 10 : 7, exponentMax = half ? 30 : 254, bias = half ? 15 : 127;
    for (int e = 0; e <= exponentMax; ++e)
        for (int m = 0; m < (1 << fractionBits); ++m) {
            const double value = e == 0 ? std::ldexp(double(m), 1 - bias - fractionBits)
                                        : std::ldexp(double((1 << fractionBits) + m), e - bias - fractionBits);
            v.push_back({value, std::uint32_t(e << fractionBits | m)});
        }
    v.push_back({std::ldexp(1.0, exponentMax - bias + 1), std::uint32_t((exponentMax + 1) << fractionBits)});
    return v;
}

/// The nearest value of @p table to x >= 0, ties to the even pattern; the infinity stand-in as infinity.
Value nearest(const std::vector<Value>& table, double x)
{
    const auto hi
        = std::lower_bound(table.begin(), table.end(), x, [](const Value& a, double b) { return a.value < b; });
    Value r;
    if (hi == table.end())
        r = table.back();
    else if (hi == table.begin() || hi->value == x)
        r = *hi;
    else {
        const auto lo = hi - 1;
        const double dl = x - lo->value, dh = hi->value - x;
        r = dl < dh ? *lo : dh < dl ? *hi : ((lo->bits & 1) == 0 ? *lo : *hi);
    }
    if (r.bits == table.back().bits)
        r.value = std::numeric_limits<double>::infinity();
    return r;
}

double reference(const std::vector<Value>& table, double x)
{
    const double r = nearest(table, std::fabs(x)).value;
    return x < 0 ? -r : r;
}

/// A reference rounding for any of the three formats (float32: the hardware's conversion, IEEE roundTiesToEven).
struct Reference {
    std::vector<Value> half = enumerate(FloatFormat::Float16);
    std::vector<Value> bf16 = enumerate(FloatFormat::BFloat16);
    double operator()(double x, FloatFormat f) const
    {
        if (std::isnan(x))
            return x;
        if (f == FloatFormat::Float32)
            return double(float(x));
        return reference(f == FloatFormat::Float16 ? half : bf16, x);
    }
};

/// PyTorch's float -> bfloat16 (c10/util/BFloat16.h round_to_nearest_even), written from its definition.
std::uint16_t torchBfloat16(float src)
{
    const auto u = std::bit_cast<std::uint32_t>(src);
    const std::uint32_t bias = ((u >> 16) & 1) + 0x7FFF;
    return std::uint16_t((u + bias) >> 16);
}

} // namespace

class TestPrecision : public QObject {
    Q_OBJECT
private slots:
    void knownBitPatterns();
    void roundingMatchesEnumeration();
    void bfloat16MatchesPyTorch();
    void spacing();
    void gptNeoxIssueCase();
    void float16CollapsesAt2048();
    void bfloat16CollapsesAt256();
    void countsMatchAnIndependentCount_data();
    void countsMatchAnIndependentCount();
    void resolutionPositions();
    void overflowInFloat16();
    void computeQuantity();
};

void TestPrecision::knownBitPatterns()
{
    // binary16 (IEEE 754-2008 3.6): 1 = 0x3C00, largest 65504 = 0x7BFF, smallest subnormal 2^-24 = 0x0001,
    // smallest normal 2^-14 = 0x0400, 0.1 -> 0x2E66 (0.0999755859375), pi -> 0x4248 (3.140625).
    QCOMPARE(float16Bits(1.0), std::uint16_t(0x3C00));
    QCOMPARE(float16Bits(-2.0), std::uint16_t(0xC000));
    QCOMPARE(float16Bits(65504.0), std::uint16_t(0x7BFF));
    QCOMPARE(float16Bits(65519.0), std::uint16_t(0x7BFF));
    QCOMPARE(float16Bits(65520.0), std::uint16_t(0x7C00)); // half-way past the largest: ties to even = infinity
    QCOMPARE(float16Bits(std::ldexp(1.0, -24)), std::uint16_t(0x0001));
    QCOMPARE(float16Bits(std::ldexp(1.0, -25)), std::uint16_t(0x0000)); // tie between 0 and 2^-24: even is 0
    QCOMPARE(float16Bits(std::ldexp(3.0, -26)), std::uint16_t(0x0001));
    QCOMPARE(float16Bits(std::ldexp(1.0, -14)), std::uint16_t(0x0400));
    QCOMPARE(float16Bits(0.1), std::uint16_t(0x2E66));
    QCOMPARE(float16Bits(M_PI), std::uint16_t(0x4248));
    QCOMPARE(float16Bits(std::nan("")), std::uint16_t(0x7E00));
    // Integers: spacing 2 from 2048, so 2049 ties to 2048 (even), 2051 to 2052.
    QCOMPARE(float16Bits(2048.0), std::uint16_t(0x6800));
    QCOMPARE(float16Bits(2049.0), std::uint16_t(0x6800));
    QCOMPARE(float16Bits(2051.0), std::uint16_t(0x6802));
    QCOMPARE(float16Value(0x7BFF), 65504.0);
    QCOMPARE(float16Value(0x0001), std::ldexp(1.0, -24));
    QVERIFY(std::isinf(float16Value(0x7C00)));
    // bfloat16: 1 = 0x3F80, 256 = 0x4380, 257 ties to 256, 259 to 260 (8 significand bits: integers above 256
    // are not all representable), pi -> 0x4049 (3.140625), 0.1 -> 0x3DCD.
    QCOMPARE(bfloat16Bits(1.0), std::uint16_t(0x3F80));
    QCOMPARE(bfloat16Bits(256.0), std::uint16_t(0x4380));
    QCOMPARE(bfloat16Bits(257.0), std::uint16_t(0x4380));
    QCOMPARE(bfloat16Bits(259.0), std::uint16_t(0x4382));
    QCOMPARE(bfloat16Bits(M_PI), std::uint16_t(0x4049));
    QCOMPARE(bfloat16Bits(0.1), std::uint16_t(0x3DCD));
    QCOMPARE(bfloat16Bits(std::nan("")), std::uint16_t(0x7FC0));
    QCOMPARE(bfloat16Value(0x4382), 260.0);
    QCOMPARE(roundTo(257.0, FloatFormat::BFloat16), 256.0);
    QCOMPARE(roundTo(255.0, FloatFormat::BFloat16), 255.0);
    QCOMPARE(maxFinite(FloatFormat::Float16), 65504.0);
    QCOMPARE(maxFinite(FloatFormat::BFloat16), double(std::bit_cast<float>(std::uint32_t(0x7F7F0000))));
    QCOMPARE(maxFinite(FloatFormat::Float32), double(std::numeric_limits<float>::max()));
}

void TestPrecision::roundingMatchesEnumeration()
{
    const Reference ref;
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    std::uniform_int_distribution<int> exponent(-30, 20);
    for (FloatFormat f : {FloatFormat::Float16, FloatFormat::BFloat16, FloatFormat::Float32}) {
        for (int i = 0; i < 200000; ++i) {
            double x = std::ldexp(mantissa(rng), exponent(rng));
            if (i % 3 == 0) // exact ties and their neighbours: a narrow value plus half its spacing
                x = roundTo(x, f) + (i % 2 ? 0.5 : 0.25) * ulp(x, f);
            if (i % 7 == 0)
                x = -x;
            const double mine = roundTo(x, f), theirs = ref(x, f);
            QVERIFY2(mine == theirs || (std::isinf(mine) && std::isinf(theirs) && (mine > 0) == (theirs > 0)),
                     qPrintable(QStringLiteral("%1 of %2: %3 vs %4")
                                    .arg(QString::fromLatin1(floatFormatName(f).data()))
                                    .arg(x, 0, 'g', 17)
                                    .arg(mine, 0, 'g', 17)
                                    .arg(theirs, 0, 'g', 17)));
        }
    }
    // Every binary16 pattern reads back to itself.
    for (std::uint32_t b = 0; b < 0x10000; ++b) {
        if ((b & 0x7C00) == 0x7C00 && (b & 0x3FF))
            continue; // NaN
        QCOMPARE(float16Bits(float16Value(std::uint16_t(b))), std::uint16_t(b));
    }
}

void TestPrecision::bfloat16MatchesPyTorch()
{
    // For every float32 input (here a stride through all finite patterns), PyTorch's rounding and ours agree.
    for (std::uint64_t u = 0; u < 0x7F800000ull; u += 9973) {
        const float x = std::bit_cast<float>(std::uint32_t(u));
        QCOMPARE(bfloat16Bits(double(x)), torchBfloat16(x));
        QCOMPARE(bfloat16Bits(-double(x)), std::uint16_t(torchBfloat16(-x)));
    }
}

void TestPrecision::spacing()
{
    // float16 spacing is 2 at 2048 (2^11 / 2^10), 1 just below; bfloat16's is 2 at 256; float32's 2 at 2^24.
    QCOMPARE(ulp(2048.0, FloatFormat::Float16), 2.0);
    QCOMPARE(ulp(2047.0, FloatFormat::Float16), 1.0);
    QCOMPARE(ulp(256.0, FloatFormat::BFloat16), 2.0);
    QCOMPARE(ulp(255.0, FloatFormat::BFloat16), 1.0);
    QCOMPARE(ulp(std::ldexp(1.0, 24), FloatFormat::Float32), 2.0);
    QCOMPARE(ulp(0.0, FloatFormat::Float16), std::ldexp(1.0, -24));
    QCOMPARE(ulp(1e-6, FloatFormat::Float16), std::ldexp(1.0, -24)); // subnormal range: fixed spacing
}

void TestPrecision::gptNeoxIssueCase()
{
    // EleutherAI/gpt-neox issue #1003: dim 32, base 10000, inv_freq and t in float16, position 1857, feature 1:
    // the float16 angle is 1045 where the float32 one is 1044.2678 (the cos differs by 0.78).
    const double w = std::pow(10000.0, -2.0 / 32.0);
    QCOMPARE(roundedAngle(1857, w, FloatFormat::Float16, AnglePipeline::LowPrecision), 1045.0);
    QCOMPARE(roundedAngle(1857, w, FloatFormat::Float16, AnglePipeline::RoundAngle),
             1044.0); // spacing 1 in [1024, 2048)
    QVERIFY(std::fabs(double(float(1857.0f * float(w))) - 1044.2678) < 1e-4);
}

void TestPrecision::float16CollapsesAt2048()
{
    // Pipeline LowPrecision: positions held in float16 are exact up to 2048, then 2049 rounds to 2048, so 2048 and
    // 2049 get the same rotation in every pair.
    const std::vector<double> omegas{1.0, 0.1, 0.01, 0.001};
    const PrecisionAnalysis low
        = analysePrecision(omegas, PositionList::range(0, 4096), FloatFormat::Float16, AnglePipeline::LowPrecision);
    QCOMPARE(low.firstVectorCollapse, std::optional<Position>(2048));
    QCOMPARE(low.pairs[0].firstAngleCollapse, std::optional<Position>(2048));
    // 0..2047 exact, then the even numbers 2048..4096: 2048 + 1025 distinct positions and pair-0 angles.
    QCOMPARE(low.distinctPositions, std::int64_t(2048 + 1025));
    QCOMPARE(low.pairs[0].distinctAngles, std::int64_t(3073));
    // The 2048 positions 2048..4095 take the 1025 values 2048, 2050, ..., 4096 (ties to even: 2049 -> 2048,
    // 2051 -> 2052, 2053 -> 2052), so 2048 - 1025 = 1023 neighbours share a rotation.
    QCOMPARE(low.vectorCollapses, std::int64_t(1023));
    // RoundAngle: pair 0's angle p collapses too, but the slower pairs' p * omega still differ at 2048/2049.
    const PrecisionAnalysis round
        = analysePrecision(omegas, PositionList::range(0, 4096), FloatFormat::Float16, AnglePipeline::RoundAngle);
    QCOMPARE(round.pairs[0].firstAngleCollapse, std::optional<Position>(2048));
    QVERIFY(roundTo(2048 * 0.1, FloatFormat::Float16) != roundTo(2049 * 0.1, FloatFormat::Float16));
    QVERIFY(!round.firstVectorCollapse || *round.firstVectorCollapse != 2048);
}

void TestPrecision::bfloat16CollapsesAt256()
{
    const PrecisionAnalysis low
        = analysePrecision({1.0, 0.5}, PositionList::range(0, 300), FloatFormat::BFloat16, AnglePipeline::LowPrecision);
    QCOMPARE(low.firstVectorCollapse, std::optional<Position>(256));
    QCOMPARE(low.distinctPositions, std::int64_t(256 + 23)); // 0..255, then 256, 258, ..., 300 (299 -> 300)
}

void TestPrecision::countsMatchAnIndependentCount_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("pipeline");
    QTest::addColumn<int>("begin");
    QTest::addColumn<int>("end");
    for (int f = 0; f < 3; ++f)
        for (int p = 0; p < 2; ++p) {
            const QString name
                = QStringLiteral("%1 %2").arg(QString::fromLatin1(floatFormatName(FloatFormat(f)).data()),
                                              QString::fromLatin1(anglePipelineName(AnglePipeline(p)).data()));
            QTest::newRow(qPrintable(name + " 0:700")) << f << p << 0 << 700;
            QTest::newRow(qPrintable(name + " 3000:3600")) << f << p << 3000 << 3600;
        }
}

void TestPrecision::countsMatchAnIndependentCount()
{
    QFETCH(int, format);
    QFETCH(int, pipeline);
    QFETCH(int, begin);
    QFETCH(int, end);
    const auto f = FloatFormat(format);
    const auto pl = AnglePipeline(pipeline);
    const Reference ref;
    // RoPE at d = 16, base 10000: omega_i = 10000^(-2i/16) (Su et al. 2021, eq. 15).
    std::vector<double> omegas;
    for (int i = 0; i < 8; ++i)
        omegas.push_back(std::pow(10000.0, -2.0 * i / 16.0));
    const PrecisionAnalysis a = analysePrecision(omegas, PositionList::range(begin, end), f, pl);
    QCOMPARE(a.pairs.size(), omegas.size());
    std::map<int, std::vector<std::pair<double, double>>> rows; // position -> (cos, sin) per pair
    for (std::size_t i = 0; i < omegas.size(); ++i) {
        std::set<double> angles;
        std::set<std::pair<double, double>> cs;
        std::optional<Position> firstAngle, firstCs;
        double prevAngle = std::nan("");
        std::pair<double, double> prevCs{std::nan(""), std::nan("")};
        for (int p = begin; p < end; ++p) {
            const double angle
                = pl == AnglePipeline::RoundAngle ? ref(p * omegas[i], f) : ref(ref(p, f) * ref(omegas[i], f), f);
            const std::pair<double, double> v{ref(std::cos(angle), f) + 0.0, ref(std::sin(angle), f) + 0.0};
            angles.insert(angle);
            cs.insert(v);
            if (p > begin && angle == prevAngle && !firstAngle)
                firstAngle = p - 1;
            if (p > begin && v == prevCs && !firstCs)
                firstCs = p - 1;
            prevAngle = angle;
            prevCs = v;
            rows[p].push_back(v);
        }
        QCOMPARE(a.pairs[i].distinctAngles, std::int64_t(angles.size()));
        QCOMPARE(a.pairs[i].distinctCosSin, std::int64_t(cs.size()));
        QCOMPARE(a.pairs[i].firstAngleCollapse, firstAngle);
        QCOMPARE(a.pairs[i].firstCosSinCollapse, firstCs);
    }
    std::optional<Position> firstVector;
    std::int64_t collapses = 0;
    for (int p = begin + 1; p < end; ++p)
        if (rows[p] == rows[p - 1]) {
            ++collapses;
            if (!firstVector)
                firstVector = p - 1;
        }
    QCOMPARE(a.firstVectorCollapse, firstVector);
    QCOMPARE(a.vectorCollapses, collapses);
}

void TestPrecision::resolutionPositions()
{
    // omega = 1: ulp(p) > 1 from p = 2^P / 2 ... i.e. 2048 (float16), 256 (bfloat16), 2^24 (float32).
    const auto first = [](double w, FloatFormat f) {
        return analysePrecision({w}, PositionList::range(0, 2), f, AnglePipeline::RoundAngle)
            .pairs[0]
            .resolutionPosition;
    };
    QCOMPARE(first(1.0, FloatFormat::Float16), std::optional<Position>(2048));
    QCOMPARE(first(1.0, FloatFormat::BFloat16), std::optional<Position>(256));
    QCOMPARE(first(1.0, FloatFormat::Float32), std::optional<Position>(Position(1) << 24));
    // Independent search: the first p with ulp(p * w) > w, the spacing from the enumerated table's neighbours.
    const Reference ref;
    for (double w : {0.1, 0.0123, 0.75, 3e-3}) {
        for (FloatFormat f : {FloatFormat::Float16, FloatFormat::BFloat16}) {
            const std::vector<Value>& table = f == FloatFormat::Float16 ? ref.half : ref.bf16;
            Position p = 1;
            for (;; ++p) {
                const double x = double(p) * w;
                // spacing at x: the gap above the largest table value <= x
                const auto it = std::upper_bound(table.begin(), table.end(), x,
                                                 [](double a, const Value& b) { return a < b.value; });
                const double gap = it->value - (it - 1)->value;
                if (gap > w)
                    break;
            }
            QCOMPARE(first(w, f), std::optional<Position>(p));
        }
    }
}

void TestPrecision::overflowInFloat16()
{
    // Positions from 65520 round to infinity in float16 (largest finite 65504; 65520 is the half-way tie).
    const PrecisionAnalysis low = analysePrecision({1.0, 0.01}, PositionList::range(65500, 65536), FloatFormat::Float16,
                                                   AnglePipeline::LowPrecision);
    QCOMPARE(low.firstNonFinite, std::optional<Position>(65520));
    const PrecisionAnalysis round = analysePrecision({1.0, 0.01}, PositionList::range(65500, 65536),
                                                     FloatFormat::Float16, AnglePipeline::RoundAngle);
    QCOMPARE(round.firstNonFinite, std::optional<Position>(65520)); // pair 0's angle is p itself
}

void TestPrecision::computeQuantity()
{
    ComputeRequest r;
    r.quantity = Quantity::Precision;
    r.scheme = "rope";
    r.context.dim = 8;
    r.context.positions = PositionList::range(0, 4096);
    r.dtype = FloatFormat::Float16;
    const ComputeResult res = compute(r);
    QCOMPARE(res.shape, (std::vector<std::size_t>{4, 13}));
    QCOMPARE(res.columns.size(), std::size_t(13));
    QCOMPARE(res.columns[10], std::string("low_precision:first_angle_collapse"));
    QCOMPARE(res.data[10], 2048.0); // pair 0, omega = 1
    const auto scalar = [&](const std::string& k) {
        for (const auto& [name, v] : res.scalars)
            if (name == k)
                return v;
        return std::nan("");
    };
    QCOMPARE(scalar("low_precision:first_vector_collapse"), 2048.0);
    QCOMPARE(scalar("low_precision:distinct_positions"), 3073.0);
    QVERIFY(std::isnan(scalar("round_angle:first_non_finite")));
    // --dtype applies to precision only; precision needs a rotary scheme.
    ComputeRequest bad = r;
    bad.quantity = Quantity::Angles;
    QVERIFY_THROWS_EXCEPTION(InputError, compute(bad));
    bad = r;
    bad.scheme = "alibi";
    QVERIFY_THROWS_EXCEPTION(InputError, compute(bad));
    QVERIFY_THROWS_EXCEPTION(InputError, parseFloatFormat("float8"));
}

QTEST_APPLESS_MAIN(TestPrecision)
#include "tst_precision.moc"
