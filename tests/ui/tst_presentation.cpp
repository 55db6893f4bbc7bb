// SPDX-License-Identifier: MIT
// Presentation mode's laser pointer: the dot follows a pointer that moves over the live slide, and only that. A
// slide that appears under a resting pointer (Xvfb's pointer rests mid-screen when `poslab --screenshot FILE
// --present` grabs the slide) shows no dot, on screen or in the grab.
#include "ui/figures/computation.h"
#include "ui/state/workbenchstate.h"
#include "ui/teaching/presentation.h"
#include "ui/views/view.h"

#include <QApplication>
#include <QCursor>
#include <QEnterEvent>
#include <QMouseEvent>
#include <QTest>

using namespace poslab::ui;

namespace {

/// How many pixels of @p image, within @p radius of @p at, are the dot's red (red high, green and blue low).
int redPixelsAround(const QImage& image, QPoint at, int radius)
{
    int n = 0;
    for (int y = at.y() - radius; y <= at.y() + radius; ++y)
        for (int x = at.x() - radius; x <= at.x() + radius; ++x)
            if (image.rect().contains(x, y)) {
                const QColor c = image.pixelColor(x, y);
                n += c.red() > 200 && c.green() < 80 && c.blue() < 80 ? 1 : 0;
            }
    return n;
}

} // namespace

class TestPresentation : public QObject {
    Q_OBJECT

private slots:
    void noDotWithoutAMovingPointer()
    {
        WorkbenchState state;
        Computation computation(&state);
        Presentation p(&state, &computation);
        p.resize(1366, 768);
        // The clock view: no pure red of its own (its hands are orange), so red in a grab is the dot.
        PresentationPage page;
        page.heading = QStringLiteral("2.1 \u00b7 Each pair is a hand");
        page.counter = QStringLiteral("1 / 5");
        page.views = {QStringLiteral("clock")};
        p.setPage(page);
        // The pointer rests inside the slide before it appears, as Xvfb's does in the middle of its screen.
        const QPoint rest(40, 700);
        QCursor::setPos(rest);
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        View* v = p.views().front();
        // The window system says the pointer entered the slide (where it rests); Qt may follow with a move to the
        // same place. Neither is a pointer moving over the slide.
        const QPoint inView = v->mapFromGlobal(rest);
        QEnterEvent enter{QPointF(inView), QPointF(inView), QPointF(rest)};
        QApplication::sendEvent(v, &enter);
        QMouseEvent still(QEvent::MouseMove, QPointF(inView), QPointF(rest), Qt::NoButton, Qt::NoButton,
                          Qt::NoModifier);
        QApplication::sendEvent(v, &still);
        QCoreApplication::processEvents();
        QVERIFY(!p.laser()->isShowingDot());
        const QPoint restLocal = p.mapFromGlobal(rest);
        const double r = LaserPointer::radiusFor(p.height());
        QCOMPARE(redPixelsAround(p.grab().toImage(), restLocal, int(r)), 0);
        // A real move over the slide shows the dot there (in the grab too), and leaving hides it.
        const QPoint moved = v->rect().center();
        QMouseEvent move(QEvent::MouseMove, QPointF(moved), QPointF(v->mapToGlobal(moved)), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QApplication::sendEvent(v, &move);
        QVERIFY(p.laser()->isShowingDot());
        QCOMPARE(p.laser()->position(), p.laser()->mapFromGlobal(v->mapToGlobal(moved)));
        QVERIFY(redPixelsAround(p.grab().toImage(), p.mapFromGlobal(v->mapToGlobal(moved)), int(r)) > int(r * r));
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(&p, &leave);
        QVERIFY(!p.laser()->isShowingDot());
        // Shown again (the next presentation), the pointer resting where it left: still no dot.
        p.hide();
        QCursor::setPos(v->mapToGlobal(moved));
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        QApplication::sendEvent(v, &enter);
        QVERIFY(!p.laser()->isShowingDot());
    }
};

QTEST_MAIN(TestPresentation)
#include "tst_presentation.moc"
