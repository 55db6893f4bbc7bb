// SPDX-License-Identifier: MIT
#include "ui/views/bucketsview.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

BucketsView::BucketsView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) {
        if (later)
            refresh();
    })
{
    resultChanged();
}

bool BucketsView::supports(const core::SchemeDescriptor& scheme) const
{
    return core::hasBucketProfile(scheme.id);
}

QString BucketsView::notApplicableReason() const
{
    return tr("%1 has no distance buckets. Pick T5 or DeBERTa to see how distances share buckets.")
        .arg(shortSchemeName(m_state->scheme()));
}

void BucketsView::resultChanged()
{
    if (isApplicable())
        m_figure.update(FigureSnapshot::of(*m_state));
}

namespace {

/// The axis position of a relative position: logarithmic each way, 0 in the middle (r -> sign(r) (1 + log10 |r|)).
double axisOf(double rel)
{
    if (rel == 0)
        return 0;
    return (rel < 0 ? -1.0 : 1.0) * (1.0 + std::log10(std::fabs(rel)));
}

QString signedText(core::Position r)
{
    return r < 0 ? QStringLiteral("\u2212") + formatNumber(double(-r), 7) : formatNumber(double(r), 7);
}

/// One paint of the bucket profile (BucketsView::renderContent draws with one): the fonts, the bucket range and the
/// plot's log-both-ways axes, worked out once (layOut()), and the parts drawn in turn: the heading, the axes and
/// the exact region, the buckets' steps, the exact region's label, the named edges.
struct BucketsPainter {
    Q_DECLARE_TR_FUNCTIONS(poslab::ui::BucketsView)

public:
    BucketsPainter(QPainter& painter, TextLayout& layout, const QRectF& area, const Theme& theme,
                   const BucketData& data)
        : p(painter)
        , text(layout)
        , target(area)
        , th(theme)
        , d(data)
        , b(data.profile)
        , t5(data.t5)
        , bidirectional(!data.t5 || data.bidirectional)
        , n(data.maxDistance)
        , s(sizeScale(area))
        , pad(8 * s)
        , rel(t5 ? tr("key \u2212 query") : tr("query \u2212 key"))
        , tickFont(th.font(9.5 * s))
        , labelFont(th.font(10 * s))
        , edgeFont(th.font(10 * s, true))
        , tfm(tickFont)
        , lfm(labelFont)
        , efm(edgeFont)
    { }

    void draw(const QString& figureLabel)
    {
        layOut(drawHeading(figureLabel));
        drawAxes();
        drawSteps();
        drawExactLabel();
        drawEdges();
    }

    QPainter& p;
    TextLayout& text;
    const QRectF target;
    const Theme th;
    const BucketData& d;
    const core::BucketProfile& b;
    // Both from the figure's own set-up: the data may still be T5's for a frame after the scheme changed (lesson
    // 6.3 to 6.4), when the state's parameters are already DeBERTa's.
    const bool t5;
    const bool bidirectional;
    const core::Position n;
    const double s, pad;
    const QString rel;
    const QFont tickFont, labelFont, edgeFont;
    const QFontMetricsF tfm, lfm, efm;
    // Geometry (layOut()).
    double headerBottom = 0;
    long long lo = 0, hi = 1; ///< the bucket axis' range
    std::vector<double> yTicks;
    double edgeRows = 0;     ///< the two rows of edge labels above the plot
    QRectF area;             ///< the plot
    double span = 1;         ///< axisOf(n): the axis' half width in its own units
    QColor exact;            ///< the exact region's tint
    double ex0 = 0, ex1 = 0; ///< the exact region's left and right

    double x(double relPos) const { return area.center().x() + axisOf(relPos) / span * area.width() / 2; }
    double y(double bucket) const { return area.bottom() - (bucket - double(lo)) / double(hi - lo) * area.height(); }

    double drawHeading(const QString& figureLabel)
    {
        const QString variant = t5 ? (bidirectional ? tr("bidirectional (encoder)")
                                                    : tr("causal (decoder): keys after the query share bucket 0"))
                                   : tr("table rows clamp to \u2212%1 \u2026 %2").arg(b.tableSpan).arg(b.tableSpan - 1);
        const QString variantShort
            = t5 ? (bidirectional ? tr("bidirectional") : tr("causal")) : tr("rows \u00b1%1").arg(b.tableSpan);
        return drawHeader(text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th,
                          s,
                          {figureLabel,
                           {tr("bucket of relative position %1").arg(rel), tr("bucket of %1").arg(rel), tr("buckets")},
                           {variant, variantShort}});
    }

