// SPDX-License-Identifier: MIT
#include "ui/views/bucketsview.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

BucketsView::BucketsView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
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

} // namespace

void BucketsView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!data().error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute"), data().error);
        return;
    }
    const core::BucketProfile& b = data().profile;
    // Both from the figure's own set-up: the data may still be T5's for a frame after the scheme changed (lesson
    // 6.3 to 6.4), when the state's parameters are already DeBERTa's.
    const bool t5 = data().t5;
    const bool bidirectional = !t5 || data().bidirectional;
    const core::Position n = data().maxDistance;
    const double s = sizeScale(target);
    const double pad = 8 * s;
    TextLayout text(p, target);
    const QString rel = t5 ? tr("key \u2212 query") : tr("query \u2212 key");
    const QString variant = t5 ? (bidirectional ? tr("bidirectional (encoder)") : tr("causal (decoder): keys after the query share bucket 0"))
                               : tr("table rows clamp to \u2212%1 \u2026 %2").arg(b.tableSpan).arg(b.tableSpan - 1);
    const QString variantShort = t5 ? (bidirectional ? tr("bidirectional") : tr("causal")) : tr("rows \u00b1%1").arg(b.tableSpan);
    const double headerBottom = drawHeader(
        text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th, s,
        {m_state->figureLabel(),
         {tr("bucket of relative position %1").arg(rel), tr("bucket of %1").arg(rel), tr("buckets")},
         {variant, variantShort}});

    const QFont tickFont = th.font(9.5 * s);
    const QFont labelFont = th.font(10 * s);
    const QFont edgeFont = th.font(10 * s, true);
    const QFontMetricsF tfm(tickFont), lfm(labelFont), efm(edgeFont);

    long long lo = b.bucketAtZero, hi = b.bucketAtZero;
    for (const core::BucketSide* side : {&b.negative, &b.positive})
        for (const core::BucketRun& r : side->runs) {
            lo = std::min(lo, r.bucket);
            hi = std::max(hi, r.bucket);
        }
    if (hi == lo)
        hi = lo + 1;
    const std::vector<double> yTicks = niceTicks(double(lo), double(hi), 6);
    double yLabelW = 0;
    for (double v : yTicks)
        yLabelW = std::max(yLabelW, tfm.horizontalAdvance(signedText(core::Position(std::llround(v)))));
    const double edgeRows = 2 * efm.height() * 1.15;
    const double halfX = tfm.horizontalAdvance(signedText(-n)) / 2;
    const QRectF plot(target.left() + pad + std::max(yLabelW + 6 * s, halfX), headerBottom + lfm.height() * 1.2 + edgeRows,
                      0, 0);
    const double right = target.right() - pad - halfX;
    const double bottom = target.bottom() - pad - tfm.height() * 1.3 - lfm.height() * 1.3;
    const QRectF area(plot.left(), plot.top(), std::max(10.0, right - plot.left()), std::max(10.0, bottom - plot.top()));

    const double span = axisOf(double(n));
    const auto X = [&](double relPos) { return area.center().x() + axisOf(relPos) / span * area.width() / 2; };
    const auto Y = [&](double bucket) { return area.bottom() - (bucket - double(lo)) / double(hi - lo) * area.height(); };

    // The y axis's title, above its labels.
    text.draw(QRectF(target.left() + pad, headerBottom + lfm.height() * 0.1, area.width(), lfm.height()),
              Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted, {tr("bucket")});

    p.fillRect(area, th.panel);
    // The exact region: one bucket per distance.
    std::optional<core::Position> exactNeg = b.negative.logStart, exactPos = b.positive.logStart;
    QColor exact = th.accent;
    exact.setAlphaF(0.08);
    // A side without logarithmic buckets (T5's causal keys after the query, all in bucket 0) has no exact region.
    const double ex0 = exactNeg ? X(-double(*exactNeg)) : X(0);
    const double ex1 = exactPos ? X(double(*exactPos)) : X(0);
    p.fillRect(QRectF(QPointF(std::max(area.left(), ex0), area.top()), QPointF(std::min(area.right(), ex1), area.bottom())), exact);

    // Grid and ticks: the distance labels first (the bucket axis's lowest label gives way to them).
    std::vector<core::Position> xTicks{0};
    for (core::Position t = 1; t <= n; t *= 10) {
        xTicks.push_back(t);
        xTicks.push_back(-t);
    }
    for (core::Position t : xTicks) {
        const double x = X(double(t));
        p.setPen(QPen(th.grid, 1.0 * s));
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        text.drawAt(QPointF(x, area.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted, {signedText(t)});
    }
    p.setPen(QPen(th.grid, 1.0 * s));
    for (double v : yTicks) {
        const double y = Y(v);
        p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
        text.drawAt(QPointF(area.left() - 4 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {signedText(core::Position(std::llround(v)))});
    }
    if (b.tableSpan > 0) {
        // DeBERTa: the attention reads table rows -s .. s - 1; buckets past them clamp.
        p.setPen(QPen(th.accent3, 1.2 * s, Qt::DotLine));
        for (double row : {double(b.tableSpan - 1), -double(b.tableSpan)})
            if (row >= double(lo) && row <= double(hi)) {
                p.drawLine(QPointF(area.left(), Y(row)), QPointF(area.right(), Y(row)));
                text.keepClearOf(QPointF(area.left(), Y(row)), QPointF(area.right(), Y(row)), tr("table rows"));
            }
    }
    text.draw(QRectF(area.left(), area.bottom() + tfm.height() * 1.3, area.width(), lfm.height()),
              Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground,
              {tr("relative position %1 (tokens; logarithmic both ways, 0 in the middle)").arg(rel),
               tr("relative position %1 (tokens, log both ways)").arg(rel), tr("%1 (tokens)").arg(rel)});

    // The buckets: each run of equal buckets as a segment over its distances, a dot at each end.
    p.save();
    p.setClipRect(area.adjusted(-4 * s, -4 * s, 4 * s, 4 * s));
    const QPen stepPen(th.accent, 2.2 * s, Qt::SolidLine, Qt::RoundCap);
    const double dot = 2.6 * s;
    p.setPen(Qt::NoPen);
    p.setBrush(th.accent);
    p.drawEllipse(QPointF(X(0), Y(double(b.bucketAtZero))), dot, dot);
    for (const core::BucketSide* side : {&b.negative, &b.positive}) {
        double prevX = X(0), prevY = Y(double(b.bucketAtZero));
        for (const core::BucketRun& r : side->runs) {
            const double x0 = X(double(side->sign * r.first)), x1 = X(double(side->sign * r.last));
            const double y = Y(double(r.bucket));
            QPen riser(th.accent, 1.0 * s);
            riser.setStyle(Qt::DotLine);
            p.setPen(riser);
            p.drawLine(QPointF(prevX, prevY), QPointF(x0, prevY));
            p.drawLine(QPointF(x0, prevY), QPointF(x0, y));
            p.setPen(stepPen);
            p.drawLine(QPointF(x0, y), QPointF(x1, y));
            text.keepClearOf(QPolygonF{QPointF(prevX, prevY), QPointF(x0, prevY), QPointF(x0, y), QPointF(x1, y)},
                             tr("buckets"), area.adjusted(-4 * s, -4 * s, 4 * s, 4 * s));
            p.setPen(Qt::NoPen);
            p.setBrush(th.accent);
            p.drawEllipse(QPointF(x0, y), dot, dot);
            if (r.last != r.first)
                p.drawEllipse(QPointF(x1, y), dot, dot);
            prevX = x1;
            prevY = y;
        }
    }
    p.restore();
    if (ex1 - ex0 > 1) {
        // Over the grid, on the region's own colour, so no grid line runs through the words; after the buckets, so
        // it goes only where their line leaves it room (else it is left out).
        const QString words = tr("one bucket per distance");
        const QFontMetricsF fm(labelFont);
        const double w = fm.horizontalAdvance(words) + 8 * s;
        const QRectF box(ex0 + (ex1 - ex0 - w) / 2, area.top() + 2 * s, w, fm.height());
        if (w < ex1 - ex0 && text.isFree(box)) {
            p.fillRect(box, th.panel);
            p.fillRect(box, exact);
            text.draw(box, Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.muted, {words}, TextLayout::Fit::Drop);
        }
    }

    // The edges a lecture names: where the logarithm starts and where the last bucket (row) starts.
    const double row1 = area.top() - edgeRows, row2 = area.top() - edgeRows / 2;
    QPen edgePen(th.accent2, 1.4 * s, Qt::DashLine);
    QStringList beyond;
    for (const core::BucketSide* side : {&b.negative, &b.positive}) {
        if (side->logStart && *side->logStart <= n) {
            const double x = X(double(side->sign * *side->logStart));
            p.setPen(edgePen);
            p.drawLine(QPointF(x, area.top() - 2 * s), QPointF(x, area.bottom()));
            text.keepClearOf(QPointF(x, area.top() - 2 * s), QPointF(x, area.bottom()), tr("log start"));
            const QString at = signedText(side->sign * *side->logStart);
            const QStringList words{tr("log buckets from %1").arg(at), tr("log from %1").arg(at), tr("log %1").arg(at)};
            const Qt::Alignment beside = side->sign < 0 ? Qt::AlignLeft : Qt::AlignRight;
            if (text.drawAt(QPointF(x, row1), Qt::AlignHCenter | Qt::AlignTop, edgeFont, th.accent2, {words.front()}).isEmpty()
                && text.drawAt(QPointF(x - side->sign * 3 * s, row1), beside | Qt::AlignTop, edgeFont, th.accent2,
                               {words.front()})
                       .isEmpty())
                text.drawAt(QPointF(x, row1), Qt::AlignHCenter | Qt::AlignTop, edgeFont, th.accent2, words.mid(1));
        }
        if (side->lastStart && side->runs.size() > 1) {
            const QString at = signedText(side->sign * *side->lastStart);
            const QString what = t5 ? tr("last bucket %1 from %2").arg(signedText(side->lastBucket), at)
                                    : tr("last row %1 from %2").arg(signedText(side->lastBucket), at);
            if (*side->lastStart <= n) {
                const double x = X(double(side->sign * *side->lastStart));
                p.setPen(QPen(th.accent3, 1.4 * s, Qt::DashLine));
                p.drawLine(QPointF(x, area.top() - 2 * s), QPointF(x, area.bottom()));
                text.keepClearOf(QPointF(x, area.top() - 2 * s), QPointF(x, area.bottom()), tr("last bucket"));
                // Centred on its line, else beside it (towards the middle), else shorter.
                const Qt::Alignment beside = side->sign < 0 ? Qt::AlignLeft : Qt::AlignRight;
                if (text.drawAt(QPointF(x, row2), Qt::AlignHCenter | Qt::AlignTop, edgeFont, th.accent3, {what}).isEmpty()
                    && text.drawAt(QPointF(x - side->sign * 3 * s, row2), beside | Qt::AlignTop, edgeFont, th.accent3, {what})
                           .isEmpty())
                    text.drawAt(QPointF(x, row2), Qt::AlignHCenter | Qt::AlignTop, edgeFont, th.accent3,
                                {tr("last from %1").arg(at), tr("last %1").arg(at)});
            } else {
                beyond << what;
            }
        }
    }
    if (!beyond.isEmpty())
        text.draw(QRectF(area.left() + 4 * s, area.bottom() - lfm.height() * 1.2, area.width() - 8 * s, lfm.height()),
                  Qt::AlignRight | Qt::AlignVCenter, labelFont, th.muted,
                  {tr("beyond %1 positions: %2").arg(formatNumber(double(n + 1), 7), beyond.join(QStringLiteral("; "))),
                   beyond.join(QStringLiteral("; "))},
                  TextLayout::Fit::Drop);
}

} // namespace poslab::ui
