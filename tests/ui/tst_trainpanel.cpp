// SPDX-License-Identifier: MIT
// Training in the window: the lengthlab view's Train panel starts runs from its controls on worker
// threads; the curves that reach the view equal core::train::trainRun with the same settings (same seed, same
// numbers: trainer.h); Cancel stops a long run within a second; saving writes core's run file and the view then
// names it; the attention view's source "trained" shows the trained model's weights, equal to Network::attention
// (core/train/model.h) of a network rebuilt here from the run's parameters on the evaluation's sequence
// (trainer.h: sample 0 of length L is drawn from mixSeed(seed, 0xE7A1, L, 0)). Offscreen, no GL.
#include "core/encodingregistry.h"
#include "core/encodings/relativecommon.h"
#include "core/positions.h"
#include "core/train/model.h"
#include "core/train/tasks.h"
#include "core/train/trainer.h"
#include "ui/figures/computation.h"
#include "ui/views/trainpanel.h"
#include "ui/views/attentionview.h"
#include "ui/views/lengthlabview.h"
#include "ui/state/workbenchstate.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;
namespace ct = poslab::core::train;

namespace {

void choose(TrainPanel* panel, const QStringList& schemes)
{
    for (QAction* a : panel->findChildren<QAction*>())
        if (a->objectName().startsWith(QLatin1String("trainScheme_")))
            a->setChecked(schemes.contains(a->data().toString()));
}

void setSpin(TrainPanel* panel, const char* name, int value)
{
    auto* b = panel->findChild<QSpinBox*>(QLatin1String(name));
    QVERIFY2(b, name);
    b->setValue(value);
}

} // namespace

class TestTrainPanel : public QObject {
    Q_OBJECT
private slots:
    void trainsSideBySideAsCoreDoes()
    {
        WorkbenchState state;
        Computation computation(&state);
        LengthLabView view(&state, &computation);
        auto* panel = qobject_cast<TrainPanel*>(view.controls());
        QVERIFY(panel);
        // The teaching set is checked at first.
        QStringList checked;
        for (const ct::TrainConfig& c : panel->configs())
            checked << QString::fromStdString(c.scheme);
        QStringList teaching = TrainPanel::teachingSchemes();
        checked.sort();
        teaching.sort();
        QCOMPARE(checked, teaching); // in the registry's order
        choose(panel, {QStringLiteral("rope"), QStringLiteral("alibi")});
        setSpin(panel, "trainLength", 4);
        setSpin(panel, "trainSteps", 30);
        setSpin(panel, "trainSamples", 16);
        setSpin(panel, "trainSeed", 7);
        panel->setMaxParallel(2);
        QSignalSpy published(&state, &WorkbenchState::trainedRunsChanged);
        QElapsedTimer clock;
        clock.start();
        panel->findChild<QPushButton*>(QStringLiteral("trainStart"))->click();
        QVERIFY(panel->isRunning());
        QVERIFY(state.trainedRuns() && state.trainedRuns()->running);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 120000);
        const double seconds = clock.elapsed() / 1000.0;
        // Throttled: at most ten publications a second, plus the first and the last.
        QVERIFY2(published.count() <= int(seconds * 10) + 4, qPrintable(QString::number(published.count())));
        const auto runs = state.trainedRuns();
        QCOMPARE(int(runs->runs.size()), 2);
        QVERIFY(!runs->running);
        QVERIFY(runs->message.isEmpty());
        // Curves arrived for both schemes, and they are core's numbers for the same settings.
        const LengthLabData& d = view.data();
        QVERIFY(d.error.isEmpty());
        QVERIFY(d.window);
        QCOMPARE(int(d.curves.groups.size()), 2);
        QCOMPARE(d.curves.lengths, (std::vector<int>{4, 8, 12, 16, 20, 24, 28, 32}));
        const std::vector<ct::TrainConfig> configs = panel->configs();
        QCOMPARE(int(configs.size()), 2);
        QCOMPARE(configs[0].scheme == "rope" ? configs[1].scheme : configs[0].scheme, std::string("alibi"));
        for (std::size_t i = 0; i < configs.size(); ++i) {
            QCOMPARE(d.curves.groups[i].scheme, configs[i].scheme);
            QCOMPARE(configs[i].seed, std::uint64_t(7));
            const ct::RunResult ref = ct::trainRun(configs[i]);
            const ct::RunResult& got = runs->runs[i];
            QCOMPARE(got.stop, std::string("steps"));
            QCOMPARE(got.stepsDone, 30);
            QCOMPARE(got.loss.size(), ref.loss.size());
            for (std::size_t k = 0; k < ref.loss.size(); ++k)
                QCOMPARE(got.loss[k].loss, ref.loss[k].loss);
            QCOMPARE(got.lengths.size(), ref.lengths.size());
            for (std::size_t k = 0; k < ref.lengths.size(); ++k) {
                QCOMPARE(got.lengths[k].exactMatch, ref.lengths[k].exactMatch);
                QCOMPARE(got.lengths[k].tokenAccuracy, ref.lengths[k].tokenAccuracy);
                QCOMPARE(got.lengths[k].loss, ref.lengths[k].loss);
                QCOMPARE(d.curves.groups[i].mean[k], ref.lengths[k].exactMatch); // one seed: the mean is the run
            }
            QVERIFY(got.weights);
            QCOMPARE(*got.weights, *ref.weights);
        }

