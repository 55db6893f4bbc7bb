// SPDX-License-Identifier: MIT
#pragma once
/// @file familiesview.h
/// The family map: every scheme of core's registry placed on the three axes of its descriptor: what the
/// encoding describes (columns: none, absolute, relative, contextual, mixed), where it is applied (rows: added to
/// the input, q and k rotated, added to the logits, keys and values, nowhere), and where its numbers come from
/// (the chip's style: filled fixed, outlined learned, dashed mixed), each with the year of its paper. Clicking a
/// scheme selects it (WorkbenchState::setScheme); the current one is framed.

#include "ui/figures/familiesfigure.h"
#include "ui/views/view.h"

#include <QString>

#include <vector>

namespace poslab::ui {

class FamiliesView : public View {
    Q_OBJECT
public:
    FamiliesView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {16.0, 10.0}; }

    /// One scheme's chip as laid out for a view of size @p size: the scheme id and its rectangle.
    struct Chip {
        QString id;
        QRectF rect;
    };
    /// The chips for a view drawn in @p target (the same layout render() and clicks use); empty when there is too
    /// little room.
    std::vector<Chip> chips(const QRectF& target) const;
    /// The scheme under @p pos in a view drawn in @p target, or an empty string.
    QString schemeAt(const QRectF& target, const QPointF& pos) const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    void mousePressEvent(QMouseEvent* e) override;
    /// Its figure is on its way: the table's new result does not redraw the old one (it redraws when it lands).
    bool awaitsOwnResult() const override { return m_figure.isPending(); }

public:
    /// The map is drawn whatever the current scheme computes (an error of its table does not hide the map); only
    /// too little room replaces it.
    void render(QPainter& painter, const QRectF& target) override;

private:
    struct Cell {
        int column = 0, row = 0;
    };
    struct Layout {
        QRectF header, legend, grid;
        std::vector<QRectF> columns; ///< one per relation shown (the header cell included)
        std::vector<QRectF> rows;    ///< one per application shown
        double rowHeaderWidth = 0;
        double fontPt = 9;       ///< chip font size (points, before the theme's font scale)
        bool twoLines = false;   ///< the chip writes its year under its name
        std::vector<Chip> chips; ///< in registry order
        bool fits = false;
    };
    Layout layoutFor(const QRectF& target) const;
    FigureTask<FamiliesFigure> m_figure; ///< computed off the UI thread in the window
};

} // namespace poslab::ui
