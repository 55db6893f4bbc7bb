// SPDX-License-Identifier: MIT
#include "ui/window/statusline.h"

#include "ui/figures/computation.h"
#include "ui/state/workbenchstate.h"

#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

namespace poslab::ui {

StatusLine::StatusLine(QMainWindow* window, WorkbenchState* state, Computation* computation)
    : QObject(window)
    , m_state(state)
    , m_computation(computation)
{
    // Status bar: refusals stay readable for a while; large computations show progress and can be cancelled.
    m_message = new QLabel(window);
    m_message->setObjectName(QStringLiteral("statusMessage"));
    // A long refusal must not widen the window past the screen: the line is cut, the tooltip has it whole.
    m_message->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_message->setMinimumWidth(0);
    window->statusBar()->addWidget(m_message, 1);
    m_progress = new QProgressBar(window);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), window);
    m_cancel->hide();
    // Which path computed the table on screen, so that a lecturer can show the GPU/CPU switch at work.
    m_tablePath = new QLabel(window);
    m_tablePath->setObjectName(QStringLiteral("tablePath"));
    m_tablePath->setToolTip(tr("The path that computed the current table (Settings \u203a Compute tables on)"));
    window->statusBar()->addPermanentWidget(m_tablePath);
    window->statusBar()->addPermanentWidget(m_progress);
    window->statusBar()->addPermanentWidget(m_cancel);
    m_messageTimer = new QTimer(window);
    m_messageTimer->setSingleShot(true);
    connect(m_messageTimer, &QTimer::timeout, m_message, &QLabel::clear);
    connect(m_state, &WorkbenchState::refused, this, [this](const QString& msg) {
        m_message->setStyleSheet(QStringLiteral("color: #d0302f; font-weight: bold;"));
        m_message->setText(msg);
        m_message->setToolTip(msg);
        m_messageTimer->start(10000);
    });
    connect(m_computation, &Computation::busyChanged, this, [this](bool busy) {
        m_progress->setVisible(busy);
        m_cancel->setVisible(busy);
        if (busy) {
            m_message->setStyleSheet({});
            const bool sampled = (long long)m_state->positionCount() * m_state->dim() > TableFigure::fullTableCells;
            m_message->setText(
                sampled ? tr("Computing the visible rows of the %1 \u00d7 %2 table\u2026")
                              .arg(m_state->positionCount())
                              .arg(m_state->dim())
                        : tr("Computing %1 \u00d7 %2 table\u2026").arg(m_state->positionCount()).arg(m_state->dim()));
        } else if (!m_messageTimer->isActive()) {
            m_message->clear();
        }
    });
    connect(m_cancel, &QPushButton::clicked, m_computation, &Computation::cancel);
    auto showPath = [this](const std::shared_ptr<const EncodingResult>& r) {
        m_tablePath->setText(r && !r->path.isEmpty() ? tr("Table: %1").arg(r->path) : QString());
    };
    showPath(m_computation->result());
    connect(m_computation, &Computation::resultReady, this, [this, showPath](std::shared_ptr<const EncodingResult> r) {
        showPath(r);
        if (!r->error.isEmpty()) {
            m_message->setStyleSheet(QStringLiteral("color: #d0302f; font-weight: bold;"));
            m_message->setText(r->error);
            m_messageTimer->start(10000);
        }
    });
}

void StatusLine::showMessage(const QString& text, bool problem)
{
    m_message->setStyleSheet(problem ? QStringLiteral("color: #d0302f; font-weight: bold;") : QString());
    m_message->setText(text);
    m_message->setToolTip(text);
    m_messageTimer->start(10000);
}

QString StatusLine::tablePathText() const
{
    return m_tablePath->text();
}

} // namespace poslab::ui
