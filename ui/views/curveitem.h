// SPDX-License-Identifier: MIT
#pragma once
/// @file curveitem.h
/// The decay chart's curves, drawn by one item in the chart's scene instead of by Qt Charts' line series.
/// The series stay on the chart, empty, for the legend (their pens draw its markers) and the axes.
///
/// Why: Qt Charts strokes each series as one antialiased path with joins, about 1 ms for a 400-point curve
/// 2.6 px wide, and strokes it again for its hover shape on every geometry change. Segment by segment
/// (drawPolylineFast(), plotutils.h) the raster engine takes its fast path for wide lines: about a fifth of the
/// time. Vector output (SVG, PDF) gets each curve as one polyline with its pen, as before.

#include <QGraphicsItem>
#include <QList>
#include <QPen>
#include <QPointF>

#include <functional>
#include <utility>
#include <vector>

class QChart;
class QValueAxis;

namespace poslab::ui {

class CurveItem : public QGraphicsItem {
public:
    /// One curve: its points in the axes' values (x as the distance axis holds it: log10 on a log axis), its pen
    /// and the value axis it is drawn against.
    struct Curve {
        QList<QPointF> points;
        QPen pen;
        const QValueAxis* yAxis = nullptr;
    };
    /// @p onHover is called with the curve under the mouse and the x value (axis units) at the mouse.
    CurveItem(QChart* chart, const QValueAxis* xAxis, std::function<void(int curve, double x)> onHover);

    void setCurves(std::vector<Curve> curves);
    const std::vector<Curve>& curves() const { return m_curves; }
    /// The chart's plot area changed: the item covers it.
    void plotAreaChanged();

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    /// Curve @p c's points in the item's (the chart's) coordinates.
    QPolygonF toPlot(const Curve& c) const;
    /// The curve whose line passes nearest @p pos (item coordinates), within half its width and a few pixels, and
    /// the x value (axis units) there; curve -1 when none does (the mouse hover's test, also for B's half of A | B,
    /// which the decay view draws from its twin's chart and hovers by hand).
    std::pair<int, double> curveAt(const QPointF& pos) const;

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    QChart* m_chart;
    const QValueAxis* m_x;
    std::function<void(int, double)> m_onHover;
    std::vector<Curve> m_curves;
    QRectF m_plot;
};

} // namespace poslab::ui
