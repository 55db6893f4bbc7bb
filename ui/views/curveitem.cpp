// SPDX-License-Identifier: MIT
#include "ui/views/curveitem.h"

#include "ui/render/plotutils.h"

#include <QChart>
#include <QGraphicsSceneHoverEvent>
#include <QLegend>
#include <QPainter>
#include <QValueAxis>

#include <cmath>
#include <limits>

namespace poslab::ui {

CurveItem::CurveItem(QChart* chart, const QValueAxis* xAxis, std::function<void(int, double)> onHover)
    : QGraphicsItem(chart)
    , m_chart(chart)
    , m_x(xAxis)
    , m_onHover(std::move(onHover))
{
    // Above the grid and the axes, under the legend, as Qt Charts places its series.
    setZValue(chart->legend()->zValue() - 0.5);
    setAcceptHoverEvents(true);
    setFlag(QGraphicsItem::ItemUsesExtendedStyleOption, false);
    m_plot = chart->plotArea();
}

void CurveItem::setCurves(std::vector<Curve> curves)
{
    m_curves = std::move(curves);
    update();
}

void CurveItem::plotAreaChanged()
{
    const QRectF plot = m_chart->plotArea();
    if (plot != m_plot) {
        prepareGeometryChange();
        m_plot = plot;
    }
    update();
}

QRectF CurveItem::boundingRect() const
{
    return m_plot;
}

QPolygonF CurveItem::toPlot(const Curve& c) const
{
    // The axes' linear map from values to the plot area, as Qt Charts' domain maps its series.
    QPolygonF out;
    if (!c.yAxis || m_plot.isEmpty())
        return out;
    const double x0 = m_x->min(), x1 = m_x->max(), y0 = c.yAxis->min(), y1 = c.yAxis->max();
    if (!(x1 > x0) || !(y1 > y0))
        return out;
    const double sx = m_plot.width() / (x1 - x0), sy = m_plot.height() / (y1 - y0);
    out.reserve(c.points.size());
    for (const QPointF& p : c.points)
        out.append(QPointF(m_plot.left() + (p.x() - x0) * sx, m_plot.bottom() - (p.y() - y0) * sy));
    return out;
}

void CurveItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    if (m_curves.empty() || m_plot.isEmpty())
        return;
    painter->save();
    painter->setClipRect(m_plot, Qt::IntersectClip);
    painter->setBrush(Qt::NoBrush);
    for (const Curve& c : m_curves) {
        const QPolygonF line = toPlot(c);
        if (line.size() >= 2)
            drawPolylineFast(*painter, line, c.pen);
    }
    painter->restore();
}

std::pair<int, double> CurveItem::curveAt(const QPointF& m) const
{
    if (!m_plot.contains(m))
        return {-1, 0.0};
    // The curve whose line passes nearest the mouse, within half its width and a few pixels.
    int best = -1;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m_curves.size(); ++i) {
        const QPolygonF line = toPlot(m_curves[i]);
        const double reach = m_curves[i].pen.widthF() / 2 + 3;
        for (qsizetype j = 1; j < line.size(); ++j) {
            const QPointF a = line[j - 1], b = line[j];
            if (std::min(a.x(), b.x()) > m.x() + reach || std::max(a.x(), b.x()) < m.x() - reach)
                continue;
            const QPointF ab = b - a;
            const double len2 = QPointF::dotProduct(ab, ab);
            const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(m - a, ab) / len2, 0.0, 1.0) : 0.0;
            const QPointF d = a + t * ab - m;
            const double dist = std::hypot(d.x(), d.y());
            if (std::isfinite(dist) && dist <= reach && dist <= bestDistance) {
                best = int(i);
                bestDistance = dist;
            }
        }
    }
    return {best, m_x->min() + (m.x() - m_plot.left()) / m_plot.width() * (m_x->max() - m_x->min())};
}

void CurveItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event)
{
    if (!m_onHover)
        return;
    const auto [best, x] = curveAt(event->pos());
    if (best >= 0)
        m_onHover(best, x);
}

} // namespace poslab::ui
