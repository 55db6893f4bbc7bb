// SPDX-License-Identifier: MIT
// The lengthlab view (issue 15): draws a run file of poslab train (here written by core::train::writeRuns from
// hand-made results, so the numbers are known): one curve per seed and a mean per scheme, the trained length
// marked, the learned table's missing rows named; no text collides at 1366 x 768 or at font scale 2; without a run
// file, and with an unreadable one, the view says so. The registry's data export holds the same numbers.
#include "core/train/trainer.h"
#include "ui/computation.h"
#include "ui/render/textlayout.h"
#include "ui/views/lengthlabview.h"
#include "ui/views/viewlist.h"
#include "ui/workbenchstate.h"

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
    return r;
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
            tr::writeRuns(f, {run("rope", 1, {1.0, 0.0, 0.0, 0.0}), run("rope", 2, {0.8, 0.2, 0.0, 0.0}),
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
            QVERIFY2(texts.filter(QStringLiteral("no position rows")).size() == 1 || texts.contains(QStringLiteral("no rows")),
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
        QVERIFY2(view.data().error.startsWith(QStringLiteral("cannot read /nonexistent/run.json")), qPrintable(view.data().error));
        QVERIFY(!Computation::isRunFile(o.runFile));
    }
};

QTEST_MAIN(TestLengthLabView)
#include "tst_lengthlabview.moc"
