// SPDX-License-Identifier: MIT
// Every compute shader against its CPU twin in core, within 1e-5.
#include "core/encodingregistry.h"
#include "core/encodings/rope.h"
#include "core/encodings/sinusoidal.h"
#include "core/fixedturns.h"
#include "core/rotary.h"
#include "core/trigtable.h"
#include "ui/gpu/gpucompute.h"
#include "ui/gpu/tableengine.h"

#include <QTest>

#include <cmath>
#include <numbers>

using namespace poslab;

class TestGpuCompute : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void fixedTurnsTwinIsExact();
    void sinusoidalTableMatchesCpu_data();
    void sinusoidalTableMatchesCpu();
    void largePositionsStayAccurate();
    void explicitPositionList();
    void rotationMatchesCpu_data();
    void rotationMatchesCpu();
    void scoresMatchCpu();
    void engineChoosesAPathAndSaysWhich();
    void instancesCoexist();

private:
    std::unique_ptr<gpu::GpuCompute> m_gpu;
};

void TestGpuCompute::initTestCase()
{
    std::string why;
    m_gpu = gpu::GpuCompute::create(&why);
    if (!m_gpu)
        QSKIP(("no OpenGL 4.3 compute context: " + why).c_str());
    qInfo("GPU path on %s", m_gpu->renderer().c_str());
}

void TestGpuCompute::fixedTurnsTwinIsExact()
{
    // The integer reduction (the shader's method, run on the CPU) agrees with the double reduction.
    for (double omega : {1.0, 0.1, 1e-4, 0.7498942093324559, 3.0}) {
        const std::uint64_t t = core::fixedTurns(omega);
        for (std::uint32_t p : {0u, 1u, 7u, 1000u, 65535u, 1u << 20, 2147483647u}) {
            double a = core::fixedTurnsAngle(p, t);
            double b = core::wrapAngle(p, omega);
            double diff = std::remainder(a - b, 2 * std::numbers::pi);
            QVERIFY2(std::fabs(diff) < 1e-6, qPrintable(QString("omega %1 p %2 diff %3").arg(omega).arg(p).arg(diff)));
        }
    }
}

void TestGpuCompute::sinusoidalTableMatchesCpu_data()
{
    // clang-format off
    QTest::addColumn<QString>("layout");
    QTest::newRow("interleaved") << "interleaved";
    QTest::newRow("half_split") << "half_split";
    // clang-format on
}

void TestGpuCompute::sinusoidalTableMatchesCpu()
{
    QFETCH(QString, layout);
    core::TableContext ctx;
    ctx.dim = 64;
    ctx.positions = core::PositionList::range(0, 1000);
    const auto& scheme = core::schemeOrThrow("sinusoidal");
    const core::ParamSet params = core::resolveParams(scheme, {{"layout", layout.toStdString()}}, ctx);
    const core::MatrixF cpu = core::sinusoidalEncoding(params, ctx);
    gpu::TableLayout l;
    l.cols = 64;
    const bool interleaved = layout == "interleaved";
    l.sinOffset = 0;
    l.cosOffset = interleaved ? 1 : 32;
    l.pairStride = interleaved ? 2 : 1;
    const auto w = core::sinusoidalFrequencies(params, ctx);
    const core::MatrixF g = m_gpu->trigTable(w, ctx.positions, l);
    QCOMPARE(g.rows(), cpu.rows());
    QCOMPARE(g.cols(), cpu.cols());
    const float err = (g - cpu).cwiseAbs().maxCoeff();
    QVERIFY2(err < 1e-5f, qPrintable(QString::number(err)));
}

void TestGpuCompute::largePositionsStayAccurate()
{
    // Positions up to 2^20 and near 2^31: the same 1e-5 bound as the CPU path.
    const auto w = core::ropeBaseFrequencies(10000.0, 128);
    for (core::Position start : {core::Position(1) << 20, core::Position(2147483647) - 300}) {
        const auto positions = core::PositionList::range(start, start + 256);
        gpu::TableLayout l;
        l.cols = 128;
        l.sinOffset = 0;
        l.cosOffset = 64;
        const core::MatrixF g = m_gpu->trigTable(w, positions, l);
        double err = 0;
        for (Eigen::Index r = 0; r < g.rows(); ++r)
            for (int i = 0; i < 64; ++i) {
                const long double a = (long double)positions[std::size_t(r)] * (long double)w[std::size_t(i)];
                err = std::max(err, std::fabs(double(g(r, i)) - double(std::sin(a))));
                err = std::max(err, std::fabs(double(g(r, 64 + i)) - double(std::cos(a))));
            }
        QVERIFY2(err < 1e-5, qPrintable(QString("start %1 err %2").arg(start).arg(err)));
    }
}

void TestGpuCompute::explicitPositionList()
{
    const std::vector<double> w = {1.0, 0.01};
    const auto positions = core::PositionList::list({5, 0, 123456, 3});
    gpu::TableLayout l;
    l.cols = 4;
    l.sinOffset = 0;
    l.cosOffset = 2;
    l.scale = 0.5f;
    const core::MatrixF g = m_gpu->trigTable(w, positions, l);
    QVERIFY(std::fabs(g(0, 0) - 0.5f * float(std::sin(5.0))) < 1e-6f);
    QVERIFY(std::fabs(g(1, 2) - 0.5f) < 1e-7f); // cos(0) * 0.5
    QVERIFY(std::fabs(g(2, 1) - 0.5f * float(std::sin(1234.56))) < 1e-6f);
    QVERIFY(std::fabs(g(3, 3) - 0.5f * float(std::cos(0.03))) < 1e-6f);
}

