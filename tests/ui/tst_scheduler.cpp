// SPDX-License-Identifier: MIT
// The figure scheduler (Computation + FigureTask): off the UI thread in asynchronous mode, on the calling thread by
// default, coalesced bursts, stale results dropped, flush() leaving every figure (a real view's too) current.

#include "ui/figures/computation.h"
#include "ui/figures/decayfigure.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/decayview.h"
#include "ui/window/mainwindow.h"

#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>

using namespace poslab::ui;

namespace {

/// A figure whose compute says where it ran and can be held (gate) so that requests pile up behind it.
struct ProbeFigure {
    struct Inputs {
        int value = 0;
        bool operator==(const Inputs&) const = default;
    };
    struct Data {
        int value = -1;
        Qt::HANDLE thread = nullptr;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot) { return {snapshot.cursor}; }
    static Data compute(const Inputs& in)
    {
        ++computes;
        if (gated)
            gate.acquire();
        return {in.value * 10, QThread::currentThreadId()};
    }
    static inline std::atomic<int> computes{0};
    static inline std::atomic<bool> gated{false};
    static inline QSemaphore gate{0};
};

/// The deliveries a task's callback saw.
struct Deliveries {
    int count = 0, later = 0;
    std::vector<int> values;
};

} // namespace

class TestScheduler : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        ProbeFigure::computes = 0;
        ProbeFigure::gated = false;
        ProbeFigure::gate.acquire(ProbeFigure::gate.available());
    }

    void synchronousByDefault()
    {
        WorkbenchState state;
        Computation c(&state);
        QVERIFY(!c.asynchronousFigures());
        Deliveries d;
        FigureTask<ProbeFigure> task(&c, [&](bool later) {
            ++d.count;
            d.later += later;
        });
        QVERIFY(task.request({3}));
        // Computed inside request(), on this thread, delivered at once.
        QCOMPARE(task.data().value, 30);
        QCOMPARE(task.data().thread, QThread::currentThreadId());
        QCOMPARE(d.count, 1);
        QCOMPARE(d.later, 0);
        QVERIFY(!task.isPending());
        QVERIFY(!task.request({3})); // equal inputs: nothing
        QCOMPARE(ProbeFigure::computes.load(), 1);
    }

    void asynchronousComputesOffTheUiThread()
    {
        WorkbenchState state;
        Computation c(&state);
        c.setAsynchronousFigures(true);
        QSignalSpy ready(&c, &Computation::figureReady);
        Deliveries d;
        FigureTask<ProbeFigure> task(&c, [&](bool later) {
            ++d.count;
            d.later += later;
        });
        task.request({1}); // the first request is computed at once (the view has its figure from its first paint)
        QCOMPARE(task.data().value, 10);
        QCOMPARE(task.data().thread, QThread::currentThreadId());
        QCOMPARE(d.later, 0);
        task.request({4});
        QVERIFY(task.isPending());
        QCOMPARE(task.data().value, 10); // nothing new delivered inside request()
        QCOMPARE(c.pendingFigures(), 1);
        c.waitForFigures();
        QVERIFY(!task.isPending());
        QCOMPARE(c.pendingFigures(), 0);
        QCOMPARE(task.data().value, 40);
        QVERIFY(task.data().thread != nullptr);
        QVERIFY(task.data().thread != QThread::currentThreadId());
        QCOMPARE(d.count, 2);
        QCOMPARE(d.later, 1);
        QCOMPARE(ready.count(), 2);
        QCOMPARE(ready.at(1).at(0).toULongLong(), task.id());
    }

    void immediateTaskComputesOnTheCallingThread()
    {
        WorkbenchState state;
        Computation c(&state);
        c.setAsynchronousFigures(true);
        int later = 0;
        FigureTask<ProbeFigure> task(
            &c, [&](bool l) { later += l; }, true);
        task.request({1});
        task.request({2}); // a selection's figure: read back by the next key press, so never on its way
        QVERIFY(!task.isPending());
        QCOMPARE(task.data().value, 20);
        QCOMPARE(task.data().thread, QThread::currentThreadId());
        QCOMPARE(c.pendingFigures(), 0);
        QCOMPARE(later, 0);
    }

    void burstComputesTwiceAndDeliversTheNewest()
    {
        WorkbenchState state;
        Computation c(&state);
        c.setAsynchronousFigures(true);
        QSignalSpy ready(&c, &Computation::figureReady);
        Deliveries d;
        FigureTask<ProbeFigure> task(&c, [&](bool) {
            ++d.count;
            d.values.push_back(task.data().value);
        });
        task.request({0}); // computed at once (the first)
        QCOMPARE(d.values, std::vector<int>{0});
        ProbeFigure::computes = 0;
        ProbeFigure::gated = true;
        const int n = 20;
        for (int i = 1; i <= n; ++i)
            task.request({i});
        QVERIFY(QTest::qWaitFor([] { return ProbeFigure::computes.load() == 1; }, 5000)); // the first one runs
        ProbeFigure::gate.release(n);
        c.waitForFigures();
        // The burst's first job (running when the others came) and the newest: nothing in between.
        QCOMPARE(ProbeFigure::computes.load(), 2);
        QCOMPARE(c.figureComputeCount(), quint64(3));
        QCOMPARE(task.data().value, n * 10);
        // The first job's result was stale when it landed: never delivered.
        QCOMPARE(d.values, (std::vector<int>{0, n * 10}));
        QCOMPARE(ready.count(), 2);
        QCOMPARE(task.deliveredSerial(), task.requestedSerial());
    }

    void staleResultIsNeverDelivered()
    {
        WorkbenchState state;
        Computation c(&state);
        c.setAsynchronousFigures(true);
        Deliveries d;
        FigureTask<ProbeFigure> task(&c, [&](bool) { ++d.count; });
        task.request({1});
        QCOMPARE(d.count, 1);
        ProbeFigure::computes = 0;
        ProbeFigure::gated = true;
        task.request({7});
        QVERIFY(QTest::qWaitFor([] { return ProbeFigure::computes.load() == 1; }, 5000));
        task.forget(); // cancelled while running
        ProbeFigure::gate.release(4);
        c.waitForFigures();
        QCOMPARE(d.count, 1);
        QCOMPARE(task.data().value, 10); // the cancelled job's 70 never arrived
        // Superseded while running: the running job's data is dropped, the newest delivered.
        ProbeFigure::computes = 0;
        ProbeFigure::gate.acquire(ProbeFigure::gate.available()); // job 8 holds until 9 is requested
        task.request({8});
        QVERIFY(QTest::qWaitFor([] { return ProbeFigure::computes.load() == 1; }, 5000));
        task.request({9});
        ProbeFigure::gate.release(4);
        c.waitForFigures();
        QCOMPARE(d.count, 2);
        QCOMPARE(task.data().value, 90);
    }

    void viewGoneBeforeDelivery()
    {
        WorkbenchState state;
        Computation c(&state);
        c.setAsynchronousFigures(true);
        int calls = 0;
        {
            FigureTask<ProbeFigure> task(&c, [&](bool) { ++calls; });
            task.request({1});
            task.request({2});
            QCOMPARE(c.pendingFigures(), 1);
        }
        c.waitForFigures(); // the job lands for a task that is gone: dropped, and waiting ends
        QCOMPARE(c.pendingFigures(), 0);
        QCOMPARE(calls, 1); // the first, at once; not the second
    }

    void flushLeavesTheDecayViewCurrent()
    {
        WorkbenchState state;
        state.setScheme(QStringLiteral("rope"));
        Computation c(&state);
        c.setAsynchronousFigures(true);
        DecayView view(&state, &c);
        view.resize(600, 400);
        const quint64 before = c.figureComputeCount();
        QVERIFY(view.curves().size() > 0); // the first figure at once
        QVERIFY(state.setParam(QStringLiteral("rope_theta"), poslab::core::ParamValue::real(500.0)).isEmpty());
        state.setDim(32);
        c.runPending(); // the new table: the decay figure starts on the figure pool
        QCOMPARE(c.pendingFigures(), 1);
        c.flush();
        QCOMPARE(c.pendingFigures(), 0);
        QVERIFY(c.figureComputeCount() > before);
        const DecayPlot want = DecayFigure::compute(DecayFigure::inputsOf(FigureSnapshot::of(state)));
        QVERIFY(!want.curves.empty());
        QCOMPARE(view.curves().size(), want.curves.size());
        for (std::size_t i = 0; i < want.curves.size(); ++i) {
            QCOMPARE(view.curves()[i].name, want.curves[i].name);
            QCOMPARE(view.curves()[i].points, want.curves[i].points);
        }
    }

    void windowComputesFiguresOffTheUiThread()
    {
        MainWindow window(nullptr, false);
        QVERIFY(window.computation()->asynchronousFigures());
        // B's computation takes A's mode.
        window.state()->setCompare({CompareMode::SideBySide, QJsonObject{{"dim", 64}}});
        Computation* b = Computation::compareComputation(*window.state(), *window.computation());
        QVERIFY(b);
        QVERIFY(b->asynchronousFigures());
    }
};

QTEST_MAIN(TestScheduler)
#include "tst_scheduler.moc"
