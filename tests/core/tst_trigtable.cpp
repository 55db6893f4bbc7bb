// SPDX-License-Identifier: MIT
// The fast sin/cos table fill against the naive reference (every layout, thread split, anchor interval, store
// mode and kernel), and against an independent long double reference at large positions. No timing here:
// speed is `poslab bench`'s business.
#include "core/trigtable.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

using namespace poslab::core;

namespace {

constexpr float sentinel = 7.0f; // never a sin/cos value: marks elements the layout must not touch
const long double twoPiL = 2.0L * std::numbers::pi_v<long double>;

/// Paper-style inverse frequencies base^(-2i/dim), i < pairs.
std::vector<double> frequencies(int pairs, double base)
{
    std::vector<double> w(static_cast<std::size_t>(pairs));
    for (int i = 0; i < pairs; ++i)
        w[std::size_t(i)] = std::pow(base, -2.0 * i / (2.0 * pairs));
    return w;
}

/// p * w mod 2*pi in long double (64-bit mantissa: the product of a 31-bit position and a double is within
/// ~1e-10 of exact there).
long double angleL(Position p, double w)
{
    return std::fmod((long double)p * (long double)w, twoPiL);
}

/// Circular distance between two angles.
double angleDistance(double a, long double b)
{
    long double d = std::fmod(std::fabs((long double)a - b), twoPiL);
    return double(std::min(d, twoPiL - d));
}

enum class LayoutKind { Interleaved, Split, SinOnly, CosOnly, Strided, CosFirst };

const char* layoutName(LayoutKind k)
{
    switch (k) {
    case LayoutKind::Interleaved: return "interleaved";
    case LayoutKind::Split: return "split";
    case LayoutKind::SinOnly: return "sinonly";
    case LayoutKind::CosOnly: return "cosonly";
    case LayoutKind::Strided: return "strided";
    case LayoutKind::CosFirst: return "cosfirst";
    }
    return "?";
}

/// A buffer of sentinels and a layout into it, offset by one float so that rows are not 16-byte aligned.
struct Target {
    std::vector<float> buffer;
    TrigLayout layout;
};

Target makeTarget(LayoutKind kind, std::size_t rows, int pairs, double scale)
{
    const std::ptrdiff_t p = pairs;
    std::ptrdiff_t rowStride = 2 * p + 3; // a little padding between rows, which must stay untouched
    if (kind == LayoutKind::Strided)
        rowStride = 3 * p + 1;
    Target t;
    t.buffer.assign(rows * std::size_t(rowStride) + 8, sentinel);
    float* base = t.buffer.data() + 1;
    TrigLayout& l = t.layout;
    l.rowStride = rowStride;
    l.scale = scale;
    switch (kind) {
    case LayoutKind::Interleaved:
        l.sin = base;
        l.cos = base + 1;
        l.pairStride = 2;
        break;
    case LayoutKind::Split:
        l.sin = base;
        l.cos = base + p;
        l.pairStride = 1;
        break;
    case LayoutKind::SinOnly:
        l.sin = base;
        l.pairStride = 1;
        break;
    case LayoutKind::CosOnly:
        l.cos = base + 2;
        l.pairStride = 1;
        break;
    case LayoutKind::Strided:
        l.sin = base;
        l.cos = base + 2;
        l.pairStride = 3;
        break;
    case LayoutKind::CosFirst:
        l.cos = base;
        l.sin = base + 1;
        l.pairStride = 2;
        break;
    }
    return t;
}

PositionList makePositions(const std::vector<Position>& spec, bool isList)
{
    // spec = {start, count, step} for a range, or the explicit positions.
    if (isList)
        return PositionList::list(spec);
    return PositionList::range(spec[0], spec[0] + spec[1] * spec[2] - (spec[2] - 1), spec[2]);
}

} // namespace

class TestTrigTable : public QObject {
    Q_OBJECT
private slots:
    void clockHandsAndWavelengths();
    void wrapAngleIsReducedAndExact();
    void fastMatchesReference_data();
    void fastMatchesReference();
    void largePositionsAgainstLongDouble_data();
    void largePositionsAgainstLongDouble();
    void wrappedAnglesMatch();
    void tinyAndEmptyTables();
    void automaticThreadCount();
};

