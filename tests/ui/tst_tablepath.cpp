// SPDX-License-Identifier: MIT
// The encoding table's compute paths and large tables: forcing the CPU or the GPU gives the same table
// (within 1e-5), a 65536 x 4096 table arrives quickly as exact samples of every k-th position and the view
// says so, a zoomed window brings every position back, and the status bar names the path.
#include "core/encodingregistry.h"
#include "core/encodings/rope.h"
#include "core/encodings/sinusoidal.h"
#include "core/rotary.h"
#include "core/trigtable.h"
#include "ui/figures/computation.h"
#include "ui/gpu/gpucompute.h"
#include "ui/gpu/tableengine.h"
#include "ui/window/mainwindow.h"
#include "ui/views/tableview.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QElapsedTimer>
#include <QTest>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

/// Runs the pending request and waits for its worker: the result is published when this returns.
void settle(Computation& c)
{
    c.flush();
    c.waitForTable();
}

/// Float64 reference of the full table's cell (position, column), straight from core.
double reference(const EncodingResult& r, int position, int column)
{
    const auto one = core::PositionList::list({core::Position(position)});
    if (r.rotary) {
        const double a = core::wrapAngle(position, r.spec.invFreq[std::size_t(column)]);
        return r.spec.attentionFactor * (r.quantity == TableQuantity::Sin ? std::sin(a) : std::cos(a));
    }
    const bool half = r.setup.params.choice("layout") == "half_split";
    const int pairs = int(r.frequencies.size());
    const int pair = half ? column % pairs : column / 2;
    const bool isSin = half ? column < pairs : column % 2 == 0;
    const double a = core::wrapAngle(position, r.frequencies[std::size_t(pair)]);
    return isSin ? std::sin(a) : std::cos(a);
}

/// Largest |table - float64 reference| over every stride-th row and every column.
double maxError(const EncodingResult& r, int stride = 1)
{
    double err = 0.0;
    for (int row = 0; row < int(r.table.rows()); row += stride)
        for (int c = 0; c < int(r.table.cols()); ++c)
            err = std::max(err, std::fabs(double(r.table(row, c)) - reference(r, r.positionOfRow(row), c)));
    return err;
}

} // namespace

class TestTablePath : public QObject {
    Q_OBJECT
private slots:
    void cpuAndGpuAgree_data()
    {
        // clang-format off
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("quantity");
        QTest::newRow("rope cos") << "rope" << QString() << int(TableQuantity::Cos);
        QTest::newRow("rope sin") << "rope" << QString() << int(TableQuantity::Sin);
        QTest::newRow("sinusoidal interleaved") << "sinusoidal" << "interleaved" << int(TableQuantity::Cos);
        QTest::newRow("sinusoidal half_split") << "sinusoidal" << "half_split" << int(TableQuantity::Cos);
        // clang-format on
    }

    void cpuAndGpuAgree()
    {
        QFETCH(QString, scheme);
        QFETCH(QString, layout);
        QFETCH(int, quantity);
        WorkbenchState state;
        Computation computation(&state);
        QVERIFY(state.setScheme(scheme).isEmpty());
        if (!layout.isEmpty())
            QVERIFY(state.setParam("layout", core::ParamValue::word(layout.toStdString())).isEmpty());
        QVERIFY(state.setDim(256).isEmpty());
        QVERIFY(state.setPositionCount(4096).isEmpty());
        ViewOptions o = state.viewOptions();
        o.tableQuantity = TableQuantity(quantity);
        state.setViewOptions(o);
        computation.setComputePath(gpu::ComputePath::Cpu);
        settle(computation);
        const auto cpu = computation.result();
        QVERIFY2(cpu->error.isEmpty(), qPrintable(cpu->error));
        QVERIFY2(cpu->path.startsWith("CPU"), qPrintable(cpu->path));
        QVERIFY(!cpu->isPartial());
        QVERIFY(maxError(*cpu, 17) < 1e-5);

        std::string why;
        if (!gpu::GpuCompute::create(&why))
            QSKIP(qPrintable(QStringLiteral("no OpenGL 4.3 compute context: %1").arg(QString::fromStdString(why))));
        computation.setComputePath(gpu::ComputePath::Gpu);
        settle(computation);
        const auto gpu = computation.result();
        QVERIFY2(
            gpu->path.startsWith("GPU"),
            qPrintable(gpu->path + " / " + gpu->error + QString(" serial %1 vs %2").arg(gpu->serial).arg(cpu->serial)));
        QCOMPARE(gpu->table.rows(), cpu->table.rows());
        QCOMPARE(gpu->table.cols(), cpu->table.cols());
        const double diff = double((gpu->table - cpu->table).cwiseAbs().maxCoeff());
        QVERIFY2(diff <= 1e-5, qPrintable(QStringLiteral("max |GPU - CPU| = %1").arg(diff)));
    }

