// SPDX-License-Identifier: MIT
// Predict, then see, in the views: while a lesson step waits for its guess, a view's header and
// captions leave out the computed result the prediction asks for; the figure stays. 11.1 asks how many of the 64
// pairs turn inside the trained window: the extension view's header ("pairs: ... · 46 turn inside T") answered it
// before the guess. 12.2 asks for YaRN's attention factor (the circle panel's last line), 12.1 for the last kept
// pair (the header's band counts, and the band name "extrapolated: pairs ≤ ..." where it fits), 11.5 for the
// dynamic base (the header's "base θ' = ..."), 2.2 for a clock hand's period, 13.2 for float16's first shared
// rotation (the precision view's header note); 8.1 to 8.3 ask how fast a pair turns and whether a move or a swap
// keeps the logit (the rotation view's pair thetas, its two scores and their verdict). Lesson 18 asks for M-RoPE
// position ids that the sequence view prints for every token: a step's "hide" (FORMAT.md) names the ids that answer
// it, shown as "?" until the guess; 17.2 asks for a patch's score with itself, which the patch grid's hover
// read-out states. Hover read-outs follow one rule (View::withholdsReadoutValues): while a guess is due they name
// where the pointer is and read "values after your guess" for what is there (2.2's wavelength 2π/ω = 54,410.1 in the
// table's cell read-out and hand 63's period in the clock's, 1.4's weight 0.1 in the attention cell, 3.2's
// PE(p)·PE(p) = d/2 = 64 on the decay curve at k = 0, 8.1's θ in the rotation plane's).
#include "ui/figures/computation.h"
#include "ui/teaching/lessonbrowser.h"
#include "ui/lessons/lesson.h"
#include "ui/render/textlayout.h"
#include "ui/views/attentionview.h"
#include "ui/views/clockview.h"
#include "ui/views/decayview.h"
#include "ui/views/extensionview.h"
#include "ui/views/patchgridview.h"
#include "ui/views/precisionview.h"
#include "ui/views/rotationview.h"
#include "ui/views/sequenceview.h"
#include "ui/views/tableview.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QCoreApplication>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QTest>

#include <functional>

using namespace poslab;
using namespace poslab::ui;

