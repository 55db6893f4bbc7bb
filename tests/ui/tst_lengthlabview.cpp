// SPDX-License-Identifier: MIT
// The lengthlab view: draws a run file of poslab train (here written by core::train::writeRuns from
// hand-made results, so the numbers are known): one curve per seed and a mean per scheme, the trained length
// marked, the learned table's missing rows named; no text collides at 1366 x 768 or at font scale 2; without a run
// file, and with an unreadable one, the view says so. The registry's data export holds the same numbers.
// A scheme keeps its colour whatever the order of the runs; hovering a point reads out scheme, length
// and value; the Train panel's measure toggle switches exact match and token accuracy (core's numbers); the loss
// curve of a run file is kept in the figure; a line says what the task is and what "converged" means.
#include "core/train/trainer.h"
#include "ui/figures/computation.h"
#include "ui/render/textlayout.h"
#include "ui/views/trainpanel.h"
#include "ui/views/lengthlabview.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QComboBox>
#include <QMouseEvent>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace poslab;
using namespace poslab::ui;
namespace tr = poslab::core::train;

namespace {

tr::RunResult run(const char* scheme, std::uint64_t seed, std::vector<double> exact, bool learned = false)
{
    tr::RunResult r;
    r.config.scheme = scheme;
    r.config.seed = seed;
    r.config.trainLen = 10;
    const int lengths[] = {10, 20, 40, 80};
    for (std::size_t i = 0; i < exact.size(); ++i) {
        tr::LengthPoint p;
        p.length = lengths[i];
        p.exactMatch = exact[i];
        p.tokenAccuracy = 0.5 + exact[i] / 2;
        p.loss = 1.0 - exact[i];
        p.noPositionRows = learned && i > 0;
        if (p.noPositionRows)
            p.exactMatch = p.tokenAccuracy = 0.0;
        r.lengths.push_back(p);
    }
    r.config.steps = 100;
    r.loss = {{10, 1.0, 2.0}, {100, 10.0, 0.5 + 0.1 * double(seed)}};
    return r;
}

QString writeFile(const QTemporaryDir& dir, const char* name, const std::vector<tr::RunResult>& runs)
{
    const QString path = dir.filePath(QLatin1String(name));
    std::ofstream f(path.toStdString());
    tr::writeRuns(f, runs);
    return path;
}

QImage image(View& view, QSize size)
{
    QImage img(size, QImage::Format_RGB32);
    QPainter p(&img);
    view.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    return img;
}

QStringList drawn(View& view, QSize size, QStringList* collisions)
{
    TextRecord record;
    QImage img(size, QImage::Format_RGB32);
    {
        QPainter p(&img);
        view.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    QStringList texts;
    for (const DrawnText& i : record.items())
        texts << i.fullText;
    *collisions = textCollisions(record.items());
    return texts;
}

} // namespace

class TestLengthLabView : public QObject {
    Q_OBJECT
private slots:
    void drawsTheRunFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.json"));
        {
            std::ofstream f(path.toStdString());
            tr::writeRuns(f,
                          {run("rope", 1, {1.0, 0.0, 0.0, 0.0}), run("rope", 2, {0.8, 0.2, 0.0, 0.0}),
                           run("alibi", 1, {0.9, 0.5, 0.25, 0.1}), run("learned", 1, {1.0, 0, 0, 0}, true)});
        }
        QVERIFY(Computation::isRunFile(path));
        WorkbenchState state;
        Computation computation(&state);
        LengthLabView view(&state, &computation);
        ViewOptions o = state.viewOptions();
        o.runFile = path;
        QCOMPARE(state.setViewOptions(o), QString());
        QVERIFY2(view.data().error.isEmpty(), qPrintable(view.data().error));
        const auto& c = view.data().curves;
        QCOMPARE(c.groups.size(), std::size_t(3));
        QCOMPARE(c.groups[0].mean[0], 0.9); // (1.0 + 0.8) / 2
        QCOMPARE(c.groups[0].mean[1], 0.1);
        QVERIFY(c.groups[2].noPositionRows[1]);
        for (const double scale : {1.0, 2.0}) {
            o.fontScale = scale;
            QCOMPARE(state.setViewOptions(o), QString());
            QStringList collisions;
            const QStringList texts = drawn(view, QSize(1366, 768), &collisions);
            QVERIFY2(collisions.isEmpty(), qPrintable(collisions.join(QLatin1Char('\n'))));
            QVERIFY2(texts.contains(QStringLiteral("RoPE")), qPrintable(texts.join(QLatin1Char('|'))));
            QVERIFY(texts.contains(QStringLiteral("ALiBi")));
            QVERIFY2(texts.filter(QStringLiteral("trained")).size() >= 1, qPrintable(texts.join(QLatin1Char('|'))));
            QVERIFY2(texts.filter(QStringLiteral("no position rows")).size() == 1
                         || texts.contains(QStringLiteral("no rows")),
                     qPrintable(texts.join(QLatin1Char('|'))));
        }
        // The data export: each seed's curve, then each scheme's mean.
        const ViewEntry* e = findView(u"lengthlab");
        QVERIFY(e);
        const core::ComputeResult r = e->data(state, nullptr);
        QCOMPARE(r.shape, (std::vector<std::size_t>{7, 4})); // rope 2 seeds + mean, alibi 1 + mean, learned 1 + mean
        QCOMPARE(r.data[2 * 4 + 0], 0.9);
        QCOMPARE(r.data[2 * 4 + 1], 0.1);
    }

