// SPDX-License-Identifier: MIT
// Wiring of the workbench: one state, views that observe it, undo/redo, the generated parameter panel.
#include "core/encodingregistry.h"
#include "ui/figures/attentionfigure.h"
#include "ui/figures/computation.h"
#include "ui/figures/decayfigure.h"
#include "ui/figures/figure.h"
#include "ui/figures/tablefigure.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/window/schemepicker.h"
#include "ui/views/clockview.h"
#include "ui/views/rotationview.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QAbstractButton>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

class TestWorkbench : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The route of a slider's value (issue "One figure, one place": typed parameters to the edge): the state
    // keeps the double it was given, and a figure's request hands it to core as a value (settings), never as
    // text (overrides) to be read again.
    void sliderValueReachesCoreAsAValue()
    {
        WorkbenchState st;
        QVERIFY(st.setScheme(QStringLiteral("rope")).isEmpty());
        const double theta = 10000.0 + 1.0 / 3.0;
        QVERIFY(st.setParam(QStringLiteral("rope_theta"), poslab::core::ParamValue::real(theta)).isEmpty());
        QCOMPARE(st.setup().params.real("rope_theta"), theta);
        const poslab::core::ComputeRequest req = figureRequest(st.setup());
        QVERIFY(req.overrides.empty());
        QCOMPARE(int(req.settings.size()), 1);
        QCOMPARE(req.settings.front().first, std::string("rope_theta"));
        QCOMPARE(req.settings.front().second.number, theta);
        // A typed text is read once and refused with core's message, nothing changed.
        QVERIFY(st.setParamText(QStringLiteral("rope_theta"), QStringLiteral("ten"))
                    .contains(QStringLiteral("rope_theta")));
        QCOMPARE(st.setup().params.real("rope_theta"), theta);
    }

    // One validation per change (issue "validate a set-up once per change"): the setter's resolve makes the token,
    // the state keeps that very object, and every figure's request carries it, so core checks the parameters no
    // more (core::validateParamsOnce); undo and redo make the token of the set-up they bring back.
    void setupIsValidatedOncePerChange()
    {
        WorkbenchState st;
        const std::shared_ptr<const core::CheckedParams> before = st.checkedParams();
        QVERIFY(before);
        QVERIFY(st.setParam(QStringLiteral("rope_theta"), core::ParamValue::real(500.0)).isEmpty());
        const std::shared_ptr<const core::CheckedParams> token = st.checkedParams();
        QVERIFY(token && token != before);
        QVERIFY(token->params() == st.params());
        // The spec for positions 0 .. N-1, seq_len N: theta_1 = 500^(-2/128) (Su et al. 2021, eq. 15).
        QCOMPARE(token->rotarySpec()->invFreq[1], std::pow(500.0, -2.0 / 128.0));
        // The same object reaches the table, decay and attention figures and their core requests.
        const FigureSnapshot snap = FigureSnapshot::of(st);
        QCOMPARE(snap.checked.token.get(), token.get());
        QCOMPARE(TableFigure::inputsOf(snap).checked.token.get(), token.get());
        QCOMPARE(DecayFigure::inputsOf(snap).a.checked.token.get(), token.get());
        QCOMPARE(AttentionFigure::request(AttentionFigure::inputsOf(snap)).checked.get(), token.get());
        QCOMPARE(figureRequest(snap.setup, snap.checked).checked.get(), token.get());
        // Not the token of another set-up: no token, core validates as the CLI does.
        Setup other = snap.setup;
        other.dim = 64;
        QVERIFY(!figureRequest(other, snap.checked).checked);
        QVERIFY(!figureRequest(snap.setup).checked);
        // A refused change and one that changes nothing keep it.
        QVERIFY(!st.setParam(QStringLiteral("rope_theta"), core::ParamValue::real(-1.0)).isEmpty());
        QVERIFY(st.setParam(QStringLiteral("rope_theta"), core::ParamValue::real(500.0)).isEmpty());
        QCOMPARE(st.checkedParams().get(), token.get());
        // Undo brings back the earlier set-up with a token of its own, equal by value to the first one: figure inputs
        // compare equal, so nothing recomputes for a token alone.
        st.undoStack()->undo();
        QVERIFY(st.checkedParams() && st.checkedParams() != before);
        QVERIFY(*st.checkedParams() == *before);
        QVERIFY(FigureSnapshot::of(st).checked == CheckedSetup{before});
        QVERIFY(!(FigureSnapshot::of(st).checked == CheckedSetup{token}));
        st.undoStack()->redo();
        QVERIFY(*st.checkedParams() == *token);
        // Another dimension or length: a new token, for that context (the spec's seq_len follows the positions).
        QVERIFY(st.setPositionCount(300).isEmpty());
        QCOMPARE(st.checkedParams()->seqLen(), core::Position(300));
        QVERIFY(st.setDim(64).isEmpty());
        QCOMPARE(st.checkedParams()->dim(), 64);
        QCOMPARE(int(st.checkedParams()->rotarySpec()->invFreq.size()), 32);
    }

    void parameterChangeReachesEveryView()
    {
        MainWindow w(nullptr, false);
        auto* st = w.state();
        QCOMPARE(st->schemeId(), QStringLiteral("rope"));
        std::vector<std::unique_ptr<QSignalSpy>> spies;
        for (View* v : w.views())
            spies.push_back(std::make_unique<QSignalSpy>(v, &View::refreshed));
        QSignalSpy result(w.computation(), &Computation::resultReady);
        QSignalSpy attention(w.computation(), &Computation::attentionReady);
        QVERIFY(st->setParam("rope_theta", core::ParamValue::real(500.0)).isEmpty());
        QVERIFY(result.wait(2000));
        w.computation()->flush();
        w.computation()->waitForAttention(); // scores are computed on a worker thread
        QCOMPARE(result.count(), 1);
        QVERIFY(attention.count() >= 1);
        QCOMPARE(w.computation()->result()->setup.params.real("rope_theta"), 500.0);
        QCOMPARE(w.computation()->attention()->setup.params.real("rope_theta"), 500.0);
        for (std::size_t i = 0; i < spies.size(); ++i)
            QVERIFY2(spies[i]->count() >= 1, qPrintable(w.views()[i]->exportName()));
    }

    void burstsCoalesce()
    {
        MainWindow w(nullptr, false);
        QSignalSpy result(w.computation(), &Computation::resultReady);
        for (double b : {200.0, 300.0, 400.0, 500.0})
            w.state()->setParam("rope_theta", core::ParamValue::real(b), true);
        QVERIFY(result.wait(2000));
        QTest::qWait(20);
        QCOMPARE(result.count(), 1); // four changes, one recompute
        QCOMPARE(w.computation()->result()->setup.params.real("rope_theta"), 500.0);
    }

    void cursorLinksViews()
    {
        MainWindow w(nullptr, false);
        auto* st = w.state();
        QSignalSpy table(w.view("table"), &View::refreshed);
        QSignalSpy clock(w.view("clock"), &View::refreshed);
        QSignalSpy rotation(w.view("rotation"), &View::refreshed);
        QSignalSpy attention(w.view("attention"), &View::refreshed);
        st->setCursor(100);
        QCOMPARE(st->cursor(), 100);
        QCOMPARE(st->animationTime(), 100.0);
        QVERIFY(table.count() >= 1);
        QVERIFY(clock.count() >= 1);
        QVERIFY(rotation.count() >= 1);
        QVERIFY(attention.count() >= 1);
        auto* rot = static_cast<RotationView*>(w.view("rotation"));
        QCOMPARE(rot->positions(false).first, core::Position(100));
        // Keyboard: Right, Left, Home, End, Space.
        w.findChild<QAction*>("shortcutRight")->trigger();
        QCOMPARE(st->cursor(), 101);
        w.findChild<QAction*>("shortcutLeft")->trigger();
        QCOMPARE(st->cursor(), 100);
        w.findChild<QAction*>("shortcutEnd")->trigger();
        QCOMPARE(st->cursor(), st->positionCount() - 1);
        w.findChild<QAction*>("shortcutHome")->trigger();
        QCOMPARE(st->cursor(), 0);
        QSignalSpy playing(st, &WorkbenchState::playingChanged);
        w.findChild<QAction*>("shortcutSpace")->trigger();
        QVERIFY(st->isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(st->animationTime() > 0.0, 2000); // the animation advances the position
        w.findChild<QAction*>("shortcutSpace")->trigger();
        QVERIFY(!st->isPlaying());
        QCOMPARE(playing.count(), 2);
    }

    void shiftLeavesScoreUnchanged()
    {
        MainWindow w(nullptr, false);
        auto* st = w.state();
        st->setCursor(40);
        ViewOptions o = st->viewOptions();
        o.shift = 1000;
        st->setViewOptions(o);
        auto* rot = static_cast<RotationView*>(w.view("rotation"));
        const double a = rot->score(false), b = rot->score(true);
        QVERIFY(std::abs(a) > 1e-6);
        QVERIFY(std::abs(a - b) < 1e-9 * std::max(1.0, std::abs(a)));
    }

    void undoRestores()
    {
        MainWindow w(nullptr, false);
        auto* st = w.state();
        QUndoStack* undo = st->undoStack();
        QVERIFY(st->setParam("rope_theta", core::ParamValue::real(500.0)).isEmpty());
        QVERIFY(st->setDim(64).isEmpty());
        QCOMPARE(undo->count(), 2);
        QSignalSpy params(st, &WorkbenchState::paramsChanged);
        undo->undo();
        QCOMPARE(st->dim(), 128);
        undo->undo();
        QCOMPARE(st->params().real("rope_theta"), 10000.0);
        QVERIFY(params.count() >= 1);
        undo->redo();
        QCOMPARE(st->params().real("rope_theta"), 500.0);
        // The panel follows undo.
        QCOMPARE(w.parameterPanel()->edit("rope_theta")->text(), QStringLiteral("500"));
        // Scheme changes are undoable and remember each scheme's parameters.
        QVERIFY(st->setScheme("sinusoidal").isEmpty());
        QCOMPARE(st->schemeId(), QStringLiteral("sinusoidal"));
        undo->undo();
        QCOMPARE(st->schemeId(), QStringLiteral("rope"));
        QCOMPARE(st->params().real("rope_theta"), 500.0);
    }

    void sliderDragIsOneUndoStep()
    {
        MainWindow w(nullptr, false);
        QSlider* s = w.parameterPanel()->slider("rope_theta");
        QVERIFY(s);
        const int before = w.state()->undoStack()->count();
        for (int pos = 100; pos <= 400; pos += 50)
            s->setValue(pos);
        QCOMPARE(w.state()->undoStack()->count(), before + 1);
        QVERIFY(w.state()->params().real("rope_theta") > 100.0);
        w.state()->undoStack()->undo();
        QCOMPARE(w.state()->params().real("rope_theta"), 10000.0);
        QCOMPARE(s->value(), ParameterPanel::toSlider(*w.state()->scheme().param("rope_theta"), 10000.0));
    }

    void logarithmicSlider()
    {
        const core::ParamSpec& spec = *core::findScheme("rope")->param("rope_theta");
        QVERIFY(spec.logarithmic);
        QCOMPARE(ParameterPanel::fromSlider(spec, 0), 100.0);
        QCOMPARE(ParameterPanel::fromSlider(spec, ParameterPanel::sliderSteps), 1.0e7);
        // Logarithmic: the middle of 10^2..10^7 is about 10^4.5, not 5e6.
        const double mid = ParameterPanel::fromSlider(spec, ParameterPanel::sliderSteps / 2);
        QVERIFY(mid > 3.0e4 && mid < 3.3e4);
    }

    void typedValueOutOfRangeIsRefused()
    {
        MainWindow w(nullptr, false);
        auto* st = w.state();
        auto* panel = w.parameterPanel();
        QSignalSpy refused(st, &WorkbenchState::refused);
        QLineEdit* e = panel->edit("rope_theta");
        e->setText("1e9");
        QMetaObject::invokeMethod(e, "returnPressed");
        QCOMPARE(st->params().real("rope_theta"), 10000.0); // not clamped to 1e7, not applied
        QCOMPARE(refused.count(), 1);
        const QString msg = panel->message("rope_theta");
        QVERIFY2(msg.contains("rope_theta"), qPrintable(msg));
        QVERIFY2(msg.contains("10000000") || msg.contains("1e+07") || msg.contains("1e7"), qPrintable(msg));
        QCOMPARE(e->text(), QStringLiteral("1e9")); // the typed text stays for correction
        // Malformed text too.
        e->setText("ten");
        QMetaObject::invokeMethod(e, "returnPressed");
        QCOMPARE(st->params().real("rope_theta"), 10000.0);
        QVERIFY(panel->message("rope_theta").contains("rope_theta"));
        // A good value clears the message.
        e->setText("50000");
        QMetaObject::invokeMethod(e, "returnPressed");
        QCOMPARE(st->params().real("rope_theta"), 50000.0);
        QVERIFY(panel->message("rope_theta").isEmpty());
        // Odd dimensions are refused for pair schemes, with the reason.
        QLineEdit* dim = panel->edit("dim");
        dim->setText("127");
        QMetaObject::invokeMethod(dim, "returnPressed");
        QCOMPARE(st->dim(), 128);
        QVERIFY(panel->message("dim").contains("even"));
    }

    void parametersShownOnlyWhenTheyApply()
    {
        MainWindow w(nullptr, false);
        auto* panel = w.parameterPanel();
        QVERIFY(!panel->isShown("beta_fast"));
        QVERIFY(!panel->isShown("factor"));
        QComboBox* type = panel->combo("rope_type");
        QVERIFY(type);
        const int yarn = type->findText("yarn");
        type->setCurrentIndex(yarn);
        QMetaObject::invokeMethod(type, "activated", Q_ARG(int, yarn));
        QCOMPARE(w.state()->params().choice("rope_type"), std::string("yarn"));
        QVERIFY(panel->isShown("beta_fast"));
        QVERIFY(panel->isShown("factor"));
        QVERIFY(panel->check("truncate"));
        QVERIFY(!panel->isShown("low_freq_factor"));
        // Keys still at their default follow the choice: yarn's defaults are Qwen2.5's.
        QCOMPARE(w.state()->params().integer("original_max_position_embeddings"), 32768ll);
        QCOMPARE(w.state()->params().real("rope_theta"), 1000000.0);
        // Tooltips carry the one-line doc.
        QVERIFY(panel->slider("beta_fast")->toolTip().contains("YaRN"));
    }

    void pickerSelectsScheme()
    {
        MainWindow w(nullptr, false);
        QAbstractButton* found = w.schemePicker()->button(QStringLiteral("sinusoidal"));
        QVERIFY(found);
        // grouped under its family
        QCOMPARE(w.schemePicker()->familyOf(QStringLiteral("sinusoidal")), QStringLiteral("absolute, fixed"));
        QVERIFY(found->toolTip().contains("Vaswani"));
        found->click();
        QCOMPARE(w.state()->schemeId(), QStringLiteral("sinusoidal"));
        QVERIFY(w.schemePicker()->infoText().contains("Vaswani"));
        QVERIFY(w.schemePicker()->infoText().contains("PE(p,2i)"));
        QVERIFY(w.parameterPanel()->slider("base"));
    }

    void jsonRoundTrip()
    {
        WorkbenchState a;
        a.setScheme("sinusoidal");
        a.setParam("base", core::ParamValue::real(500.0));
        a.setDim(64);
        a.setCursor(12);
        ViewOptions o = a.viewOptions();
        o.theme = ThemeKind::Dark;
        o.pendulum = true;
        a.setViewOptions(o);
        WorkbenchState b;
        QVERIFY(b.fromJson(a.toJson()).isEmpty());
        QCOMPARE(b.setup(), a.setup());
        QCOMPARE(b.cursor(), 12);
        QCOMPARE(b.viewOptions(), a.viewOptions());
    }

    void clockPairsParse()
    {
        std::vector<int> out;
        QVERIFY(ClockView::parsePairs("0-3, 8,63", 64, &out).isEmpty());
        QCOMPARE(out, (std::vector<int>{0, 1, 2, 3, 8, 63}));
        QVERIFY(ClockView::parsePairs("64", 64, &out).contains("allowed: 0 to 63"));
        QVERIFY(!ClockView::parsePairs("x", 64, &out).isEmpty());
    }

    void maximiseView()
    {
        MainWindow w(nullptr, false);
        w.resize(1366, 768); // room for all five (a smaller window shows fewer at a time: tst_lecturehall)
        w.show();
        View* clock = w.view("clock");
        w.setMaximisedView(clock);
        QVERIFY(clock->isVisible());
        QVERIFY(!w.view("table")->isVisible());
        w.setMaximisedView(nullptr);
        QTRY_VERIFY(w.view("table")->isVisible());
    }
};

QTEST_MAIN(TestWorkbench)
#include "tst_workbench.moc"
