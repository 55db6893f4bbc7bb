// SPDX-License-Identifier: MIT
// Bounds in the window's own inputs (found by adversarial testing): a state file may not go around
// the setters' limits, a settings font scale must be a number in range, the undo history is bounded and a
// slider's steps merge, the table row plan survives INT_MAX positions, and an infinite value or range cannot
// index the colour table out of bounds.
#include "ui/figures/computation.h"
#include "ui/figures/precisionfigure.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/render/colormap.h"
#include "ui/state/workbenchstate.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <limits>

using namespace poslab;
using namespace poslab::ui;

class TestUiBounds : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void stateFileLimits_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("says");
        QTest::newRow("dim 65536") << "dim" << 65536.0 << "dim 65536 is out of range; allowed: 2 to 4096";
        QTest::newRow("positions INT_MAX") << "positions" << 2147483647.0 << "positions 2147483647 is out of range";
        QTest::newRow("positions 2^40") << "positions" << 1099511627776.0 << "positions is not an integer";
        QTest::newRow("heads -5") << "view/heads" << -5.0 << "heads -5 is out of range; allowed: 1 to 1024";
        QTest::newRow("head 9 of 8") << "view/head" << 9.0 << "head 9 is out of range; allowed: 0 to 7";
        QTest::newRow("attention size 0") << "view/attention_size" << 0.0 << "attention_size 0 is out of range";
        QTest::newRow("colormap 7") << "view/colormap" << 7.0
                                    << "colormap 7 is unknown; allowed: auto, viridis, cividis, diverging";
        QTest::newRow("font scale 1e300") << "view/font_scale" << 1e300 << "font_scale 1e+300 is out of range";
        QTest::newRow("speed -1") << "view/speed" << -1.0 << "speed -1 is out of range";
    }

    void stateFileLimits()
    {
        QFETCH(QString, field);
        QFETCH(double, value);
        QFETCH(QString, says);
        WorkbenchState st;
        QJsonObject json = st.toJson();
        if (field.startsWith("view/")) {
            QJsonObject v = json.value("view").toObject();
            v.insert(field.mid(5), value);
            json.insert("view", v);
        } else {
            json.insert(field, value);
        }
        const Setup before = st.setup();
        const QString err = st.fromJson(json);
        QVERIFY2(err.contains(says), qPrintable(err));
        QCOMPARE(st.setup(), before); // nothing applied
        // The file as written loads.
        QCOMPARE(st.fromJson(st.toJson()), QString());
        // A cursor beyond the positions is refused; without one, a short range opens on its last position.
        QJsonObject shortRange{{"scheme", "rope"}, {"positions", 10}};
        QCOMPARE(st.fromJson(shortRange), QString());
        QCOMPARE(st.cursor(), 9);
        shortRange.insert("cursor", 10);
        QVERIFY(st.fromJson(shortRange).contains(QStringLiteral("cursor 10 is out of range; allowed: 0 to 9")));
    }

    void fontScaleMustBeANumberInRange()
    {
        WorkbenchState st;
        QSignalSpy refused(&st, &WorkbenchState::refused);
        ViewOptions o = st.viewOptions();
        o.fontScale = std::nan("");
        st.setViewOptions(o);
        QCOMPARE(st.viewOptions().fontScale, 1.0);
        QCOMPARE(refused.count(), 1);
        QVERIFY(!WorkbenchState::fontScaleProblem(std::numeric_limits<double>::infinity()).isEmpty());
        QVERIFY(WorkbenchState::fontScaleProblem(2.5).isEmpty());
    }

    void settingsFontScaleNanIsIgnored()
    {
        QTemporaryDir dir;
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QSettings().setValue("view/fontScale", "nan");
        QSettings().sync();
        MainWindow w(nullptr, true);
        QCOMPARE(w.state()->viewOptions().fontScale, 1.0);
        QSettings().setValue("view/fontScale", 2.0);
        MainWindow w2(nullptr, true);
        QCOMPARE(w2.state()->viewOptions().fontScale, 2.0);
    }

    void undoIsBoundedAndSliderStepsMerge()
    {
        WorkbenchState st;
        QVERIFY(st.undoStack()->undoLimit() > 0);
        // A slider dragged (or wheel-scrolled) over 50 values: one undo step.
        for (int i = 0; i < 50; ++i)
            QCOMPARE(st.setParam("rope_theta", core::ParamValue::real(1000.0 + i), true), QString());
        QCOMPARE(st.undoStack()->count(), 1);
        // Steps that do not merge stop at the limit.
        for (int i = 0; i < WorkbenchState::undoLimit + 20; ++i)
            QCOMPARE(st.setParam("rope_theta", core::ParamValue::real(5000.0 + i), false), QString());
        QCOMPARE(st.undoStack()->count(), WorkbenchState::undoLimit);
    }

    void wheelOnASliderIsOneUndoStep()
    {
        // The panel's own sliders, scrolled with the wheel: every step of one key merges into one undo step,
        // and every other step, across keys, still stops at the limit.
        WorkbenchState st;
        ParameterPanel panel(&st);
        auto* theta = panel.findChild<QSlider*>(QStringLiteral("slider_rope_theta"));
        auto* dim = panel.findChild<QSlider*>(QStringLiteral("slider_dim"));
        QVERIFY(theta && dim);
        for (int i = 0; i < 40; ++i)
            theta->triggerAction(QAbstractSlider::SliderSingleStepAdd);
        QCOMPARE(st.undoStack()->count(), 1);
        for (int i = 0; i < 10; ++i)
            dim->triggerAction(QAbstractSlider::SliderSingleStepSub);
        QCOMPARE(st.undoStack()->count(), 2);
    }

    void rowPlanAtIntMaxPositions()
    {
        // rows = INT_MAX: end + margin overflowed int.
        TableWindow w;
        w.rowBegin = 2147483647 - 1000;
        w.rowEnd = 2147483647;
        w.pixelRows = 500;
        const auto plan = TableFigure::planRows(2147483647, 64, w);
        QVERIFY(plan.start >= 0 && plan.start <= w.rowBegin);
        QVERIFY(plan.count >= 1);
        QVERIFY((long long)plan.start + (long long)plan.count * plan.step >= w.rowEnd);
        QVERIFY((long long)plan.count * 64 <= TableFigure::fullTableCells);
        // The whole range on 16 pixel rows: step 2^26, and stop - start + step - 1 overflowed int, leaving one
        // sample where 32 cover the table.
        const auto whole = TableFigure::planRows(2147483647, 64, TableWindow{0, 0, 16});
        QCOMPARE(whole.step, 1 << 26);
        QCOMPARE(whole.start, 0);
        QVERIFY((long long)whole.count * whole.step >= 2147483647LL);
    }

    void precisionViewRefusesBeforeWork()
    {
        // The precision view of d = 4096 at 1,048,576 positions painted nothing for 12 s and more
        // (analysePrecision ran without the compute command's check). It now says why at once, and so does an
        // export of the view's figure (View::computeError).
        WorkbenchState st;
        st.setScheme(QStringLiteral("rope"));
        st.setDim(4096);
        st.setPositionCount(WorkbenchState::maxPositionCount);
        QElapsedTimer clock;
        clock.start();
        const PrecisionData d = computeFigure<PrecisionFigure>(FigureSnapshot::of(st));
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(d.error.contains(QStringLiteral("the precision analysis of 1048576 positions x 2048 pairs would take "
                                                 "about 1.3e+12 operations, more than the work limit of 1e+11")),
                 qPrintable(d.error));
        // The default set-up is computed.
        WorkbenchState fresh;
        fresh.setScheme(QStringLiteral("rope"));
        QVERIFY2(computeFigure<PrecisionFigure>(FigureSnapshot::of(fresh)).error.isEmpty(),
                 qPrintable(computeFigure<PrecisionFigure>(FigureSnapshot::of(fresh)).error));
    }

    void infiniteValuesGetAColour()
    {
        // An infinite range gives t = inf * 0 = NaN; size_t(NaN) indexed the 256-entry table out of bounds
        // (undefined behaviour that UBSan reports; a release build happens to read entry 0).
        core::MatrixF m(1, 3);
        const float inf = std::numeric_limits<float>::infinity();
        m << -inf, 0.0f, inf;
        const ColorMap map(ColorMapKind::Viridis);
        const QImage img = matrixToImage(m, map, ValueRange{-double(inf), double(inf)});
        for (int c = 0; c < 3; ++c)
            QVERIFY(std::find(map.table().begin(), map.table().end(), img.pixel(c, 0)) != map.table().end());
        // With a finite range, +inf takes the top colour and -inf the bottom one.
        const QImage fin = matrixToImage(m, map, ValueRange{-1.0, 1.0});
        QCOMPARE(fin.pixel(0, 0), map.table().front());
        QCOMPARE(fin.pixel(2, 0), map.table().back());
    }
};

QTEST_MAIN(TestUiBounds)
#include "tst_uibounds.moc"
