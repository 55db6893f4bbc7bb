// SPDX-License-Identifier: MIT
#include "ui/export/exportscene.h"

#include "ui/figures/computation.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QCoreApplication>
#include <QEventLoop>

namespace poslab::exporting {

ExportScene::ExportScene()
    : m_state(std::make_unique<ui::WorkbenchState>())
{ }

ExportScene::~ExportScene()
{
    m_views.clear();
    m_computation.reset();
}

QStringList ExportScene::viewNames()
{
    return ui::viewIds();
}

ui::Computation& ExportScene::computation()
{
    if (!m_computation) {
        // Only the attention view draws the scores; for the others they are computed 1 x 1. Only the table view
        // draws the encoding table: for the others (and a data export) it is computed on the CPU, so that such an
        // export never starts the GPU driver, nor a context only to be refused.
        m_computation = std::make_unique<ui::Computation>(m_state.get(), nullptr, m_attentionShown,
                                                          m_tableShown && !m_drawsNothing ? gpu::ComputePath::Auto
                                                                                          : gpu::ComputePath::Cpu);
        // Export draws right after each change: compute attention on this thread (no worker round trip).
        m_computation->setSynchronousAttention(true);
    }
    return *m_computation;
}

QString ExportScene::loadState(const QJsonObject& json)
{
    return m_state->fromJson(json);
}

ui::View* ExportScene::view(const QString& name, QString* error)
{
    if (auto it = m_views.find(name); it != m_views.end())
        return it->second.get();
    // One view at a time: creating all five would lay out a chart and compute every view's data for a single
    // figure.
    const ui::ViewEntry* entry = ui::findView(name);
    if (!entry) {
        if (error)
            *error = QStringLiteral("unknown view '%1'; views: %2").arg(name, viewNames().join(QStringLiteral(", ")));
        return nullptr;
    }
    if (!m_computation) {
        m_attentionShown = name == QLatin1String("attention") && !m_drawsNothing; // else the scores are 1 x 1
        m_tableShown = name == QLatin1String("table") && !m_drawsNothing;         // else the table is the CPU's
    }
    std::unique_ptr<ui::View> v(entry->create(m_state.get(), &computation()));
    // Never shown, but sized like a figure so that child widgets (the decay view's chart) lay out sensibly.
    v->resize(1200, 800);
    ui::View* raw = v.get();
    m_views.emplace(name, std::move(v));
    return raw;
}

void settle(ui::Computation& computation)
{
    computation.flush();
    // Large tables go to a worker even on flush(); their result arrives as a queued call.
    while (computation.isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    computation.waitForAttention();
    QCoreApplication::sendPostedEvents(&computation, QEvent::MetaCall);
    // Compare mode: configuration B's computation too, so that B's half (or B's part of a difference) is current.
    if (computation.state()->comparing())
        if (ui::Computation* b = ui::Computation::compareComputation(*computation.state(), computation))
            settle(*b);
}

} // namespace poslab::exporting
