// SPDX-License-Identifier: MIT
// The context-extension view: it draws core's numbers (ExtensionFigure, the table of
// `poslab compute extension`), follows its view options, names the Llama 3 bands with their edges in tokens, says
// when extension_pair names no pair, and dragging the inference-length line sets target_length (undoably).
#include "ui/figures/computation.h"
#include "ui/lessons/lesson.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/extensionview.h"
#include "ui/state/workbenchstate.h"

#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

QStringList drawnTexts(View& v, QSize size)
{
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

} // namespace

class TestExtensionView : public QObject {
    Q_OBJECT
private slots:
    void llama31();
    void optionsReachTheTable();
    void notApplicable();
    void dragSetsTheInferenceLength();
    void dragKeepsTheAxisUnderTheMouse();
    void clickAndSpinBoxSelectAPair();
    void typedLengthTakesAnyValue();
    void hoverReadsThePairUnderTheMouse();
    void headerShowsTheBaseInForce();
    void baseInForceStaysVisible_data();
    void baseInForceStaysVisible();
    void trainedWindowKeepsALabel();
};

void TestExtensionView::llama31()
{
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("llama3")), QString());
    QCOMPARE(state.setDim(128), QString());
    QCOMPARE(state.setProperty(QStringLiteral("target_length"), 131072), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    const core::ExtensionTable& t = view.data().table;
    QVERIFY2(view.data().error.isEmpty(), qPrintable(view.data().error));
    QCOMPARE(t.count(core::ExtensionBand::Kept), 29);
    QCOMPARE(t.count(core::ExtensionBand::Blended), 6);
    QCOMPARE(t.count(core::ExtensionBand::Divided), 29);
    QCOMPARE(t.length, core::Position(131072));
    // The same table as `poslab compute extension` (the registry's data export uses ExtensionFigure::request).
    const core::ComputeResult r
        = core::compute(ExtensionFigure::request(ExtensionFigure::inputsOf(FigureSnapshot::of(state))));
    const std::size_t cols = r.shape[1];
    for (std::size_t i = 0; i < t.pairs.size(); ++i)
        QCOMPARE(r.data[i * cols + 4], t.pairs[i].scale);
    const QStringList texts = drawnTexts(view, QSize(1366, 768));
    QVERIFY2(texts.contains(QStringLiteral("kept: \u03bb < 2,048")), qPrintable(texts.join(" | ")));
    QVERIFY2(texts.contains(QStringLiteral("divided by 8: \u03bb > 8,192")), qPrintable(texts.join(" | ")));
    QVERIFY2(texts.filter(QStringLiteral("L = 131,072")).size() >= 1, qPrintable(texts.join(" | ")));
    QVERIFY2(texts.filter(QStringLiteral("Llama 3 (this scheme)")).size() == 1, qPrintable(texts.join(" | ")));
}

void TestExtensionView::optionsReachTheTable()
{
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setDim(64), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    // Plain RoPE, no window in the parameters: T = L = the positions.
    QCOMPARE(view.data().table.trainedLength, core::Position(state.positionCount()));
    QCOMPARE(state.setProperty(QStringLiteral("trained_length"), 256), QString());
    QCOMPARE(view.data().table.trainedLength, core::Position(256));
    QCOMPARE(state.setProperty(QStringLiteral("extension_pair"), 5), QString());
    QCOMPARE(view.data().pair, 5);
    QVERIFY(!view.data().automaticPair);
    // A pair the set-up does not have: said, not clamped silently.
    QCOMPARE(state.setProperty(QStringLiteral("extension_pair"), 40), QString());
    QVERIFY(view.data().pairError.contains(QStringLiteral("extension_pair 40 does not exist")));
    const QStringList texts = drawnTexts(view, QSize(1366, 768));
    QVERIFY2(texts.join(QLatin1Char(' ')).contains(QStringLiteral("does not exist")), qPrintable(texts.join(" | ")));
    // This scheme only: one scale curve in the legend.
    QCOMPARE(state.setPropertyText(QStringLiteral("extension_methods"), QStringLiteral("scheme")), QString());
    const QStringList only = drawnTexts(view, QSize(1366, 768));
    QVERIFY2(only.filter(QStringLiteral("PI (linear)")).isEmpty(), qPrintable(only.join(" | ")));
    QVERIFY2(!only.filter(QStringLiteral("this scheme (default)")).isEmpty(), qPrintable(only.join(" | ")));
}

void TestExtensionView::notApplicable()
{
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("alibi")), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    QVERIFY(!view.isApplicable());
    const QStringList texts = drawnTexts(view, QSize(800, 500));
    QVERIFY(texts.contains(QStringLiteral("Not applicable to this scheme")));
}

