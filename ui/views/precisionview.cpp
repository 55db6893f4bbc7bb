// SPDX-License-Identifier: MIT
#include "ui/views/precisionview.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

PrecisionView::PrecisionView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) {
        if (later)
            refresh();
    })
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

/// A log10 axis over a panel: 1 at the bottom edge, 10^decades at the top (values below 1 sit at the bottom).
struct DecadeAxis {
    QRectF panel;
    double decades = 1.0;
    double y(double v) const { return panel.bottom() - std::log10(std::max(1.0, v)) / decades * panel.height(); }
};

/// One paint of the precision figure (PrecisionView::renderContent draws with one): the fonts and the two panels'
/// geometry, worked out once from the analysis and the target (layOut()), and the parts drawn in turn: the heading,
/// the pipeline's line, the top panel's title and the legend, the positions panel, the distinct-values panel.
struct PrecisionPainter {
    Q_DECLARE_TR_FUNCTIONS(poslab::ui::PrecisionView)

public:
    /// One key of the legend: its colour (accent2 is drawn as a ring) and its wordings, longest first.
    struct Key {
        QColor colour;
        QStringList words;
    };

    PrecisionPainter(QPainter& painter, TextLayout& layout, const QRectF& area, const Theme& theme,
                     const PrecisionData& data)
        : p(painter)
        , text(layout)
        , target(area)
        , th(theme)
        , d(data)
        , a(data.analysis)
        , pairs(int(a.pairs.size()))
        , s(sizeScale(area))
        , pad(8 * s)
        , dtype(QString::fromLatin1(core::floatFormatName(a.format).data()))
        , low(a.pipeline == core::AnglePipeline::LowPrecision)
        , lastPos(count(double(d.positions - 1)))
        , tickFont(th.font(9.5 * s))
        , labelFont(th.font(10 * s))
        , tfm(tickFont)
        , lfm(labelFont)
    { }

    /// The whole figure (the analysis has at least one pair); @p answerPending withholds the first shared rotation.
    void draw(const QString& figureLabel, bool answerPending)
    {
        double y = drawHeading(figureLabel, answerPending);
        y = drawPipeline(y);
        layOut(y);
        drawLegend(drawTopTitle());
        drawPositions();
        drawDistinct();
    }

    QPainter& p;
    TextLayout& text;
    const QRectF target;
    const Theme th;
    const PrecisionData& d;
    const core::PrecisionAnalysis& a;
    const int pairs;
    const double s, pad;
    const QString dtype;
    const bool low;
    const QString lastPos;
    const QFont tickFont, labelFont;
    const QFontMetricsF tfm, lfm;
    // Geometry (layOut()).
    bool roomy = false;   ///< the long wordings and the legend's own row: room for them beside two readable panels
    double legendTop = 0; ///< the legend row's top when roomy
    QRectF top, bot;      ///< the positions panel and the distinct-values panel, sharing the pair axis
    DecadeAxis topAxis, botAxis;
    double r = 0; ///< the dots' radius (rings: 1.5 r)

    double x(int i) const { return top.left() + (i + 0.5) / pairs * top.width(); }

    /// The header (with the first shared rotation as its note); returns the y below it.
    double drawHeading(const QString& figureLabel, bool answerPending)
    {
        QStringList note;
        // Predict, then see (WorkbenchState::answerPending): the first shared rotation answers 13.2; it waits for
        // the guess.
        if (answerPending)
            ;
        else if (a.firstVectorCollapse)
            note << tr("positions %1 and %2 share one rotation")
                        .arg(count(double(*a.firstVectorCollapse)), count(double(*a.firstVectorCollapse + 1)))
                 << tr("%1 = %2").arg(count(double(*a.firstVectorCollapse)), count(double(*a.firstVectorCollapse + 1)));
        else
            note << tr("no two neighbours share a rotation") << tr("no shared rotation");
        return drawHeader(
            text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th, s,
            {figureLabel,
             {tr("%1 angles, positions 0\u2013%2").arg(dtype, lastPos), tr("%1, 0\u2013%2").arg(dtype, lastPos), dtype},
             note});
    }