    void fixedColourHoverToggleAndLoss()
    {
        QTemporaryDir dir;
        const auto ropeRun = run("rope", 1, {1.0, 0.5, 0.25, 0.0});
        const auto alibiRun = run("alibi", 1, {0.9, 0.8, 0.7, 0.6});
        const QString ab = writeFile(dir, "ab.json", {ropeRun, alibiRun});
        const QString ba = writeFile(dir, "ba.json", {alibiRun, ropeRun});
        WorkbenchState state;
        Computation computation(&state);
        LengthLabView view(&state, &computation);
        ViewOptions o = state.viewOptions();
        const QSize size(1000, 620);
        QCOMPARE(lengthLabColourIndex("nope"), 0);
        QCOMPARE(lengthLabColourIndex("rope"), 1);
        QCOMPARE(lengthLabColourIndex("alibi"), 2);
        QVERIFY(lengthLabColour("rope", state.theme()) != lengthLabColour("alibi", state.theme()));
        for (const QString& path : {ab, ba}) {
            o.runFile = path;
            QCOMPARE(state.setViewOptions(o), QString());
            const QImage img = image(view, size);
            // The mean's dot of each scheme at L = 20 has the scheme's own colour in either order.
            int found = 0;
            for (const QPointF& at : view.pointPositions()) {
                const QString line = view.readoutAt(at);
                const char* scheme = line.startsWith(QLatin1String("RoPE")) ? "rope" : "alibi";
                if (!line.contains(QLatin1String("L = 20")))
                    continue;
                QCOMPARE(img.pixelColor(at.toPoint()), lengthLabColour(scheme, state.theme()));
                ++found;
            }
            QCOMPARE(found, 2);
        }
        // Hover read-out: scheme, length and value; nothing far from every point.
        const std::vector<QPointF> pts = view.pointPositions();
        QCOMPARE(int(pts.size()), 8);
        QStringList lines;
        for (const QPointF& at : pts)
            lines << view.readoutAt(at + QPointF(3, -2));
        QVERIFY2(lines.contains(QString::fromUtf8("RoPE \u00b7 L = 20 \u00b7 exact match 50%")),
                 qPrintable(lines.join(QLatin1Char('|'))));
        QVERIFY(lines.contains(QString::fromUtf8("ALiBi \u00b7 L = 80 \u00b7 exact match 60%")));
        QVERIFY(view.readoutAt(QPointF(2, 2)).isEmpty());
        // The measure toggle in the Train panel: token accuracy, the run file's (0.5 + exact / 2 here).
        auto* measure = view.controls()->findChild<QComboBox*>(QStringLiteral("trainMeasure"));
        QVERIFY(measure);
        measure->setCurrentIndex(1);
        QCOMPARE(state.viewOptions().lengthMetric, LengthMetricChoice::TokenAccuracy);
        QCOMPARE(view.data().curves.metric, tr::LengthMetric::TokenAccuracy);
        QCOMPARE(view.data().curves.groups[1].mean[1], 0.75); // rope, L = 20: 0.5 + 0.5 / 2
        image(view, size);
        lines.clear();
        for (const QPointF& at : view.pointPositions())
            lines << view.readoutAt(at);
        QVERIFY2(lines.contains(QString::fromUtf8("RoPE \u00b7 L = 20 \u00b7 token accuracy 75%")),
                 qPrintable(lines.join(QLatin1Char('|'))));
        o = state.viewOptions();
        o.lengthMetric = LengthMetricChoice::ExactMatch;
        QCOMPARE(state.setViewOptions(o), QString());
        QCOMPARE(measure->currentIndex(), 0); // the toggle follows the option
        // The loss curves of the run file stay in the figure, and the task and "converged" are explained.
        QCOMPARE(int(view.data().losses.size()), 2);
        QCOMPARE(view.data().losses[0].loss, (std::vector<double>{2.0, 0.6}));
        QCOMPARE(view.data().losses[0].totalSteps, 100); // the last step taken, not the default of a new run
        QStringList collisions;
        const QStringList texts = drawn(view, QSize(1366, 768), &collisions);
        QVERIFY2(collisions.isEmpty(), qPrintable(collisions.join(QLatin1Char('\n'))));
        QVERIFY2(!texts.filter(QStringLiteral("training loss")).isEmpty(), qPrintable(texts.join(QLatin1Char('|'))));
        const QString all = texts.join(QLatin1Char(' '));
        QVERIFY2(all.contains(QLatin1String("Copy: read L random symbols")), qPrintable(all));
        QVERIFY2(all.contains(QLatin1String("Converged: exact match")), qPrintable(all));
        QVERIFY(all.contains(QLatin1String("95%")));
        // On screen, moving the mouse onto a point draws the read-out (and leaving removes it).
        view.resize(1000, 620);
        const QImage before = view.grab().toImage();
        QVERIFY(!view.pointPositions().empty());
        const QPointF at = view.pointPositions().front();
        QMouseEvent move(QEvent::MouseMove, at, view.mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(&view, &move);
        const QImage hovered = view.grab().toImage();
        QVERIFY(hovered != before);
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(&view, &leave);
        QCOMPARE(view.grab().toImage(), before);
    }

    void saysWhenThereIsNoRunFile()
    {
        WorkbenchState state;
        Computation computation(&state);
        LengthLabView view(&state, &computation);
        QVERIFY(view.data().error.contains(QStringLiteral("No run file")));
        QStringList collisions;
        const QStringList texts = drawn(view, QSize(800, 500), &collisions);
        QVERIFY(collisions.isEmpty());
        ViewOptions o = state.viewOptions();
        o.runFile = QStringLiteral("/nonexistent/run.json");
        QCOMPARE(state.setViewOptions(o), QString());
        QVERIFY2(view.data().error.startsWith(QStringLiteral("cannot read /nonexistent/run.json")),
                 qPrintable(view.data().error));
        QVERIFY(!Computation::isRunFile(o.runFile));
    }
};

QTEST_MAIN(TestLengthLabView)
#include "tst_lengthlabview.moc"