    void layOut(double headerY)
    {
        headerBottom = headerY;
        lo = hi = b.bucketAtZero;
        for (const core::BucketSide* side : {&b.negative, &b.positive})
            for (const core::BucketRun& r : side->runs) {
                lo = std::min(lo, r.bucket);
                hi = std::max(hi, r.bucket);
            }
        if (hi == lo)
            hi = lo + 1;
        yTicks = niceTicks(double(lo), double(hi), 6);
        double yLabelW = 0;
        for (double v : yTicks)
            yLabelW = std::max(yLabelW, tfm.horizontalAdvance(signedText(core::Position(std::llround(v)))));
        edgeRows = 2 * efm.height() * 1.15;
        const double halfX = tfm.horizontalAdvance(signedText(-n)) / 2;
        const QPointF corner(target.left() + pad + std::max(yLabelW + 6 * s, halfX),
                             headerBottom + lfm.height() * 1.2 + edgeRows);
        const double right = target.right() - pad - halfX;
        const double bottom = target.bottom() - pad - tfm.height() * 1.3 - lfm.height() * 1.3;
        area = QRectF(corner.x(), corner.y(), std::max(10.0, right - corner.x()), std::max(10.0, bottom - corner.y()));
        span = axisOf(double(n));
        exact = th.accent;
        exact.setAlphaF(0.08);
        // A side without logarithmic buckets (T5's causal keys after the query, all in bucket 0) has no exact region.
        ex0 = b.negative.logStart ? x(-double(*b.negative.logStart)) : x(0);
        ex1 = b.positive.logStart ? x(double(*b.positive.logStart)) : x(0);
    }