    /// What the pipeline is, in one line, and where the angle overflows (if it does); returns the y below.
    double drawPipeline(double headerBottom)
    {
        double y = headerBottom + 2 * s;
        const QRectF how(target.left() + pad, y, target.width() - 2 * pad, lfm.height());
        text.draw(
            how, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
            low ? QStringList{tr("low precision: p and \u03c9 held in %1, p\u00b7\u03c9 rounded in %1 (position ids "
                                 "kept in the model dtype)")
                                  .arg(dtype),
                              tr("low precision: %1(%1(p)\u00b7%1(\u03c9))").arg(dtype),
                              tr("low precision: all in %1").arg(dtype)}
                : QStringList{tr("rounded angle: p\u00b7\u03c9 in double, rounded once to %1 (an angle table stored "
                                 "in %1)")
                                  .arg(dtype),
                              tr("rounded angle: %1(p\u00b7\u03c9)").arg(dtype), tr("angle rounded to %1").arg(dtype)});
        y += lfm.height() * 1.15;
        if (a.firstNonFinite) {
            text.draw(QRectF(target.left() + pad, y, target.width() - 2 * pad, lfm.height()),
                      Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.accent3,
                      {tr("from p = %1 the angle overflows to infinity in %2: cos and sin are not numbers")
                           .arg(count(double(*a.firstNonFinite)), dtype),
                       tr("from p = %1: angle = \u221e").arg(count(double(*a.firstNonFinite)))});
            y += lfm.height() * 1.15;
        }
        return y;
    }

    /// The legend's row (when roomy), the two panels below @p y and their log axes.
    void layOut(double y)
    {
        roomy = target.height() > 26 * lfm.height();
        if (roomy)
            y += lfm.height() * 1.4; // the legend's row (drawn once the panels are placed)
        double topMax = double(d.positions);
        for (const core::PairPrecision& pp : a.pairs)
            if (pp.resolutionPosition)
                topMax = std::max(topMax, double(*pp.resolutionPosition));
        const double decades = std::max(1.0, std::ceil(std::log10(topMax)));
        double yLabelW = tfm.horizontalAdvance(formatNumber(std::pow(10.0, decades), 7));
        yLabelW = std::max(yLabelW, tfm.horizontalAdvance(count(double(d.positions))));
        const double left = target.left() + pad + yLabelW + 6 * s;
        const double right = target.right() - pad;
        const double bottomAll = target.bottom() - pad - tfm.height() * 1.3 - lfm.height() * 1.3;
        const double gap = lfm.height() * (roomy ? 1.6 : 1.0);
        // Two panel titles (one line each above the panels) and the gap between the panels.
        const double total = std::max(20.0, bottomAll - y - gap - 2 * lfm.height());
        top = QRectF(left, y + lfm.height(), std::max(10.0, right - left), total * 0.58);
        bot = QRectF(left, top.bottom() + gap + lfm.height(), top.width(), total * 0.42);
        topAxis = {top, decades};
        botAxis = {bot, std::max(1.0, std::ceil(std::log10(double(d.positions))))};
        r = std::clamp(top.width() / pairs * 0.3, 1.5 * s, 4.0 * s);
    }

    QRectF drawTopTitle()
    {
        return text.draw(QRectF(target.left() + pad, top.top() - lfm.height() * 1.05, top.width(), lfm.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
                         {tr("position p (log scale)"), tr("position p")});
    }

    std::vector<Key> keys() const
    {
        return {
            {th.accent, {tr("first p with angle(p) = angle(p+1)"), tr("angle collapse"), tr("angle")}},
            {th.accent2, {tr("first p with the same (cos, sin) as p+1"), tr("(cos, sin) collapse"), tr("(cos, sin)")}},
            {th.accent3,
             {tr("spacing of p\u00b7\u03c9 exceeds \u03c9 from p"), tr("ulp > \u03c9"), tr("ulp > \u03c9")}},
        };
    }

    /// The legend: its own row when the figure is roomy, else on the top panel's title row (right of @p topTitle).
    void drawLegend(const QRectF& topTitle)
    {
        const std::vector<Key> all = keys();
        double y = roomy ? top.top() - lfm.height() * 2.4 : top.top() - lfm.height() * 1.05;
        // Keys that do not fit the row start a new one.
        double x = roomy ? target.left() + pad : topTitle.right() + 16 * s;
        // One wording level for every key: the longest at which the whole row fits (the short ones on a crowded row).
        int level = roomy ? 0 : 1;
        for (; level < 2; ++level) {
            double need = 0;
            for (const Key& k : all)
                need += lfm.height() * 0.6 + 4 * s + lfm.horizontalAdvance(k.words[level]) + 12 * s;
            if (x + need <= target.right() - pad)
                break;
        }
        for (const Key& k : all) {
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
                drawn = text.draw(box, Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground, k.words.mid(level),
                                  TextLayout::Fit::Drop);
            }
            if (drawn.isEmpty())
                continue;
            // The (cos, sin) key is a ring, as its marks are.
            const QPointF centre(x + sw / 2, y + lfm.height() / 2);
            if (k.colour == th.accent2)
                drawRing(centre, sw / 2);
            else
                drawDot(centre, sw / 2, k.colour);
            x = drawn.right() + 12 * s;
        }
    }