void TestExtensionView::dragSetsTheInferenceLength()
{
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("llama3")), QString());
    QCOMPARE(state.setDim(128), QString());
    QCOMPARE(state.setProperty(QStringLiteral("target_length"), 131072), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    view.resize(1366, 768);
    view.grab(); // an on-screen paint places the line
    const double y = view.lengthMarkerY();
    QVERIFY(y > 0);
    const QPointF start(view.width() * 0.3, y);
    QMouseEvent press(QEvent::MouseButtonPress, start, view.mapToGlobal(start), Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QApplication::sendEvent(&view, &press);
    const QPointF lower(start.x(), y + 40);
    QMouseEvent move(QEvent::MouseMove, lower, view.mapToGlobal(lower), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QMouseEvent release(QEvent::MouseButtonRelease, lower, view.mapToGlobal(lower), Qt::LeftButton, Qt::NoButton,
                        Qt::NoModifier);
    QApplication::sendEvent(&view, &release);
    const int dragged = state.viewOptions().targetLength;
    QVERIFY2(dragged > 0 && dragged < 131072, qPrintable(QString::number(dragged))); // lower on a log axis: shorter
    QCOMPARE(view.data().table.length, core::Position(dragged));
    state.undoStack()->undo();
    QCOMPARE(state.viewOptions().targetLength, 131072);
}

namespace {

void mouse(QWidget& w, QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent e(type, at, w.mapToGlobal(at), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

} // namespace

void TestExtensionView::dragKeepsTheAxisUnderTheMouse()
{
    // A drag of 26 px took L from 48,748 to 1,057 because the log axis refitted to each new L. While
    // dragging, the axis stays where the drag began, so the length follows the handle's height on one axis: two
    // moves 50 px apart in the same direction change log10 L by the same amount.
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setDim(128), QString());
    // L above every wavelength: L sets the axis's top decade, so a refitting axis would move under the handle.
    QCOMPARE(state.setProperty(QStringLiteral("target_length"), 5000000), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    view.resize(1366, 768);
    view.grab();
    const double y = view.lengthMarkerY();
    QVERIFY(y > 0);
    const double x = view.width() * 0.3;
    mouse(view, QEvent::MouseButtonPress, {x, y}, Qt::LeftButton, Qt::LeftButton);
    std::vector<double> logs;
    for (int k = 1; k <= 3; ++k) {
        mouse(view, QEvent::MouseMove, {x, y + 50.0 * k}, Qt::NoButton, Qt::LeftButton);
        view.grab(); // each step repaints, as in the window
        logs.push_back(std::log10(double(state.viewOptions().targetLength)));
    }
    mouse(view, QEvent::MouseButtonRelease, {x, y + 150}, Qt::LeftButton, Qt::NoButton);
    const double step1 = logs[0] - std::log10(5000000.0), step2 = logs[1] - logs[0], step3 = logs[2] - logs[1];
    QVERIFY2(step1 < 0 && step2 < 0 && step3 < 0,
             qPrintable(QStringLiteral("%1 %2 %3").arg(step1).arg(step2).arg(step3)));
    // Rounding L to a whole token is the only difference between equal steps.
    QVERIFY2(std::abs(step2 - step3) < 0.01, qPrintable(QStringLiteral("%1 vs %2").arg(step2).arg(step3)));
    QVERIFY2(std::abs(step1 - step2) < 0.01, qPrintable(QStringLiteral("%1 vs %2").arg(step1).arg(step2)));
}

void TestExtensionView::clickAndSpinBoxSelectAPair()
{
    // The view has a pair spin box and a click selects a pair.
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setDim(128), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    view.resize(1366, 768);
    auto* spin = view.controls()->findChild<QSpinBox*>(QStringLiteral("extensionPair"));
    QVERIFY(spin);
    QCOMPARE(spin->value(), -1);   // automatic
    QCOMPARE(spin->maximum(), 63); // d = 128: pairs 0..63
    spin->setValue(20);
    QCOMPARE(state.viewOptions().extensionPair, 20);
    QCOMPARE(view.data().pair, 20);
    spin->stepBy(-1);
    QCOMPARE(state.viewOptions().extensionPair, 19);
    view.grab();
    // Pair 40's column: the middle of the 41st of 64 equal columns of the plot; pairAt reads it back.
    int found = -1;
    for (double x = 0; x < view.width() && found != 40; x += 1.0)
        if (view.pairAt({x, view.height() * 0.4}) == 40)
            found = 40,
            mouse(view, QEvent::MouseButtonPress, {x + 2, view.height() * 0.4}, Qt::LeftButton, Qt::LeftButton);
    QCOMPARE(found, 40);
    QCOMPARE(state.viewOptions().extensionPair, 40);
    QCOMPARE(spin->value(), 40); // the spin box follows the state
    state.undoStack()->undo();
    QCOMPARE(state.viewOptions().extensionPair, 19);
}

void TestExtensionView::typedLengthTakesAnyValue()
{
    // 4096, 8192, 32768 and 4097 typed exactly, with no drag.
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("dynamic")), QString());
    QCOMPARE(state.setDim(128), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    auto* length = view.controls()->findChild<QSpinBox*>(QStringLiteral("extensionLength"));
    QVERIFY(length);
    for (int L : {4096, 4097, 8192, 32768}) {
        length->setValue(L);
        QCOMPARE(state.viewOptions().targetLength, L);
        QCOMPARE(view.data().table.length, core::Position(L));
    }
    // Typed text, then Enter: the keyboard path a learner takes.
    length->selectAll();
    QTest::keyClicks(length, QStringLiteral("16384"));
    QTest::keyClick(length, Qt::Key_Return);
    QCOMPARE(state.viewOptions().targetLength, 16384);
    length->setValue(0);
    QCOMPARE(state.viewOptions().targetLength, 0); // back to the positions
    QCOMPARE(length->text(), QStringLiteral("L: positions"));
}

void TestExtensionView::hoverReadsThePairUnderTheMouse()
{
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("linear")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("factor"), QStringLiteral("4")), QString());
    QCOMPARE(state.setDim(128), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    view.resize(1366, 768);
    view.grab();
    double x = 0;
    while (x < view.width() && view.pairAt({x, view.height() * 0.4}) != 10)
        x += 1.0;
    QVERIFY(x < view.width());
    mouse(view, QEvent::MouseMove, {x + 2, view.height() * 0.4}, Qt::NoButton, Qt::NoButton);
    QCOMPARE(view.hoveredPair(), 10);
    // The read-out is core's numbers for pair 10: PI slows every pair by exactly the factor.
    const core::ExtensionPair& q = view.data().table.pairs[10];
    QCOMPARE(q.scale, 4.0);
    const QImage shown = view.grab().toImage();
    QVERIFY(!shown.isNull());
    // Not in exports: a render that is not on screen shows no hover tag.
    const QStringList texts = drawnTexts(view, QSize(1366, 768));
    QVERIFY(texts.filter(QStringLiteral("pair 10: wavelength")).isEmpty());
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(&view, &leave);
    QCOMPARE(view.hoveredPair(), -1);
}

void TestExtensionView::headerShowsTheBaseInForce()
{
    // NTK-aware's base theta * s^(r/(r-2)) (bloc97's rule, Hugging
    // Face _compute_dynamic_ntk_parameters / the ntk branch), 10000 * 8^(128/126) = 82,700 for d = 128.
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("ntk")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("factor"), QStringLiteral("8")), QString());
    QCOMPARE(state.setDim(128), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    const double expected = 10000.0 * std::pow(8.0, 128.0 / 126.0);
    QVERIFY(std::abs(view.data().table.effectiveBase - expected) < 1e-6 * expected);
    const QStringList texts = drawnTexts(view, QSize(1366, 768));
    const QString base = formatNumber(expected, 6);
    QVERIFY2(texts.filter(QStringLiteral("base \u03b8' = %1").arg(base)).size() == 1, qPrintable(texts.join(" | ")));
}

void TestExtensionView::baseInForceStaysVisible_data()
{
    QTest::addColumn<QString>("step");
    QTest::addColumn<int>("length");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<double>("fontScale");
    QTest::addColumn<double>("expected");
    // NTK-aware (bloc97; Hugging Face _compute_ntk_parameters): base * s^(d/(d-2)); lesson 11.4 at s = 4, d = 128.
    const double ntk = 10000.0 * std::pow(4.0, 128.0 / 126.0);
    // Dynamic NTK (Hugging Face _compute_dynamic_ntk_parameters): seq_len = max(seq_len, max_position_embeddings),
    // base * (s * seq_len / max_position_embeddings - (s - 1))^(d/(d-2)); lesson 11.5 at s = 2, 4096, d = 128.
    const auto dynamic = [](double length) {
        return 10000.0 * std::pow(2.0 * std::max(length, 4096.0) / 4096.0 - 1.0, 128.0 / 126.0);
    };
    // 740 x 610: the view in the window at 1366 x 768 (font scale 1 and 2), where the header dropped the base;
    // 370 wide: a compare half (at font scale 2 too small to draw: the view says so); 1366 x 768: the view alone.
    for (const QSize size : {QSize(740, 610), QSize(370, 610), QSize(1366, 768)})
        for (const double scale : {1.0, 2.0}) {
            if (size.width() < 400 && scale > 1.0)
                continue;
            const QString at = QStringLiteral("%1x%2 font %3").arg(size.width()).arg(size.height()).arg(scale);
            QTest::addRow("11.4 ntk %s", qPrintable(at)) << "11.4" << 0 << size << scale << ntk;
            for (const int l : {2048, 8192, 16384})
                QTest::addRow("11.5 dynamic L %d %s", l, qPrintable(at)) << "11.5" << l << size << scale << dynamic(l);
        }
}

void TestExtensionView::baseInForceStaysVisible()
{
    // Issue 23: after the guess the base in force is the answer a step reads ("Read the new base"), and the header
    // dropped it at about 740 px and always for dynamic NTK. It is drawn whole, once, at every size and font scale.
    QFETCH(QString, step);
    QFETCH(int, length);
    QFETCH(QSize, size);
    QFETCH(double, fontScale);
    QFETCH(double, expected);
    const lessons::Lesson* lesson = nullptr;
    int index = 0;
    QVERIFY(lessons::findStep(step, &lesson, &index));
    WorkbenchState state;
    QCOMPARE(state.fromJson(lessons::stepState(*lesson, index)), QString());
    if (length > 0)
        QCOMPARE(state.setProperty(QStringLiteral("target_length"), length), QString());
    QCOMPARE(state.setProperty(QStringLiteral("font_scale"), fontScale), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    QVERIFY(std::abs(view.data().table.effectiveBase - expected) < 1e-9 * expected);
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    TextRecord record;
    {
        QPainter p(&img);
        view.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    const QString base = QStringLiteral("base \u03b8' = %1").arg(formatNumber(expected, 6));
    QStringList texts, found;
    for (const DrawnText& d : record.items()) {
        texts << d.text;
        if (d.text.contains(base))
            found << d.text;
    }
    QVERIFY2(found.size() == 1, qPrintable(texts.join(" | ")));
    QVERIFY2(!found.front().contains(QChar(0x2026)), qPrintable(found.front())); // not elided
}

QTEST_MAIN(TestExtensionView)
void TestExtensionView::trainedWindowKeepsALabel()
{
    // Lesson 12.1's set-up at projector size and font scale 2: the L line and the band edge at 128 tokens run so
    // close above and below T = 4,096 that no place beside T's line is free; its label goes past the line's right
    // end instead of being left out, and crosses no line.
    WorkbenchState state;
    QCOMPARE(state.setScheme(QStringLiteral("rope")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("yarn")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("factor"), QStringLiteral("4")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("original_max_position_embeddings"), QStringLiteral("4096")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("rope_theta"), QStringLiteral("10000")), QString());
    QCOMPARE(state.setParamText(QStringLiteral("layout"), QStringLiteral("half_split")), QString());
    QCOMPARE(state.setDim(128), QString());
    QCOMPARE(state.setPositionCount(64), QString());
    QCOMPARE(state.setProperty(QStringLiteral("target_length"), 16384), QString());
    QCOMPARE(state.setProperty(QStringLiteral("extension_pair"), 20), QString());
    QCOMPARE(state.setPropertyText(QStringLiteral("extension_methods"), QStringLiteral("scheme")), QString());
    QCOMPARE(state.setProperty(QStringLiteral("font_scale"), 2.0), QString());
    Computation computation(&state);
    ExtensionView view(&state, &computation);
    QCOMPARE(view.data().table.trainedLength, core::Position(4096));
    QImage img(QSize(1366, 768), QImage::Format_ARGB32_Premultiplied);
    TextRecord record;
    {
        QPainter p(&img);
        view.render(p, QRectF(0, 0, 1366, 768));
    }
    const QStringList wordings{QStringLiteral("trained window T = 4,096 (given)"),
                               QStringLiteral("trained window T = 4,096"), QStringLiteral("trained T = 4,096"),
                               QStringLiteral("T = 4,096"), QStringLiteral("T")};
    QRectF label;
    QStringList texts;
    for (const DrawnText& d : record.items()) {
        texts << d.text;
        if (wordings.contains(d.text) || d.text.startsWith(QLatin1String("trained window T = 4,096")))
            label = d.rect;
    }
    QVERIFY2(!label.isEmpty(), qPrintable(texts.join(" | ")));
    const QStringList crossed = linesThroughText(record.items(), record.lines());
    QVERIFY2(crossed.isEmpty(), qPrintable(crossed.join(" | ")));
}

#include "tst_extensionview.moc"
