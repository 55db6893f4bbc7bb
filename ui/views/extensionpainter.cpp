// SPDX-License-Identifier: MIT
#include "ui/views/extensionpainter.h"

#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"

#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

namespace poslab::ui {
namespace {

/// Extends [lo, hi] (values > 0) to whole decades, at least one decade wide.
std::pair<double, double> decades(double lo, double hi)
{
    double a = std::floor(std::log10(lo)), b = std::ceil(std::log10(hi));
    if (b - a < 1.0)
        b = a + 1.0;
    return {a, b};
}

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

QColor methodColour(const std::string& key, const Theme& th)
{
    if (key == "linear")
        return th.accent2;
    if (key == "ntk")
        return th.accent3;
    if (key == "dynamic")
        return th.kind == ThemeKind::Dark ? QColor(0xc0, 0x9c, 0xf0) : QColor(0x7a, 0x4f, 0xb0);
    if (key == "yarn")
        return th.cursor;
    if (key == "llama3")
        return th.accent;
    return th.foreground;
}

QColor bandColour(core::ExtensionBand b, const Theme& th)
{
    const int a = th.kind == ThemeKind::Dark ? 60 : 40;
    switch (b) {
    case core::ExtensionBand::Blended: return withAlpha(th.accent3, a);
    case core::ExtensionBand::Divided: return withAlpha(th.accent2, a);
    case core::ExtensionBand::Rescaled: return withAlpha(th.accent, a / 2);
    case core::ExtensionBand::Kept:
    case core::ExtensionBand::Unscaled: break;
    }
    return Qt::transparent;
}

} // namespace

void ExtensionPainter::draw()
{
    const double headerBottom = drawHeading();
    tickFont = th.font(9 * s);
    labelFont = th.font(9.5 * s);
    boldFont = th.font(10 * s, true);
    tfm = QFontMetricsF(tickFont);
    lfm = QFontMetricsF(labelFont);
    bfm = QFontMetricsF(boldFont);
    layOut(headerBottom);
    fitAxes();
    drawPanels();
    drawAxes();
    drawCurves();
    drawPairMarker();
    drawScaleLegend();
    drawMarkerLines();
    drawBandNames();
    drawWaveLegend();
    if (narrow)
        drawPairLine();
    else
        drawCirclePanel();
    // Last, so that no label drawn before moves: what still has no place beside its line.
    for (const HLine& h : unplaced)
        placeAtLineEnd(h);
    if (ctx.showsHints && ctx.hoverPair >= 0 && ctx.hoverPair < n)
        drawHoverTag();
}

/// The heading: the figure's title, L (with the base in force where the method changes it) and the band counts;
/// returns its bottom. Sets tight.
double ExtensionPainter::drawHeading()
{
    const QString lengths = tr("inference length L = %1").arg(formatNumber(double(t.length), 7));
    QStringList bandWords;
    for (core::ExtensionBand b :
         {core::ExtensionBand::Unscaled, core::ExtensionBand::Kept, core::ExtensionBand::Blended,
          core::ExtensionBand::Divided, core::ExtensionBand::Rescaled})
        if (const int c = t.count(b))
            bandWords << tr("%1 %2").arg(c).arg(QString::fromStdString(core::extensionBandName(t, b)));
    const QString bandsLine = bandWords.join(QStringLiteral(" \u00b7 "));
    // Tight (large text): the header keeps the title only (L is on its line and in the circle panel, the band
    // counts on the bands), the scale panel's title joins its legend and the pair axis keeps its ticks only.
    tight = target.height() < 22 * QFontMetricsF(th.font(9.5 * s)).height();
    HeaderTexts header{ctx.figureLabel, {}, {}};
    // The base in force where the method changes it (NTK-aware; dynamic NTK at this L, even where L <= T leaves it
    // at theta: that is what the step shows). The factor of the others is in the title already ("YaRN x4").
    // Predict, then see (WorkbenchState::answerPending): while a guess is due the header states the set-up only;
    // the pair counts and the base in force are results a step's prediction may ask for (11.1, 11.5, 12.3).
    const bool showsBase = !ctx.answerPending && t.theta > 0 && (t.effectiveBase != t.theta || t.method == "dynamic");
    const QString base = formatNumber(t.effectiveBase, 6);
    const QString sep = QStringLiteral(" \u00b7 ");
    const QString length = tr("L = %1").arg(formatNumber(double(t.length), 7));
    QStringList lengthWords{lengths, length};
    if (showsBase) {
        const QString inForce = t.effectiveBase == t.theta
            ? tr("base \u03b8' = %1 (\u03b8 unchanged)").arg(base)
            : tr("base \u03b8' = %1 (\u03b8 = %2)").arg(base, formatNumber(t.theta, 6));
        baseLine = tr("base \u03b8' = %1").arg(base);
        lengthWords = QStringList{lengths + sep + inForce, length + sep + inForce, length + sep + baseLine, baseLine};
    }
    // Once shown, the base outranks the header's other words: it is in every wording of the detail, so that
    // "inference length", then theta, then L go first (L stays on its line and in the L box); the band counts are
    // a note, kept where drawHeader() has room. Where the header cannot hold it (drawHeader() puts a title too
    // long for one line on two, before any detail; with large text the header keeps one line), the base moves
    // to the circle panel's read-outs, or to the pair line under the plots.
    const double w = target.width() - 2 * pad;
    const QFont titleFont = th.font(12 * s, true);
    const QString title = th.heading.isEmpty() ? header.title : th.heading;
    const auto oneLine = [&](const QStringList& detail) { // the title and the detail on the title's line
        return headerHeight(w, th, s, {header.title, detail, {}}) <= QFontMetricsF(titleFont).height();
    };
    if (tight) {
        // The title's line only: the base (else L) when it fits there.
        if (showsBase && oneLine({baseLine}))
            header.detail = {baseLine};
        else if (oneLine({length}))
            header.detail = {length};
        baseInPanel = showsBase && header.detail != QStringList{baseLine};
    } else {
        header.detail = lengthWords;
        if (!ctx.answerPending)
            header.note = {tr("pairs: %1 \u00b7 %2 turn inside T").arg(bandsLine).arg(t.turning()),
                           tr("pairs: %1").arg(bandsLine), bandsLine};
        baseInPanel = showsBase && (textAdvance(titleFont, title) > w || textAdvance(titleFont, baseLine) > w);
        if (baseInPanel)
            header.detail = {lengths, length};
    }
    return drawHeader(text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0), th, s,
                      header);
}