    /// A filled dot of radius @p radius, without an outline.
    void drawDot(const QPointF& at, double radius, const QColor& colour)
    {
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        p.drawEllipse(at, radius, radius);
    }

    /// The (cos, sin) mark: a ring in accent2.
    void drawRing(const QPointF& at, double radius)
    {
        p.setPen(QPen(th.accent2, 1.6 * s));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(at, radius, radius);
    }

    /// A panel's background and its grid lines at the powers of ten (every @p every-th), labelled at the left.
    void drawDecadeGrid(const DecadeAxis& axis, int every)
    {
        p.fillRect(axis.panel, th.panel);
        for (int k = 0; k <= int(axis.decades); k += every) {
            const double yy = axis.y(std::pow(10.0, k));
            p.setPen(QPen(th.grid, 1.0 * s));
            p.drawLine(QPointF(axis.panel.left(), yy), QPointF(axis.panel.right(), yy));
            text.drawAt(QPointF(axis.panel.left() - 4 * s, yy), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                        {formatNumber(std::pow(10.0, k), 7)});
        }
    }

    /// The top panel: positions on a log axis, the last position's dashed line and its label, the resolution curve,
    /// and each pair's first angle and (cos, sin) collapse.
    void drawPositions()
    {
        drawDecadeGrid(topAxis, 1);
        const double yEnd = topAxis.y(double(d.positions - 1));
        p.setPen(QPen(th.foreground, 1.2 * s, Qt::DashLine));
        p.drawLine(QPointF(top.left(), yEnd), QPointF(top.right(), yEnd));
        text.keepClearOf(QPointF(top.left(), yEnd), QPointF(top.right(), yEnd), tr("last position"));
        QPolygonF resolution;
        for (int i = 0; i < pairs; ++i)
            if (a.pairs[std::size_t(i)].resolutionPosition)
                resolution << QPointF(x(i), topAxis.y(double(*a.pairs[std::size_t(i)].resolutionPosition)));
        text.keepClearOf(resolution, tr("resolution"), top);
        drawLastPositionLabel(yEnd);
        p.save();
        p.setClipRect(top);
        p.setPen(QPen(th.accent3, 1.6 * s));
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(resolution);
        for (int i = 0; i < pairs; ++i) {
            const core::PairPrecision& pp = a.pairs[std::size_t(i)];
            if (pp.firstCosSinCollapse)
                drawRing(QPointF(x(i), topAxis.y(double(*pp.firstCosSinCollapse))), r * 1.5);
            if (pp.firstAngleCollapse)
                drawDot(QPointF(x(i), topAxis.y(double(*pp.firstAngleCollapse))), r, th.accent);
        }
        p.restore();
    }

    /// The dashed line's label beside it, never across the resolution curve: above it at the right end, below it
    /// there, then above and below at the left end (the first place the layout finds free of text and lines).
    void drawLastPositionLabel(double yEnd)
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

    /// Bottom: distinct values over the positions, on a log count axis. The pair axis's labels first (they matter
    /// more than the count axis's lowest label beside them).
    void drawDistinct()
    {
        const double n = double(d.positions);
        const int step = std::max(1, int(std::ceil(pairs / 8.0)));
        for (int i = 0; i < pairs; i += step)
            text.drawAt(QPointF(x(i), bot.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                        {QString::number(i)});
        text.draw(QRectF(bot.left(), bot.bottom() + tfm.height() * 1.3, bot.width(), lfm.height()),
                  Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground,
                  {tr("pair i (fastest \u03c9 left, slowest right)"), tr("pair i")});
        text.draw(
            QRectF(target.left() + pad, bot.top() - lfm.height() * 1.05, bot.width(), lfm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.muted,
            {tr("distinct values over the %1 positions (log scale): angles (dots), (cos, sin) (rings)").arg(count(n)),
             tr("distinct angles (dots), (cos, sin) (rings)"), tr("distinct values")});
        drawDecadeGrid(botAxis, std::max(1, int(botAxis.decades) / 3));
        for (int i = 0; i < pairs; ++i) {
            const core::PairPrecision& pp = a.pairs[std::size_t(i)];
            drawRing(QPointF(x(i), botAxis.y(double(pp.distinctCosSin))), r * 1.5);
            drawDot(QPointF(x(i), botAxis.y(double(pp.distinctAngles))), r, th.accent);
        }
    }
};

} // namespace

void PrecisionView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!data().error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute"), data().error);
        return;
    }
    if (data().analysis.pairs.empty())
        return;
    TextLayout text(p, target);
    PrecisionPainter(p, text, target, th, data()).draw(m_state->figureLabel(), m_state->answerPending());
}

} // namespace poslab::ui
