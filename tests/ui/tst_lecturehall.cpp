// SPDX-License-Identifier: MIT
// Live in the lecture hall: the window's details a lecturer meets on a 1366 x 768 projector. The
// window options hold in the real window (not only for --screenshot), a share link reopens the tab it was copied
// from, the wheel over the parameter panel scrolls it, a stale red message goes, sessions keep numbers as a
// person writes them, export --title is the visible heading, poslab --help lists the window options, a tab's
// view never stays painted over the grid, B's new rope_type keeps A's trained length, and probabilities are
// coloured on the fixed scale 0 to 1. Presenting lesson 2 draws each slide's figures pixel for pixel as `poslab
// export --lesson N.M VIEW`; compare halves share colour ranges and axes unless independent_ranges (Compare menu, R);
// 8.3 states its own A and B; the mouse over B's half reads B; the presenter view follows the slide.
#include "app/cli.h"
#include "app/exportcli.h"
#include "tests/ui/projectorscreen.h"
#include "ui/figures/computation.h"
#include "ui/export/exportscene.h"
#include "ui/teaching/lessonbrowser.h"
#include "ui/lessons/lesson.h"
#include "ui/teaching/presentation.h"
#include "ui/teaching/presenterview.h"
#include "ui/window/schemepicker.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/window/viewframe.h"
#include "ui/render/textlayout.h"
#include "ui/views/attentionview.h"
#include "ui/views/decayview.h"
#include "ui/views/rotationview.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QAbstractButton>
#include <QChart>
#include <QAbstractScrollArea>
#include <QAction>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QMenu>
#include <QTabBar>
#include <QToolButton>
#include <QTemporaryDir>
#include <QTextDocumentFragment>
#include <QTest>
#include <QUndoStack>
#include <QWheelEvent>

#include <cmath>
#include <sstream>

using namespace poslab;
using namespace poslab::ui;

namespace {

void settle(Computation* c)
{
    for (int i = 0; i < 400 && c->isBusy(); ++i)
        QTest::qWait(5);
    QCoreApplication::processEvents();
}

/// A wheel turn of one notch down over @p w (as the window system delivers it).
void wheelDown(QWidget* w)
{
    const QPointF at(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                  false);
    QApplication::sendEvent(w, &e);
}

/// Saves @p w as PNG under $POSLAB_SHOTS (to look at), when that is set.
void shoot(QWidget* w, const QString& name)
{
    const QByteArray dir = qgetenv("POSLAB_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name + QStringLiteral(".png"));
}

/// The workbench's views on screen once the window has settled (the grid's fit runs after each resize and may
/// fold the side panels, which resizes again): View::visibleViewReport, as `poslab --screenshot` writes it.
QJsonArray settledReport(MainWindow& w)
{
    QJsonArray last;
    for (int i = 0, same = 0; i < 60 && same < 3; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(15);
        const QJsonArray now = View::visibleViewReport(&w);
        same = now == last ? same + 1 : 0;
        last = now;
    }
    return last;
}

/// The views of @p report that say "too small" (either half of A | B), with their sizes; empty when none.
QStringList tooSmall(const QJsonArray& report)
{
    QStringList out;
    for (const QJsonValue& e : report) {
        const QJsonObject o = e.toObject();
        if (o.value("state").toString() == QLatin1String("too small")
            || o.value("state_b").toString() == QLatin1String("too small"))
            out << QStringLiteral("%1 %2x%3")
                       .arg(o.value("view").toString())
                       .arg(o.value("width").toInt())
                       .arg(o.value("height").toInt());
    }
    return out;
}

QAbstractScrollArea* scrollAreaOf(QWidget* w)
{
    for (QWidget* up = w->parentWidget(); up; up = up->parentWidget())
        if (auto* a = qobject_cast<QAbstractScrollArea*>(up))
            return a;
    return nullptr;
}

/// A state without the room's look (the presentation picks its font scale; the lecturer the theme).
QJsonObject withoutLook(QJsonObject json)
{
    QJsonObject view = json.value(QLatin1String("view")).toObject();
    view.remove(QLatin1String("theme"));
    view.remove(QLatin1String("font_scale"));
    json.insert(QLatin1String("view"), view);
    return json;
}

/// The state `poslab export --lesson ID VIEW` draws for the step shown (the export scene loads stepState).
QJsonObject exportState(const LessonBrowser& b)
{
    exporting::ExportScene scene;
    if (!scene.loadState(lessons::stepState(*b.lesson(), b.stepIndex())).isEmpty())
        return {};
    return withoutLook(scene.state().toJson());
}

} // namespace

class TestLectureHall : public QObject {
    Q_OBJECT
private slots:
    void themeOptionHoldsInTheWindow()
    {
#ifndef POSLAB_BEFORE
        // poslab --theme dark once changed only a screenshot; the window's own start now applies it too.
        MainWindow w(nullptr, false);
        StartOptions o;
        o.theme = QStringLiteral("dark");
        o.fontScale = 1.5;
        QVERIFY(w.applyStartOptions(o).isEmpty());
        QCOMPARE(w.state()->viewOptions().theme, ThemeKind::Dark);
        QCOMPARE(w.state()->viewOptions().fontScale, 1.5);
        QCOMPARE(QApplication::palette().color(QPalette::Window), QColor(0x25, 0x28, 0x2e));
        QVERIFY2(!w.state()->undoStack()->canUndo(), "the look of the room is not an edit");
        o = {};
        o.theme = QStringLiteral("drak");
        QCOMPARE(w.applyStartOptions(o), QStringLiteral("--theme takes light or dark; got 'drak'"));
        o = {};
        o.maximise = QStringLiteral("tabel");
        QVERIFY(w.applyStartOptions(o).startsWith(QStringLiteral("--maximise: no view 'tabel'; views: table, ")));
        o = {};
        o.maximise = QStringLiteral("pipeline");
        o.hidePanels = true;
        QVERIFY(w.applyStartOptions(o).isEmpty());
        QCOMPARE(w.maximisedView()->exportName(), QStringLiteral("pipeline"));
        QVERIFY(!w.sidePanelsVisible());
        StartOptions light;
        light.theme = QStringLiteral("light");
        QVERIFY(w.applyStartOptions(light).isEmpty());
#endif
    }

    void shareLinkReopensTheTab()
    {
        MainWindow a(nullptr, false);
        a.setMaximisedView(a.view(QStringLiteral("pipeline")));
        a.findChild<QAction*>(QStringLiteral("actionCopyState"))->trigger();
        const QString link = QGuiApplication::clipboard()->text();
        QVERIFY2(link.startsWith(QStringLiteral("poslab:PL2.")), qPrintable(link));
        MainWindow b(nullptr, false);
        QVERIFY(b.loadStateText(link).isEmpty());
        QVERIFY(b.maximisedView());
        QCOMPARE(b.maximisedView()->exportName(), QStringLiteral("pipeline"));
        const auto* tabs = b.findChild<QTabBar*>(QStringLiteral("viewTabs"));
        QCOMPARE(tabs->tabData(tabs->currentIndex()).toString(), QStringLiteral("pipeline"));
        // A grid view shown alone comes back alone; a link of the whole grid leaves the layout as it is.
        a.setMaximisedView(a.view(QStringLiteral("decay")));
#ifndef POSLAB_BEFORE
        QVERIFY(b.loadStateText(a.stateLink()).isEmpty());
#endif
        QCOMPARE(b.maximisedView()->exportName(), QStringLiteral("decay"));
        a.setMaximisedView(nullptr);
#ifndef POSLAB_BEFORE
        QVERIFY(!a.stateLink().contains(QStringLiteral("layout")));
#endif
    }