/// The scale panel's legend: every method at the scheme's theta, factor and window (or this scheme only), in
/// rows under the panel's title.
void ExtensionPainter::collectScaleLegend()
{
    for (const core::ExtensionPair& q : t.pairs)
        schemeScale.push_back(q.scale);
    bool schemeListed = false;
    if (d.allMethods) {
        for (const core::ExtensionMethod& m : t.methods) {
            const bool mine = m.key == t.method;
            QString name = m.key == "dynamic" ? tr("dynamic NTK at L") : QString::fromStdString(m.label);
            QString shortName = m.key == "linear" ? tr("PI")
                : m.key == "ntk"                  ? tr("NTK")
                : m.key == "dynamic"              ? tr("dyn. NTK")
                                                  : name;
            if (mine) {
                name = tr("%1 (this scheme)").arg(name);
                shortName = tr("%1 (this)").arg(shortName);
            }
            legend.push_back({name, shortName, methodColour(m.key, th), mine ? 3.0 : 1.6, &m});
            schemeListed = schemeListed || mine;
        }
    }
    if (!schemeListed)
        legend.insert(legend.begin(),
                      {tr("this scheme (%1)").arg(QString::fromStdString(t.method)), tr("this scheme"), th.foreground,
                       3.0, nullptr});
}

double ExtensionPainter::entryWidth(const QString& name) const
{
    return swatch + 4 * s + lfm.horizontalAdvance(name) + 12 * s;
}

/// The rows the scale legend takes in @p width: the first row may start after an indent (the panel's title in
/// tight mode); the others start at 0.
int ExtensionPainter::rowsFor(double width, bool shortNames, double indent) const
{
    int rows = 1;
    double x = indent;
    for (const ScaleEntry& e : legend) {
        const double w = entryWidth(shortNames ? e.shortName : e.name);
        if (x > (rows == 1 ? indent : 0.0) && x + w > width) {
            ++rows;
            x = 0;
        }
        x += w;
    }
    return rows;
}

/// Plots on the left, the circle panel on the right; in the plots the wavelength panel, the scale legend (short
/// names when the full ones take more than two rows) and the scale panel.
void ExtensionPainter::layOut(double headerBottom)
{
    const QRectF area(target.left() + pad, headerBottom + pad * 0.5, target.width() - 2 * pad,
                      target.bottom() - pad - headerBottom - pad * 0.5);
    narrow = area.width() < 24 * lfm.height();
    const double circleW
        = narrow ? 0.0 : std::min(std::max(area.width() * 0.3, 10 * lfm.height()), area.width() * 0.42);
    plots = QRectF(area.left(), area.top(), area.width() - (narrow ? 0.0 : circleW + pad),
                   area.height() - (narrow ? lfm.height() * 1.2 : 0.0));
    circlePanel = QRectF(plots.right() + pad, area.top(), circleW, area.height());

    collectScaleLegend();
    swatch = 16 * s;
    const double yLabelW = tfm.horizontalAdvance(QStringLiteral("1,000,000")) + 6 * s;
    titleH = lfm.height() * 1.15;
    const double xAxisH = tfm.height() * 1.3 + (tight ? 0.0 : lfm.height() * 1.2);
    gap = lfm.height() * 0.6;
    const double plotW = plots.width() - yLabelW;
    scaleTitle = tr("scale \u03c9_old/\u03c9_new:");
    // Tight: the first legend row starts after a short title, when it leaves room for an entry.
    legendIndent = tight && bfm.horizontalAdvance(scaleTitle) + 8 * s < plotW * 0.4
        ? bfm.horizontalAdvance(scaleTitle) + 8 * s
        : 0.0;
    shortNames = rowsFor(plotW, false, legendIndent) > 2;
    const int legendRows = rowsFor(plotW, shortNames, legendIndent);
    const double legendH = legendRows * lfm.height();
    const double avail = plots.height() - (tight ? 1 : 2) * titleH - legendH - xAxisH - gap;
    const double waveH = avail * 0.56, scaleH = avail - waveH;
    wave = QRectF(plots.left() + yLabelW, plots.top() + titleH, plotW, waveH);
    legendBox = QRectF(wave.left(), wave.bottom() + gap + (tight ? 0.0 : titleH), plotW, legendH);
    scaleR = QRectF(wave.left(), legendBox.bottom(), wave.width(), scaleH);
    pair = d.pair;
}

