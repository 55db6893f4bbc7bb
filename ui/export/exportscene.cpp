// SPDX-License-Identifier: MIT
#include "ui/export/exportscene.h"

#include "ui/computation.h"
#include "ui/views/attentionview.h"
#include "ui/views/clockview.h"
#include "ui/views/decayview.h"
#include "ui/views/rotationview.h"
#include "ui/views/tableview.h"
#include "ui/views/viewlist.h"
#include "ui/workbenchstate.h"

#include <QCoreApplication>
#include <QEventLoop>

namespace poslab::exporting {

ExportScene::ExportScene()
    : m_state(std::make_unique<ui::WorkbenchState>())
{
}

ExportScene::~ExportScene()
{
    m_views.clear();
    m_computation.reset();
}

QStringList ExportScene::viewNames()
{
    return {QStringLiteral("table"), QStringLiteral("clock"), QStringLiteral("rotation"), QStringLiteral("decay"),
            QStringLiteral("attention")};
}

ui::Computation& ExportScene::computation()
{
    if (!m_computation) {
        // Only the attention view draws the scores; for the others they are computed 1 x 1.
        m_computation = std::make_unique<ui::Computation>(m_state.get(), nullptr, m_attentionShown);
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
    if (!m_computation)
        m_attentionShown = name == QLatin1String("attention");
    ui::Computation& c = computation();
    ui::WorkbenchState* s = m_state.get();
    // One view at a time: creating all five (createViews) would lay out a chart and compute every view's
    // data for a single figure. Names not listed here still come from the window's list.
    std::unique_ptr<ui::View> v;
    if (name == QLatin1String("table"))
        v = std::make_unique<ui::TableView>(s, &c);
    else if (name == QLatin1String("clock"))
        v = std::make_unique<ui::ClockView>(s, &c);
    else if (name == QLatin1String("rotation"))
        v = std::make_unique<ui::RotationView>(s, &c);
    else if (name == QLatin1String("decay"))
        v = std::make_unique<ui::DecayView>(s, &c);
    else if (name == QLatin1String("attention"))
        v = std::make_unique<ui::AttentionView>(s, &c);
    else {
        QStringList names;
        for (ui::View* candidate : ui::createViews(s, &c)) {
            std::unique_ptr<ui::View> owned(candidate);
            names << candidate->exportName();
            if (candidate->exportName() == name)
                v = std::move(owned);
        }
        if (!v) {
            if (error)
                *error = QStringLiteral("unknown view '%1'; views: %2").arg(name, names.join(QStringLiteral(", ")));
            return nullptr;
        }
    }
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
}

} // namespace poslab::exporting
