// SPDX-License-Identifier: MIT
#include "ui/render/plotutils.h"

#include "core/numbertext.h"

#include <QFontMetricsF>
#include <QPaintEngine>
#include <QPainterPath>
#include <QLinearGradient>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

std::vector<double> niceTicks(double lo, double hi, int target)
{
    std::vector<double> ticks;
    if (!(hi > lo) || target < 1)
        return {lo};
    const double raw = (hi - lo) / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return ticks;
}

std::vector<double> integerTicks(double lo, double hi, int target)
{
    // niceTicks' 1-2-5 steps, but never below 1: positions and pair numbers are whole (at 5 positions the
    // ticks read 0, 1, 2, 3, 4, not 0, 0.5, 1, 1.5).
    std::vector<double> ticks = niceTicks(lo, hi, target);
    if (ticks.size() >= 2 && ticks[1] - ticks[0] >= 1.0)
        return ticks;
    ticks.clear();
    for (double v = std::ceil(lo); v <= hi; v += 1.0)
        ticks.push_back(v);
    return ticks;
}

QString formatNumber(double v, int significant)
{
    if (!std::isfinite(v))
        return std::isnan(v) ? QStringLiteral("NaN") : (v > 0 ? QStringLiteral("\u221e") : QStringLiteral("-\u221e"));
    significant = std::max(1, significant);
    const double a = std::abs(v);
    if (a == 0.0)
        return QStringLiteral("0"); // also -0.0
    const QString sign = v < 0 ? QStringLiteral("-") : QString();
    if (a >= 1e7 || a < 1e-3)
        return sign
            + QString::number(a, 'g', significant)
                  .replace(QStringLiteral("e+0"), QStringLiteral("e"))
                  .replace(QStringLiteral("e+"), QStringLiteral("e"))
                  .replace(QStringLiteral("e-0"), QStringLiteral("e-"));
    const int exponent = int(std::floor(std::log10(a)));
    const int decimals = std::max(0, significant - 1 - exponent);
    QString s = QString::number(a, 'f', decimals);
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    const qsizetype dot = s.indexOf(QLatin1Char('.'));
    const QString whole = dot < 0 ? s : s.left(dot);
    const QString rest = dot < 0 ? QString() : s.mid(dot);
    if (whole == QLatin1String("0") && rest.isEmpty())
        return QStringLiteral("0");
    return sign + QString::fromStdString(core::groupThousands(whole.toStdString())) + rest;
}

QString formatTokens(double v)
{
    const QString n = formatNumber(v, 4);
    return n == QLatin1String("1") ? QStringLiteral("1 token") : QStringLiteral("%1 tokens").arg(n);
}

