// SPDX-License-Identifier: MIT
#include "ui/benchmark.h"

#include "ui/computation.h"
#include "ui/mainwindow.h"
#include "ui/parameterpanel.h"
#include "ui/views/view.h"
#include "ui/workbenchstate.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>
#include <QJsonObject>
#include <QUndoStack>

#include <algorithm>

namespace poslab::ui {

std::vector<core::BenchFigure> runWorkbenchBenchmark()
{
    MainWindow window(nullptr, false);
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

    // Sweep rope_theta's slider back and forth, as a hand dragging it would.
    QSlider* slider = window.parameterPanel()->slider(QStringLiteral("rope_theta"));
    const bool verbose = qEnvironmentVariableIsSet("POSLAB_BENCH_VERBOSE");
    auto sweep = [&](const char* what) {
        std::vector<double> ms;
        if (!slider)
            return ms;
        QElapsedTimer clock, part;
        std::vector<double> partMs(window.views().size() + 2, 0.0);
        const int steps = 120;
        for (int k = 0; k < steps; ++k) {
            const int pos = 150 + (k % 60 < 30 ? k % 60 : 60 - k % 60) * 20;
            clock.start();
            part.start();
            slider->setValue(pos);
            QApplication::sendPostedEvents();
            window.computation()->flush();
            if (state->comparing())
                if (Computation* b = Computation::compareComputation(*state, *window.computation()))
                    b->flush();
            partMs[0] += part.nsecsElapsed() / 1e6;
            // Paint every visible view now (children included: the chart), then let the event loop
            // deliver what else is pending (the panel's slider and text, the window's flush).
            // (The first repaint() also flushes the window's other dirty widgets, so per-view figures under
            // POSLAB_BENCH_VERBOSE charge that to the first view.)
            for (std::size_t i = 0; i < window.views().size(); ++i) {
                View* v = window.views()[i];
                part.start();
                if (v->isVisible())
                    v->repaint();
                partMs[i + 2] += part.nsecsElapsed() / 1e6;
            }
            part.start();
            QApplication::processEvents();
            partMs[1] += part.nsecsElapsed() / 1e6;
            ms.push_back(clock.nsecsElapsed() / 1e6);
        }
        if (verbose) {
            qInfo("%s per frame: set+compute %.2f ms, events %.2f ms", what, partMs[0] / steps, partMs[1] / steps);
            for (std::size_t i = 0; i < window.views().size(); ++i)
                qInfo("  %s paint %.2f ms", qPrintable(window.views()[i]->exportName()), partMs[i + 2] / steps);
        }
        std::sort(ms.begin(), ms.end());
        return ms;
    };
    const std::vector<double> ms = sweep("one configuration");
    if (!ms.empty() && verbose)
        qInfo("last table compute %.2f ms, last attention compute %.2f ms (worker thread)",
              window.computation()->result()->milliseconds, window.computation()->attention()->milliseconds);
    // Two configurations visible: compare side by side, B a copy of A at half the dimension (B follows A's
    // rope_theta, so every step recomputes and repaints both).
    state->setCompare({CompareMode::SideBySide, QJsonObject{{"dim", 64}}});
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    window.computation()->flush();
    const std::vector<double> both = sweep("two configurations (compare side by side)");
    state->undoStack()->clear();
    auto pct = [](const std::vector<double>& ms, double q) {
        return ms.empty() ? 0.0 : ms[std::min(ms.size() - 1, std::size_t(q * (ms.size() - 1) + 0.5))];
    };
    return {
        {"frame_ms_median", pct(ms, 0.5), "workbench: slider move to every visible view repainted, median (ms)"},
        {"frame_ms_p95", pct(ms, 0.95), "workbench: slider move to every visible view repainted, 95th percentile (ms)"},
        {"frame_ms_median_compare", pct(both, 0.5),
         "workbench, compare side by side (A and B both drawn, B following A): slider move to every view repainted, median (ms)"},
        {"frame_ms_p95_compare", pct(both, 0.95),
         "workbench, compare side by side (A and B both drawn, B following A): slider move to every view repainted, 95th percentile (ms)"},
        {"frame_count", double(ms.size()), "workbench: frames in the scripted slider sweep"},
    };
}

} // namespace poslab::ui