        // Save: core's run file; the view then names it and keeps drawing the same runs.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.json"));
        QCOMPARE(panel->saveTo(path), QString());
        QVERIFY(Computation::isRunFile(path));
        QCOMPARE(state.viewOptions().runFile, path);
        QCOMPARE(view.data().file, path);
        QVERIFY(view.data().window);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const auto back = ct::readRuns(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        QCOMPARE(int(back.size()), 2);
        QCOMPARE(back[1].lengths[2].tokenAccuracy, runs->runs[1].lengths[2].tokenAccuracy);
        // The file, read as a file, gives the same curves.
        const LengthLabData fromFile
            = LengthLabFigure::fromRunFile(state.viewOptions().runFile, state.viewOptions().lengthMetric);
        QCOMPARE(fromFile.curves.groups[1].mean, view.data().curves.groups[1].mean);

        // The attention view shows the trained model: run 1, layer 1, head 1, at 3 x L_train.
        computation.setSynchronousAttention(true);
        AttentionView attention(&state, &computation);
        QCOMPARE(state.setProperty(QStringLiteral("attention_source"), 1), QString());
        QCOMPARE(state.setProperty(QStringLiteral("trained_run"), 1), QString());
        QCOMPARE(state.setProperty(QStringLiteral("trained_layer"), 1), QString());
        QCOMPARE(state.setProperty(QStringLiteral("head"), 1), QString());
        computation.flush();
        computation.waitForAttention();
        const auto out = attention.output();
        QVERIFY(out);
        QVERIFY2(out->error.isEmpty(), qPrintable(out->error));
        const ct::RunResult& r = runs->runs[1];
        const int L = 3 * r.config.trainLen;
        const core::SchemeDescriptor& s = core::schemeOrThrow(r.config.scheme);
        ct::ModelConfig mc;
        mc.layers = r.config.layers;
        mc.width = r.config.width;
        mc.heads = r.config.heads;
        mc.vocab = ct::Vocabulary{ct::taskSymbols(r.config.task, r.config.vocab)}.size();
        mc.seed = r.config.seed;
        ct::Network<float> net(
            mc, s,
            core::resolveParams(
                s, {}, core::TableContext{mc.width / mc.heads, core::PositionList::range(0, 1), std::nullopt}));
        net.params() = *r.weights;
        const ct::Example ex = ct::makeExample(r.config.task, L, r.config.vocab,
                                               core::mixSeed(r.config.seed, 0xE7A1, std::uint64_t(L), 0));
        const int T = int(ex.tokens.size()) - 1;
        ct::Batch b;
        b.n = 1;
        b.T = T;
        b.tokens.assign(ex.tokens.begin(), ex.tokens.end() - 1);
        b.targets.assign(ex.tokens.begin() + 1, ex.tokens.end());
        b.weights.assign(std::size_t(T), 1.0f);
        b.lengths = {T};
        const auto ref = net.attention(b, 1);
        QCOMPARE(int(out->matrix.rows()), T);
        QCOMPARE(int(out->matrix.cols()), T);
        for (int q = 0; q < T; ++q)
            for (int k = 0; k <= q; ++k)
                QCOMPARE(out->matrix(q, k), ref[1](q, k));
        QVERIFY(std::isnan(out->matrix(0, 1)));                           // masked, drawn grey
        QCOMPARE(out->trainedWindow.value_or(-1), 2 * r.config.trainLen); // copy: 2 L_train input tokens trained
        QCOMPARE(out->heads, 4);
        // Another test length; a head the model lacks is named.
        QCOMPARE(state.setProperty(QStringLiteral("trained_test_length"), 5), QString());
        computation.flush();
        computation.waitForAttention();
        QCOMPARE(int(attention.output()->matrix.rows()), 10);
        QCOMPARE(state.setProperty(QStringLiteral("head"), 6), QString());
        computation.flush();
        computation.waitForAttention();
        QVERIFY(attention.output()->error.contains(QLatin1String("4 heads")));
    }