namespace {

/// The header's lines as drawHeader() draws them.
struct HeaderPlan {
    QString left1, right1; ///< first line: bold text, muted note at the right
    QString left2, right2; ///< second line: bold detail or muted note at the left, muted note at the right
    bool left2Bold = false;
    int lines = 1;
};

HeaderPlan planHeader(double width, const QFont& titleFont, const QFont& noteFont, const HeaderTexts& h)
{
    const QFontMetricsF nf(noteFont);
    auto tw = [&](const QString& t) { return textAdvance(titleFont, t); };
    auto nw = [&](const QString& t) { return textAdvance(noteFont, t); };
    HeaderPlan plan;
    const double sep = nf.height(); // the least room between the bold text and the note
    auto joined
        = [&](const QString& d) { return d.isEmpty() ? h.title : QStringLiteral("%1 \u2014 %2").arg(h.title, d); };
    QStringList details = h.detail;
    if (details.isEmpty())
        details << QString();
    for (const QString& d : details)
        for (const QString& n : h.note)
            if (tw(joined(d)) + sep + nw(n) <= width) {
                plan.left1 = joined(d);
                plan.right1 = n;
                return plan;
            }
    auto firstNoteWithin = [&](double room) {
        for (const QString& n : h.note)
            if (nw(n) <= room)
                return n;
        return QString();
    };
    for (const QString& d : details)
        if (tw(joined(d)) <= width) {
            plan.left1 = joined(d);
            plan.left2 = firstNoteWithin(width);
            plan.lines = plan.left2.isEmpty() ? 1 : 2;
            return plan;
        }
    // A title too long for its line wraps at its last part, " · " or ", " whichever comes last (the details after
    // the variant: "d = 128", "layout interleaved", then the variant's own: "long_factor [48 values]", "trained
    // 4,096"), part by part until it fits, so that "RoPE · LongRoPE, trained 4,096" keeps the variant's name
    // (cutting every " · " part first left "RoPE"). What was split off goes to the second line when it fits there,
    // before any detail, and is dropped otherwise. Only a title whose first part alone is too long is cut by the
    // layout (a small panel; never at slide sizes, where the layout test fails on it).
    plan.left1 = h.title;
    while (tw(plan.left1) > width) {
        const qsizetype cut = std::max(plan.left1.lastIndexOf(QStringLiteral(" \u00b7 ")),
                                       plan.left1.lastIndexOf(QStringLiteral(", ")));
        if (cut <= 0)
            break;
        plan.left1 = plan.left1.left(cut);
    }
    if (plan.left1 != h.title) {
        QString rest = h.title.mid(plan.left1.size());
        while (!rest.isEmpty()
               && (rest[0] == QLatin1Char(' ') || rest[0] == QLatin1Char(',') || rest[0] == QChar(0x00b7)))
            rest.remove(0, 1); // the separator the title was split at
        if (!rest.isEmpty() && tw(rest) <= width) {
            plan.left2 = rest;
            plan.left2Bold = true;
            plan.right2 = firstNoteWithin(width - tw(rest) - sep);
            plan.lines = 2;
            return plan;
        }
    }
    for (const QString& d : details)
        if (!d.isEmpty() && tw(d) <= width) {
            plan.left2 = d;
            plan.left2Bold = true;
            plan.right2 = firstNoteWithin(width - tw(d) - sep);
            break;
        }
    if (plan.left2.isEmpty())
        plan.left2 = firstNoteWithin(width);
    plan.lines = plan.left2.isEmpty() ? 1 : 2;
    return plan;
}

} // namespace

/// @p header with the theme's heading (poslab export --title) in place of its title.
static HeaderTexts withHeading(const Theme& theme, HeaderTexts header)
{
    if (!theme.heading.isEmpty())
        header.title = theme.heading;
    return header;
}

double headerHeight(double width, const Theme& theme, double scale, const HeaderTexts& header)
{
    const QFont titleFont = theme.font(12 * scale, true);
    const HeaderPlan plan = planHeader(width, titleFont, theme.font(10 * scale), withHeading(theme, header));
    return QFontMetricsF(titleFont).height() * plan.lines;
}

double drawHeader(TextLayout& text, const QRectF& area, const Theme& theme, double scale, const HeaderTexts& header)
{
    const QFont titleFont = theme.font(12 * scale, true);
    const QFont noteFont = theme.font(10 * scale);
    const QFontMetricsF tf(titleFont), nf(noteFont);
    const HeaderPlan plan = planHeader(area.width(), titleFont, noteFont, withHeading(theme, header));
    // Both lines are a title line high, so the header's height does not depend on which line holds what.
    const QRectF line1(area.left(), area.top(), area.width(), tf.height());
    const QRectF line2 = line1.translated(0, tf.height());
    // A title shortened by planHeader's rule draws its short form and keeps the whole for a tooltip.
    const QString whole = withHeading(theme, header).title;
    const bool shortened = whole.size() > plan.left1.size() && whole.startsWith(plan.left1);
    text.draw(line1, Qt::AlignLeft | Qt::AlignVCenter, titleFont, theme.foreground,
              shortened ? QStringList{whole, plan.left1} : QStringList{plan.left1});
    if (!plan.right1.isEmpty())
        text.draw(line1, Qt::AlignRight | Qt::AlignVCenter, noteFont, theme.muted, {plan.right1},
                  TextLayout::Fit::Drop);
    if (!plan.left2.isEmpty())
        text.draw(line2, Qt::AlignLeft | Qt::AlignVCenter, plan.left2Bold ? titleFont : noteFont,
                  plan.left2Bold ? theme.foreground : theme.muted, {plan.left2}, TextLayout::Fit::Drop);
    if (!plan.right2.isEmpty())
        text.draw(line2, Qt::AlignRight | Qt::AlignVCenter, noteFont, theme.muted, {plan.right2},
                  TextLayout::Fit::Drop);
    return area.top() + tf.height() * plan.lines;
}