void TestTrigTable::wrapAngleIsReducedAndExact()
{
    const double twoPi = 2.0 * std::numbers::pi;
    const std::vector<double> omegas
        = {1.0, 0.5, 1e-4, 1e-9, 0.999999, 2.0 * std::numbers::pi, std::numbers::pi, 1.0 / 3.0, 3.0, 12.5};
    std::vector<Position> ps = {0,
                                1,
                                2,
                                3,
                                7,
                                100,
                                355,
                                710,
                                1 << 20,
                                (1 << 20) - 1,
                                123456789,
                                maxPosition,
                                maxPosition - 1,
                                Position(1) << 30};
    for (Position p = 0; p < 5000; p += 37)
        ps.push_back(p);
    for (double w : omegas)
        for (Position p : ps) {
            const double r = wrapAngle(p, w);
            const std::string what = "p=" + std::to_string(p) + " w=" + std::to_string(w);
            QVERIFY2(r >= 0.0 && r < twoPi, what.c_str());
            // The long double reference is itself only good to about |p * w| * 2^-64 (its 2*pi and product
            // round there); wrapAngle's two-part 2*pi is finer than that.
            const double tol = 1e-14 + 2e-19 * double(p) * w;
            QVERIFY2(angleDistance(r, angleL(p, w)) < tol, what.c_str());
        }
    // Exact multiples of 2*pi (as doubles) reduce to ~0, never to 2*pi.
    QVERIFY(wrapAngle(1, twoPi) < 1e-15);
    QVERIFY(wrapAngle(1000, twoPi) < 2.0 * std::numbers::pi);
}

void TestTrigTable::fastMatchesReference_data()
{
    QTest::addColumn<int>("layout");
    QTest::addColumn<std::vector<Position>>("positions");
    QTest::addColumn<bool>("isList");
    QTest::addColumn<int>("pairs");
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("anchor");
    QTest::addColumn<int>("stores");
    QTest::addColumn<bool>("portable");
    QTest::addColumn<double>("scale");

    struct Pos {
        const char* name;
        std::vector<Position> spec;
        bool isList;
    };
    std::vector<Position> scattered;
    for (Position i = 0; i < 301; ++i)
        scattered.push_back((i * 7919 + 13) % (Position(1) << 20));
    const std::vector<Pos> positionSets = {
        {"row1", {0, 1, 1}, false},
        {"rows2", {5, 2, 1}, false},
        {"rows257", {0, 257, 1}, false},
        {"rows1031_start1000", {1000, 1031, 1}, false},
        {"rows300_step3_start7", {7, 300, 3}, false},
        {"rows97_step1000", {0, 97, 1000}, false},
        {"rows600_near2p20", {(1 << 20) - 600, 600, 1}, false},
        {"list1", {42}, true},
        {"list301", scattered, true},
    };
    const std::vector<LayoutKind> layouts = {LayoutKind::Interleaved, LayoutKind::Split,   LayoutKind::SinOnly,
                                             LayoutKind::CosOnly,     LayoutKind::Strided, LayoutKind::CosFirst};
    struct Run {
        const char* name;
        int threads;
        int anchor;
        int stores;
        bool portable;
    };
    const std::vector<Run> runs = {
        {"auto", 0, 0, int(TrigFillOptions::Stores::Auto), false},
        {"t1_cached", 1, 0, int(TrigFillOptions::Stores::Cached), false},
        {"t2_a7_stream", 2, 7, int(TrigFillOptions::Stores::Streaming), false},
        {"t3_a1_cached", 3, 1, int(TrigFillOptions::Stores::Cached), false},
        {"t2_a64_portable_stream", 2, 64, int(TrigFillOptions::Stores::Streaming), true},
        {"t5_a13_portable_cached", 5, 13, int(TrigFillOptions::Stores::Cached), true},
    };
    for (const Pos& pos : positionSets)
        for (LayoutKind layout : layouts)
            for (const Run& run : runs)
                for (int pairs : {1, 3, 64}) {
                    const double scale = pairs == 3 ? -2.5 : 1.0;
                    const std::string name = std::string(pos.name) + "/" + layoutName(layout) + "/" + run.name
                        + "/pairs" + std::to_string(pairs);
                    QTest::newRow(name.c_str()) << int(layout) << pos.spec << pos.isList << pairs << run.threads
                                                << run.anchor << run.stores << run.portable << scale;
                }
}

