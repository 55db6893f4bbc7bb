// SPDX-License-Identifier: MIT
// Classroom mode and the first start: presentation mode by keyboard alone, the laser
// pointer, the Help menu's shortcut list read from the real actions, the first-run hint shown once, and the
// parameter panel's step lock.
#include "lessonwindow.h"

#include "ui/window/helpmenu.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/teaching/presentation.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace poslab;
using namespace poslab::ui;

namespace {

/// With POSLAB_SHOTS=DIR set, saves @p w as DIR/NAME.png to look at (under Xvfb: QT_QPA_PLATFORM=xcb).
void shoot(QWidget* w, const QString& name)
{
    const QByteArray dir = qgetenv("POSLAB_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name + QStringLiteral(".png"));
}

} // namespace

class TestClassroom : public QObject {
    Q_OBJECT

    QTemporaryDir m_settings;

private slots:
    void initTestCase() { tests::useOwnSettings(m_settings, QStringLiteral("tst_classroom")); }

    void shortcutListComesFromTheActions()
    {
        MainWindow w(nullptr, false);
        auto find = [&](const QString& keys) -> QString {
            for (const ShortcutEntry& e : shortcutList(&w))
                if (e.keys == keys)
                    return e.action;
            return {};
        };
        QCOMPARE(find(QStringLiteral("F5")), QStringLiteral("Presentation mode"));
        QCOMPARE(find(QStringLiteral("F9")), QStringLiteral("Side panels (schemes and parameters)"));
        QCOMPARE(find(QStringLiteral("Right")), QStringLiteral("Next position"));
        QCOMPARE(find(QStringLiteral("Ctrl+-")), QStringLiteral("Smaller text")); // "A\u2212" on the toolbar
        // Generated, not typed: a new key on an action is in the list, the old one is gone.
        auto* present = w.findChild<QAction*>(QStringLiteral("actionPresentation"));
        QVERIFY(present);
        present->setShortcut(QKeySequence(Qt::Key_F6));
        QCOMPARE(find(QStringLiteral("F6")), QStringLiteral("Presentation mode"));
        QVERIFY(find(QStringLiteral("F5")).isEmpty());
        // Every entry names what it does.
        for (const ShortcutEntry& e : shortcutList(&w))
            QVERIFY2(!e.action.isEmpty(), qPrintable(e.keys));
        QVERIFY(shortcutsHtml(&w).contains(QStringLiteral("F6")));
    }

    void aboutNamesVersionAndLicences()
    {
        const QString about = aboutHtml();
        QVERIFY(about.contains(versionLine().toHtmlEscaped()));
        QVERIFY(versionLine().contains(QStringLiteral("(git ")));
        QVERIFY(about.contains(QStringLiteral("MIT")));
    }

    void firstRunHintShowsOnce()
    {
        QSettings().remove(QLatin1String(FirstRunHint::settingsKey));
        {
            MainWindow w(nullptr, false);
            QVERIFY(!w.firstRunHint()); // only the app's interactive start offers it
            QVERIFY(w.offerFirstRunHint());
            QVERIFY(w.firstRunHint());
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.firstRunHint()->isVisible());
            shoot(&w, QStringLiteral("first-run-hint"));
            QVERIFY(!w.offerFirstRunHint()); // one at a time
        }
        {
            // Not dismissed: it comes back on the next start.
            MainWindow w(nullptr, false);
            QVERIFY(w.offerFirstRunHint());
            QTest::mouseClick(w.firstRunHint()->closeButton(), Qt::LeftButton);
            QVERIFY(FirstRunHint::dismissed());
        }
        MainWindow again(nullptr, false);
        QVERIFY(!again.offerFirstRunHint());
        QVERIFY(!again.firstRunHint());
    }