    void wheelScrollsThePanel()
    {
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::setActiveWindow(&w);
        QVERIFY(w.state()->setScheme(QStringLiteral("rope")).isEmpty());
        QVERIFY(w.state()->setParamText(QStringLiteral("rope_type"), QStringLiteral("yarn")).isEmpty());
        QCoreApplication::processEvents();
        ParameterPanel* panel = w.parameterPanel();
        QSlider* theta = panel->slider(QStringLiteral("rope_theta"));
        QVERIFY(theta && theta->isVisible());
        QAbstractScrollArea* area = scrollAreaOf(panel);
        QVERIFY(area);
        QScrollBar* bar = area->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the panel holds more rows than it shows at 1366 x 768");
        const QString before = w.state()->params().value("rope_theta").toString().c_str();
        const int undoAt = w.state()->undoStack()->index();
        const int scrolled = bar->value();
        wheelDown(theta);
        QCoreApplication::processEvents();
        QCOMPARE(QString::fromStdString(w.state()->params().value("rope_theta").toString()), before);
        QVERIFY2(bar->value() > scrolled, "the wheel over an unfocused slider scrolls the panel");
        QVERIFY(!w.state()->undoStack()->canUndo() || w.state()->undoStack()->index() == undoAt);
        // Focused (a click, Tab), the slider takes the wheel.
        theta->setFocus(Qt::TabFocusReason);
        QVERIFY(theta->hasFocus());
        wheelDown(theta);
        QCoreApplication::processEvents();
        QVERIFY(QString::fromStdString(w.state()->params().value("rope_theta").toString()) != before);
    }

    void staleMessageGoes()
    {
        MainWindow w(nullptr, false);
        WorkbenchState* st = w.state();
        QVERIFY(st->setScheme(QStringLiteral("rope")).isEmpty());
        ParameterPanel* panel = w.parameterPanel();
        QLineEdit* edit = panel->edit(QStringLiteral("rope_theta"));
        edit->setText(QStringLiteral("5"));
        emit edit->returnPressed();
        QVERIFY2(panel->message(QStringLiteral("rope_theta")).contains(QStringLiteral("out of range")),
                 qPrintable(panel->message(QStringLiteral("rope_theta"))));
        // Another knob leaves the message standing: it is still about rope_theta's typed 5.
        QVERIFY(st->setDim(64).isEmpty());
        QVERIFY(!panel->message(QStringLiteral("rope_theta")).isEmpty());
        // rope_theta changed another way (the slider, undo, a lesson): the red message and border go.
        QVERIFY(st->setParam(QStringLiteral("rope_theta"), core::ParamValue::real(20000.0)).isEmpty());
        QCOMPARE(panel->message(QStringLiteral("rope_theta")), QString());
        QCOMPARE(edit->text(), QStringLiteral("20000"));
        QCOMPARE(edit->styleSheet(), QString());
    }

    void sessionsKeepNumbersAsWritten()
    {
        // README: a number is shown and kept as a person types it, e.g. 500000; the session file held "5e+05".
        WorkbenchState st;
        QVERIFY(st.setScheme(QStringLiteral("rope")).isEmpty());
        QVERIFY(st.setParam(QStringLiteral("rope_theta"), core::ParamValue::real(500000.0)).isEmpty());
        QCOMPARE(st.toJson().value("params").toObject().value("rope_theta").toString(), QStringLiteral("500000"));
        QVERIFY(st.setParam(QStringLiteral("rope_theta"), core::ParamValue::real(1000000.0)).isEmpty());
        QCOMPARE(st.toJson().value("params").toObject().value("rope_theta").toString(), QStringLiteral("1000000"));
        QCOMPARE(QString::fromStdString(core::ParamValue::real(0.00001).toString()), QStringLiteral("0.00001"));
        QCOMPARE(QString::fromStdString(core::ParamValue::real(1e-8).toString()), QStringLiteral("1e-8"));
        QCOMPARE(QString::fromStdString(core::ParamValue::real(2.5e20).toString()), QStringLiteral("2.5e20"));
        QCOMPARE(QString::fromStdString(core::ParamValue::real(0.0625).toString()), QStringLiteral("0.0625"));
        QCOMPARE(core::ParamValue::real(1e-8).toString(), std::string("1e-8"));
        // Each reads back as the same number.
        for (double v : {500000.0, 0.00001, 1e-8, 2.5e20, 1.0 / 3.0})
            QCOMPARE(std::stod(core::ParamValue::real(v).toString()), v);
    }

    void exportTitleIsTheHeading()
    {
        QTemporaryDir dir;
        const std::string out = dir.filePath(QStringLiteral("t.svg")).toStdString();
        std::ostringstream o, e;
        QCOMPARE(app::runExportCli({"export", "table", "--scheme", "rope", "--positions", "64", "--dim", "32",
                                    "--title", "Lecture 3: the clock", "--size", "800x500", "-o", out},
                                   o, e),
                 0);
        QFile f(QString::fromStdString(out));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(f.readAll());
        QVERIFY2(svg.contains(QStringLiteral("<title>Lecture 3: the clock</title>")), "the file's title");
        QVERIFY2(svg.count(QStringLiteral("Lecture 3: the clock")) >= 2, "and the heading drawn in the figure");
        QVERIFY(!svg.contains(QStringLiteral(">RoPE")));
        QVERIFY(app::exportUsage().find("--title TEXT: the figure's heading") != std::string::npos);
    }

    void helpListsTheWindowOptions()
    {
        const std::string help = app::usage();
        for (const char* opt : {"--present", "--presenter", "--lesson N.M", "--font-scale", "--maximise VIEW",
                                "--hide-panels", "--theme light|dark", "--screenshot"})
            QVERIFY2(help.find(opt) != std::string::npos, opt);
    }