void TestTrigTable::fastMatchesReference()
{
    QFETCH(int, layout);
    QFETCH(std::vector<Position>, positions);
    QFETCH(bool, isList);
    QFETCH(int, pairs);
    QFETCH(int, threads);
    QFETCH(int, anchor);
    QFETCH(int, stores);
    QFETCH(bool, portable);
    QFETCH(double, scale);

    const PositionList pl = makePositions(positions, isList);
    const std::vector<double> w = frequencies(pairs, 10000.0);
    Target fast = makeTarget(LayoutKind(layout), pl.size(), pairs, scale);
    Target ref = makeTarget(LayoutKind(layout), pl.size(), pairs, scale);
    TrigFillOptions options;
    options.threads = threads;
    options.anchorInterval = anchor;
    options.stores = TrigFillOptions::Stores(stores);
    options.portableKernel = portable;
    fillTrigTable(w, pl, fast.layout, options);
    fillTrigTableReference(w, pl, ref.layout);

    const double tol = 1e-6 * std::max(1.0, std::fabs(scale));
    for (std::size_t k = 0; k < fast.buffer.size(); ++k) {
        const double d = std::fabs(double(fast.buffer[k]) - double(ref.buffer[k]));
        if (!(d <= tol))
            QFAIL(("element " + std::to_string(k) + ": fast " + std::to_string(fast.buffer[k]) + " reference "
                   + std::to_string(ref.buffer[k]))
                      .c_str());
    }
}

void TestTrigTable::largePositionsAgainstLongDouble_data()
{
    QTest::addColumn<std::vector<Position>>("positions");
    QTest::addColumn<bool>("isList");
    QTest::addColumn<double>("base");
    QTest::newRow("range to 2^20") << std::vector<Position>{(1 << 20) - 700, 701, 1} << false << 10000.0;
    QTest::newRow("range to 2^20 step 1499") << std::vector<Position>{0, 700, 1499} << false << 10000.0;
    QTest::newRow("range to 2^20 rope base") << std::vector<Position>{(1 << 20) - 513, 514, 1} << false << 500000.0;
    QTest::newRow("range to 2^31-1") << std::vector<Position>{maxPosition - 999, 1000, 1} << false << 10000.0;
    QTest::newRow("range to 2^31-1 step 3") << std::vector<Position>{maxPosition - 2997, 1000, 3} << false << 10000.0;
    QTest::newRow("range to 2^31-1 step 2^20+1")
        << std::vector<Position>{maxPosition - 2047 * ((1 << 20) + 1), 2048, (1 << 20) + 1} << false << 10000.0;
    QTest::newRow("list near 2^31-1") << std::vector<Position>{maxPosition,   maxPosition - 1,    1 << 30, 1 << 20, 0,
                                                               (1 << 20) - 1, maxPosition - 12345}
                                      << true << 10000.0;
}

void TestTrigTable::largePositionsAgainstLongDouble()
{
    QFETCH(std::vector<Position>, positions);
    QFETCH(bool, isList);
    QFETCH(double, base);
    const PositionList pl = makePositions(positions, isList);
    const int pairs = 64;
    std::vector<double> w = frequencies(pairs, base);
    w.push_back(1.0 / 3.0);
    w.push_back(0.999);
    for (LayoutKind kind : {LayoutKind::Interleaved, LayoutKind::Split}) {
        for (auto stores : {TrigFillOptions::Stores::Cached, TrigFillOptions::Stores::Streaming}) {
            Target t = makeTarget(kind, pl.size(), int(w.size()), 1.0);
            TrigFillOptions options;
            options.threads = 2;
            options.stores = stores;
            fillTrigTable(w, pl, t.layout, options);
            double maxErr = 0.0;
            for (std::size_t r = 0; r < pl.size(); ++r)
                for (std::size_t i = 0; i < w.size(); ++i) {
                    const long double a = angleL(pl[r], w[i]);
                    const std::ptrdiff_t at
                        = std::ptrdiff_t(r) * t.layout.rowStride + std::ptrdiff_t(i) * t.layout.pairStride;
                    maxErr = std::max(maxErr, double(std::fabs((long double)t.layout.sin[at] - std::sin(a))));
                    maxErr = std::max(maxErr, double(std::fabs((long double)t.layout.cos[at] - std::cos(a))));
                }
            QVERIFY2(maxErr <= 1e-5, std::to_string(maxErr).c_str());
            QVERIFY2(maxErr <= 2e-7, std::to_string(maxErr).c_str()); // float32 rounding is all that is left
        }
    }
}

