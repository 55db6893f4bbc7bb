// SPDX-License-Identifier: MIT
#include "ui/views/view.h"

#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QPainter>
#include <QHelpEvent>
#include <QPaintEvent>
#include <QToolTip>

namespace poslab::ui {

View::View(WorkbenchState* state, Computation* computation, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_computation(computation)
    , m_result(computation->result())
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(computation, &Computation::resultReady, this, [this](std::shared_ptr<const EncodingResult> r) {
        m_result = std::move(r);
        resultChanged();
        refresh();
    });
    connect(state, &WorkbenchState::viewOptionsChanged, this, &View::refresh);
    connect(state, &WorkbenchState::schemeChanged, this, &View::refresh);
}

QString View::notApplicableReason() const
{
    return tr("%1 has nothing to show in this view.").arg(QString::fromStdString(m_state->scheme().name));
}

void View::render(QPainter& painter, const QRectF& target)
{
    painter.save();
    painter.setClipRect(target);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    if (!isApplicable())
        drawNotApplicable(painter, target, theme(), tr("Not applicable to this scheme"), notApplicableReason());
    else if (m_result && !m_result->error.isEmpty())
        drawNotApplicable(painter, target, theme(), tr("Cannot compute"), m_result->error);
    else
        renderContent(painter, target);
    painter.restore();
}

QImage View::renderImage(QSize size, qreal dpr)
{
    QImage img(size * dpr, QImage::Format_ARGB32_Premultiplied);
    img.setDevicePixelRatio(dpr);
    img.fill(theme().background);
    QPainter p(&img);
    render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    return img;
}

void View::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    m_onScreen = true;
    TextRecord record;
    render(p, QRectF(rect()));
    m_onScreen = false;
    // Labels the layout had to cut keep their full text for a tooltip.
    m_elided.clear();
    for (const DrawnText& item : record.items())
        if (item.text != item.fullText)
            m_elided.push_back({item.rect, item.fullText});
}

bool View::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(e);
        for (const auto& [rect, text] : m_elided)
            if (rect.contains(help->pos())) {
                QToolTip::showText(help->globalPos(), text, this, rect.toAlignedRect());
                return true;
            }
        QToolTip::hideText();
    }
    return QWidget::event(e);
}

void View::refresh()
{
    ++m_refreshes;
    update();
    emit refreshed();
}

} // namespace poslab::ui