double sizeScale(const QRectF& rect)
{
    return std::clamp(std::min(rect.width() / 640.0, rect.height() / 420.0), 1.0, 3.0);
}

QList<QLineF> dashSegments(const QPolygonF& line, const QPen& pen)
{
    QList<QLineF> out;
    auto finite = [](const QPointF& p) { return std::isfinite(p.x()) && std::isfinite(p.y()); };
    const bool solid = pen.style() == Qt::SolidLine;
    // The pattern is in pen widths (QPen::dashPattern), the first entry a dash, then a gap, and so on.
    const QList<qreal> pattern = solid ? QList<qreal>() : pen.dashPattern();
    const double w = std::max(pen.widthF(), 1.0);
    double patternLength = 0;
    for (qreal v : pattern)
        patternLength += v;
    const bool dashed = !pattern.isEmpty() && patternLength > 0;
    qsizetype k = 0;
    double left = dashed ? pattern[0] * w : 0.0; // of the current dash or gap
    for (qsizetype i = 1; i < line.size(); ++i) {
        const QPointF a = line[i - 1], b = line[i];
        if (!finite(a) || !finite(b))
            continue; // a value that is not a number breaks the line there
        const QLineF seg(a, b);
        const double len = seg.length();
        if (len <= 0)
            continue;
        if (!dashed) {
            out.append(seg);
            continue;
        }
        double t = 0;
        while (t < len) {
            const double step = std::min(left, len - t);
            if (k % 2 == 0 && step > 0)
                out.append(QLineF(seg.pointAt(t / len), seg.pointAt((t + step) / len)));
            t += step;
            left -= step;
            if (left <= 1e-9) {
                k = (k + 1) % pattern.size();
                left = pattern[k] * w;
            }
        }
    }
    return out;
}

void drawPolylineFast(QPainter& p, const QPolygonF& line, const QPen& pen)
{
    p.save();
    p.setBrush(Qt::NoBrush);
    if (p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster) {
        QPen solid = pen;
        solid.setStyle(Qt::SolidLine);
        p.setPen(solid);
        p.drawLines(dashSegments(line, pen));
    } else {
        p.setPen(pen);
        // Split where a value is not a number, as the raster path does.
        QPolygonF run;
        for (const QPointF& pt : line) {
            if (std::isfinite(pt.x()) && std::isfinite(pt.y())) {
                run.append(pt);
                continue;
            }
            if (run.size() >= 2)
                p.drawPolyline(run);
            run.clear();
        }
        if (run.size() >= 2)
            p.drawPolyline(run);
    }
    p.restore();
}