    void cancelStopsWithinASecond()
    {
        WorkbenchState state;
        Computation computation(&state);
        LengthLabView view(&state, &computation);
        auto* panel = qobject_cast<TrainPanel*>(view.controls());
        choose(panel, {QStringLiteral("nope"), QStringLiteral("rope")});
        setSpin(panel, "trainSteps", 100000);
        panel->setMaxParallel(2);
        panel->train();
        QTRY_VERIFY_WITH_TIMEOUT(
            state.trainedRuns()->runs[0].stepsDone >= 10 && state.trainedRuns()->runs[1].stepsDone >= 10, 60000);
        QVERIFY(panel->isRunning());
        QVERIFY(!view.data().losses.empty()); // the loss so far, while training
        QElapsedTimer clock;
        clock.start();
        panel->findChild<QPushButton*>(QStringLiteral("trainCancel"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 1000);
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        for (const ct::RunResult& r : state.trainedRuns()->runs) {
            QCOMPARE(r.stop, std::string("cancelled"));
            QVERIFY(r.stepsDone < 100000);
            QVERIFY(!r.loss.empty()); // the curve so far is kept
        }
        QVERIFY(state.trainedRuns()->message.startsWith(QLatin1String("Cancelled")));
        for (double done : state.trainedRuns()->progress)
            QVERIFY(done < 1.0);                     // how far each run got
        QCOMPARE(int(view.data().losses.size()), 2); // the loss so far stays in the figure
    }

    void divergedRunKeepsItsLoss()
    {
        // A diverged run (core stops it and names the step): the view keeps its loss so far and the message.
        TrainedRuns w;
        ct::RunResult r;
        r.config.scheme = "rope";
        r.config.steps = 100;
        r.loss = {{1, 0.1, 2.0}, {2, 0.2, 1.5}};
        r.diverged = true;
        r.stop = "loss is nan at step 3; training stopped, the curves so far are kept";
        w.runs = {r};
        w.message = QStringLiteral("RoPE: ") + QString::fromStdString(r.stop);
        const LengthLabData d = LengthLabFigure::compute(
            {QString(), LengthMetricChoice::ExactMatch, std::make_shared<const TrainedRuns>(w)});
        QVERIFY(d.error.isEmpty());
        QCOMPARE(int(d.losses.size()), 1);
        QCOMPARE(d.losses[0].loss, (std::vector<double>{2.0, 1.5}));
        QVERIFY(d.message.contains(QLatin1String("step 3")));
        QCOMPARE(d.curves.groups[0].diverged, 1);
        // The attention view's trained source with no model, or with a run that kept none: one line says so.
        ViewOptions o;
        o.attentionSource = AttentionSource::Trained;
        QVERIFY(
            Computation::trainedAttention(nullptr, Setup(), o)->error.startsWith(QLatin1String("No trained model")));
        o.trainedRun = 3;
        QVERIFY(Computation::trainedAttention(&w, Setup(), o)
                    ->error.contains(QLatin1String("trained_run 3 is out of range")));
        o.trainedRun = 0;
        QVERIFY(Computation::trainedAttention(&w, Setup(), o)->error.contains(QLatin1String("holds no model")));
    }
};

QTEST_MAIN(TestTrainPanel)
#include "tst_trainpanel.moc"
