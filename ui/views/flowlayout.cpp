// SPDX-License-Identifier: MIT
#include "ui/views/flowlayout.h"

#include <QWidget>

#include <algorithm>

namespace poslab::ui {

FlowLayout::FlowLayout(QWidget* parent, int spacing)
    : QLayout(parent)
{
    setContentsMargins(0, 0, 0, 0);
    setSpacing(spacing);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem* item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem* item)
{
    m_items.push_back(item);
}
int FlowLayout::count() const
{
    return int(m_items.size());
}
QLayoutItem* FlowLayout::itemAt(int i) const
{
    return i >= 0 && i < count() ? m_items[std::size_t(i)] : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int i)
{
    if (i < 0 || i >= count())
        return nullptr;
    QLayoutItem* item = m_items[std::size_t(i)];
    m_items.erase(m_items.begin() + i);
    return item;
}

Qt::Orientations FlowLayout::expandingDirections() const
{
    return {};
}
bool FlowLayout::hasHeightForWidth() const
{
    return true;
}

int FlowLayout::heightForWidth(int width) const
{
    const QMargins m = contentsMargins();
    return place(QRect(0, 0, width, 0).marginsRemoved(m), false) + m.top() + m.bottom();
}

void FlowLayout::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    place(rect.marginsRemoved(contentsMargins()), true);
}

QSize FlowLayout::sizeHint() const
{
    int w = 0, h = 0, n = 0;
    for (QLayoutItem* item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize s = item->sizeHint();
        w += s.width() + (n++ ? spacing() : 0);
        h = std::max(h, s.height());
    }
    const QMargins m = contentsMargins();
    return QSize(w + m.left() + m.right(), h + m.top() + m.bottom());
}

QSize FlowLayout::minimumSize() const
{
    QSize s;
    for (QLayoutItem* item : m_items)
        if (!item->isEmpty())
            s = s.expandedTo(item->minimumSize().expandedTo(item->sizeHint().boundedTo(item->maximumSize())));
    const QMargins m = contentsMargins();
    return s + QSize(m.left() + m.right(), m.top() + m.bottom());
}

int FlowLayout::place(const QRect& rect, bool apply) const
{
    int x = rect.x(), y = rect.y(), line = 0;
    for (QLayoutItem* item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize hint = item->sizeHint().boundedTo(item->maximumSize());
        if (x > rect.x() && x + hint.width() > rect.right() + 1) {
            x = rect.x();
            y += line + spacing();
            line = 0;
        }
        if (apply)
            item->setGeometry(QRect(QPoint(x, y), hint));
        x += hint.width() + spacing();
        line = std::max(line, hint.height());
    }
    return y + line - rect.y();
}

FlowLayout* FlowLayout::replace(QWidget* widget)
{
    QLayout* from = widget->layout();
    std::vector<QWidget*> widgets;
    if (from)
        while (QLayoutItem* item = from->takeAt(0)) {
            if (QWidget* w = item->widget())
                widgets.push_back(w); // stretches and spacers have no place in a flow
            delete item;
        }
    const int spacing = from && from->spacing() >= 0 ? from->spacing() : 3;
    delete from;
    auto* flow = new FlowLayout(widget, spacing);
    for (QWidget* w : widgets)
        flow->addWidget(w);
    return flow;
}

} // namespace poslab::ui