    /// The axes' titles, the panel, the exact region (one bucket per distance), the grid and ticks, DeBERTa's
    /// table rows.
    void drawAxes()
    {
        // The y axis's title, above its labels.
        text.draw(QRectF(target.left() + pad, headerBottom + lfm.height() * 0.1, area.width(), lfm.height()),
                  Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted, {tr("bucket")});
        p.fillRect(area, th.panel);
        p.fillRect(QRectF(QPointF(std::max(area.left(), ex0), area.top()),
                          QPointF(std::min(area.right(), ex1), area.bottom())),
                   exact);
        // Grid and ticks: the distance labels first (the bucket axis's lowest label gives way to them).
        std::vector<core::Position> xTicks{0};
        for (core::Position t = 1; t <= n; t *= 10) {
            xTicks.push_back(t);
            xTicks.push_back(-t);
        }
        for (core::Position t : xTicks) {
            const double xt = x(double(t));
            p.setPen(QPen(th.grid, 1.0 * s));
            p.drawLine(QPointF(xt, area.top()), QPointF(xt, area.bottom()));
            text.drawAt(QPointF(xt, area.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                        {signedText(t)});
        }
        p.setPen(QPen(th.grid, 1.0 * s));
        for (double v : yTicks) {
            const double yt = y(v);
            p.drawLine(QPointF(area.left(), yt), QPointF(area.right(), yt));
            text.drawAt(QPointF(area.left() - 4 * s, yt), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                        {signedText(core::Position(std::llround(v)))});
        }
        if (b.tableSpan > 0) {
            // DeBERTa: the attention reads table rows -s .. s - 1; buckets past them clamp.
            p.setPen(QPen(th.accent3, 1.2 * s, Qt::DotLine));
            for (double row : {double(b.tableSpan - 1), -double(b.tableSpan)})
                if (row >= double(lo) && row <= double(hi)) {
                    p.drawLine(QPointF(area.left(), y(row)), QPointF(area.right(), y(row)));
                    text.keepClearOf(QPointF(area.left(), y(row)), QPointF(area.right(), y(row)), tr("table rows"));
                }
        }
        text.draw(QRectF(area.left(), area.bottom() + tfm.height() * 1.3, area.width(), lfm.height()),
                  Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground,
                  {tr("relative position %1 (tokens; logarithmic both ways, 0 in the middle)").arg(rel),
                   tr("relative position %1 (tokens, log both ways)").arg(rel), tr("%1 (tokens)").arg(rel)});
    }

    /// The buckets: each run of equal buckets as a segment over its distances, a dot at each end.
    void drawSteps()
    {
        p.save();
        p.setClipRect(area.adjusted(-4 * s, -4 * s, 4 * s, 4 * s));
        const QPen stepPen(th.accent, 2.2 * s, Qt::SolidLine, Qt::RoundCap);
        const double dot = 2.6 * s;
        p.setPen(Qt::NoPen);
        p.setBrush(th.accent);
        p.drawEllipse(QPointF(x(0), y(double(b.bucketAtZero))), dot, dot);
        for (const core::BucketSide* side : {&b.negative, &b.positive}) {
            double prevX = x(0), prevY = y(double(b.bucketAtZero));
            for (const core::BucketRun& r : side->runs) {
                const double x0 = x(double(side->sign * r.first)), x1 = x(double(side->sign * r.last));
                const double yr = y(double(r.bucket));
                QPen riser(th.accent, 1.0 * s);
                riser.setStyle(Qt::DotLine);
                p.setPen(riser);
                p.drawLine(QPointF(prevX, prevY), QPointF(x0, prevY));
                p.drawLine(QPointF(x0, prevY), QPointF(x0, yr));
                p.setPen(stepPen);
                p.drawLine(QPointF(x0, yr), QPointF(x1, yr));
                text.keepClearOf(QPolygonF{QPointF(prevX, prevY), QPointF(x0, prevY), QPointF(x0, yr), QPointF(x1, yr)},
                                 tr("buckets"), area.adjusted(-4 * s, -4 * s, 4 * s, 4 * s));
                p.setPen(Qt::NoPen);
                p.setBrush(th.accent);
                p.drawEllipse(QPointF(x0, yr), dot, dot);
                if (r.last != r.first)
                    p.drawEllipse(QPointF(x1, yr), dot, dot);
                prevX = x1;
                prevY = yr;
            }
        }
        p.restore();
    }

    void drawExactLabel()
    {
        if (!(ex1 - ex0 > 1))
            return;
        // Over the grid, on the region's own colour, so no grid line runs through the words; after the buckets, so
        // it goes only where their line leaves it room (else it is left out).
        const QString words = tr("one bucket per distance");
        const double w = lfm.horizontalAdvance(words) + 8 * s;
        const QRectF box(ex0 + (ex1 - ex0 - w) / 2, area.top() + 2 * s, w, lfm.height());
        if (w < ex1 - ex0 && text.isFree(box)) {
            p.fillRect(box, th.panel);
            p.fillRect(box, exact);
            text.draw(box, Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.muted, {words}, TextLayout::Fit::Drop);
        }
    }

    /// A dashed edge at relative position @p at from above the plot to its bottom, kept clear of as @p name.
    double drawEdgeLine(core::Position at, const QColor& colour, const QString& name)
    {
        const double xe = x(double(at));
        p.setPen(QPen(colour, 1.4 * s, Qt::DashLine));
        p.drawLine(QPointF(xe, area.top() - 2 * s), QPointF(xe, area.bottom()));
        text.keepClearOf(QPointF(xe, area.top() - 2 * s), QPointF(xe, area.bottom()), name);
        return xe;
    }

    /// An edge's label in the row at @p rowY: @p words centred on its line, else beside it (towards the middle,
    /// @p sign the side's), else @p shorter centred.
    void drawEdgeLabel(double xe, double rowY, int sign, const QColor& colour, const QString& words,
                       const QStringList& shorter)
    {
        const Qt::Alignment beside = sign < 0 ? Qt::AlignLeft : Qt::AlignRight;
        if (text.drawAt(QPointF(xe, rowY), Qt::AlignHCenter | Qt::AlignTop, edgeFont, colour, {words}).isEmpty()
            && text.drawAt(QPointF(xe - sign * 3 * s, rowY), beside | Qt::AlignTop, edgeFont, colour, {words})
                   .isEmpty())
            text.drawAt(QPointF(xe, rowY), Qt::AlignHCenter | Qt::AlignTop, edgeFont, colour, shorter);
    }

    /// The edges a lecture names: where the logarithm starts and where the last bucket (row) starts; the last
    /// edges past the plot's range in one note at its bottom.
    void drawEdges()
    {
        const double row1 = area.top() - edgeRows, row2 = area.top() - edgeRows / 2;
        QStringList beyond;
        for (const core::BucketSide* side : {&b.negative, &b.positive}) {
            if (side->logStart && *side->logStart <= n) {
                const double xe = drawEdgeLine(side->sign * *side->logStart, th.accent2, tr("log start"));
                const QString at = signedText(side->sign * *side->logStart);
                drawEdgeLabel(xe, row1, int(side->sign), th.accent2, tr("log buckets from %1").arg(at),
                              {tr("log from %1").arg(at), tr("log %1").arg(at)});
            }
            if (side->lastStart && side->runs.size() > 1) {
                const QString at = signedText(side->sign * *side->lastStart);
                const QString what = t5 ? tr("last bucket %1 from %2").arg(signedText(side->lastBucket), at)
                                        : tr("last row %1 from %2").arg(signedText(side->lastBucket), at);
                if (*side->lastStart <= n) {
                    const double xe = drawEdgeLine(side->sign * *side->lastStart, th.accent3, tr("last bucket"));
                    drawEdgeLabel(xe, row2, int(side->sign), th.accent3, what,
                                  {tr("last from %1").arg(at), tr("last %1").arg(at)});
                } else {
                    beyond << what;
                }
            }
        }
        if (!beyond.isEmpty())
            text.draw(
                QRectF(area.left() + 4 * s, area.bottom() - lfm.height() * 1.2, area.width() - 8 * s, lfm.height()),
                Qt::AlignRight | Qt::AlignVCenter, labelFont, th.muted,
                {tr("beyond %1 positions: %2").arg(formatNumber(double(n + 1), 7), beyond.join(QStringLiteral("; "))),
                 beyond.join(QStringLiteral("; "))},
                TextLayout::Fit::Drop);
    }
};

} // namespace

void BucketsView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!data().error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute"), data().error);
        return;
    }
    TextLayout text(p, target);
    BucketsPainter(p, text, target, th, data()).draw(m_state->figureLabel());
}

} // namespace poslab::ui