    void viewTabsAreNeverCut()
    {
        // The rule of ViewGrid::fitTabs: full titles, else short names, else tabs listed under "More"; every tab
        // shown lies whole inside the bar, the open one is always shown, and every view is a tab or in the menu. Qt's
        // own tab bar scrolled instead, cutting "Context-extension lab" at font scale 2 on a 1366 x 768 projector.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tabs = w.findChild<QTabBar*>(QStringLiteral("viewTabs"));
        auto* more = w.findChild<QToolButton*>(QStringLiteral("moreTabs"));
        QVERIFY(tabs && more);
        for (const double scale : {1.0, 1.5, 2.0})
            for (const char* open : {"", "sequence"}) {
                StartOptions look;
                look.fontScale = scale;
                look.theme = QStringLiteral("dark"); // the tabs' words in the dark theme's colours too
                QVERIFY(w.applyStartOptions(look).isEmpty());
                w.setMaximisedView(*open ? w.view(QLatin1String(open)) : nullptr);
                QCoreApplication::processEvents();
                const QString where = QStringLiteral("scale %1, open '%2'").arg(scale).arg(QLatin1String(open));
                QStringList reachable;
                for (int i = 0; i < tabs->count(); ++i) {
                    if (!tabs->isTabVisible(i))
                        continue;
                    const QRect r = tabs->tabRect(i);
                    QVERIFY2(r.left() >= 0 && r.right() < tabs->width(), qPrintable(where + ": " + tabs->tabText(i)));
                    QVERIFY2(tabs->mapTo(&w, QPoint(r.right(), 0)).x() < w.width(), qPrintable(where));
                    reachable << tabs->tabText(i);
                }
                QVERIFY2(tabs->isTabVisible(tabs->currentIndex()), qPrintable(where));
                QCOMPARE(tabs->tabData(tabs->currentIndex()).toString(), QLatin1String(open));
                if (more->isVisible()) {
                    QVERIFY(more->mapTo(&w, QPoint(more->width() - 1, 0)).x() < w.width());
                    QCOMPARE(more->font().pointSizeF(), tabs->font().pointSizeF()); // it was drawn at the base size
                    // Its text in the dark theme's light colour (in the window, a style sheet once kept it black).
                    const QImage shot = more->grab().toImage();
                    int brightest = 0;
                    for (int y = 0; y < shot.height(); ++y)
                        for (int x = 0; x < shot.width(); ++x)
                            brightest = std::max(brightest, qGray(shot.pixel(x, y)));
                    QVERIFY2(brightest > 150, qPrintable(where + ": the button's text is dark on the dark theme"));
                    for (QAction* a : more->findChild<QMenu*>(QStringLiteral("moreTabsMenu"))->actions())
                        reachable << a->text();
                }
                QCOMPARE(reachable.size(), tabs->count());
                if (scale == 2.0)
                    QVERIFY2(more->isVisible(), "ten tabs do not fit 1366 px at font scale 2");
            }
    }

    void tabViewsStayOnTheirTabs()
    {
        // Pipeline, then length generalisation, then Esc: the grid alone is on screen.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tabs = w.findChild<QTabBar*>(QStringLiteral("viewTabs"));
        for (const QString& id : {QStringLiteral("pipeline"), QStringLiteral("lengthlab")})
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->tabData(i).toString() == id)
                    tabs->setCurrentIndex(i);
        QCoreApplication::processEvents();
        QCOMPARE(w.maximisedView()->exportName(), QStringLiteral("lengthlab"));
        QAction* esc = nullptr;
        for (QAction* a : w.actions())
            if (a->shortcut() == QKeySequence(Qt::Key_Escape))
                esc = a;
        QVERIFY(esc);
        esc->trigger();
        QCoreApplication::processEvents();
        QVERIFY(!w.maximisedView());
        for (const char* id : {"pipeline", "lengthlab"}) {
            View* v = w.view(QString::fromLatin1(id));
            QVERIFY2(!v->isVisible(), id);
        }
        for (const char* id : {"table", "clock", "decay", "rotation", "attention"})
            QVERIFY2(w.view(QString::fromLatin1(id))->isVisible(), id);
    }

    void bKeepsTheTrainedLength()
    {
        // A: Position Interpolation over a trained window T = 512 (the extension view's trained_length).
        WorkbenchState a;
        QVERIFY(a.setScheme(QStringLiteral("rope")).isEmpty());
        QVERIFY(a.setParamText(QStringLiteral("rope_type"), QStringLiteral("linear")).isEmpty());
        QVERIFY(a.setProperty(QStringLiteral("trained_length"), 512).isEmpty());
        QVERIFY(a.compareWithCopy().isEmpty());
        WorkbenchState* b = a.compareState();
        QVERIFY(b->setParamText(QStringLiteral("rope_type"), QStringLiteral("yarn")).isEmpty());
        QCOMPARE(b->params().integer("original_max_position_embeddings"), 512LL);
        QCOMPARE(Computation::trainedLength(b->setup(), b->viewOptions()), std::optional<core::Position>(512));
        // A length B set itself stays.
        QVERIFY(b->setParamText(QStringLiteral("original_max_position_embeddings"), QStringLiteral("2048")).isEmpty());
        QVERIFY(b->setParamText(QStringLiteral("rope_type"), QStringLiteral("llama3")).isEmpty());
        QCOMPARE(b->params().integer("original_max_position_embeddings"), 2048LL);
        // Dynamic NTK reads its T from max_position_embeddings.
        QVERIFY(b->setParamText(QStringLiteral("rope_type"), QStringLiteral("dynamic")).isEmpty());
        QCOMPARE(b->params().integer("max_position_embeddings"), 512LL);
        // A itself changing rope_type takes the type's own values (only B follows A).
        QVERIFY(a.setParamText(QStringLiteral("rope_type"), QStringLiteral("yarn")).isEmpty());
        QCOMPARE(a.params().integer("original_max_position_embeddings"), 32768LL);
    }

    void probabilitiesOnTheFixedScale()
    {
        // 1.4's point: row 0's weight 1 and row 1's 0.5 must not share the top colour.
        WorkbenchState st;
        Computation c(&st);
        QVERIFY(st.setScheme(QStringLiteral("nope")).isEmpty());
        QVERIFY(st.setPositionCount(64).isEmpty());
        QVERIFY(st.setProperty(QStringLiteral("softmax"), true).isEmpty());
        QVERIFY(st.setPropertyText(QStringLiteral("content"), QStringLiteral("constant")).isEmpty());
        AttentionView v(&st, &c);
        v.resize(600, 500);
        v.show();
        settle(&c);
        QTest::qWait(50);
        settle(&c);
        QVERIFY(v.output());
        QVERIFY(v.output()->softmax);
        const auto range = v.dataColourRange();
        QVERIFY(range);
        QCOMPARE(range->lo, 0.0);
        QCOMPARE(range->hi, 1.0);
#ifndef POSLAB_BEFORE
        QVERIFY(v.scaleNote().contains(QStringLiteral("0 \u2026 1 (fixed)")));
#endif
    }