namespace {

QStringList drawnItems(View& v, QSize size = QSize(1366, 768))
{
    QCoreApplication::processEvents();
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    TextRecord record;
    {
        QPainter p(&img);
        v.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QStringList out;
    for (const DrawnText& d : record.items())
        out << d.text;
    return out;
}

/// Selects token @p token of the mixed sequence, as a click does.
void selectToken(WorkbenchState& state, int token)
{
    SpatialSetup s = state.spatial();
    s.patch = token;
    QCOMPARE(state.setSpatial(s), QString());
}

QString drawnText(View& v, QSize size = QSize(1366, 768))
{
    QCoreApplication::processEvents();
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    TextRecord record;
    {
        QPainter p(&img);
        v.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QStringList out;
    for (const DrawnText& d : record.items())
        out << d.text;
    return out.join(QLatin1Char('\n'));
}

/// Shows @p v on screen at @p size and paints it once, so that the mouse maps through the layout it drew.
bool showOnScreen(View& v, QSize size = QSize(1100, 700))
{
    v.resize(size);
    v.show();
    if (!QTest::qWaitForWindowExposed(&v))
        return false;
    v.repaint();
    return true;
}

/// The mouse move the window system delivers to a mouse-tracking widget, at @p at.
void moveMouse(QWidget& w, QPointF at)
{
    QMouseEvent e(QEvent::MouseMove, at, w.mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

/// Moves the mouse over @p v along a grid of points until @p found holds; false when no point made it hold.
bool hoverUntil(View& v, const std::function<bool()>& found)
{
    for (double fy = 0.02; fy < 1.0; fy += 0.02)
        for (double fx = 0.01; fx < 1.0; fx += 0.01) {
            moveMouse(v, QPointF(v.width() * fx, v.height() * fy));
            if (found())
                return true;
        }
    return false;
}

/// The text the widget's own paint draws (hover read-outs are drawn on screen only), one item a line.
QString paintedText(View& v)
{
    QCoreApplication::processEvents();
    TextRecord record;
    v.repaint();
    QStringList out;
    for (const DrawnText& d : record.items())
        out << d.text;
    return out.join(QLatin1Char('\n'));
}

/// Opens step @p id in @p b and loads its figure the way the window does before the guess (MainWindow::
/// loadStepFigure: the step's state, the answer hidden).
void openStep(LessonBrowser& b, WorkbenchState& state, const QString& id)
{
    const lessons::Lesson* lesson = nullptr;
    int index = 0;
    QVERIFY(lessons::findStep(id, &lesson, &index));
    QVERIFY(b.open(int(lesson - lessons::lessons().constData()), index));
    QCOMPARE(state.fromJson(lessons::stepState(*lesson, index), true), QString());
}

} // namespace

class TestAnswerPending : public QObject {
    Q_OBJECT
private slots:
    void turningCountWaitsForTheGuess()
    {
        WorkbenchState state;
        Computation computation(&state);
        ExtensionView view(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("11.1"));
        QVERIFY(b.needsGuess());
        QVERIFY(state.answerPending());
        QVERIFY2(view.data().error.isEmpty(), qPrintable(view.data().error));
        // The answer as the notice computes it: the pairs that complete a turn in T = 4096 (46 at d = 128).
        const int turning = view.data().table.turning();
        QCOMPARE(turning, 46);
        const QString count = QStringLiteral("%1 turn inside T").arg(turning);
        const QString before = drawnText(view);
        QVERIFY2(!before.contains(count), qPrintable(before));
        QVERIFY2(!before.contains(QStringLiteral("pairs: ")), qPrintable(before));
        QVERIFY2(before.contains(QStringLiteral("inference length L")), qPrintable(before)); // the set-up stays
        QCOMPARE(b.commitGuess(QStringLiteral("30")), QString());
        QVERIFY(!state.answerPending());
        const QString after = drawnText(view);
        QVERIFY2(after.contains(count), qPrintable(after));
    }

    void otherExtensionAnswersWaitToo()
    {
        WorkbenchState state;
        Computation computation(&state);
        ExtensionView view(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("12.2"));
        QVERIFY(!drawnText(view).contains(QStringLiteral("attention factor")));
        QCOMPARE(b.commitGuess(QStringLiteral("1.1")), QString());
        QVERIFY(drawnText(view).contains(QStringLiteral("attention factor")));

        openStep(b, state, QStringLiteral("12.1"));
        QVERIFY(state.answerPending());
        // The header's band counts ("pairs: 21 extrapolated · ...") answer it (pairs 0 to 20 keep their speed).
        QVERIFY(!drawnText(view).contains(QStringLiteral("pairs: ")));
        QCOMPARE(b.commitGuess(QStringLiteral("20")), QString());
        const QString kept = drawnText(view);
        QVERIFY2(kept.contains(QStringLiteral("pairs: 21 extrapolated")), qPrintable(kept));
    }

    void baseInForceWaits()
    {
        // 11.5 asks for a base in force. NTK-aware at factor 8 (the set-up tst_extensionview reads the base from,
        // 10000 * 8^(128/126) = 82,700): the header states it, and not while an answer is pending.
        WorkbenchState state;
        QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
        QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("ntk")), QString());
        QCOMPARE(state.setParamText(QStringLiteral("factor"), QStringLiteral("8")), QString());
        QCOMPARE(state.setDim(128), QString());
        Computation computation(&state);
        ExtensionView view(&state, &computation);
        QVERIFY(drawnText(view).contains(QStringLiteral("base \u03b8' = ")));
        state.setAnswerPending(true);
        QVERIFY(!drawnText(view).contains(QStringLiteral("base \u03b8'")));
        state.setAnswerPending(false);
        QVERIFY(drawnText(view).contains(QStringLiteral("base \u03b8' = ")));
    }

    void clockPeriodsAndPrecisionNoteWait()
    {
        // 2.2 asks for hand 63's period (54,410.1 tokens at d = 128): the clock's period labels wait.
        WorkbenchState state;
        Computation computation(&state);
        ClockView clock(&state, &computation);
        PrecisionView precision(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("2.2"));
        QVERIFY(state.answerPending());
        const QString before = drawnText(clock);
        QVERIFY2(!before.contains(QStringLiteral("54,4")), qPrintable(before));
        QVERIFY2(before.contains(QStringLiteral("pair 63")), qPrintable(before)); // the hands stay named
        QCOMPARE(b.commitGuess(QStringLiteral("60000")), QString());
        const QString after = drawnText(clock);
        QVERIFY2(after.contains(QStringLiteral("54,4")), qPrintable(after));
        // 13.2 asks for float16's first shared rotation: the precision view's header note waits.
        openStep(b, state, QStringLiteral("13.2"));
        QVERIFY(!drawnText(precision).contains(QStringLiteral("share one rotation")));
        QCOMPARE(b.commitGuess(QStringLiteral("2048")), QString());
        QVERIFY(drawnText(precision).contains(QStringLiteral("share one rotation")));
    }

    void rotationScoresWaitForTheGuess()
    {
        WorkbenchState state;
        Computation computation(&state);
        RotationView rotation(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("8.3"));
        QVERIFY(state.answerPending());
        const QString before = drawnText(rotation);
        for (const char* answer : {"score q", "unchanged", "changed by", "\u03b8 "})
            QVERIFY2(!before.contains(QString::fromUtf8(answer)), qPrintable(before));
        QVERIFY2(before.contains(QStringLiteral("pair 0")), qPrintable(before)); // the planes stay
        QVERIFY2(before.contains(QStringLiteral("after the guess")), qPrintable(before));
        QCOMPARE(b.commitGuess(QStringLiteral("1")), QString());
        const QString after = drawnText(rotation);
        QVERIFY2(after.contains(QStringLiteral("score")) && after.contains(QStringLiteral("\u03b8 ")),
                 qPrintable(after));
        QVERIFY2(!after.contains(QStringLiteral("after the guess")), qPrintable(after));
        openStep(b, state, QStringLiteral("8.1")); // faster or slower: the thetas wait
        QVERIFY(!drawnText(rotation).contains(QStringLiteral("\u03b8 ")));
    }

    void imageIdsWaitFor181()
    {
        // 18.1 asks for the ids of the image's first token, token 4 (get_rope_index: (4, 4, 4)); the twelve
        // image tokens' ids, its block's cells and the header wait, the text tokens' ids stay.
        WorkbenchState state;
        Computation computation(&state);
        SequenceView view(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("18.1"));
        QVERIFY(state.answerPending());
        QCOMPARE(state.answerPendingStep(), QStringLiteral("18.1"));
        QVERIFY2(view.data().error.isEmpty(), qPrintable(view.data().error));
        QCOMPARE(view.data().ids(0, 4), 4); // the answer the view holds
        QCOMPARE(view.readout(3), QStringLiteral("token 3  \u00b7  t 3, h 3, w 3"));
        for (int n = 4; n < 16; ++n)
            QCOMPARE(view.readout(n), QStringLiteral("token %1  \u00b7  t ?, h ?, w ?").arg(n));
        QCOMPARE(view.readout(4), QStringLiteral("token 4  \u00b7  t ?, h ?, w ?"));
        selectToken(state, 4);
        QStringList before = drawnItems(view);
        QVERIFY2(before.join(u'\n').contains(QStringLiteral("token 4: t ?, h ?, w ?")), qPrintable(before.join(u'\n')));
        QVERIFY2(!before.contains(QStringLiteral("4,4")), qPrintable(before.join(u'\n'))); // the block's first cell
        QVERIFY2(before.contains(QStringLiteral("?,?")), qPrintable(before.join(u'\n')));
        QVERIFY2(before.contains(QStringLiteral("3")), qPrintable(before.join(u'\n'))); // token 3's ids stay
        for (const char* id : {"5", "6", "7"})                                          // no image id is drawn
            QVERIFY2(!before.contains(QLatin1String(id)), qPrintable(before.join(u'\n')));
        QCOMPARE(b.commitGuess(QStringLiteral("1")), QString());
        QVERIFY(!state.answerPending());
        QCOMPARE(view.readout(4), QStringLiteral("token 4  \u00b7  t 4, h 4, w 4"));
        QCOMPARE(view.readout(15), QStringLiteral("token 15  \u00b7  t 4, h 6, w 7"));
        const QStringList after = drawnItems(view);
        QVERIFY2(after.join(u'\n').contains(QStringLiteral("token 4: t 4, h 4, w 4")), qPrintable(after.join(u'\n')));
        QVERIFY2(after.contains(QStringLiteral("4,4")) && after.contains(QStringLiteral("6,7")),
                 qPrintable(after.join(u'\n')));
    }

    void textAfterTheImageWaitsFor182()
    {
        // 18.2 asks for token 16's id: the text after the image goes on from the image's largest id + 1 = 8.
        WorkbenchState state;
        Computation computation(&state);
        SequenceView view(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("18.2"));
        QVERIFY(state.answerPending());
        QCOMPARE(view.data().ids(0, 16), 8);
        QCOMPARE(view.readout(16), QStringLiteral("token 16  \u00b7  t ?, h ?, w ?"));
        QCOMPARE(view.readout(15), QStringLiteral("token 15  \u00b7  t 4, h 6, w 7")); // the image's ids stay
        const QStringList before = drawnItems(view);
        QVERIFY2(before.join(u'\n').contains(QStringLiteral("token 15: t 4, h 6, w 7")),
                 qPrintable(before.join(u'\n')));
        QCOMPARE(b.commitGuess(QStringLiteral("16")), QString());
        QCOMPARE(view.readout(16), QStringLiteral("token 16  \u00b7  t 8, h 8, w 8"));
        const QStringList after = drawnItems(view);
    }

    void videoTimeIdsWaitFor184()
    {
        // 18.4 asks for the last step's time id in Qwen2.5-VL (2 + floor(2 x 1 x 2) = 6, token 10): the video's
        // t ids wait, and every id of the text after it (7 and 8 on all three axes would tell it); h and w stay.
        WorkbenchState state;
        Computation computation(&state);
        SequenceView view(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("18.4"));
        QVERIFY(state.answerPending());
        QCOMPARE(view.data().ids(0, 10), 6);
        QCOMPARE(view.readout(10), QStringLiteral("token 10  \u00b7  t ?, h 2, w 2"));
        QCOMPARE(view.readout(14), QStringLiteral("token 14  \u00b7  t ?, h ?, w ?"));
        QCOMPARE(view.readout(1), QStringLiteral("token 1  \u00b7  t 1, h 1, w 1"));
        selectToken(state, 10);
        const QStringList before = drawnItems(view);
        QVERIFY2(before.join(u'\n').contains(QStringLiteral("token 10: t ?, h 2, w 2")),
                 qPrintable(before.join(u'\n')));
        for (const char* id : {"4", "6", "7", "8"})
            QVERIFY2(!before.contains(QLatin1String(id)), qPrintable(before.join(u'\n')));
        QCOMPARE(b.commitGuess(QStringLiteral("6")), QString());
        QCOMPARE(view.readout(10), QStringLiteral("token 10  \u00b7  t 6, h 2, w 2"));
        QCOMPARE(view.readout(14), QStringLiteral("token 14  \u00b7  t 7, h 7, w 7"));
        const QStringList after = drawnItems(view);
        QVERIFY2(after.join(u'\n').contains(QStringLiteral("token 10: t 6, h 2, w 2")), qPrintable(after.join(u'\n')));
    }

    void pairAxesWaitFor185AndScoresFor172()
    {
        // 18.5 asks which id turns pair 62 in Qwen3-VL (t: apply_interleaved_mrope interleaves only pairs below
        // 3 x 20 = 60): the strip's pairs 60-63 and its per-axis counts wait.
        WorkbenchState state;
        Computation computation(&state);
        SequenceView sequence(&state, &computation);
        PatchGridView grid(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("18.5"));
        QCOMPARE(sequence.data().pairAxis[62], 0);
        QVERIFY(!drawnText(sequence).contains(QStringLiteral("t 24")));
        QCOMPARE(b.commitGuess(QStringLiteral("0")), QString());
        QVERIFY(drawnText(sequence).contains(QStringLiteral("t 24")));
        // 17.2: patch (7, 4)'s score with itself, 64 / sqrt(64) = 8.
        openStep(b, state, QStringLiteral("17.2"));
        QVERIFY(state.answerPending());
        QCOMPARE(grid.readout(102), QStringLiteral("patch (7, 4)  \u00b7  score ? to (7, 4)"));
        QCOMPARE(b.commitGuess(QStringLiteral("8")), QString());
        QCOMPARE(grid.readout(102), QStringLiteral("patch (7, 4)  \u00b7  score 8 to (7, 4)"));
    }

    void tableAndClockReadoutsWaitFor22()
    {
        // 2.2 asks for hand 63's period. The table's read-out of a cell in pair 63's columns states its wavelength
        // 2π/ω = 2π·10000^(126/128) = 54,410.1 tokens, and the clock's read-out of hand 63 its period.
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        ClockView clock(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("2.2"));
        QVERIFY(state.answerPending());
        QVERIFY(showOnScreen(table));
        QTRY_VERIFY(table.currentResult() && table.cellCentre(40, 126));
        table.repaint();
        moveMouse(table, *table.cellCentre(40, 126));
        QCOMPARE(table.hoveredCell(), std::optional<QPoint>(QPoint(126, 40)));
        const QString cell = table.readout(40, 126);
        QCOMPARE(cell, QStringLiteral("p = 40  \u00b7  dim 126 (pair 63)  \u00b7  values after your guess"));
        QVERIFY2(paintedText(table).contains(cell), qPrintable(paintedText(table)));
        QVERIFY(showOnScreen(clock));
        QVERIFY(hoverUntil(clock, [&] { return clock.hoverReadout().startsWith(QStringLiteral("pair 63 ")); }));
        QCOMPARE(clock.hoverReadout(), QStringLiteral("pair 63  \u00b7  values after your guess"));
        QVERIFY2(!paintedText(clock).contains(QStringLiteral("54,4")), qPrintable(paintedText(clock)));

        QCOMPARE(b.commitGuess(QStringLiteral("60000")), QString());
        QVERIFY(!state.answerPending());
        const QString value = table.readout(40, 126);
        QVERIFY2(value.contains(QStringLiteral("  \u00b7  value "))
                     && value.contains(QStringLiteral("2\u03c0/\u03c9 = 54,4")),
                 qPrintable(value));
        QVERIFY2(!value.contains(QStringLiteral("after your guess")), qPrintable(value));
        QVERIFY2(paintedText(table).contains(QStringLiteral("54,4")), qPrintable(paintedText(table)));
        const QString hand = clock.hoverReadout();
        QVERIFY2(hand.startsWith(QStringLiteral("pair 63  \u00b7  \u03c9 = "))
                     && hand.contains(QStringLiteral("period 54,4")),
                 qPrintable(hand));
    }

    void attentionCellWaitsFor14()
    {
        // 1.4 asks for the weight row 9 gives key 0 with identical tokens under the causal mask: 1/10.
        WorkbenchState state;
        Computation computation(&state);
        AttentionView view(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("1.4"));
        QVERIFY(state.answerPending());
        QVERIFY(showOnScreen(view));
        QTRY_VERIFY(view.output() && view.output()->matrix.rows() == 10 && view.cellCentre(9, 0));
        view.repaint();
        moveMouse(view, *view.cellCentre(9, 0));
        QCOMPARE(view.hoveredCell(), std::optional<QPoint>(QPoint(0, 9)));
        QCOMPARE(view.hoverReadout(), QStringLiteral("query 9  \u00b7  key 0  \u00b7  values after your guess"));
        QVERIFY2(paintedText(view).contains(view.hoverReadout()), qPrintable(paintedText(view)));
        QCOMPARE(b.commitGuess(QStringLiteral("0.1")), QString());
        QCOMPARE(view.output()->matrix(9, 0), 0.1f);
        QCOMPARE(view.hoverReadout(), QStringLiteral("query 9  \u00b7  key 0  \u00b7  probability 0.1"));
        QVERIFY2(paintedText(view).contains(view.hoverReadout()), qPrintable(paintedText(view)));
    }

    void decayAndRotationReadoutsWait()
    {
        // 3.2 asks for PE(p)·PE(p) at d = 128: d/2 sin² + cos² terms, 64, the decay curve's value at k = 0.
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        RotationView rotation(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("3.2"));
        QVERIFY(state.answerPending());
        // The first curve once 3.2's numbers are in (the view starts on the default RoPE set-up's).
        QTRY_VERIFY((decay.hoverAt(0, 0), decay.readoutText().startsWith(QStringLiteral("sinusoidal"))));
        QVERIFY2(decay.readoutText().endsWith(QStringLiteral("k = 0 tokens,  value after your guess")),
                 qPrintable(decay.readoutText()));
        QCOMPARE(b.commitGuess(QStringLiteral("64")), QString());
        QVERIFY2(decay.readoutText().endsWith(QStringLiteral("k = 0 tokens,  value 64")),
                 qPrintable(decay.readoutText()));

        // 8.1 asks whether pair 3 turns slower than pair 0: the plane's read-out states each pair's θ.
        openStep(b, state, QStringLiteral("8.1"));
        QVERIFY(state.answerPending());
        QVERIFY(showOnScreen(rotation));
        QVERIFY(hoverUntil(rotation, [&] { return rotation.hoverReadout().startsWith(QStringLiteral("pair 3 ")); }));
        QCOMPARE(rotation.hoverReadout(), QStringLiteral("pair 3 (dims 6, 7)  \u00b7  values after your guess"));
        QCOMPARE(b.commitGuess(QStringLiteral("1")), QString());
        QVERIFY2(rotation.hoverReadout().contains(QStringLiteral("\u03b8 = 0.001 rad/token")),
                 qPrintable(rotation.hoverReadout()));
    }

    void spatialScoresWaitWhileAGuessIsDue()
    {
        // The sequence view's and the patch grid's scores follow the same rule; a step's "hide" keeps its finer
        // rule for the position ids (18.x above) and for 17.2's score ("?").
        WorkbenchState state;
        Computation computation(&state);
        SequenceView sequence(&state, &computation);
        PatchGridView grid(&state, &computation);
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("17.2"));
        QCOMPARE(b.commitGuess(QStringLiteral("8")), QString());
        const QString score = grid.readout(102);
        QCOMPARE(score, QStringLiteral("patch (7, 4)  \u00b7  score 8 to (7, 4)"));
        state.setAnswerPending(true); // a guess due with no "hide" of its own
        QCOMPARE(grid.readout(102), QStringLiteral("patch (7, 4)  \u00b7  values after your guess"));
        state.setAnswerPending(false);
        QCOMPARE(grid.readout(102), score);
        openStep(b, state, QStringLiteral("18.1"));
        QCOMPARE(b.commitGuess(QStringLiteral("1")), QString());
        QVERIFY2(sequence.readout(5, 4).contains(QStringLiteral("score ")), qPrintable(sequence.readout(5, 4)));
        state.setAnswerPending(true);
        QCOMPARE(sequence.readout(5, 4), QStringLiteral("query 5  \u00b7  key 4  \u00b7  values after your guess"));
        QCOMPARE(sequence.readout(3), QStringLiteral("token 3  \u00b7  t 3, h 3, w 3")); // where a token stands
    }

    void configurationBAndClosedLessonsFollow()
    {
        WorkbenchState state;
        LessonBrowser b(&state);
        openStep(b, state, QStringLiteral("11.1"));
        QVERIFY(state.answerPending());
        QVERIFY(state.compareState()->answerPending()); // B's views read A's flag
        b.setAnswersShown(false);                       // the lessons closed: nothing is hidden
        QVERIFY(!state.answerPending());
        b.setAnswersShown(true);
        QVERIFY(state.answerPending());
        // Once the guess is in, nothing is hidden.
        openStep(b, state, QStringLiteral("11.1"));
        QCOMPARE(b.commitGuess(QStringLiteral("46")), QString());
        QVERIFY(!state.answerPending());
    }
};

QTEST_MAIN(TestAnswerPending)
#include "tst_answerpending.moc"
