// SPDX-License-Identifier: MIT
// The context-extension view (issue 12): it draws core's numbers (Computation::extensionData, the table of
// `poslab compute extension`), follows its view options, names the Llama 3 bands with their edges in tokens, says
// when extension_pair names no pair, and dragging the inference-length line sets target_length (undoably).
#include "ui/computation.h"
#include "ui/render/textlayout.h"
#include "ui/views/extensionview.h"
#include "ui/workbenchstate.h"

#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QTest>
#include <QUndoStack>

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
    // The same table as `poslab compute extension` (the registry's data export uses extensionRequest).
    const core::ComputeResult r = core::compute(Computation::extensionRequest(state.setup(), state.viewOptions()));
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
    QMouseEvent press(QEvent::MouseButtonPress, start, view.mapToGlobal(start), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &press);
    const QPointF lower(start.x(), y + 40);
    QMouseEvent move(QEvent::MouseMove, lower, view.mapToGlobal(lower), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QMouseEvent release(QEvent::MouseButtonRelease, lower, view.mapToGlobal(lower), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &release);
    const int dragged = state.viewOptions().targetLength;
    QVERIFY2(dragged > 0 && dragged < 131072, qPrintable(QString::number(dragged))); // lower on a log axis: shorter
    QCOMPARE(view.data().table.length, core::Position(dragged));
    state.undoStack()->undo();
    QCOMPARE(state.viewOptions().targetLength, 131072);
}

QTEST_MAIN(TestExtensionView)
#include "tst_extensionview.moc"