    void presentLesson2AsTheExportDraws()
    {
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLessonStep(QStringLiteral("2.1")).isEmpty());
        w.setPresenting(true);
        Presentation* p = w.presentation();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        LessonBrowser* b = w.lessonBrowser();
        const int lesson = b->lessonIndex();
        const auto check = [&] {
            const lessons::Step* s = b->step();
            QVERIFY(s);
            QCOMPARE(withoutLook(w.state()->toJson()), exportState(*b));
            QStringList shown;
            for (View* v : p->views())
                shown << v->exportName();
            QCOMPARE(shown, s->views);
            QVERIFY2(p->page().heading.startsWith(s->id + QStringLiteral(" \u00b7 ")), qPrintable(p->page().heading));
            // The figures themselves: each slide view drawn at one size equals the view `poslab export --lesson
            // N.M VIEW` draws from the step's state, in the room's theme and font scale, pixel for pixel.
            settle(w.computation());
            exporting::ExportScene scene;
            QJsonObject st = lessons::stepState(*b->lesson(), b->stepIndex());
            QJsonObject look = st.value(QLatin1String("view")).toObject();
            look.insert(QStringLiteral("font_scale"), w.state()->viewOptions().fontScale);
            look.insert(QStringLiteral("theme"), w.state()->viewOptions().theme == ThemeKind::Dark ? "dark" : "light");
            st.insert(QStringLiteral("view"), look);
            QVERIFY(scene.loadState(st).isEmpty());
            scene.state().setCursor(w.state()->cursor());
            scene.state().setAnimationTime(w.state()->animationTime());
            // While the step's prediction waits, the slide hides its answer (the clock's periods in 2.1); the
            // file drawn for the same moment hides it too.
            scene.state().setAnswerPending(w.state()->answerPending());
            for (View* v : p->views()) {
                View* e = scene.view(v->exportName());
                QVERIFY(e);
                exporting::settle(scene.computation());
                const QImage slide = v->renderImage(QSize(900, 560)), file = e->renderImage(QSize(900, 560));
                QVERIFY2(slide == file, qPrintable(s->id + QLatin1Char(' ') + v->exportName()));
            }
        };
        // 2.1 from its first frame; then the cursor and the clock inside it.
        check();
        QCOMPARE(b->step()->id, QStringLiteral("2.1"));
        const int c = w.state()->cursor();
        QTest::keyClick(p, Qt::Key_Up);
        QCOMPARE(w.state()->cursor(), c + 1);
        QTest::keyClick(p, Qt::Key_Up, Qt::ShiftModifier);
        QCOMPARE(w.state()->cursor(), c + 11);
        QTest::keyClick(p, Qt::Key_Down);
        QCOMPARE(w.state()->cursor(), c + 10);
        QCOMPARE(b->step()->id, QStringLiteral("2.1")); // the cursor keys never change the slide
        const double t0 = w.state()->animationTime();
        QTest::keyClick(p, Qt::Key_Space);
        QVERIFY(w.state()->isPlaying());
        QTRY_VERIFY(w.state()->animationTime() > t0 + 0.05);
        QTest::keyClick(p, Qt::Key_Space);
        QVERIFY(!w.state()->isPlaying());
        // Home: the lesson's first step, its state again.
        QTest::keyClick(p, Qt::Key_Home);
        QCOMPARE(b->stepIndex(), 0);
        check();
        // Every step of lesson 2 by Right: a prediction's step shows its figure before the answer is revealed.
        QStringList seen;
        for (int guard = 0; guard < 40 && b->lessonIndex() == lesson && b->step(); ++guard) {
            check();
            if (seen.isEmpty() || seen.back() != b->step()->id)
                seen << b->step()->id;
            QTest::keyClick(p, Qt::Key_Right);
        }
        QCOMPARE(seen.size(), int(lessons::findLesson(2)->steps.size()));
        // End: the last step; Left from there is the step before it, each as the export draws it.
        QTest::keyClick(p, Qt::Key_Left); // back from the puzzle (or the next lesson) into lesson 2
        QTest::keyClick(p, Qt::Key_End);
        QCOMPARE(b->stepIndex(), b->stepCount() - 1);
        check();
        QTest::keyClick(p, Qt::Key_PageUp);
        check();
        // The overlays: black screen, the keys, the step's text; Esc closes each before it leaves.
        const int step = b->stepIndex();
        QTest::keyClick(p, Qt::Key_Period);
#ifndef POSLAB_BEFORE
        QVERIFY(p->isBlack());
#endif
        QTest::keyClick(p, Qt::Key_Right); // brings the slide back, and only that
#ifndef POSLAB_BEFORE
        QVERIFY(!p->isBlack());
#endif
        QCOMPARE(b->stepIndex(), step);
        QTest::keyClick(p, Qt::Key_B);
#ifndef POSLAB_BEFORE
        QVERIFY(p->isBlack());
#endif
        QTest::keyClick(p, Qt::Key_B);
#ifndef POSLAB_BEFORE
        QVERIFY(!p->isBlack());
#endif
#ifndef POSLAB_BEFORE
        QTRY_VERIFY(!p->isHolding()); // the views are back once their results are in
#endif
        for (View* v : p->views())
            QVERIFY(v->isVisible());
        QTest::keyClick(p, '?');
#ifndef POSLAB_BEFORE
        QVERIFY(p->isShowingHelp());
#endif
        shoot(p, QStringLiteral("present-help"));
#ifndef POSLAB_BEFORE
        QVERIFY(Presentation::keyHelp().join(QLatin1Char('\n')).contains(QStringLiteral("Up, Down: position cursor")));
#endif
        QTest::keyClick(p, Qt::Key_Escape);
#ifndef POSLAB_BEFORE
        QVERIFY(!p->isShowingHelp());
#endif
        QVERIFY(w.isPresenting());
        QTest::keyClick(p, Qt::Key_T);
#ifndef POSLAB_BEFORE
        QVERIFY(p->isShowingNotes());
#endif
        QTest::qWait(300);
        shoot(p, QStringLiteral("present-notes"));
        const QString plainText
            = QTextDocumentFragment::fromHtml(b->liveText(b->step()->text, b->step(), nullptr)).toPlainText();
#ifndef POSLAB_BEFORE
        QVERIFY2(p->notesText().contains(plainText.left(40)), qPrintable(p->notesText()));
#endif
        QTest::keyClick(p, Qt::Key_Escape);
#ifndef POSLAB_BEFORE
        QVERIFY(!p->isShowingNotes());
#endif
        QVERIFY(w.isPresenting());
        QTest::keyClick(p, Qt::Key_Escape);
        QTRY_VERIFY(!w.isPresenting());
    }

    void presentStartsAtTheStepsFigure()
    {
        // poslab --present --lesson 12.2: YaRN x4, as poslab export --lesson 12.2 extension draws it.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLessonStep(QStringLiteral("12.2")).isEmpty());
        w.setPresenting(true);
        QVERIFY(QTest::qWaitForWindowExposed(w.presentation()));
        LessonBrowser* b = w.lessonBrowser();
        QCOMPARE(b->step()->id, QStringLiteral("12.2"));
        QCOMPARE(withoutLook(w.state()->toJson()), exportState(*b));
        QCOMPARE(QString::fromStdString(w.state()->params().value("rope_type").choice), QStringLiteral("yarn"));
        QCOMPARE(w.state()->params().real("factor"), 4.0);
        QCOMPARE(w.presentation()->views().back()->exportName(), QStringLiteral("extension"));
        QTest::qWait(500);
        shoot(w.presentation(), QStringLiteral("present-12.2"));
        QTest::keyClick(w.presentation(), Qt::Key_T);
        QTest::qWait(300);
        shoot(w.presentation(), QStringLiteral("present-12.2-notes"));
    }

    void longTitleWrapsBesideTheCounter()
    {
        // 12.1's title ran under "Lesson 12 · 1 / 5" at 1366 x 768 ("…blend betwe").
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLessonStep(QStringLiteral("12.1")).isEmpty());
        w.setPresenting(true);
        Presentation* p = w.presentation();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        QCoreApplication::processEvents();
        auto* heading = p->findChild<QLabel*>(QStringLiteral("presentationHeading"));
        auto* counter = p->findChild<QLabel*>(QStringLiteral("presentationCounter"));
        QVERIFY(heading && counter);
        QVERIFY(!heading->geometry().intersects(counter->geometry()));
        const QRect need = heading->fontMetrics().boundingRect(QRect(0, 0, heading->width(), 100000), Qt::TextWordWrap,
                                                               heading->text());
        QVERIFY2(need.width() <= heading->width() && need.height() <= heading->height(),
                 qPrintable(QStringLiteral("%1 needs %2 x %3 in %4 x %5")
                                .arg(heading->text())
                                .arg(need.width())
                                .arg(need.height())
                                .arg(heading->width())
                                .arg(heading->height())));
    }

    void workbenchFitsTheRoom()
    {
        // At 1366 x 768 and font scale 2 all five views said "Too small"; the lesson panel at scale 1 made the
        // table too small, and compare mode the table, rotation and B's decay. The grid now shows fewer views at a
        // time (all five, the view in front and the next, the view in front alone; the side panels fold away when
        // even that has no room): no view on screen says "Too small", in the default window at either projector
        // size, at font scales 1, 1.5 and 2, light and dark, with and without the lesson panel, single and
        // compare.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* lessons = w.findChild<QDockWidget*>(QStringLiteral("dockLessons"));
        QVERIFY(lessons);
        int drawn = 0;
        for (const QSize size : {QSize(1280, 720), QSize(1366, 768)})
            for (const double scale : {1.0, 1.5, 2.0})
                for (const char* theme : {"light", "dark"})
                    for (const bool lessonPanel : {false, true})
                        for (const bool compare : {false, true}) {
                            StartOptions look;
                            look.theme = QLatin1String(theme);
                            look.fontScale = scale;
                            QVERIFY(w.applyStartOptions(look).isEmpty());
                            if (lessonPanel)
                                w.showLessons();
                            else
                                lessons->hide();
                            if (compare)
                                QVERIFY(w.state()->comparing() || w.state()->compareWithCopy().isEmpty());
                            else
                                QVERIFY(w.state()->setCompareMode(CompareMode::Off).isEmpty());
                            w.resize(size);
                            const QJsonArray report = settledReport(w);
                            const QString where
                                = QStringLiteral("%1x%2, font scale %3, %4, %5, %6: ")
                                      .arg(size.width())
                                      .arg(size.height())
                                      .arg(scale)
                                      .arg(QLatin1String(theme),
                                           lessonPanel ? QStringLiteral("lesson panel")
                                                       : QStringLiteral("no lesson panel"),
                                           compare ? QStringLiteral("compare") : QStringLiteral("single"));
                            // The window as the window system gave it (within its frame on the 1366 x 768 screen).
                            QVERIFY2(std::abs(w.width() - size.width()) <= 8
                                         && std::abs(w.height() - size.height()) <= 8,
                                     qPrintable(where + QStringLiteral("window %1x%2").arg(w.width()).arg(w.height())));
                            QVERIFY2(!report.isEmpty(), qPrintable(where + QStringLiteral("no view on screen")));
                            const QStringList small = tooSmall(report);
                            QVERIFY2(
                                small.isEmpty(),
                                qPrintable(where + QStringLiteral("too small: ") + small.join(QStringLiteral(", "))));
                            drawn += int(report.size());
                            if (size == QSize(1366, 768) && !lessonPanel && (scale == 1.0 || scale == 2.0))
                                shoot(&w,
                                      QStringLiteral("room-%1-%2-%3")
                                          .arg(scale)
                                          .arg(QLatin1String(theme),
                                               compare ? QStringLiteral("compare") : QStringLiteral("single")));
                        }
        QVERIFY(drawn >= 48);
    }

    void keysBringAViewForward()
    {
        // When not all five fit, Ctrl+1..5 brings that view forward, F6 the next one, and the strip above the grid
        // has a button for each (the ones on screen checked); a step's views are the ones it goes through.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        StartOptions look;
        look.fontScale = 2.0;
        QVERIFY(w.applyStartOptions(look).isEmpty());
        QVERIFY(tooSmall(settledReport(w)).isEmpty());
        auto* strip = w.findChild<QWidget*>(QStringLiteral("viewStrip"));
        QVERIFY(strip);
        QVERIFY2(strip->isVisible(), "fewer than five views at 1366 x 768, font scale 2: the strip names the others");
        const auto shown = [&] {
            QStringList names;
            for (const QJsonValue& e : settledReport(w))
                names << e.toObject().value("view").toString();
            return names;
        };
        auto* attention = w.findChild<QAction*>(QStringLiteral("shortcutView5"));
        QVERIFY(attention);
        QCOMPARE(attention->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_5));
        attention->trigger();
        QVERIFY2(shown().contains(QStringLiteral("attention")), qPrintable(shown().join(' ')));
        auto* button = w.findChild<QAbstractButton*>(QStringLiteral("strip_attention"));
        QVERIFY(button && button->isChecked());
        auto* next = w.findChild<QAction*>(QStringLiteral("shortcutNextView"));
        QVERIFY(next);
        QCOMPARE(next->shortcut(), QKeySequence(Qt::Key_F6));
        next->trigger(); // after the last view, the first
        QVERIFY2(shown().contains(QStringLiteral("table")), qPrintable(shown().join(' ')));
        auto* rotation = w.findChild<QAbstractButton*>(QStringLiteral("strip_rotation"));
        QVERIFY(rotation);
        rotation->click();
        QVERIFY2(shown().contains(QStringLiteral("rotation")), qPrintable(shown().join(' ')));
        QVERIFY(rotation->isChecked());
        QVERIFY(tooSmall(settledReport(w)).isEmpty());
        // Compare with the lesson panel open: not even one view has room beside the side panels, so they fold
        // away; F9 opens them as a drawer over the views (the views keep their room) and closes it again.
        QVERIFY(w.state()->compareWithCopy().isEmpty());
        w.showLessons();
        QVERIFY(tooSmall(settledReport(w)).isEmpty());
        QVERIFY(!w.schemePicker()->isVisible());
        QVERIFY(w.sidePanelsVisible()); // still on: folded for room
        auto* drawer = w.findChild<QWidget*>(QStringLiteral("stripPanels"));
        QVERIFY(drawer && drawer->isVisible());
        w.sidePanelsAction()->trigger();
        QVERIFY(QTest::qWaitForWindowExposed(w.schemePicker()->window()));
        QVERIFY(w.schemePicker()->isVisible());
        QVERIFY(tooSmall(settledReport(w)).isEmpty());
        if (const QByteArray dir = qgetenv("POSLAB_SHOTS"); !dir.isEmpty()) // the drawer is a window of its own
            w.screen()->grabWindow(0).save(QString::fromLocal8Bit(dir) + QStringLiteral("/room-drawer.png"));
        w.sidePanelsAction()->trigger();
        settledReport(w);
        QVERIFY(!w.schemePicker()->isVisible());
        // Room again (font scale 1, single, no lesson panel): the panels come back beside all five views.
        QVERIFY(w.state()->setCompareMode(CompareMode::Off).isEmpty());
        w.findChild<QDockWidget*>(QStringLiteral("dockLessons"))->hide();
        look.fontScale = 1.0;
        QVERIFY(w.applyStartOptions(look).isEmpty());
        w.resize(1366, 768);
        QCOMPARE(shown().size(), 5);
        QVERIFY(w.schemePicker()->isVisible());
        QVERIFY(!strip->isVisible());
    }

    void compareStepFitsTheRoom()
    {
        // 8.2 (A and B side by side, attention and rotation): its views by the same rule, its first view in front;
        // restoring a maximised view inside the step brought back five views, four of them "Too small".
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const double scale : {1.0, 2.0}) {
            StartOptions look;
            look.fontScale = scale;
            QVERIFY(w.applyStartOptions(look).isEmpty());
            QVERIFY(w.openLessonStep(QStringLiteral("8.2")).isEmpty());
            LessonBrowser* b = w.lessonBrowser();
            if (b->needsGuess())
                b->reveal();
            QVERIFY(b->tryIt().isEmpty());
            settle(w.computation());
            QVERIFY(w.state()->comparing());
            QJsonArray report = settledReport(w);
            QVERIFY2(tooSmall(report).isEmpty(), qPrintable(tooSmall(report).join(' ')));
            QStringList names;
            for (const QJsonValue& e : report)
                names << e.toObject().value("view").toString();
            QVERIFY2(names.contains(QStringLiteral("attention")), qPrintable(names.join(' ')));
            for (const QString& n : names)
                QVERIFY2(n == QLatin1String("attention") || n == QLatin1String("rotation"), qPrintable(n));
            w.setMaximisedView(w.view(QStringLiteral("rotation")));
            w.setMaximisedView(nullptr);
            report = settledReport(w);
            QVERIFY2(!report.isEmpty() && tooSmall(report).isEmpty(), qPrintable(tooSmall(report).join(' ')));
        }
    }

    void compareSharesRanges()
    {
        // Side by side, A and B plot one quantity on one scale: the attention view's colour range is the
        // union of both halves' data ranges, the extension view's axes the union of both halves' axes (PI x100
        // beside x10 drew on different y ranges); independent_ranges gives each half its own again.
        const auto load = [](exporting::ExportScene& scene, const char* json, const QString& name) -> View* {
            if (!scene.loadState(QJsonDocument::fromJson(QByteArray(json)).object()).isEmpty())
                return nullptr;
            View* v = scene.view(name);
            exporting::settle(scene.computation());
            (void)v->renderImage(QSize(1200, 600)); // creates B's twin and lets the halves share
            exporting::settle(scene.computation());
            (void)v->renderImage(QSize(1200, 600));
            return v;
        };
        exporting::ExportScene at;
        View* a = load(at, R"({"scheme": "rope", "dim": 8, "view": {"content": "sentence", "sentence": "dog x x x cat",
            "causal": false, "heads": 1}, "compare": {"mode": "side_by_side", "state": {"view": {"sentence":
            "x x x x x x x x x x x x x x x x x x x x dog x x x cat"}}}})",
                       QStringLiteral("attention"));
        QVERIFY(a && a->compareTwin());
        View* b = a->compareTwin();
        const auto ra = a->dataColourRange(), rb = b->dataColourRange();
        QVERIFY(ra && rb);
        QVERIFY(ra->lo != rb->lo || ra->hi != rb->hi); // the halves' own data differ, so sharing shows
        QVERIFY(a->heldColourRange() && b->heldColourRange());
        QCOMPARE(a->heldColourRange()->lo, std::min(ra->lo, rb->lo));
        QCOMPARE(a->heldColourRange()->hi, std::max(ra->hi, rb->hi));
        QCOMPARE(b->heldColourRange()->lo, a->heldColourRange()->lo);
        QCOMPARE(b->heldColourRange()->hi, a->heldColourRange()->hi);
        QVERIFY(at.state().setPropertyText(QStringLiteral("independent_ranges"), QStringLiteral("true")).isEmpty());
        (void)a->renderImage(QSize(1200, 600));
        QVERIFY(!a->heldColourRange() && !b->heldColourRange());
        // Softmax beside logits: not one quantity, never one scale.
        QVERIFY(at.state().setPropertyText(QStringLiteral("independent_ranges"), QStringLiteral("false")).isEmpty());
        QVERIFY(at.state().compareState()->setProperty(QStringLiteral("softmax"), true).isEmpty());
        exporting::settle(at.computation());
        (void)a->renderImage(QSize(1200, 600));
        QVERIFY(!a->heldColourRange() && !b->heldColourRange());

        exporting::ExportScene et;
        View* e = load(et, R"({"scheme": "rope", "dim": 64, "positions": 4096, "params": {"rope_type": "linear",
            "factor": "100"}, "compare": {"mode": "side_by_side", "state": {"params": {"factor": "10"}}}})",
                       QStringLiteral("extension"));
        QVERIFY(e && e->compareTwin());
        View* eb = e->compareTwin();
        const std::vector<ValueRange> xa = e->dataAxisRanges(), xb = eb->dataAxisRanges();
        QCOMPARE(int(xa.size()), 2);
        QCOMPARE(int(xb.size()), 2);
        QVERIFY(xa[1].hi != xb[1].hi); // x100 and x10: the scale axes' own data differ
        QCOMPARE(int(e->sharedAxes().size()), 2);
        QCOMPARE(int(eb->sharedAxes().size()), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(e->sharedAxes()[i].lo, std::min(xa[i].lo, xb[i].lo));
            QCOMPARE(e->sharedAxes()[i].hi, std::max(xa[i].hi, xb[i].hi));
            QCOMPARE(eb->sharedAxes()[i].lo, e->sharedAxes()[i].lo);
            QCOMPARE(eb->sharedAxes()[i].hi, e->sharedAxes()[i].hi);
        }
        QVERIFY(et.state().setPropertyText(QStringLiteral("independent_ranges"), QStringLiteral("true")).isEmpty());
        (void)e->renderImage(QSize(1200, 600));
        QVERIFY(e->sharedAxes().empty() && eb->sharedAxes().empty());
    }

    void gapHasASignStepDiffers()
    {
        // 8.3 states its own A and B: the key 4 back in A, 4 ahead in B, no shift (8.2 left m - n = 4 and r = 100
        // in both halves, so the two rotation figures were one). As `poslab export --lesson 8.3 rotation` loads it.
        const lessons::Lesson* l8 = lessons::findLesson(8);
        QVERIFY(l8);
        int at = -1;
        for (int i = 0; i < int(l8->steps.size()); ++i)
            if (l8->steps[i].id == QLatin1String("8.3"))
                at = i;
        QVERIFY(at >= 0);
        exporting::ExportScene scene;
        QVERIFY(scene.loadState(lessons::stepState(*l8, at)).isEmpty());
        QVERIFY(scene.state().comparing());
        WorkbenchState* b = scene.state().compareState();
        QCOMPARE(scene.state().viewOptions().keyDistance, 4);
        QCOMPARE(b->viewOptions().keyDistance, -4);
        QCOMPARE(scene.state().viewOptions().shift, 0);
        QCOMPARE(b->viewOptions().shift, 0);
        for (const char* name : {"rotation", "attention"}) {
            View* v = scene.view(QString::fromLatin1(name));
            QVERIFY(v);
            exporting::settle(scene.computation());
            (void)v->renderImage(QSize(1200, 600));
            exporting::settle(scene.computation());
            View* twin = v->compareTwin();
            QVERIFY(twin);
            if (QLatin1String(name) == QLatin1String("rotation")) {
                auto* ra = qobject_cast<RotationView*>(v);
                auto* rb = qobject_cast<RotationView*>(twin);
                QVERIFY(ra && rb);
                QVERIFY2(std::abs(ra->score(false) - rb->score(false)) > 1e-3,
                         qPrintable(QStringLiteral("%1 %2").arg(ra->score(false)).arg(rb->score(false))));
            } else {
                auto* aa = qobject_cast<AttentionView*>(v);
                auto* ab = qobject_cast<AttentionView*>(twin);
                QVERIFY(aa && ab && aa->output() && ab->output());
                // 'cat' (4) looking at 'dog' (0) in A; 'cat' (0) looking at 'dog' (4) in B: the notice's two logits.
                QVERIFY(std::abs(aa->output()->matrix(4, 0) - ab->output()->matrix(0, 4)) > 0.1);
            }
        }
    }

    void hoverReadsB()
    {
        // Compare side by side: the mouse over B's half reads B's numbers (the read-out was A's only).
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLessonStep(QStringLiteral("8.2")).isEmpty());
        LessonBrowser* lb = w.lessonBrowser();
        if (lb->needsGuess())
            lb->reveal();
        QVERIFY(lb->tryIt().isEmpty());
        settle(w.computation());
        auto* a = qobject_cast<AttentionView*>(w.view(QStringLiteral("attention")));
        QVERIFY(a);
        w.setMaximisedView(a);
        QTRY_VERIFY(a->isVisible() && a->width() > 600);
        QVERIFY(a->showsHalves());
        auto* b = qobject_cast<AttentionView*>(a->compareTwin());
        QVERIFY(b);
        QTRY_VERIFY(b->output() && b->output()->matrix.rows() == 105);
        a->repaint();
        const QRectF half = a->twinArea();
        QVERIFY(!half.isEmpty());
        const auto move = [a](QPointF at) { // the move the window system delivers to a mouse-tracking widget
            QMouseEvent e(QEvent::MouseMove, at, a->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QApplication::sendEvent(a, &e);
        };
        std::optional<QPoint> cell;
        for (double fy = 0.2; fy < 0.8 && !cell; fy += 0.05)
            for (double fx = 0.3; fx < 0.7 && !cell; fx += 0.05) {
                move(half.topLeft() + QPointF(half.width() * fx, half.height() * fy));
                cell = b->hoveredCell();
            }
        QVERIFY(cell);
        QVERIFY(!a->hoveredCell()); // A's half is not under the mouse
        const QString r = b->readout(cell->y(), cell->x());
        QVERIFY2(r.startsWith(QStringLiteral("B \u00b7 ")), qPrintable(r));
        const float v = b->output()->matrix(cell->y(), cell->x());
        QVERIFY2(r.contains(std::isnan(v) ? QStringLiteral("masked") : QString::number(v, 'g', 6)), qPrintable(r));
        // Back over A's half: B's hover goes, A's comes.
        move(QPointF(a->contentArea().width() * 0.6, a->height() * 0.6));
        QVERIFY(!b->hoveredCell());
    }

    void decayComparesOnSharedAxesWithBHover()
    {
        // The decay view side by side: A and B plot the same quantity (q·k ÷ its value at k = 0 and the RoFormer
        // bound, RoFormer §3.4.3), so both halves take the union of their ranges on both value axes, as the
        // extension view's do; independent_ranges gives each its own. The mouse over B's half reads B's curve.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.loadStateText(QStringLiteral(R"({"scheme": "rope", "dim": 64, "positions": 512,
            "compare": {"mode": "side_by_side", "state": {"params": {"rope_theta": "500000"}}}})")),
                 QString());
        settle(w.computation());
        auto* a = qobject_cast<DecayView*>(w.view(QStringLiteral("decay")));
        QVERIFY(a);
        w.setMaximisedView(a);
        QTRY_VERIFY(a->isVisible() && a->width() > 600);
        QVERIFY(a->showsHalves());
        auto* b = qobject_cast<DecayView*>(a->compareTwin());
        QVERIFY(b);
        QTRY_VERIFY(!b->seriesNames().isEmpty());
        a->repaint();
        QCOMPARE(a->rangeQuantity(), b->rangeQuantity());
        const std::vector<ValueRange> da = a->dataAxisRanges(), db = b->dataAxisRanges();
        QCOMPARE(int(da.size()), 2); // the score and the bound (right axis)
        QCOMPARE(int(db.size()), 2);
        QVERIFY(da[0].lo != db[0].lo || da[1].hi != db[1].hi); // θ = 500,000 decays otherwise: the data differ
        QCOMPARE(int(a->sharedAxes().size()), 2);
        for (int k = 0; k < 2; ++k) {
            QCOMPARE(a->sharedAxes()[std::size_t(k)].lo, std::min(da[std::size_t(k)].lo, db[std::size_t(k)].lo));
            QCOMPARE(a->sharedAxes()[std::size_t(k)].hi, std::max(da[std::size_t(k)].hi, db[std::size_t(k)].hi));
        }
        QCOMPARE(b->sharedAxes().size(), a->sharedAxes().size());
        a->repaint(); // B's half is drawn from B's chart, laid out at the half's size
        // Each half's axis holds the union: neither half's curve leaves it (each pads for its own plot's height).
        for (const DecayView* v : {a, b})
            QVERIFY2(v->yRange().first <= std::min(da[0].lo, db[0].lo)
                         && v->yRange().second >= std::max(da[0].hi, db[0].hi),
                     qPrintable(QStringLiteral("%1 .. %2").arg(v->yRange().first).arg(v->yRange().second)));

        // B's hover: down the middle of B's plot until the mouse meets one of B's curves.
        const QRectF half = a->twinArea();
        const QRectF plot = b->chart()->plotArea(); // B's chart, laid out at the half's size with its corner there
        QVERIFY(!half.isEmpty() && !plot.isEmpty());
        QString readout;
        for (double y = plot.top(); y < plot.bottom() && !readout.contains(QStringLiteral("k = ")); y += 1.0) {
            const QPointF at = half.topLeft() + QPointF(plot.left() + plot.width() * 0.3, y);
            QMouseEvent e(QEvent::MouseMove, at, a->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QApplication::sendEvent(a, &e);
            readout = b->readoutText();
        }
        QVERIFY2(readout.startsWith(QStringLiteral("B \u00b7 ")) && readout.contains(QStringLiteral("tokens,  value")),
                 qPrintable(readout));
        QVERIFY(!a->readoutText().startsWith(QStringLiteral("B"))); // A's read-out is A's
        // On screen B's half shows it, under B's chart.
        {
            TextRecord record;
            a->grab();
            bool shown = false;
            for (const DrawnText& t : record.items())
                shown = shown
                    || (t.fullText == readout && t.text.startsWith(QStringLiteral("B \u00b7 "))
                        && t.rect.left() >= half.left());
            QVERIFY2(shown, qPrintable(readout));
        }

        // Independent ranges: each half on its own data again.
        ViewOptions o = w.state()->viewOptions();
        o.independentRanges = true;
        w.state()->setViewOptions(o);
        QCoreApplication::processEvents();
        QVERIFY(a->sharedAxes().empty());
        a->repaint();
        // The half whose curve stays higher no longer reaches down to the other's lowest value.
        const bool aLower = da[0].lo < db[0].lo;
        const DecayView* higher = aLower ? b : a;
        QVERIFY2(higher->yRange().first > std::min(da[0].lo, db[0].lo),
                 qPrintable(QStringLiteral("%1 vs %2").arg(higher->yRange().first).arg(std::min(da[0].lo, db[0].lo))));
    }

    void presenterFollowsTheSlide()
    {
        // The presenter view: the current step with its text and notes, the next step's title, a timer; it follows
        // the slide as the presentation steps (P opens it on one screen, --presenter from the start).
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openLessonStep(QStringLiteral("2.1")).isEmpty());
        w.setPresenting(true);
        Presentation* p = w.presentation();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        if (QGuiApplication::screens().size() < 2)
            QVERIFY(!w.presenterView()); // one screen: only on demand
        QTest::keyClick(p, Qt::Key_P);
        PresenterView* pv = w.presenterView();
        QVERIFY(pv);
        QVERIFY(QTest::qWaitForWindowExposed(pv));
        QVERIFY(pv->isWindow());
        const lessons::Lesson* l2 = lessons::findLesson(2);
        LessonBrowser* b = w.lessonBrowser();
        const auto expect = [&] {
            const int i = b->stepIndex();
            const lessons::Step& s = l2->steps[i];
            QCOMPARE(pv->currentText(), QStringLiteral("%1 \u00b7 %2").arg(s.id, s.title));
            if (i + 1 < int(l2->steps.size()))
                QCOMPARE(pv->nextText(),
                         QStringLiteral("Next: %1 \u00b7 %2").arg(l2->steps[i + 1].id, l2->steps[i + 1].title));
            const QString text = QTextDocumentFragment::fromHtml(b->liveText(s.text, &s, nullptr)).toPlainText();
            QVERIFY2(pv->notesText().contains(text.left(40)), qPrintable(pv->notesText()));
        };
        expect();
        QCOMPARE(b->step()->id, QStringLiteral("2.1"));
        shoot(pv, QStringLiteral("presenter-2.1"));
        // Step by step through the lesson, from the slide and from the presenter view's own keys.
        for (int k = 0; k < 3; ++k) {
            const int before = b->stepIndex();
            for (int guard = 0; guard < 3 && b->stepIndex() == before; ++guard)
                QTest::keyClick(k == 1 ? static_cast<QWidget*>(pv) : p, Qt::Key_Right);
            QVERIFY(b->stepIndex() == before + 1);
            expect();
        }
        QTest::keyClick(p, Qt::Key_Left);
        expect();
        // The answer is the lecturer's before the room sees it.
        QTest::keyClick(p, Qt::Key_End);
        expect();
        QCOMPARE(PresenterView::formatElapsed(0), QStringLiteral("0:00"));
        QCOMPARE(PresenterView::formatElapsed(125'400), QStringLiteral("2:05"));
        QCOMPARE(PresenterView::formatElapsed(3'725'000), QStringLiteral("1:02:05"));
        QVERIFY(pv->elapsedText().contains(QLatin1Char(':')));
        QVERIFY(Presentation::keyHelp().join(QLatin1Char('\n')).contains(QStringLiteral("P: the presenter view")));
        QTest::keyClick(p, Qt::Key_P);
        QTRY_VERIFY(!w.presenterView());
        QTest::keyClick(p, Qt::Key_P);
        QVERIFY(w.presenterView());
        QTest::keyClick(p, Qt::Key_Escape);
        QTRY_VERIFY(!w.isPresenting());
        QTRY_VERIFY(!w.presenterView()); // the talk's window goes with the talk
    }

    void rangesToggleIsVisible()
    {
        // The toggle for independent ranges: Compare > Independent ranges in the window, R on a compare slide;
        // both set the view property independent_ranges, so sessions and --view-set carry it.
        MainWindow w(nullptr, false);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* action = w.findChild<QAction*>(QStringLiteral("actionIndependentRanges"));
        QVERIFY(action && action->isCheckable());
        QVERIFY(!action->isEnabled()); // nothing to compare yet
        QVERIFY(w.openLessonStep(QStringLiteral("8.2")).isEmpty());
        w.setPresenting(true);
        Presentation* p = w.presentation();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        QVERIFY(w.state()->comparing());
        QVERIFY(action->isEnabled() && !action->isChecked());
        QTest::keyClick(p, Qt::Key_R);
        QVERIFY(w.state()->viewOptions().independentRanges);
        QVERIFY(action->isChecked());
        QCOMPARE(w.state()->toJson().value("view").toObject().value("independent_ranges").toBool(), true);
        QTest::keyClick(p, Qt::Key_R);
        QVERIFY(!w.state()->viewOptions().independentRanges);
        action->trigger();
        QVERIFY(w.state()->viewOptions().independentRanges);
        QVERIFY(Presentation::keyHelp().join(QLatin1Char('\n')).contains(QStringLiteral("R: compare")));
        QTest::keyClick(p, Qt::Key_Escape);
        QTRY_VERIFY(!w.isPresenting());
    }
};

int main(int argc, char** argv)
{
    return poslab::tests::runOnProjector<TestLectureHall>(argc, argv);
}

#include "tst_lecturehall.moc"