    void xposStaysOnCpu()
    {
        WorkbenchState state;
        Computation computation(&state);
        QVERIFY(state.setScheme("xpos").isEmpty());
        computation.setComputePath(gpu::ComputePath::Gpu);
        settle(computation);
        QVERIFY2(computation.result()->path.startsWith("CPU (core, xPos)"), qPrintable(computation.result()->path));
    }

    void smallTablesNeverTouchTheGpuInAuto()
    {
        WorkbenchState state;
        Computation computation(&state);
        QVERIFY(state.setScheme("rope").isEmpty());
        settle(computation);
        QCOMPARE(computation.computePath(), gpu::ComputePath::Auto);
        QVERIFY2(computation.result()->path.startsWith("CPU, "), qPrintable(computation.result()->path));
        QVERIFY(!computation.result()->path.contains("measured"));
    }

    void cpuPreferenceNeverAsksForAContext()
    {
        // Under the Cpu preference a table over the GPU threshold is filled without creating a GPU
        // context, so that a data export never loads the GL driver; Auto asks for one at that size.
        const auto w = core::ropeBaseFrequencies(10000.0, 64);
        const auto many = core::PositionList::range(0, int(gpu::TableEngine::autoGpuMinElements) / 16);
        gpu::TableLayout l;
        l.cols = 64;
        l.cosOffset = 32;
        gpu::TableEngine cpu(gpu::ComputePath::Cpu);
        const core::MatrixF m = cpu.trigTable(w, many, l);
        QCOMPARE(m.rows(), Eigen::Index(many.size()));
        QVERIFY(!cpu.gpuTried());
        QVERIFY2(QString::fromStdString(cpu.lastPath()).startsWith("CPU, "), cpu.lastPath().c_str());
        gpu::TableEngine automatic(gpu::ComputePath::Auto);
        automatic.trigTable(w, many, l);
        QVERIFY(automatic.gpuTried());
    }

    void largeTableIsSampledQuicklyAndExactly_data()
    {
        // clang-format off
        QTest::addColumn<QString>("scheme");
        QTest::newRow("sinusoidal") << "sinusoidal";
        QTest::newRow("rope") << "rope";
        // clang-format on
    }