    void presentationByKeyboard()
    {
        MainWindow w(nullptr, false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const double scaleBefore = w.state()->viewOptions().fontScale;
        w.setMaximisedView(w.view(QStringLiteral("clock")));
        auto* present = w.findChild<QAction*>(QStringLiteral("actionPresentation"));
        QVERIFY(present);
        QCOMPARE(present->shortcut(), QKeySequence(Qt::Key_F5));
        present->trigger();
        QVERIFY(w.isPresenting());
        Presentation* p = w.presentation();
        QVERIFY(QTest::qWaitForWindowExposed(p));
        QVERIFY(p->isFullScreen());
        // Only the view shown alone, at a lecture font scale, with no focusable widget to steal a key.
        QCOMPARE(int(p->views().size()), 1);
        QCOMPARE(p->views()[0]->exportName(), QStringLiteral("clock"));
        QVERIFY(p->fontScale() >= 1.5);
        QCOMPARE(w.state()->viewOptions().fontScale, p->fontScale());
        // Without a lesson, Next and Back step the position: arrows and a clicker's PageDown / PageUp.
        const int c = w.state()->cursor();
        QTest::keyClick(p, Qt::Key_Right);
        QCOMPARE(w.state()->cursor(), c + 1);
        QTest::keyClick(p, Qt::Key_PageDown);
        QCOMPARE(w.state()->cursor(), c + 2);
        QTest::keyClick(p, Qt::Key_PageUp);
        QTest::keyClick(p, Qt::Key_Left);
        QCOMPARE(w.state()->cursor(), c);
        // The laser pointer follows the mouse over the views, and hides when the mouse leaves.
        View* v = p->views()[0];
        const QPoint at = v->rect().center();
        QMouseEvent move(QEvent::MouseMove, QPointF(at), QPointF(v->mapToGlobal(at)), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QApplication::sendEvent(v, &move);
        QVERIFY(p->laser()->isShowingDot());
        QCOMPARE(p->laser()->position(), p->laser()->mapFromGlobal(v->mapToGlobal(at)));
        QCOMPARE(p->laser()->geometry(), p->rect());
        QCOMPARE(p->cursor().shape(), Qt::BlankCursor);
        // Esc leaves, and the window gets its font scale back.
        QTest::keyClick(p, Qt::Key_Escape);
        QTRY_VERIFY(!w.isPresenting());
        QCOMPARE(w.state()->viewOptions().fontScale, scaleBefore);
        // F5 enters, F5 in the presentation leaves.
        present->trigger();
        QVERIFY(w.isPresenting());
        QTest::keyClick(w.presentation(), Qt::Key_F5);
        QTRY_VERIFY(!w.isPresenting());
    }

    void windowClosedWhilePresenting()
    {
        // The presentation gives the state its font scale back when it goes: the window deletes it before the
        // state (a use of the deleted state crashed poslab --present --screenshot now and then).
        auto* w = new MainWindow(nullptr, false);
        w->show();
        w->setPresenting(true);
        QVERIFY(QTest::qWaitForWindowExposed(w->presentation()));
        QPointer<Presentation> p = w->presentation();
        delete w;
        QVERIFY(!p);
    }

    void presentationFontScaleFollowsTheRoom()
    {
        // One view on a 4K screen and on a projector: both at the largest scale; five views share the room and
        // take a smaller one; the laser dot grows with the screen.
        WorkbenchState state;
        Computation computation(&state);
        Presentation p(&state, &computation);
        p.resize(1280, 720);
        const auto page = [](const QStringList& views) {
            PresentationPage pg;
            pg.heading = QStringLiteral("h");
            pg.views = views;
            return pg;
        };
        p.setPage(page({QStringLiteral("decay")}));
        p.show();
        QCoreApplication::processEvents();
        const double one = p.fontScale();
        p.setPage(page({QStringLiteral("table"), QStringLiteral("clock"), QStringLiteral("rotation"),
                        QStringLiteral("decay"), QStringLiteral("attention")}));
        QCoreApplication::processEvents();
        QVERIFY2(p.fontScale() < one, qPrintable(QStringLiteral("%1 vs %2").arg(p.fontScale()).arg(one)));
        QVERIFY(LaserPointer::radiusFor(2160) > 2.5 * LaserPointer::radiusFor(720));
        // The arrangement tiles the stage without overlap.
        for (int n = 1; n <= 6; ++n) {
            const std::vector<QRect> r = Presentation::arrange(QSize(1200, 640), n);
            QCOMPARE(int(r.size()), n);
            for (int i = 0; i < n; ++i) {
                QVERIFY(QRect(0, 0, 1200, 640).contains(r[std::size_t(i)]));
                for (int j = i + 1; j < n; ++j)
                    QVERIFY(!r[std::size_t(i)].intersects(r[std::size_t(j)]));
            }
        }
    }

    void stepLockDisablesOtherKnobs()
    {
        WorkbenchState state;
        QVERIFY(state.setScheme(QStringLiteral("rope")).isEmpty());
        ParameterPanel panel(&state);
        QVERIFY(panel.edit(QStringLiteral("rope_theta")));
        panel.setUnlocked(QStringList{QStringLiteral("rope_theta"), QStringLiteral("base")});
        QVERIFY(!panel.isLocked(QStringLiteral("rope_theta")));
        QVERIFY(panel.isLocked(QStringLiteral("layout")));
        QVERIFY(panel.isLocked(QStringLiteral("dim")));
        QVERIFY(!panel.slider(QStringLiteral("dim"))->isEnabledTo(&panel));
        QVERIFY(panel.slider(QStringLiteral("dim"))->toolTip().startsWith(ParameterPanel::lockedTip()));
        // A new scheme's rows follow the same lock.
        QVERIFY(state.setScheme(QStringLiteral("sinusoidal")).isEmpty());
        QVERIFY(!panel.isLocked(QStringLiteral("base")));
        QVERIFY(panel.isLocked(QStringLiteral("positions")));
        // Free play unlocks every row and gives each its own tooltip back.
        panel.setUnlocked(std::nullopt);
        QVERIFY(!panel.isLocked(QStringLiteral("dim")));
        QVERIFY(!panel.slider(QStringLiteral("dim"))->toolTip().startsWith(ParameterPanel::lockedTip()));
        QVERIFY(panel.slider(QStringLiteral("dim"))->isEnabledTo(&panel));
    }
};

QTEST_MAIN(TestClassroom)
#include "tst_classroom.moc"
