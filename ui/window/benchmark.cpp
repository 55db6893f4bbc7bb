// SPDX-License-Identifier: MIT
#include "ui/window/benchmark.h"

#include "ui/figures/computation.h"
#include "ui/window/mainwindow.h"
#include "ui/window/parameterpanel.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>
#include <QJsonObject>
#include <QUndoStack>

#include <algorithm>
#include <map>
#include <optional>

namespace poslab::ui {

namespace {

/// Times the paint events of each view and of its child widgets (charged to the view), for the verbose breakdown.
class PaintClock : public QObject {
public:
    explicit PaintClock(const std::vector<View*>& views)
        : m_views(views)
        , m_ms(views.size(), 0.0)
        , m_count(views.size(), 0)
        , m_childCount(views.size(), 0)
    {
        for (std::size_t i = 0; i < views.size(); ++i) {
            watch(views[i], i);
            for (QWidget* w : views[i]->findChildren<QWidget*>())
                watch(w, i);
        }
    }
    void reset()
    {
        std::fill(m_ms.begin(), m_ms.end(), 0.0);
        std::fill(m_count.begin(), m_count.end(), 0);
        std::fill(m_childCount.begin(), m_childCount.end(), 0);
    }
    double milliseconds(std::size_t view) const { return m_ms[view]; }
    int count(std::size_t view) const { return m_count[view]; }
    /// Paint events of the view's child widgets (the decay view's chart, its viewport and labels).
    int childCount(std::size_t view) const { return m_childCount[view]; }

protected:
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (e->type() != QEvent::Paint)
            return false;
        const auto it = m_viewOf.find(o);
        if (it == m_viewOf.end() || o == m_delivering)
            return false;
        // Deliver the event now, timed, through the other filters too (a scroll area's viewport paints through
        // its area's filter: the decay view's chart), and tell the application it is done.
        QElapsedTimer t;
        t.start();
        m_delivering = o;
        QCoreApplication::sendEvent(o, e);
        m_delivering = nullptr;
        m_ms[it->second] += t.nsecsElapsed() / 1e6;
        if (o == m_views[it->second])
            ++m_count[it->second];
        else
            ++m_childCount[it->second];
        return true;
    }

private:
    void watch(QWidget* w, std::size_t view)
    {
        m_viewOf[w] = view;
        w->installEventFilter(this);
    }
    std::vector<View*> m_views;
    QObject* m_delivering = nullptr; ///< the object whose paint event this filter is delivering
    std::map<QObject*, std::size_t> m_viewOf;
    std::vector<double> m_ms;
    std::vector<int> m_count;
    std::vector<int> m_childCount;
};

/// The times spent in each part of the frames of one sweep (the verbose breakdown).
struct FrameParts {
    double setMs = 0.0, paintMs = 0.0, eventMs = 0.0, waitMs = 0.0, figureWaitMs = 0.0;
};

/// Runs @p step on configuration B's computation too, when the state compares two.
void onBoth(MainWindow& window, void (Computation::*step)())
{
    (window.computation()->*step)();
    WorkbenchState* state = window.state();
    if (state->comparing())
        if (Computation* b = Computation::compareComputation(*state, *window.computation()))
            (b->*step)();
}

/// One frame: @p slider to @p pos, then every visible view repainted with the new value; its time in ms.
double sliderFrame(MainWindow& window, QSlider* slider, int pos, FrameParts& parts)
{
    QElapsedTimer clock, part;
    clock.start();
    part.start();
    slider->setValue(pos);
    QApplication::sendPostedEvents();
    // A's and B's tables now; the figures they change (the decay curves) start on A's and B's figure workers.
    onBoth(window, &Computation::runPending);
    parts.setMs += part.nsecsElapsed() / 1e6;
    // Paint what the change marked dirty now, in one synchronous repaint, while the figures compute: repaint() on
    // one view paints every widget of the window marked dirty (the first view, the table, redraws for a new
    // rope_theta anyway; the verbose figures count each view's paints). A view whose own figure or scores are on
    // their way waits for them (View::awaitsOwnResult). Then wait for the figures and the attention scores, and
    // let the event loop deliver them and draw what else is pending (the panel's slider and text): those views
    // redraw when their data lands, and the frame ends when every view shows the new value.
    part.start();
    const auto shown
        = std::find_if(window.views().begin(), window.views().end(), [](View* v) { return v->isVisible(); });
    if (shown != window.views().end())
        (*shown)->repaint();
    parts.paintMs += part.nsecsElapsed() / 1e6;
    part.start();
    onBoth(window, &Computation::waitForFigures);
    parts.figureWaitMs += part.nsecsElapsed() / 1e6;
    onBoth(window, &Computation::waitForAttention);
    parts.waitMs += part.nsecsElapsed() / 1e6;
    QApplication::processEvents();
    // Every figure is current and drawn: a delivery that started a newer job would have been waited for above.
    parts.eventMs += part.nsecsElapsed() / 1e6;
    return clock.nsecsElapsed() / 1e6;
}

/// Sweeps @p slider back and forth, as a hand dragging it would: the frame times, sorted (none without a
/// slider). With @p paints (verbose), prints where each frame's time went, @p what naming the sweep.
std::vector<double> sweepSlider(MainWindow& window, QSlider* slider, std::optional<PaintClock>& paints,
                                const char* what)
{
    std::vector<double> ms;
    if (!slider)
        return ms;
    FrameParts parts;
    if (paints)
        paints->reset();
    const int steps = 120;
    for (int k = 0; k < steps; ++k)
        ms.push_back(sliderFrame(window, slider, 150 + (k % 60 < 30 ? k % 60 : 60 - k % 60) * 20, parts));
    if (paints) {
        qInfo("%s per frame: set+compute %.2f ms, paint %.2f ms, events %.2f ms (%.2f of them waiting for the "
              "figures and attention scores, %.2f for the figures)",
              what, parts.setMs / steps, parts.paintMs / steps, parts.eventMs / steps, parts.waitMs / steps,
              parts.figureWaitMs / steps);
        for (std::size_t i = 0; i < window.views().size(); ++i)
            qInfo("  %s: %.2f paints per frame (%.2f of child widgets), %.2f ms per frame painting (paint and "
                  "events)",
                  qPrintable(window.views()[i]->exportName()), double(paints->count(i)) / steps,
                  double(paints->childCount(i)) / steps, paints->milliseconds(i) / steps);
    }
    std::sort(ms.begin(), ms.end());
    return ms;
}

/// The workbench of the benchmark: RoPE at d = 128 over 1024 positions, attention at 512, the cursor at 300, every
/// view computed and painted once.
void prepareWorkbench(MainWindow& window)
{
    window.resize(1600, 1000);
    window.show();
    WorkbenchState* state = window.state();
    state->setScheme(QStringLiteral("rope"));
    state->setDim(128);
    state->setPositionCount(1024);
    ViewOptions o = state->viewOptions();
    o.attentionSize = 512;
    state->setViewOptions(o);
    state->setCursor(300);
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    window.computation()->flush();
    for (View* v : window.views())
        if (v->isVisible())
            v->repaint();
}

} // namespace