void TestGpuCompute::rotationMatchesCpu_data()
{
    // clang-format off
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("type");
    QTest::newRow("half_split default") << "half_split" << "default";
    QTest::newRow("interleaved default") << "interleaved" << "default";
    QTest::newRow("half_split yarn") << "half_split" << "yarn";
    // clang-format on
}

void TestGpuCompute::rotationMatchesCpu()
{
    QFETCH(QString, layout);
    QFETCH(QString, type);
    core::TableContext ctx;
    ctx.dim = 64;
    ctx.positions = core::PositionList::range(100, 612, 2);
    const auto& scheme = core::schemeOrThrow("rope");
    const core::ParamSet params
        = core::resolveParams(scheme, {{"layout", layout.toStdString()}, {"rope_type", type.toStdString()}}, ctx);
    const core::RotarySpec spec = core::ropeSpec(params, ctx);
    core::MatrixF rows(256, 64);
    for (Eigen::Index r = 0; r < rows.rows(); ++r)
        for (Eigen::Index c = 0; c < 64; ++c)
            rows(r, c) = float(std::sin(0.37 * double(r) + 1.3 * double(c)));
    core::MatrixF g = rows;
    m_gpu->rotate(spec, g, 100, 2);
    double err = 0;
    for (Eigen::Index r = 0; r < rows.rows(); ++r) {
        std::vector<double> v(rows.row(r).data(), rows.row(r).data() + 64);
        core::rotateInPlace(spec, 100 + 2 * r, v);
        for (int c = 0; c < 64; ++c)
            err = std::max(err, std::fabs(v[std::size_t(c)] - double(g(r, c))));
    }
    QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));
}

void TestGpuCompute::scoresMatchCpu()
{
    core::MatrixF q(70, 40), k(90, 40);
    for (Eigen::Index r = 0; r < q.rows(); ++r)
        for (Eigen::Index c = 0; c < 40; ++c)
            q(r, c) = float(std::cos(0.11 * double(r * 40 + c)));
    for (Eigen::Index r = 0; r < k.rows(); ++r)
        for (Eigen::Index c = 0; c < 40; ++c)
            k(r, c) = float(std::sin(0.07 * double(r * 40 + c)));
    const float scale = 1.0f / std::sqrt(40.0f);
    const core::MatrixF g = m_gpu->scores(q, k, scale, true, 20, 1, 0, 1);
    const core::MatrixF cpu = (q * k.transpose()) * scale;
    for (Eigen::Index i = 0; i < g.rows(); ++i)
        for (Eigen::Index j = 0; j < g.cols(); ++j) {
            if (j > 20 + i)
                QVERIFY(std::isinf(g(i, j)) && g(i, j) < 0);
            else
                QVERIFY2(std::fabs(g(i, j) - cpu(i, j)) < 1e-5f, qPrintable(QString("%1 %2").arg(i).arg(j)));
        }
}

void TestGpuCompute::engineChoosesAPathAndSaysWhich()
{
    const auto w = core::ropeBaseFrequencies(10000.0, 64);
    const auto positions = core::PositionList::range(0, 4096);
    gpu::TableLayout l;
    l.cols = 64;
    l.cosOffset = 32;
    gpu::TableEngine engine(gpu::ComputePath::Cpu);
    const core::MatrixF cpu = engine.trigTable(w, positions, l);
    QVERIFY(QString::fromStdString(engine.lastPath()).startsWith("CPU"));
    engine.setPreference(gpu::ComputePath::Gpu);
    const core::MatrixF g = engine.trigTable(w, positions, l);
    QVERIFY2(QString::fromStdString(engine.lastPath()).startsWith("GPU"), engine.lastPath().c_str());
    QVERIFY((g - cpu).cwiseAbs().maxCoeff() < 1e-5f);
    engine.setPreference(gpu::ComputePath::Auto);
    // Small tables stay on the CPU in Auto, without measuring.
    engine.trigTable(w, positions, l);
    QVERIFY2(QString::fromStdString(engine.lastPath()).startsWith("CPU"), engine.lastPath().c_str());
    QVERIFY(!QString::fromStdString(engine.lastPath()).contains("measured"));
    // From autoGpuMinElements on, both paths are measured once per size class.
    const auto many = core::PositionList::range(0, int(gpu::TableEngine::autoGpuMinElements) / 32);
    const core::MatrixF big = gpu::TableEngine(gpu::ComputePath::Cpu).trigTable(w, many, l);
    const core::MatrixF a = engine.trigTable(w, many, l);
    QVERIFY2(QString::fromStdString(engine.lastPath()).contains("measured"), engine.lastPath().c_str());
    QVERIFY((a - big).cwiseAbs().maxCoeff() < 1e-5f);
    engine.trigTable(w, many, l); // the decision is cached for this size class
    QVERIFY(!QString::fromStdString(engine.lastPath()).contains("measured"));
}

void TestGpuCompute::instancesCoexist()
{
    // The EGL display is shared by every instance: closing one must leave the others working.
    const auto w = core::ropeBaseFrequencies(10000.0, 16);
    const auto positions = core::PositionList::range(0, 64);
    gpu::TableLayout l;
    l.cols = 16;
    l.cosOffset = 8;
    const core::MatrixF before = m_gpu->trigTable(w, positions, l);
    {
        std::string why;
        auto other = gpu::GpuCompute::create(&why);
        QVERIFY2(other, why.c_str());
        QVERIFY((other->trigTable(w, positions, l) - before).cwiseAbs().maxCoeff() == 0.0f);
    }
    QVERIFY((m_gpu->trigTable(w, positions, l) - before).cwiseAbs().maxCoeff() == 0.0f);
}

QTEST_GUILESS_MAIN(TestGpuCompute)
#include "tst_gpucompute.moc"