/// The wavelength axis covers both curves, T and L; side by side, B's too (sharedAxes). While L is dragged it
/// stays where the drag began.
void ExtensionPainter::fitAxes()
{
    const std::vector<ValueRange>& extents = ctx.axisRanges;
    std::tie(wlo, whi) = decades(extents[0].lo, extents[0].hi);
    if (ctx.frozenAxis)
        std::tie(wlo, whi) = *ctx.frozenAxis;
    wy = LogAxis{wlo, whi, wave.bottom(), wave.top()};
    const auto [slo, shi] = decades(extents[1].lo, extents[1].hi);
    sy = LogAxis{slo, shi, scaleR.bottom(), scaleR.top()};
}

/// The two panels, the bands' shading and the panels' titles (drawn first: the most important labels).
void ExtensionPainter::drawPanels()
{
    p.fillRect(wave, th.panel);
    p.fillRect(scaleR, th.panel);
    for (const core::ExtensionBandRun& b : t.bands) {
        const QColor c = bandColour(b.band, th);
        if (c.alpha() == 0)
            continue;
        const double x0 = xOf(b.first - 0.5), x1 = xOf(b.last + 0.5);
        p.fillRect(QRectF(x0, wave.top(), x1 - x0, wave.height()), c);
        p.fillRect(QRectF(x0, scaleR.top(), x1 - x0, scaleR.height()), c);
    }
    text.draw(QRectF(wave.left(), plots.top(), wave.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter, boldFont,
              th.foreground,
              {tr("wavelength 2\u03c0/\u03c9 per pair (tokens, log)"), tr("wavelength (tokens)"), tr("wavelength")});
    if (tight && legendIndent > 0)
        text.draw(QRectF(legendBox.left(), legendBox.top(), legendIndent, lfm.height()),
                  Qt::AlignLeft | Qt::AlignVCenter, boldFont, th.foreground, {scaleTitle, tr("scale:")});
    else if (!tight)
        text.draw(QRectF(scaleR.left(), wave.bottom() + gap, scaleR.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter,
                  boldFont, th.foreground,
                  {tr("scale \u03c9_old/\u03c9_new per pair (log): how much each pair is slowed"),
                   tr("scale \u03c9_old/\u03c9_new (log)"), tr("scale")});
}

/// The decade grid and tick labels of both panels, then the pair axis.
void ExtensionPainter::drawAxes()
{
    p.setPen(QPen(th.grid, 1));
    for (double e = wlo; e <= whi + 1e-9; e += 1.0) {
        const double y = wy.y(std::pow(10.0, e));
        p.drawLine(QPointF(wave.left(), y), QPointF(wave.right(), y));
        text.drawAt(QPointF(wave.left() - 4 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
                    {formatNumber(std::pow(10.0, e), 7)});
    }
    const double sstep = sy.hi - sy.lo > 4 ? 2.0 : 1.0;
    for (double e = sy.lo; e <= sy.hi + 1e-9; e += sstep) {
        const double y = sy.y(std::pow(10.0, e));
        p.setPen(QPen(th.grid, 1));
        p.drawLine(QPointF(scaleR.left(), y), QPointF(scaleR.right(), y));
        text.drawAt(
            QPointF(scaleR.left() - 4 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.muted,
            {QStringLiteral("\u00d7%1").arg(formatNumber(std::pow(10.0, e), 7)), formatNumber(std::pow(10.0, e), 7)});
    }
    drawPairAxis();
}

/// Pair ticks along the bottom axis and, with room, the axis' title.
void ExtensionPainter::drawPairAxis()
{
    const std::vector<double> xt
        = niceTicks(0, n - 1, std::max(2, int(wave.width() / (tfm.horizontalAdvance(QStringLiteral("0000")) * 1.6))));
    for (double v : xt) {
        if (v < 0 || v > n - 1 || v != std::floor(v))
            continue;
        const double x = xOf(v);
        p.setPen(QPen(th.muted, 1));
        p.drawLine(QPointF(x, scaleR.bottom()), QPointF(x, scaleR.bottom() + 3 * s));
        text.drawAt(QPointF(x, scaleR.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted,
                    {formatNumber(v, 5)});
    }
    if (!tight)
        text.draw(QRectF(scaleR.left(), scaleR.bottom() + tfm.height() * 1.3, scaleR.width(), lfm.height() * 1.2),
                  Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground,
                  {tr("pair i (fast \u2192 slow), %1 pairs of r = %2").arg(n).arg(2 * n),
                   tr("pair i (fast \u2192 slow)"), tr("pair i")});
}

/// One curve over the pairs on the axis @p ax, kept clear of by the labels placed after it.
void ExtensionPainter::polyline(const LogAxis& ax, const std::vector<double>& values, const QPen& pen,
                                const QString& what)
{
    QPainterPath path;
    QPolygonF line;
    for (int i = 0; i < n; ++i) {
        const QPointF pt(xOf(i), ax.y(values[std::size_t(i)]));
        line << pt;
        if (i == 0)
            path.moveTo(pt);
        else
            path.lineTo(pt);
    }
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    text.keepClearOf(line, what);
}

/// The wavelength curves, before (default RoPE, same theta) and after (this scheme), and the scale curves in the
/// legend's order.
void ExtensionPainter::drawCurves()
{
    std::vector<double> before, after;
    for (const core::ExtensionPair& q : t.pairs) {
        before.push_back(q.wavelengthOld);
        after.push_back(q.wavelengthNew);
    }
    polyline(wy, before, QPen(th.muted, 1.6 * s, Qt::DashLine), tr("wavelength before"));
    polyline(wy, after, QPen(th.accent, 2.2 * s), tr("wavelength after"));
    for (const ScaleEntry& e : legend)
        polyline(sy, e.method ? e.method->scale : schemeScale, QPen(e.colour, e.width * s), e.name);
}

/// The chosen pair: a dotted marker on both panels and a ring on its wavelength.
void ExtensionPainter::drawPairMarker()
{
    const core::ExtensionPair& cp = t.pairs[std::size_t(pair)];
    p.setPen(QPen(th.cursor, 1.0 * s, Qt::DotLine));
    p.drawLine(QPointF(xOf(pair), wave.top()), QPointF(xOf(pair), wave.bottom()));
    p.drawLine(QPointF(xOf(pair), scaleR.top()), QPointF(xOf(pair), scaleR.bottom()));
    text.keepClearOf(QPointF(xOf(pair), wave.top()), QPointF(xOf(pair), wave.bottom()), tr("chosen pair"));
    text.keepClearOf(QPointF(xOf(pair), scaleR.top()), QPointF(xOf(pair), scaleR.bottom()), tr("chosen pair"));
    p.setPen(QPen(th.cursor, 1.5 * s));
    p.setBrush(th.background);
    p.drawEllipse(QPointF(xOf(pair), wy.y(cp.wavelengthNew)), 3.5 * s, 3.5 * s);
}

/// The scale legend in its rows (the first after the title's indent in tight mode).
void ExtensionPainter::drawScaleLegend()
{
    double x = legendBox.left() + legendIndent, y = legendBox.top();
    bool firstRow = true;
    for (const ScaleEntry& e : legend) {
        const QString name = shortNames ? e.shortName : e.name;
        const double w = std::min(entryWidth(name), legendBox.width());
        if (x > legendBox.left() + (firstRow ? legendIndent : 0.0) && x + w > legendBox.right()) {
            firstRow = false;
            x = legendBox.left();
            y += lfm.height();
        }
        const QRectF drawn
            = text.draw(QRectF(x + swatch + 4 * s, y, w - swatch - 4 * s, lfm.height()),
                        Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground, {name}, TextLayout::Fit::Elide);
        if (!drawn.isEmpty()) {
            p.setPen(QPen(e.colour, e.width * s));
            p.drawLine(QPointF(x, y + lfm.height() / 2), QPointF(x + swatch, y + lfm.height() / 2));
        }
        x += w;
    }
}

/// The horizontal lines of the wavelength panel: the inference length L, the trained window T and, for Llama 3
/// and YaRN, the band edges in tokens (the one that is T's is T's line).
std::vector<ExtensionPainter::HLine> ExtensionPainter::markerLines() const
{
    std::vector<HLine> hlines;
    const QString lengthWhere = d.lengthFromPositions ? tr("positions")
        : d.lengthFromModel                           ? tr("the model's context")
                                                      : tr("target_length");
    const QString lengthText = formatNumber(double(t.length), 7);
    hlines.push_back({double(t.length),
                      th.cursor,
                      Qt::SolidLine,
                      1.6,
                      {tr("inference length L = %1 (%2; drag)").arg(lengthText, lengthWhere),
                       tr("L = %1 (%2; drag)").arg(lengthText, lengthWhere), tr("L = %1 (drag)").arg(lengthText),
                       tr("L = %1").arg(lengthText), tr("L")},
                      true});
    const QString trainedText = formatNumber(double(t.trainedLength), 7);
    // core says "given" for a window it was handed: here the preset's trained_length or the view's.
    const QString trainedSource = t.trainedSource != "given" ? QString::fromStdString(t.trainedSource)
        : d.trainedFromModel                                 ? tr("the model's trained length")
                                                             : tr("trained_length");
    hlines.push_back({double(t.trainedLength),
                      th.foreground,
                      Qt::DashLine,
                      1.4,
                      {tr("trained window T = %1 (%2)").arg(trainedText, trainedSource),
                       tr("trained window T = %1").arg(trainedText), tr("trained T = %1").arg(trainedText),
                       tr("T = %1").arg(trainedText), tr("T")},
                      true,
                      true});
    if (t.method == "llama3" || t.method == "yarn") {
        const bool yarn = t.method == "yarn";
        const struct {
            double v;
            QString name;
        } edges[]
            = {{t.edgeShort, yarn ? tr("T/\u03b2_fast") : tr("T/high_freq_factor")}, // T: the trained window's line
               {t.edgeLong, yarn ? tr("T/\u03b2_slow") : tr("T/low_freq_factor")}};
        for (const auto& e : edges) {
            if (e.v == double(t.trainedLength))
                continue; // the trained window's line is this edge
            // Four significant digits: a wavelength in tokens, not a value to copy.
            const QString v = formatNumber(e.v, 4);
            hlines.push_back({e.v,
                              th.muted,
                              Qt::DotLine,
                              1.2,
                              {tr("band edge %1 = %2 tokens").arg(e.name, v), tr("edge %1 = %2").arg(e.name, v),
                               tr("edge %1").arg(v), v},
                              false});
        }
    }
    return hlines;
}

/// The height of a line at wavelength @p v; -1 when it is off the wavelength panel.
double ExtensionPainter::yOfLine(double v) const
{
    if (!(v > 0))
        return -1.0;
    const double y = wy.y(v);
    return y < wave.top() - 0.5 || y > wave.bottom() + 0.5 ? -1.0 : y;
}

/// A line's label, by this rule: its wordings longest first; for each, the places beside the line (above it
/// first for T and L, below first for the band edges, then the other side), each at the plot's left end, either
/// side of the chosen pair's marker, then the right end, inside the wavelength panel; the first place the layout
/// finds free of text, curves and lines takes it. With no free place for even the shortest wording ("T", "L", the
/// number) it is left out (for T, placeAtLineEnd tries once more, last); returns whether it was placed.
bool ExtensionPainter::placeLabel(const HLine& h)
{
    const double y = yOfLine(h.v);
    if (y < 0)
        return true; // no line, no label
    // An em in from the plot's left edge: the layout keeps that gap to the axis's tick labels.
    const double inset = lfm.height();
    const double marker = xOf(pair);
    const struct {
        double x;
        Qt::Alignment align;
    } spots[] = {{wave.left() + inset, Qt::AlignLeft},
                 {marker - 4 * s, Qt::AlignRight},
                 {marker + 4 * s, Qt::AlignLeft},
                 {wave.right() - 3 * s, Qt::AlignRight}};
    for (const QString& w : h.words)
        for (bool above : {h.preferAbove, !h.preferAbove})
            for (const auto& spot : spots) {
                // Inside the wavelength panel (the circle panel is beside it).
                const double wide = lfm.horizontalAdvance(w);
                const double x0 = spot.align & Qt::AlignRight ? spot.x - wide : spot.x;
                if (x0 < wave.left() + 0.5 || x0 + wide > wave.right() + 0.5)
                    continue;
                const QPointF anchor(spot.x, above ? y - 1 * s : y + 1 * s);
                const Qt::Alignment a = spot.align | (above ? Qt::AlignBottom : Qt::AlignTop);
                if (!text.drawAt(anchor, a, labelFont, h.colour, {w}).isEmpty())
                    return true;
            }
    return false;
}

/// The last place for a line's label that found none beside the line (the trained window T where the L line and
/// a band edge run close above and below it, as in lesson 12.1 at projector size): just past the line's right
/// end, centred on its height, in the gap before the circle panel and beside the circle; its wordings longest
/// first, each only where the layout finds it free and clear of the circle. Nothing moves for it: the other
/// labels are placed already. Still no room: left out.
void ExtensionPainter::placeAtLineEnd(const HLine& h)
{
    const double y = yOfLine(h.v);
    const QPointF anchor(wave.right() + 3 * s, y);
    for (const QString& w : h.words) {
        const QRectF box(anchor.x(), y - lfm.height() / 2, lfm.horizontalAdvance(w), lfm.height());
        if (!circleBox.isEmpty() && circleBox.intersects(box))
            continue;
        if (!text.drawAt(anchor, Qt::AlignLeft | Qt::AlignVCenter, labelFont, h.colour, {w}, TextLayout::Fit::Drop)
                 .isEmpty())
            return;
    }
}

/// The horizontal lines: all of them first, then their labels (a label placed before the next line was drawn had
/// that line run through it: "trained window T = 4,096" under the band edge's dotted line).
void ExtensionPainter::drawMarkerLines()
{
    const std::vector<HLine> hlines = markerLines();
    lengthY = yOfLine(double(t.length));
    for (const HLine& h : hlines) {
        const double y = yOfLine(h.v);
        if (y < 0)
            continue;
        p.setPen(QPen(h.colour, h.width * s, h.style));
        p.drawLine(QPointF(wave.left(), y), QPointF(wave.right(), y));
        text.keepClearOf(QPointF(wave.left(), y), QPointF(wave.right(), y), h.words.back());
    }
    for (const HLine& h : hlines)
        if (!placeLabel(h) && h.endFallback)
            unplaced.push_back(h);
}

/// Band names at the bottom of the wavelength panel, inside their band, with their edges in tokens.
void ExtensionPainter::drawBandNames()
{
    for (const core::ExtensionBandRun& b : t.bands) {
        const double x0 = xOf(b.first - 0.5), x1 = xOf(b.last + 0.5);
        const QString name = QString::fromStdString(core::extensionBandName(t, b.band));
        QStringList words;
        if (ctx.answerPending) // the band's name only: its edge in pairs answers 12.1
            ;
        else if (t.method == "llama3" && b.band == core::ExtensionBand::Kept)
            words << tr("%1: \u03bb < %2").arg(name, formatNumber(t.edgeShort, 7));
        else if (t.method == "llama3" && b.band == core::ExtensionBand::Divided)
            words << tr("%1: \u03bb > %2").arg(name, formatNumber(t.edgeLong, 7));
        else if (t.method == "yarn" && b.band == core::ExtensionBand::Kept)
            words << tr("%1: pairs \u2264 %2").arg(name, formatNumber(t.correctionLow, 4));
        else if (t.method == "yarn" && b.band == core::ExtensionBand::Divided)
            words << tr("%1: pairs \u2265 %2").arg(name, formatNumber(t.correctionHigh, 4));
        words << name;
        text.draw(QRectF(x0, wave.bottom() - lfm.height() * 1.15, x1 - x0, lfm.height()),
                  Qt::AlignHCenter | Qt::AlignVCenter, labelFont, th.foreground, words, TextLayout::Fit::Drop);
    }
}

/// Whether @p box is clear of both wavelength curves: their points and midpoints under it.
bool ExtensionPainter::clearOfCurves(const QRectF& box) const
{
    for (int i = 0; i < n; ++i)
        for (double f : {0.0, 0.5}) {
            if (i + f > n - 1)
                continue;
            const double x = xOf(i + f);
            if (x < box.left() - 4 * s || x > box.right() + 4 * s)
                continue;
            const core::ExtensionPair& a = t.pairs[std::size_t(i)];
            const core::ExtensionPair& b = t.pairs[std::size_t(std::min(n - 1, i + 1))];
            for (const auto& [u, v] :
                 {std::pair{a.wavelengthOld, b.wavelengthOld}, std::pair{a.wavelengthNew, b.wavelengthNew}}) {
                const double y = f == 0.0 ? wy.y(u) : (wy.y(u) + wy.y(v)) / 2;
                if (y > box.top() - 2 * s && y < box.bottom() + 2 * s)
                    return false;
            }
        }
    return true;
}

/// A legend of @p entries in @p box, at its bottom right or its top left.
void ExtensionPainter::drawLegendBox(const QRectF& box, const std::vector<WaveEntry>& entries, bool dashedFirst,
                                     bool right)
{
    const double sw = 18 * s;
    double wide = 0;
    for (const WaveEntry& e : entries)
        wide = std::max(wide, lfm.horizontalAdvance(e.name));
    const double x0 = right ? box.right() - 6 * s - wide - 4 * s - sw : box.left() + 6 * s;
    double y = right ? box.bottom() - entries.size() * lfm.height() : box.top() + 3 * s;
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const WaveEntry& e = entries[k];
        const QRectF drawn
            = text.draw(QRectF(x0 + sw + 4 * s, y, wide + 2 * s, lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                        labelFont, th.foreground, {e.name}, TextLayout::Fit::Drop);
        if (!drawn.isEmpty()) {
            p.setPen(QPen(e.colour, e.width * s, dashedFirst && k == 0 ? Qt::DashLine : Qt::SolidLine));
            p.drawLine(QPointF(x0, y + lfm.height() / 2), QPointF(x0 + sw, y + lfm.height() / 2));
        }
        y += lfm.height();
    }
}

/// The wavelength panel's legend: bottom right (above the band names; the curves rise to the right, so it is
/// free), else top left, each only where it is clear of the curves and the labels; else short, in the title's
/// row, right-aligned: "-- before  — after".
void ExtensionPainter::drawWaveLegend()
{
    const std::vector<WaveEntry> waveEntries{{tr("before: default RoPE, same \u03b8"), th.muted, 1.6},
                                             {tr("after: this scheme"), th.accent, 2.2}};
    double legendW = 0;
    for (const WaveEntry& e : waveEntries)
        legendW = std::max(legendW, lfm.horizontalAdvance(e.name) + 30 * s);
    const QRectF waveLegendArea(wave.left(), wave.top(), wave.width(), wave.height() - lfm.height() * 1.3);
    const QRectF corners[] = {
        QRectF(waveLegendArea.right() - legendW, waveLegendArea.bottom() - 2 * lfm.height(), legendW, 2 * lfm.height()),
        QRectF(waveLegendArea.left(), waveLegendArea.top() + 3 * s, legendW, 2 * lfm.height())};
    for (int k = 0; k < 2; ++k)
        if (wave.height() >= 5.5 * lfm.height() && clearOfCurves(corners[k]) && text.isFree(corners[k])) {
            drawLegendBox(waveLegendArea, waveEntries, true, k == 0);
            return;
        }
    double x = wave.right();
    const struct {
        QString name;
        QColor colour;
        double width;
        Qt::PenStyle style;
    } shortEntries[] = {{tr("after"), th.accent, 2.2, Qt::SolidLine}, {tr("before"), th.muted, 1.6, Qt::DashLine}};
    for (const auto& e : shortEntries) {
        const double w = lfm.horizontalAdvance(e.name);
        const QRectF r = text.draw(QRectF(x - w, plots.top(), w, titleH), Qt::AlignRight | Qt::AlignVCenter, labelFont,
                                   th.foreground, {e.name}, TextLayout::Fit::Drop);
        if (r.isEmpty())
            break;
        p.setPen(QPen(e.colour, e.width * s, e.style));
        p.drawLine(QPointF(r.left() - 4 * s - 16 * s, plots.top() + titleH / 2),
                   QPointF(r.left() - 4 * s, plots.top() + titleH / 2));
        x = r.left() - 4 * s - 16 * s - lfm.height() * 0.6;
    }
}

/// Narrow (no room for the circle): the chosen pair's numbers in one line under the plots.
void ExtensionPainter::drawPairLine()
{
    const core::ExtensionPair& q = t.pairs[std::size_t(d.pair)];
    QStringList words{
        tr("pair %1: %2 turn in training, %3 at L, new %4 of the circle")
            .arg(d.pair)
            .arg(formatNumber(q.turnsTrained, 3), formatNumber(q.turnsNow, 3), formatNumber(q.newFraction, 3)),
        tr("pair %1: new %2 of the circle").arg(d.pair).arg(formatNumber(q.newFraction, 3)),
        tr("pair %1: new %2").arg(d.pair).arg(formatNumber(q.newFraction, 3))};
    if (baseInPanel) { // the base the header had no room for comes first, and stays when the pair's words do not fit
        for (QString& w : words)
            w = baseLine + QStringLiteral(" \u00b7 ") + w;
        words << baseLine;
    }
    text.draw(QRectF(plots.left(), plots.bottom() + 2 * s, plots.width(), lfm.height()),
              Qt::AlignLeft | Qt::AlignVCenter, labelFont, th.foreground, words);
}

/// The chosen pair's circle from the height @p cy: the arc of angles met in training (outer ring) and at L (inner
/// ring, its new part past the outer ring's end drawn wider). Returns where the read-out lines start.
double ExtensionPainter::drawCircle(double cy)
{
    const core::ExtensionPair& cp = t.pairs[std::size_t(pair)];
    const double textBlock = (baseInPanel ? 6 : 5) * lfm.height() * 1.1; // the read-out lines under the circle
    const double diameter
        = std::max(0.0, std::min(circlePanel.width() - 4 * s, circlePanel.bottom() - cy - textBlock - 4 * s));
    const QRectF circle(circlePanel.left() + (circlePanel.width() - diameter) / 2, cy + 2 * s, diameter, diameter);
    if (!(diameter > 8 * s))
        return cy;
    circleBox = circle;
    const double ring = std::max(3.0, 0.07 * diameter);
    const QRectF arcBox = circle.adjusted(ring, ring, -ring, -ring);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(th.grid, ring, Qt::SolidLine, Qt::FlatCap));
    p.drawEllipse(arcBox);
    // Qt's angles: 1/16 degree, counter-clockwise from 3 o'clock; the hand starts at 12 and turns clockwise.
    const auto arc = [&](const QRectF& box, double from, double to, const QColor& c, double w) {
        if (!(to > from))
            return;
        p.setPen(QPen(c, w, Qt::SolidLine, Qt::FlatCap));
        const int start = int(std::lround((90.0 - from * 180.0 / std::numbers::pi) * 16.0));
        const int span = -int(std::lround((to - from) * 180.0 / std::numbers::pi * 16.0));
        p.drawArc(box, start, span);
    };
    const QRectF inner = arcBox.adjusted(1.6 * ring, 1.6 * ring, -1.6 * ring, -1.6 * ring);
    arc(arcBox, 0.0, cp.arcTrained, th.accent, ring);
    arc(inner, 0.0, cp.arcNow, th.cursor, ring * 0.6);
    arc(inner, cp.arcTrained, cp.arcNow, th.cursor, ring * 1.2);
    p.setPen(QPen(th.muted, 1.0 * s));
    p.drawLine(QPointF(arcBox.center().x(), arcBox.top() - ring), QPointF(arcBox.center().x(), arcBox.top() + ring));
    text.drawAt(QPointF(arcBox.center().x() + 3 * s, arcBox.top() - ring), Qt::AlignLeft | Qt::AlignBottom, tickFont,
                th.muted, {tr("angle 0")});
    return circle.bottom() + 4 * s;
}

/// The circle panel: its title, the pair's wavelengths, the circle and the read-out of turns, the new fraction
/// and the attention factor.
void ExtensionPainter::drawCirclePanel()
{
    const core::ExtensionPair& cp = t.pairs[std::size_t(pair)];
    double cy = circlePanel.top();
    const QString pairTitle = d.pairError.isEmpty()
        ? tr("pair %1%2").arg(pair).arg(d.automaticPair ? tr(" (automatic)") : QString())
        : tr("pair %1 (automatic)").arg(pair);
    text.draw(QRectF(circlePanel.left(), cy, circlePanel.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter, boldFont,
              th.foreground, {tr("angles met, %1").arg(pairTitle), pairTitle, tr("pair %1").arg(pair)});
    cy += titleH;
    if (!d.pairError.isEmpty()) {
        const QRectF r = text.drawWrapped(QRectF(circlePanel.left(), cy, circlePanel.width(), lfm.height() * 3),
                                          Qt::AlignLeft | Qt::AlignTop, labelFont, th.cursor, d.pairError);
        cy += r.height() + 2 * s;
    }
    const QString lamText
        = tr("wavelength %1 \u2192 %2").arg(formatTokens(cp.wavelengthOld), formatTokens(cp.wavelengthNew));
    text.draw(
        QRectF(circlePanel.left(), cy, circlePanel.width(), lfm.height()), Qt::AlignLeft | Qt::AlignVCenter, labelFont,
        th.muted,
        {lamText, tr("\u03bb %1 \u2192 %2").arg(formatNumber(cp.wavelengthOld, 4), formatNumber(cp.wavelengthNew, 4))});
    cy = drawCircle(cy + lfm.height() * 1.2);
    const auto turns = [](double v) {
        return v >= 1.0 ? tr("%1 turns").arg(formatNumber(v, 3)) : tr("%1 of a turn").arg(formatNumber(v, 3));
    };
    const QStringList lineTexts[] = {
        {tr("training, p < %1: %2").arg(formatNumber(double(t.trainedLength), 7), turns(cp.turnsTrained)),
         tr("trained: %1").arg(turns(cp.turnsTrained)), tr("trained %1 turn").arg(formatNumber(cp.turnsTrained, 3))},
        {tr("at L, p < %1: %2").arg(formatNumber(double(t.length), 7), turns(cp.turnsNow)),
         tr("at L: %1").arg(turns(cp.turnsNow)), tr("at L %1 turn").arg(formatNumber(cp.turnsNow, 3))},
        {cp.completesTurn() ? tr("turns inside the trained window: every angle seen")
                            : tr("never turns inside the trained window"),
         cp.completesTurn() ? tr("turns in training") : tr("never turns in training")},
        {tr("new at L: %1 of the circle").arg(formatNumber(cp.newFraction, 3)),
         tr("new: %1 of the circle").arg(formatNumber(cp.newFraction, 3)),
         tr("new %1").arg(formatNumber(cp.newFraction, 3))},
        {tr("attention factor %1").arg(formatNumber(t.attentionFactor, 5))},
        {baseLine},
    };
    const QColor lineColours[] = {th.accent, th.cursor, th.foreground, th.foreground, th.muted, th.muted};
    for (int k = 0; k < (baseInPanel ? 6 : 5); ++k) {
        if (k == 4 && ctx.answerPending) // the attention factor answers 12.2 (and the base in force 11.5)
            break;
        text.draw(QRectF(circlePanel.left(), cy, circlePanel.width(), lfm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                  k == 3 ? th.font(9.5 * s, true) : labelFont, lineColours[k], lineTexts[k]);
        cy += lfm.height() * 1.1;
    }
}

/// The hovered pair's numbers in a tag at the top of the wavelength panel, over the plot (on screen only): drawn
/// over the figure, outside the layout, a hover tag may cover labels while the mouse is there.
void ExtensionPainter::drawHoverTag()
{
    const int hover = ctx.hoverPair;
    const core::ExtensionPair& q = t.pairs[std::size_t(hover)];
    const QString band = QString::fromStdString(core::extensionBandName(t, q.band));
    const QStringList lines = !ctx.withheldHover.isEmpty()
        ? QStringList{ctx.withheldHover}
        : QStringList{
            tr("pair %1: wavelength %2 \u2192 %3")
                .arg(hover)
                .arg(formatTokens(q.wavelengthOld), formatTokens(q.wavelengthNew)),
            tr("slowed \u00d7%1 (%2)").arg(formatNumber(q.scale, 4), band),
            tr("%1 turns in training, %2 at L; new: %3 of the circle")
                .arg(formatNumber(q.turnsTrained, 3), formatNumber(q.turnsNow, 3), formatNumber(q.newFraction, 3))};
    double w = 0;
    for (const QString& l : lines)
        w = std::max(w, lfm.horizontalAdvance(l));
    w = std::min(w + 8 * s, wave.width());
    const double h = lines.size() * lfm.height() + 6 * s;
    const double x = std::clamp(xOf(hover) - w / 2, wave.left(), wave.right() - w);
    const QRectF tag(x, wave.top() + 2 * s, w, h);
    p.setPen(QPen(th.cursor, 1.0 * s));
    p.setBrush(withAlpha(th.background, 235));
    p.drawRoundedRect(tag, 3 * s, 3 * s);
    p.setPen(QPen(th.cursor, 1.0 * s, Qt::DotLine));
    p.drawLine(QPointF(xOf(hover), tag.bottom()), QPointF(xOf(hover), scaleR.bottom()));
    p.setPen(th.foreground);
    p.setFont(labelFont);
    for (int k = 0; k < lines.size(); ++k)
        p.drawText(QRectF(tag.left() + 4 * s, tag.top() + 3 * s + k * lfm.height(), tag.width() - 8 * s, lfm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, lines[k]);
}

} // namespace poslab::ui