    void largeTableIsSampledQuicklyAndExactly()
    {
        QFETCH(QString, scheme);
        WorkbenchState state;
        Computation computation(&state);
        computation.setComputePath(gpu::ComputePath::Cpu);
        QVERIFY(state.setScheme(scheme).isEmpty());
        QVERIFY(state.setDim(4096).isEmpty());
        settle(computation);
        TableView view(&state, &computation);
        view.resize(900, 700);

        QElapsedTimer clock;
        clock.start();
        QVERIFY(state.setPositionCount(65536).isEmpty());
        settle(computation);
        settle(computation); // the view asks for its own resolution once it has seen the new shape
        const qint64 firstMs = clock.elapsed();
        auto r = computation.result();
        QVERIFY2(r->error.isEmpty(), qPrintable(r->error));
        QCOMPARE(r->totalRows, 65536);
        QVERIFY(r->isPartial());
        QVERIFY(r->rowStep > 1);
        QVERIFY((long long)r->table.rows() * r->table.cols() <= TableFigure::fullTableCells);
        QVERIFY(maxError(*r, 7) < 1e-5); // every sampled cell is the exact value at its position
        QVERIFY2(view.samplingNote().contains(QStringLiteral("every %1").arg(r->rowStep)),
                 qPrintable(view.samplingNote()));
        QCOMPARE(view.window(), QRectF(0, 0, r->totalCols, 65536));

        // A parameter move (slider drag) on the large table: new samples, same resolution.
        clock.restart();
        const QString key = scheme == "rope" ? QStringLiteral("rope_theta") : QStringLiteral("base");
        QVERIFY(state.setParam(key, core::ParamValue::real(20000.0), true).isEmpty());
        settle(computation);
        const qint64 moveMs = clock.elapsed();
        QVERIFY(computation.result()->serial > r->serial);
        QCOMPARE(computation.result()->rowStep, r->rowStep);
        qInfo("%s 65536 x 4096: first %lld ms, slider move %lld ms (every %dth position, %s)", qPrintable(scheme),
              firstMs, moveMs, r->rowStep, qPrintable(computation.result()->path));
        QVERIFY2(moveMs < 3000, "a parameter move on a 65536 x 4096 table must not take seconds");

        // Hover: the exact value, also at a position the samples skip.
        r = computation.result();
        const int skipped = r->rowStep * 100 + 3;
        const double exact = reference(*r, skipped, 5);
        QVERIFY(std::fabs(TableFigure::exactValue(*r, skipped, 5) - exact) < 1e-5);
        const QString text = view.readout(skipped, 5);
        QVERIFY2(text.contains(QStringLiteral("p = %1").arg(skipped)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("colour is p = %1").arg(r->rowStep * 100)), qPrintable(text));
        QVERIFY(!view.renderImage(QSize(640, 420)).isNull());

        // Zoom into 200 positions: the window comes back at full resolution, every position.
        clock.restart();
        view.setWindow(QRectF(0, 30000, r->totalCols, 200));
        settle(computation);
        const qint64 zoomMs = clock.elapsed();
        r = computation.result();
        qInfo("%s zoom to 200 rows: %lld ms (%lld rows from %d)", qPrintable(scheme), zoomMs,
              (long long)r->table.rows(), r->rowStart);
        QCOMPARE(r->rowStep, 1);
        QVERIFY(r->rowStart <= 30000);
        QVERIFY(r->positionOfRow(int(r->table.rows()) - 1) >= 30199);
        QVERIFY(maxError(*r, 3) < 1e-5);
        QVERIFY(view.samplingNote().isEmpty());
        QCOMPARE(view.window(), QRectF(0, 30000, r->totalCols, 200)); // the zoom stays

        // A small pan inside the widened window needs nothing new.
        const quint64 before = computation.publishedCount();
        view.setWindow(QRectF(0, 30050, r->totalCols, 200));
        settle(computation);
        QCOMPARE(computation.publishedCount(), before);

        // Fit: back to every k-th position.
        view.resetZoom();
        settle(computation);
        QVERIFY(computation.result()->rowStep > 1);
    }

    void statusBarNamesThePath()
    {
        MainWindow w(nullptr, false);
        auto* auto_ = w.findChild<QAction*>("actionPathAuto");
        auto* cpu = w.findChild<QAction*>("actionPathCpu");
        auto* gpuAction = w.findChild<QAction*>("actionPathGpu");
        QVERIFY(auto_ && cpu && gpuAction);
        QVERIFY(auto_->isChecked());
        QVERIFY2(w.tablePathText().startsWith("Table: CPU"), qPrintable(w.tablePathText()));
        w.setComputePath(gpu::ComputePath::Gpu);
        QVERIFY(gpuAction->isChecked() && !auto_->isChecked());
        settle(*w.computation());
        // Either the shaders ran, or the CPU did and the text says why the GPU did not.
        const QString t = w.tablePathText();
        QVERIFY2(t.startsWith("Table: GPU") || t.contains("GPU unavailable"), qPrintable(t));
        w.setComputePath(gpu::ComputePath::Cpu);
        settle(*w.computation());
        QVERIFY(cpu->isChecked());
        QVERIFY2(w.tablePathText().startsWith("Table: CPU, "), qPrintable(w.tablePathText()));
    }
};

QTEST_MAIN(TestTablePath)
#include "tst_tablepath.moc"
