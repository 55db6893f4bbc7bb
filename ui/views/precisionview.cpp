// SPDX-License-Identifier: MIT
#include "ui/views/precisionview.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

PrecisionView::PrecisionView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    // The format and the pipeline are view options: a change of either recomputes (the figure's inputs say which).
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] { resultChanged(); });
    resultChanged();
}

bool PrecisionView::supports(const core::SchemeDescriptor& scheme) const
{
    return scheme.rotary != nullptr;
}

QString PrecisionView::notApplicableReason() const
{
    return tr("%1 has no rotation angles to round. Pick RoPE or another rotary scheme.")
        .arg(shortSchemeName(m_state->scheme()));
}

void PrecisionView::resultChanged()
{
    if (isApplicable())
        m_figure.update(FigureSnapshot::of(*m_state));
}

namespace {

QString count(double v)
{
    return formatNumber(v, 7);
}

} // namespace

void PrecisionView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!data().error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute"), data().error);
        return;
    }
    const core::PrecisionAnalysis& a = data().analysis;
    const int pairs = int(a.pairs.size());
    if (pairs == 0)
        return;
    const double s = sizeScale(target);
    const double pad = 8 * s;
    TextLayout text(p, target);
    const QString dtype = QString::fromLatin1(core::floatFormatName(a.format).data());
    const bool low = a.pipeline == core::AnglePipeline::LowPrecision;
    const QString lastPos = count(double(data().positions - 1));
    QStringList note;
    // Predict, then see (WorkbenchState::answerPending): the first shared rotation answers 13.2; it waits for the guess.
    if (m_state->answerPending())
        ;
    else if (a.firstVectorCollapse)
        note << tr("positions %1 and %2 share one rotation").arg(count(double(*a.firstVectorCollapse)),
                                                                  count(double(*a.firstVectorCollapse + 1)))
             << tr("%1 = %2").arg(count(double(*a.firstVectorCollapse)), count(double(*a.firstVectorCollapse + 1)));
    else
        note << tr("no two neighbours share a rotation") << tr("no shared rotation");
    const double headerBottom = drawHeader(
        text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th, s,
        {m_state->figureLabel(),
         {tr("%1 angles, positions 0\u2013%2").arg(dtype, lastPos), tr("%1, 0\u2013%2").arg(dtype, lastPos), dtype},
         note});
    const QFont tickFont = th.font(9.5 * s);
    const QFont labelFont = th.font(10 * s);
    const QFontMetricsF tfm(tickFont), lfm(labelFont);
    double y = headerBottom + 2 * s;
    // What the pipeline is, in one line.
    const QRectF how(target.left() + pad, y, target.width() - 2 * pad, lfm.height());
    text.draw(how, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
              low ? QStringList{tr("low precision: p and \u03c9 held in %1, p\u00b7\u03c9 rounded in %1 (position ids kept in the "
                                   "model dtype)").arg(dtype),
                                tr("low precision: %1(%1(p)\u00b7%1(\u03c9))").arg(dtype),
                                tr("low precision: all in %1").arg(dtype)}
                  : QStringList{tr("rounded angle: p\u00b7\u03c9 in double, rounded once to %1 (an angle table stored in %1)")
                                    .arg(dtype),
                                tr("rounded angle: %1(p\u00b7\u03c9)").arg(dtype), tr("angle rounded to %1").arg(dtype)});
    y += lfm.height() * 1.15;
    if (a.firstNonFinite) {
        text.draw(QRectF(target.left() + pad, y, target.width() - 2 * pad, lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                  labelFont, th.accent3,
                  {tr("from p = %1 the angle overflows to infinity in %2: cos and sin are not numbers")
                       .arg(count(double(*a.firstNonFinite)), dtype),
                   tr("from p = %1: angle = \u221e").arg(count(double(*a.firstNonFinite)))});
        y += lfm.height() * 1.15;
    }
    // Legend: one row of coloured keys.
    struct Key {
        QColor colour;
        QStringList words;
    };
    // The long wordings only where the figure has room for them beside two readable panels.
    const bool roomy = target.height() > 26 * lfm.height();
    const std::vector<Key> keys{
        {th.accent, {tr("first p with angle(p) = angle(p+1)"), tr("angle collapse"), tr("angle")}},
        {th.accent2, {tr("first p with the same (cos, sin) as p+1"), tr("(cos, sin) collapse"), tr("(cos, sin)")}},
        {th.accent3, {tr("spacing of p\u00b7\u03c9 exceeds \u03c9 from p"), tr("ulp > \u03c9"), tr("ulp > \u03c9")}},
    };
    if (roomy)
        y += lfm.height() * 1.4; // the legend's row (drawn below, once the panels are placed)

    // Two panels sharing the pair axis.
    double topMax = double(data().positions);
    for (const core::PairPrecision& pp : a.pairs)
        if (pp.resolutionPosition)
            topMax = std::max(topMax, double(*pp.resolutionPosition));
    const double decades = std::max(1.0, std::ceil(std::log10(topMax)));
    double yLabelW = tfm.horizontalAdvance(formatNumber(std::pow(10.0, decades), 7));
    yLabelW = std::max(yLabelW, tfm.horizontalAdvance(count(double(data().positions))));
    const double left = target.left() + pad + yLabelW + 6 * s;
    const double right = target.right() - pad;
    const double bottomAll = target.bottom() - pad - tfm.height() * 1.3 - lfm.height() * 1.3;
    const double gap = lfm.height() * (roomy ? 1.6 : 1.0);
    // Two panel titles (one line each above the panels) and the gap between the panels.
    const double total = std::max(20.0, bottomAll - y - gap - 2 * lfm.height());
    const QRectF top(left, y + lfm.height(), std::max(10.0, right - left), total * 0.58);
    const QRectF bot(left, top.bottom() + gap + lfm.height(), top.width(), total * 0.42);
    const auto X = [&](int i) { return top.left() + (i + 0.5) / pairs * top.width(); };

    // Top: positions on a log axis.
    const QRectF topTitle = text.draw(QRectF(target.left() + pad, top.top() - lfm.height() * 1.05, top.width(), lfm.height()),
                                      Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
                                      {tr("position p (log scale)"), tr("position p")});
    // The legend: its own row when the figure is roomy, else on the top panel's title row.
    {
        double legendY = roomy ? top.top() - lfm.height() * 2.4 : top.top() - lfm.height() * 1.05;
        double& y = legendY;
    // Keys that do not fit the row start a new one.
        double x = roomy ? target.left() + pad : topTitle.right() + 16 * s;
        // One wording level for every key: the longest at which the whole row fits (the short ones on a crowded row).
        int level = roomy ? 0 : 1;
        for (; level < 2; ++level) {
            double need = 0;
            for (const Key& k : keys)
                need += lfm.height() * 0.6 + 4 * s + lfm.horizontalAdvance(k.words[level]) + 12 * s;
            if (x + need <= target.right() - pad)
                break;
        }
        for (const Key& k : keys) {
            const double sw = lfm.height() * 0.6;
            QRectF drawn;
            for (int attempt = 0; attempt < (roomy ? 2 : 1) && drawn.isEmpty(); ++attempt) {
                if (attempt == 1) {
                    if (x == target.left() + pad)
                        break;
                    x = target.left() + pad;
                    y += lfm.height() * 1.1;
                }
                const QRectF box(x + sw + 4 * s, y, target.right() - pad - x - sw - 4 * s, lfm.height());
                drawn = text.draw(box, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground,
                                  k.words.mid(level), TextLayout::Fit::Drop);
            }
            if (drawn.isEmpty())
                continue;
            // The (cos, sin) key is a ring, as its marks are.
            const bool ring = k.colour == th.accent2;
            p.setPen(ring ? QPen(k.colour, 1.6 * s) : QPen(Qt::NoPen));
            p.setBrush(ring ? QBrush(Qt::NoBrush) : QBrush(k.colour));
            p.drawEllipse(QPointF(x + sw / 2, y + lfm.height() / 2), sw / 2, sw / 2);
            x = drawn.right() + 12 * s;
        }
    }
    p.fillRect(top, th.panel);
    const auto Ytop = [&](double v) { return top.bottom() - std::log10(std::max(1.0, v)) / decades * top.height(); };
    for (int k = 0; k <= int(decades); ++k) {
        const double yy = Ytop(std::pow(10.0, k));
        p.setPen(QPen(th.grid, 1.0 * s));
        p.drawLine(QPointF(top.left(), yy), QPointF(top.right(), yy));
        text.drawAt(QPointF(top.left() - 4 * s, yy), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {formatNumber(std::pow(10.0, k), 7)});
    }
    // The last position of the range.
    const double yEnd = Ytop(double(data().positions - 1));
    p.setPen(QPen(th.foreground, 1.2 * s, Qt::DashLine));
    p.drawLine(QPointF(top.left(), yEnd), QPointF(top.right(), yEnd));
    text.keepClearOf(QPointF(top.left(), yEnd), QPointF(top.right(), yEnd), tr("last position"));
    const double r = std::clamp(top.width() / pairs * 0.3, 1.5 * s, 4.0 * s);
    QPolygonF resolution;
    for (int i = 0; i < pairs; ++i)
        if (a.pairs[std::size_t(i)].resolutionPosition)
            resolution << QPointF(X(i), Ytop(double(*a.pairs[std::size_t(i)].resolutionPosition)));
    text.keepClearOf(resolution, tr("resolution"), top);
    // The dashed line's label beside it, never across the resolution curve: above it at the right end, below it
    // there, then above and below at the left end (the first place the layout finds free of text and lines).
    {
        const QStringList words{tr("last position %1").arg(lastPos), lastPos};
        const struct {
            QPointF at;
            Qt::Alignment align;
        } places[] = {{QPointF(top.right() - 4 * s, yEnd - 2 * s), Qt::AlignRight | Qt::AlignBottom},
                      {QPointF(top.right() - 4 * s, yEnd + 2 * s), Qt::AlignRight | Qt::AlignTop},
                      {QPointF(top.left() + 4 * s, yEnd - 2 * s), Qt::AlignLeft | Qt::AlignBottom},
                      {QPointF(top.left() + 4 * s, yEnd + 2 * s), Qt::AlignLeft | Qt::AlignTop}};
        for (const auto& place : places)
            if (!text.drawAt(place.at, place.align, tickFont, th.foreground, words).isEmpty())
                break;
    }
    p.save();
    p.setClipRect(top);
    p.setPen(QPen(th.accent3, 1.6 * s));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(resolution);
    for (int i = 0; i < pairs; ++i) {
        const core::PairPrecision& pp = a.pairs[std::size_t(i)];
        if (pp.firstCosSinCollapse) {
            p.setPen(QPen(th.accent2, 1.6 * s));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(QPointF(X(i), Ytop(double(*pp.firstCosSinCollapse))), r * 1.5, r * 1.5);
        }
        if (pp.firstAngleCollapse) {
            p.setPen(Qt::NoPen);
            p.setBrush(th.accent);
            p.drawEllipse(QPointF(X(i), Ytop(double(*pp.firstAngleCollapse))), r, r);
        }
    }
    p.restore();

    // Bottom: distinct values over the positions, on a log count axis. The pair axis's labels first (they matter
    // more than the count axis's lowest label beside them).
    const double n = double(data().positions);
    const int step = std::max(1, int(std::ceil(pairs / 8.0)));
    for (int i = 0; i < pairs; i += step)
        text.drawAt(QPointF(X(i), bot.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                    {QString::number(i)});
    text.draw(QRectF(bot.left(), bot.bottom() + tfm.height() * 1.3, bot.width(), lfm.height()),
              Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground,
              {tr("pair i (fastest \u03c9 left, slowest right)"), tr("pair i")});
    const double countDecades = std::max(1.0, std::ceil(std::log10(n)));
    text.draw(QRectF(target.left() + pad, bot.top() - lfm.height() * 1.05, bot.width(), lfm.height()),
              Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
              {tr("distinct values over the %1 positions (log scale): angles (dots), (cos, sin) (rings)").arg(count(n)),
               tr("distinct angles (dots), (cos, sin) (rings)"), tr("distinct values")});
    p.fillRect(bot, th.panel);
    const auto Ybot = [&](double v) { return bot.bottom() - std::log10(std::max(1.0, v)) / countDecades * bot.height(); };
    const int every = std::max(1, int(countDecades) / 3);
    for (int k = 0; k <= int(countDecades); k += every) {
        const double yy = Ybot(std::pow(10.0, k));
        p.setPen(QPen(th.grid, 1.0 * s));
        p.drawLine(QPointF(bot.left(), yy), QPointF(bot.right(), yy));
        text.drawAt(QPointF(bot.left() - 4 * s, yy), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {formatNumber(std::pow(10.0, k), 7)});
    }
    for (int i = 0; i < pairs; ++i) {
        const core::PairPrecision& pp = a.pairs[std::size_t(i)];
        p.setPen(QPen(th.accent2, 1.6 * s));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(QPointF(X(i), Ybot(double(pp.distinctCosSin))), r * 1.5, r * 1.5);
        p.setPen(Qt::NoPen);
        p.setBrush(th.accent);
        p.drawEllipse(QPointF(X(i), Ybot(double(pp.distinctAngles))), r, r);
    }
}

} // namespace poslab::ui