std::vector<core::BenchFigure> runWorkbenchBenchmark()
{
    MainWindow window(nullptr, false);
    prepareWorkbench(window);
    WorkbenchState* state = window.state();

    // Sweep rope_theta's slider back and forth, as a hand dragging it would.
    QSlider* slider = window.parameterPanel()->slider(QStringLiteral("rope_theta"));
    const bool verbose = qEnvironmentVariableIsSet("POSLAB_BENCH_VERBOSE");
    // Verbose: each view's paint time, its child widgets (the decay view's chart) included, and paints per frame.
    std::optional<PaintClock> paints;
    if (verbose)
        paints.emplace(window.views());
    const std::vector<double> ms = sweepSlider(window, slider, paints, "one configuration");
    if (!ms.empty() && verbose)
        qInfo("last table compute %.2f ms, last attention compute %.2f ms (worker thread)",
              window.computation()->result()->milliseconds, window.computation()->attention()->milliseconds);
    // Two configurations visible: compare side by side, B a copy of A at half the dimension (B follows A's
    // rope_theta, so every step recomputes and repaints both).
    state->setCompare({CompareMode::SideBySide, QJsonObject{{"dim", 64}}});
    // Without the side panels all five views have room for their halves (with them, the grid's rule shows two).
    window.setSidePanelsVisible(false);
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    window.computation()->flush();
    const std::vector<double> both = sweepSlider(window, slider, paints, "two configurations (compare side by side)");
    state->undoStack()->clear();
    auto pct = [](const std::vector<double>& ms, double q) {
        return ms.empty() ? 0.0 : ms[std::min(ms.size() - 1, std::size_t(q * (ms.size() - 1) + 0.5))];
    };
    return {
        {"frame_ms_median", pct(ms, 0.5), "workbench: slider move to every visible view repainted, median (ms)"},
        {"frame_ms_p95", pct(ms, 0.95), "workbench: slider move to every visible view repainted, 95th percentile (ms)"},
        {"frame_ms_median_compare", pct(both, 0.5),
         "workbench, compare side by side (A and B both drawn, B following A): slider move to every view repainted, "
         "median (ms)"},
        {"frame_ms_p95_compare", pct(both, 0.95),
         "workbench, compare side by side (A and B both drawn, B following A): slider move to every view repainted, "
         "95th percentile (ms)"},
        {"frame_count", double(ms.size()), "workbench: frames in the scripted slider sweep"},
    };
}

} // namespace poslab::ui
