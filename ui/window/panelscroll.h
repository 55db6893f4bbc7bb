// SPDX-License-Identifier: MIT
#pragma once
/// @file panelscroll.h
/// The scroll area around a parameter panel in its dock (configuration A's and, in compare mode, B's).

#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>

#include <algorithm>

namespace poslab::ui {

/// The parameter panel's scroll area: never narrower than the panel's own minimum (which grows with the font
/// scale), so rows are not cut at the right edge; it scrolls only vertically.
class PanelScroll : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize minimumSizeHint() const override
    {
        QSize s = QScrollArea::minimumSizeHint();
        if (QWidget* w = widget())
            s.setWidth(
                std::max(minimumPanelWidth,
                         w->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() + 2 * frameWidth()));
        return s;
    }
    static constexpr int minimumPanelWidth = 300;

protected:
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (o == widget() && e->type() == QEvent::LayoutRequest)
            updateGeometry(); // the panel's rows changed (another scheme, another font scale)
        return QScrollArea::eventFilter(o, e);
    }
};

} // namespace poslab::ui