void drawNotApplicable(QPainter& p, const QRectF& rect, const Theme& theme, const QString& title, const QString& reason)
{
    p.fillRect(rect, theme.background);
    const double s = sizeScale(rect);
    QRectF box = rect.adjusted(rect.width() * 0.08, rect.height() * 0.1, -rect.width() * 0.08, -rect.height() * 0.1);
    {
        QPainterPath frame;
        frame.addRoundedRect(box, 10 * s, 10 * s);
        for (const QPolygonF& ring : frame.toSubpathPolygons())
            drawPolylineFast(p, ring, QPen(theme.grid, 1.5 * s, Qt::DashLine));
    }
    const QFont big = theme.font(15 * s, true);
    const QFont small = theme.font(11 * s);
    const QRectF inner = box.adjusted(16 * s, 12 * s, -16 * s, -12 * s);
    TextLayout text(p, rect);
    // The title takes the lines it needs (at most half), the reason (why, and what to pick) all the rest, so a
    // small panel shows the whole reason; the two are centred together.
    const int wrap = int(Qt::TextWordWrap | Qt::AlignHCenter);
    const QRectF measure(0, 0, inner.width(), 1e6);
    const double titleH = std::min(inner.height() / 2, QFontMetricsF(big).boundingRect(measure, wrap, title).height());
    const double reasonH = QFontMetricsF(small).boundingRect(measure, wrap, reason).height();
    const double gap = 8 * s;
    const double y = inner.top() + std::max(0.0, (inner.height() - titleH - gap - reasonH) / 2);
    // The reason whole if it fits (whole sentences only); else what to change, the part after its first ": "
    // ("a larger size or a smaller font scale"), which is what a reader acts on; else only the title, which then
    // carries the whole reason for its tooltip. No line is cut with "…".
    const QRectF reasonBox(inner.left(), y + titleH + gap, inner.width(), inner.bottom() - (y + titleH + gap));
    const int reasonLines = std::max(0, int(std::floor((reasonBox.height() + 0.01) / QFontMetricsF(small).height())));
    QString shown = sentencesThatFit(reason, small, inner.width(), reasonLines);
    if (shown.isEmpty() && reason.contains(QStringLiteral(": ")))
        shown = sentencesThatFit(reason.section(QStringLiteral(": "), 1), small, inner.width(), reasonLines);
    const QRectF titleBox(inner.left(), y, inner.width(), titleH + 1);
    if (shown.isEmpty() && textAdvance(big, title) <= inner.width())
        text.draw(titleBox, Qt::AlignHCenter | Qt::AlignTop, big, theme.foreground,
                  {title + QLatin1Char(' ') + reason, title}, TextLayout::Fit::Drop);
    else
        text.drawWrapped(titleBox, Qt::AlignHCenter | Qt::AlignTop, big, theme.foreground, title);
    if (!shown.isEmpty())
        text.drawWrapped(reasonBox, Qt::AlignHCenter | Qt::AlignTop, small, theme.muted, shown, reason);
}

double colorBarLabelWidth(const Theme& theme, double scale)
{
    const QFontMetricsF fm(theme.font(10.0 * scale));
    return 8 + fm.horizontalAdvance(QStringLiteral("-0.000")) + fm.height() * 0.2;
}

std::vector<double> colorBarTicks(ValueRange range, double barHeight, const QFontMetricsF& fm)
{
    // As many ticks as fit with a line between them; a tick label that would touch another is dropped.
    const int target = std::clamp(int(barHeight / (fm.height() * 1.6)), 2, 5);
    std::vector<double> ticks = niceTicks(range.lo, range.hi, target);
    // A coarse step can leave one label (±4.3 in steps of 5): ask for more; the layout drops any that touch.
    if (ticks.size() < 3)
        ticks = niceTicks(range.lo, range.hi, 2 * target + 1);
    return ticks;
}

void drawColorBar(QPainter& p, TextLayout& text, const QRectF& bar, const ColorMap& map, ValueRange range,
                  const Theme& theme, const QString& label, double scale)
{
    const auto& lut = map.table();
    QLinearGradient g(bar.bottomLeft(), bar.topLeft());
    for (int i = 0; i < 256; i += 15)
        g.setColorAt(i / 255.0, QColor::fromRgb(lut[std::size_t(i)]));
    g.setColorAt(1.0, QColor::fromRgb(lut[255]));
    p.fillRect(bar, g);
    p.setPen(QPen(theme.muted, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    const QFont f = theme.font(10.0 * scale);
    const QFontMetricsF fm(f);
    for (double v : colorBarTicks(range, bar.height(), fm)) {
        const double y = bar.bottom() - (v - range.lo) / (range.hi - range.lo) * bar.height();
        p.setPen(theme.foreground);
        p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 5, y));
        text.drawAt(QPointF(bar.right() + 8, y), Qt::AlignLeft | Qt::AlignVCenter, f, theme.foreground,
                    {formatNumber(v)});
    }
    if (!label.isEmpty()) {
        p.save();
        p.translate(bar.right() + 8 + fm.horizontalAdvance(QStringLiteral("-0.00")) + fm.height() * 0.9,
                    bar.center().y());
        p.rotate(90);
        text.draw(QRectF(-bar.height() / 2, -fm.height(), bar.height(), fm.height()), Qt::AlignCenter, f, theme.muted,
                  {label});
        p.restore();
    }
}

} // namespace poslab::ui