void TestTrigTable::wrappedAnglesMatch()
{
    const std::vector<double> w = frequencies(67, 10000.0);
    const std::vector<PositionList> sets = {
        PositionList::range(0, 1),
        PositionList::range(0, 1000),
        PositionList::range((1 << 20) - 300, (1 << 20) + 1, 1),
        PositionList::range(maxPosition - 4000, maxPosition + 1, 7),
        PositionList::list({maxPosition, 0, 1 << 20, 12345}),
    };
    const float twoPiF = float(2.0 * std::numbers::pi); // above 2*pi: no output may reach it
    for (const PositionList& pl : sets) {
        const MatrixF m = wrappedAngles(w, pl);
        QCOMPARE(m.rows(), Eigen::Index(pl.size()));
        QCOMPARE(m.cols(), Eigen::Index(w.size()));
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index i = 0; i < m.cols(); ++i) {
                const float a = m(r, i);
                QVERIFY(a >= 0.0f && a < twoPiF);
                QVERIFY(double(a) < 2.0 * std::numbers::pi);
                QVERIFY(angleDistance(double(a), angleL(pl[std::size_t(r)], w[std::size_t(i)])) <= 1e-5);
                QVERIFY(std::fabs(double(a) - wrapAngle(pl[std::size_t(r)], w[std::size_t(i)])) <= 1e-6);
            }
    }
}

void TestTrigTable::tinyAndEmptyTables()
{
    const std::vector<double> w = {1.0};
    // One row, one pair, interleaved.
    float buf[4] = {sentinel, sentinel, sentinel, sentinel};
    TrigLayout l;
    l.sin = buf;
    l.cos = buf + 1;
    l.pairStride = 2;
    l.rowStride = 2;
    fillTrigTable(w, PositionList::list({3}), l);
    QVERIFY(std::fabs(buf[0] - std::sin(3.0)) < 1e-7);
    QVERIFY(std::fabs(buf[1] - std::cos(3.0)) < 1e-7);
    QCOMPARE(buf[2], sentinel);
    // No frequencies, or no outputs: nothing written, no crash.
    fillTrigTable(std::span<const double>(), PositionList::range(0, 10), l);
    TrigLayout none;
    none.rowStride = 2;
    fillTrigTable(w, PositionList::range(0, 10), none);
    QCOMPARE(buf[2], sentinel);
    QCOMPARE(wrappedAngles(std::span<const double>(), PositionList::range(0, 3)).size(), Eigen::Index(0));
    // More threads than rows.
    float two[4] = {sentinel, sentinel, sentinel, sentinel};
    l.sin = two;
    l.cos = two + 1;
    TrigFillOptions options;
    options.threads = 8;
    options.stores = TrigFillOptions::Stores::Streaming;
    fillTrigTable(w, PositionList::range(1, 3), l, options);
    QVERIFY(std::fabs(two[0] - std::sin(1.0)) < 1e-7);
    QVERIFY(std::fabs(two[3] - std::cos(2.0)) < 1e-7);
}

void TestTrigTable::automaticThreadCount()
{
    QCOMPARE(trigTableThreads(1, 1), 1);
    QCOMPARE(trigTableThreads(64, 64), 1); // too small to be worth a thread
    const int big = trigTableThreads(65536, 256);
    QVERIFY(big >= 1);
    QVERIFY(big <= int(std::max(1u, std::thread::hardware_concurrency())));
}

void TestTrigTable::clockHandsAndWavelengths()
{
    // A hand turns by p * omega (Vaswani et al. 2017, section 3.5: PE(p, 2i) = sin(p omega_i)); its period is
    // 2 pi / omega tokens.
    const double pi = std::numbers::pi;
    HandReading h = handAt(7.0, 1.0);
    QVERIFY(std::fabs(h.angle - (7.0 - 2 * pi)) < 1e-15);
    QVERIFY(std::fabs(h.sine - std::sin(7.0)) < 1e-15 && std::fabs(h.cosine - std::cos(7.0)) < 1e-15);
    QVERIFY(std::fabs(h.period - 2 * pi) < 1e-15);
    h = handAt(2.5, pi); // between tokens: 2.5 pi = pi/2 past a full turn
    QVERIFY(std::fabs(h.angle - pi / 2) < 1e-12);
    QVERIFY(std::fabs(h.sine - 1.0) < 1e-12);
    QCOMPARE(wavelength(1e-4), 2 * pi / 1e-4);
    QVERIFY(std::isinf(wavelength(0.0)));
    QVERIFY(std::isinf(handAt(5.0, 0.0).period));
    QCOMPARE(handAt(5.0, 0.0).angle, 0.0);
}

QTEST_APPLESS_MAIN(TestTrigTable)
#include "tst_trigtable.moc"
