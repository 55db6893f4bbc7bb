// SPDX-License-Identifier: MIT
#include "ui/viewframe.h"

#include "ui/views/view.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QResizeEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QToolButton>
#include <QVBoxLayout>

namespace poslab::ui {

ViewFrame::ViewFrame(View* view, QWidget* parent)
    : QFrame(parent)
    , m_view(view)
{
    setObjectName(QStringLiteral("frame_") + view->exportName());
    setFrameShape(QFrame::StyledPanel);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(1, 1, 1, 1);
    lay->setSpacing(0);
    m_header = new QWidget(this);
    m_header->setObjectName(QStringLiteral("viewHeader"));
    m_grid = new QGridLayout(m_header);
    m_grid->setContentsMargins(8, 3, 4, 3);
    m_grid->setVerticalSpacing(2);
    m_title = new QLabel(view->title(), m_header);
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    m_grid->addWidget(m_title, 0, 0);
    m_grid->setColumnStretch(1, 1);
    if (QWidget* c = view->controls()) {
        c->setParent(m_header);
        // Keep headers compact so that three views fit side by side next to the docks.
        for (auto* combo : c->findChildren<QComboBox*>()) {
            combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
            combo->setMinimumContentsLength(6);
        }
        for (auto* spin : c->findChildren<QAbstractSpinBox*>())
            spin->setMaximumWidth(110);
        m_controls = c;
    }
    m_max = new QToolButton(m_header);
    m_max->setAutoRaise(true);
    m_max->setText(QStringLiteral("\u2922"));
    m_max->setToolTip(tr("Maximise this view (double-click the header)"));
    m_grid->addWidget(m_max, 0, 3);
    placeControls(true); // unwrapped in resizeEvent() once the frame knows it has room
    lay->addWidget(m_header);
    lay->addWidget(view, 1);
    view->setParent(this);
    connect(m_max, &QToolButton::clicked, this, [this] { emit maximiseRequested(m_view, !m_maximised); });
}

void ViewFrame::setMaximised(bool on)
{
    m_maximised = on;
    m_max->setText(on ? QStringLiteral("\u2921") : QStringLiteral("\u2922"));
    m_max->setToolTip(on ? tr("Back to the grid") : tr("Maximise this view (double-click the header)"));
}

void ViewFrame::placeControls(bool wrapped)
{
    m_wrapped = wrapped;
    if (!m_controls)
        return;
    m_grid->removeWidget(m_controls);
    if (wrapped)
        m_grid->addWidget(m_controls, 1, 0, 1, 4, Qt::AlignLeft);
    else
        m_grid->addWidget(m_controls, 0, 2, Qt::AlignRight);
}

void ViewFrame::resizeEvent(QResizeEvent* e)
{
    QFrame::resizeEvent(e);
    if (!m_controls)
        return;
    // Controls share the title's line when there is room, else they wrap onto a second line.
    const int need = m_title->sizeHint().width() + m_controls->sizeHint().width() + m_max->sizeHint().width() + 40;
    const bool wrap = e->size().width() < need;
    if (wrap != m_wrapped)
        placeControls(wrap);
}

void ViewFrame::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (m_header->geometry().contains(e->position().toPoint()))
        emit maximiseRequested(m_view, !m_maximised);
}

} // namespace poslab::ui
